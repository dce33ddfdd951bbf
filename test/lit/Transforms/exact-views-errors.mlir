// RUN: %tlx-opt %s --split-input-file --verify-diagnostics --tlx-storage-alias-lowering --tlx-rewrite-local-alias
// RUN: %if !packed-views %{ not %tlx-opt %s --split-input-file --tlx-storage-alias-lowering=exact-views=false 2>&1 | %FileCheck %s --check-prefix=OPTION %}
// RUN: %if !packed-views %{ not %tlx-opt %s --split-input-file --tlx-rewrite-local-alias=exact-views=false 2>&1 | %FileCheck %s --check-prefix=OPTION %}
//
// What exact views (triton 3.8's rules, exact-views.mlir; the default on
// every triton) cannot express. A padded shared layout in a
// storage_alias_spec is refused under triton 3.8 only (triton 3.7 keeps
// packed views for such a spec): padded.mlir.
//
// Under triton 3.8 packed views do not verify: exact-views=false is an
// error about the option.
// OPTION: error: exact-views=false asks for packed views, which only triton 3.7 verifies; this plugin is built for triton {{3\.[89]\.0}}

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1d = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // tlx-rewrite-local-alias widens every view to the whole base in whole
  // buffers; a root without a buffer dimension (32768 bytes) cannot be
  // widened to the 65536 bytes its alias needs.
  tt.func @root_without_buffer_dimension(%i: i32) {
    // expected-error @below {{cannot view '!ttg.memdesc<32768xi8, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>' in a storage of 65536 bytes under triton 3.8, which reinterprets only views of the whole storage: give it a buffer dimension}}
    %a = ttg.local_alloc : () -> !ttg.memdesc<32768xi8, #shared1d, #smem, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<32768xi8, #shared1d, #smem, mutable> -> !ttg.memdesc<4x64x64xf32, #shared, #smem, mutable>
    %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<4x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // distinct(a, b) of two 2 x 16384 bytes puts b's buffers at 16384 +
  // 32768 i; an alias of b with 32768-byte buffers would start them at an
  // offset that is no multiple of their size (packed views use byte slots:
  // control-flow.mlir, local_alias_of_view).
  tt.func @alias_buffer_not_at_a_multiple_of_its_size(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    // expected-error @below {{'tlx.local_alias' op cannot follow a storage alias view (offset 16384, 32768 bytes between buffers, as !ttg.memdesc<4x64x64xf32, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #ttg.shared_memory, mutable>): cannot place a buffer of 32768 bytes at offset 16384 with 32768 bytes between buffers in a storage of 65536 bytes under triton 3.8: the offsets, the stride and the storage must be multiples of the buffer's size}}
    %l = tlx.local_alias %b : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<2x64x128xf32, #shared, #smem, mutable>
    %w = ttg.memdesc_index %l[%i] : !ttg.memdesc<2x64x128xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x128xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // A rank-2 root that its alias outgrows is widened along its first
  // dimension like every view; its whole-tile load cannot follow, and the
  // error says so (not set_buffer_overlap's message: there is no spec).
  tt.func @rank2_root_loaded_beside_a_larger_alias(%i: i32) -> tensor<64x64xf32, #blocked> {
    %a = ttg.local_alloc : () -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    // expected-error @below {{'ttg.local_load' op uses a tlx.local_alias view, or its root, that exact views widen to the whole storage (offset 0, 256 bytes between buffers, as !ttg.memdesc<128x64xf32, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #ttg.shared_memory, mutable>); only ttg.memdesc_index, ttg.memdesc_reinterpret, tlx.local_alias and control flow may use it: give it a leading buffer dimension (e.g. 1x64x64 for 64x64) and index it}}
    %x = ttg.local_load %a : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> tensor<64x64xf32, #blocked>
    tt.return %x : tensor<64x64xf32, #blocked>
  }
}
