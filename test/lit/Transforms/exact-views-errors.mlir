// RUN: %tlx-opt %s --split-input-file --verify-diagnostics --tlx-storage-alias-lowering=exact-views=1
//
// What exact views (triton 3.8's rules, exact-views.mlir) cannot express.

#padded = #ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // 3.8 reinterprets a padded byte allocation only to views of its one padding.
  tt.func @padded_buffer() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    // expected-error @below {{cannot place a buffer of a padded shared layout (#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>) in a storage_alias_spec under triton 3.8, which reinterprets only between views of one padding}}
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #padded, #smem, mutable>
    tt.return
  }
}
