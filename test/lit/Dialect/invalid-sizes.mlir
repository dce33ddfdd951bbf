// RUN: %tlx-opt %s --split-input-file --verify-diagnostics
// Sizes beyond what triton can allocate (int32 bytes) or int64 can count are
// refused by the verifiers, before the lowering walks the buffers one by one
// or hands the sizes to triton's layout code (issue 29: a
// 99999999999x64x64xf32 buffer took minutes; a product past 2^63 wrapped).

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [2, 1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @huge_buffer_count() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    // 2^36 buffers: a power of two, which triton 3.9's memdesc verifier
    // requires of every dimension before ours runs.
    // expected-error @+1 {{needs 1125899906842624 bytes, beyond the largest allocation triton can express (2147483647 bytes)}}
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<68719476736x64x64xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [2, 1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @just_beyond_int32() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    // expected-error @+1 {{needs 2147483648 bytes, beyond the largest allocation}}
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<131072x128x128xi8, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [2, 1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @product_overflows_int64() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    // expected-error @+1 {{needs more than 2^63 bytes, beyond the largest allocation}}
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x4294967296x4294967296xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @huge_tmem_buffer_count() {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    // expected-error @+1 {{needs 140737488355328 bytes, beyond the largest allocation}}
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<4294967296x128x64xf32, #tmem, #ttng.tensor_memory, mutable>
    tt.return
  }
}

// -----

tt.func @spec_size_beyond_int32() {
  // expected-error @+1 {{buffer_size_bytes 99999999999 is beyond the largest allocation triton can express (2147483647 bytes)}}
  %0 = tlx.storage_alias_spec storage = smem, size = 99999999999 : !tlx.storage_alias_spec<smem, 99999999999>
  tt.return
}

// -----

// expected-error @+1 {{buffer_size_bytes 2147483648 is beyond the largest allocation}}
tt.func private @type_size_beyond_int32(!tlx.storage_alias_spec<tmem, 2147483648>)
