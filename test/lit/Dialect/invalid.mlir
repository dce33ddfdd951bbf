// RUN: %tlx-opt %s --split-input-file --verify-diagnostics
// One failing case per verifier rule of the tlx dialect.

// expected-error @+1 {{smemCluster storage is not supported for storage_alias_spec}}
tt.func private @type_smem_cluster(!tlx.storage_alias_spec<smemCluster>)

// -----

// The design's wording, whether the type or the op is checked first.
// expected-error @+1 {{buffer_size_bytes must be positive, got 0}}
tt.func private @type_zero_size(!tlx.storage_alias_spec<smem, 0>)

// -----

tt.func @spec_zero_size_assembly() {
  // expected-error @+1 {{buffer_size_bytes must be positive, got 0}}
  %0 = tlx.storage_alias_spec storage = tmem, size = 0 : !tlx.storage_alias_spec<tmem, 0>
  tt.return
}

// -----

tt.func @spec_zero_size() {
  // expected-error @+1 {{buffer_size_bytes must be positive, got 0}}
  %0 = "tlx.storage_alias_spec"() {storage = 0 : i32, buffer_size_bytes = 0 : i64} : () -> !tlx.storage_alias_spec<smem>
  tt.return
}

// -----

tt.func @spec_negative_size() {
  // expected-error @+1 {{buffer_size_bytes must be positive, got -100}}
  %0 = "tlx.storage_alias_spec"() {storage = 0 : i32, buffer_size_bytes = -100 : i64} : () -> !tlx.storage_alias_spec<smem>
  tt.return
}

// -----

tt.func @spec_smem_cluster() {
  // expected-error @+1 {{smemCluster storage is not supported for storage_alias_spec}}
  %0 = "tlx.storage_alias_spec"() {storage = 2 : i32} : () -> !tlx.storage_alias_spec<smem>
  tt.return
}

// -----

tt.func @spec_storage_mismatch() {
  // expected-error @+1 {{result type '!tlx.storage_alias_spec<tmem>' does not match storage = smem}}
  %0 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<tmem>
  tt.return
}

// -----

tt.func @spec_size_mismatch() {
  // expected-error @+1 {{result type '!tlx.storage_alias_spec<smem, 1024>' does not match size = 2048}}
  %0 = tlx.storage_alias_spec storage = smem, size = 2048 : !tlx.storage_alias_spec<smem, 1024>
  tt.return
}

// -----

tt.func @spec_size_missing() {
  // expected-error @+1 {{result type '!tlx.storage_alias_spec<smem, 1024>' has a size but the op has none}}
  %0 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem, 1024>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tt.func @alloc_memory_space_mismatch() {
  %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
  // expected-error @+1 {{result memory space #ttg.shared_memory does not match the storage_alias_spec's storage tmem (expected #ttng.tensor_memory)}}
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>
  tt.return
}

// -----

#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
tt.func @alloc_tmem_in_smem_spec() {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  // expected-error @+1 {{result memory space #ttng.tensor_memory does not match the storage_alias_spec's storage smem (expected #ttg.shared_memory)}}
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x128x64xf32, #tmem, #ttng.tensor_memory, mutable>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tt.func @alloc_immutable() {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  // expected-error @+1 {{result must be a mutable memory descriptor}}
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tt.func @alloc_no_buffer_dim() {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  // expected-error @+1 {{result must have a leading buffer dimension (shape [num, ...], rank >= 2), got rank 1}}
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<64xf32, #shared, #ttg.shared_memory, mutable>
  tt.return
}

// -----

tt.func @alloc_not_memdesc() {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  // expected-error @+1 {{result #0 must be memory descriptor (!ttg.memdesc), but got 'tensor<2x64xf32>'}}
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> tensor<2x64xf32>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
tt.func @alias_memory_space_mismatch() {
  %a = ttg.local_alloc : () -> !ttg.memdesc<2x128x64xf32, #shared, #ttg.shared_memory, mutable>
  // expected-error @+1 {{result memory space #ttng.tensor_memory differs from the source's #ttg.shared_memory}}
  %b = tlx.local_alias %a : !ttg.memdesc<2x128x64xf32, #shared, #ttg.shared_memory, mutable> -> !ttg.memdesc<2x128x64xf32, #tmem, #ttng.tensor_memory, mutable>
  tt.return
}

// -----

tt.func @group_empty() {
  // expected-error @+1 {{must have at least one element}}
  %g = "tlx.reuse_group"() {group_kind = 0 : i32} : () -> !tlx.reuse_group<shared>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tt.func @group_kind_mismatch() {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>
  // expected-error @+1 {{result type '!tlx.reuse_group<distinct>' does not match group_kind = shared}}
  %g = tlx.reuse_group(%a) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>) -> !tlx.reuse_group<distinct>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tt.func @group_nested_same_kind() {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>
  %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>
  %inner = tlx.reuse_group(%a) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>) -> !tlx.reuse_group<shared>
  // expected-error @+1 {{element 1 is a nested reuse_group with the same group_kind (shared) as its parent; nested groups must alternate between shared and distinct (or subtile, with group_size > 1)}}
  %g = tlx.reuse_group(%b, %inner) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>, !tlx.reuse_group<shared>) -> !tlx.reuse_group<shared>
  tt.return
}

// -----

tt.func @group_nested_block_argument(%inner: !tlx.reuse_group<distinct>) {
  // expected-error @+1 {{element 0 is a reuse group not defined by tlx.reuse_group}}
  %g = tlx.reuse_group(%inner) group_kind = shared : (!tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
tt.func @group_mixed_storage() {
  %s = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  %t = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
  %a = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x128x64xf32, #shared, #ttg.shared_memory, mutable>
  %b = tlx.storage_alias_local_alloc %t : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem, #ttng.tensor_memory, mutable>
  // expected-error @+1 {{all leaves must have the same storage kind: leaf 0 is smem but leaf 1 is tmem}}
  %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x128x64xf32, #shared, #ttg.shared_memory, mutable>, !ttg.memdesc<2x128x64xf32, #tmem, #ttng.tensor_memory, mutable>) -> !tlx.reuse_group<distinct>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tt.func @group_size_zero() {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>
  // expected-error @+1 {{group_size must be a positive integer, got 0}}
  %g = tlx.reuse_group(%a) group_kind = shared group_size = 0 : (!ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>) -> !tlx.reuse_group<shared>
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tt.func @overlap_leaf_not_spec_alloc() {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>
  %b = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>
  %g = tlx.reuse_group(%a, %b) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>, !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>) -> !tlx.reuse_group<shared>
  // expected-error @+1 {{leaf 1 ('!ttg.memdesc<2x64x64xf32, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #ttg.shared_memory, mutable>') is not a tlx.storage_alias_local_alloc; only allocations made with reuse=<storage_alias_spec> can be overlapped}}
  tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tt.func @overlap_other_spec() {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  %other = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>
  %b = tlx.storage_alias_local_alloc %other : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>
  %g = tlx.reuse_group(%a, %b) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>, !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>) -> !tlx.reuse_group<shared>
  // expected-error @+1 {{leaf 1 was allocated from a different storage_alias_spec}}
  tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
  tt.return
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tt.func @overlap_duplicate_leaf() {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>
  %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>
  %inner = tlx.reuse_group(%b, %a) group_kind = distinct : (!ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>, !ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>) -> !tlx.reuse_group<distinct>
  %g = tlx.reuse_group(%a, %inner) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #ttg.shared_memory, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
  // expected-error @+1 {{leaf 2 appears more than once in the overlap tree (first as leaf 0)}}
  tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
  tt.return
}

// -----

tt.func @overlap_def_block_argument(%g: !tlx.reuse_group<shared>) {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  // expected-error @+1 {{overlap definition must be defined by tlx.reuse_group}}
  tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
  tt.return
}
