// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics --tlx-check-hazards
//
// tlx-check-hazards knows the proxy fences triton's own fence insertion adds
// after it (make_llir on triton 3.7/3.8): before a wgmma whose operand comes
// from a local_alloc initialized from registers, or from one with a
// local_store down a chain of single-use views, hoisted out of loops that
// hold none of those stores. A local_store read by a wgmma of the same task
// is then fenced in the binary and not reported; where triton's rule does
// not see the store (a view with two uses), it still is.

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#smem = #ttg.shared_memory
!ring = !ttg.memdesc<2x64x64xf16, #nv, #smem, mutable>
!tile = !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // The store's view has one use: triton fences before the wgmma.
  tt.func @store_then_dot(%t: tensor<64x64xf16, #blocked>) {
    %c0 = arith.constant 0 : i32
    %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %ring = ttg.local_alloc : () -> !ring
    %dst = ttg.memdesc_index %ring[%c0] : !ring -> !tile
    ttg.local_store %t, %dst : tensor<64x64xf16, #blocked> -> !tile
    %src = ttg.memdesc_index %ring[%c0] : !ring -> !tile
    %r = ttng.warp_group_dot %src, %src, %acc : !tile * !tile -> tensor<64x64xf32, #mma>
    tt.return
  }

  // Stored before a loop whose wgmma reads it: the fence triton hoists out
  // of the loop still lies between them.
  tt.func @store_then_dot_in_a_loop(%t: tensor<64x64xf16, #blocked>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %ring = ttg.local_alloc : () -> !ring
    %dst = ttg.memdesc_index %ring[%c0] : !ring -> !tile
    ttg.local_store %t, %dst : tensor<64x64xf16, #blocked> -> !tile
    %out = scf.for %k = %c0 to %n step %c1 iter_args(%a = %acc) -> (tensor<64x64xf32, #mma>) : i32 {
      %src = ttg.memdesc_index %ring[%c0] : !ring -> !tile
      %r = ttng.warp_group_dot %src, %src, %a : !tile * !tile -> tensor<64x64xf32, #mma>
      scf.yield %r : tensor<64x64xf32, #mma>
    }
    tt.return
  }

  // The stored view also feeds the wgmma (two uses): triton's rule does not
  // follow it to the store, so no fence comes, and the race is reported.
  tt.func @store_through_a_shared_view(%t: tensor<64x64xf16, #blocked>) {
    %c0 = arith.constant 0 : i32
    %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %ring = ttg.local_alloc : () -> !ring
    %view = ttg.memdesc_index %ring[%c0] : !ring -> !tile
    // expected-note @+1 {{the local_store not fenced}}
    ttg.local_store %t, %view : tensor<64x64xf16, #blocked> -> !tile
    // expected-warning @+1 {{wgmma (dot) of buffer[0] reads bytes [0, 8192) of allocation at}}
    %r = ttng.warp_group_dot %view, %view, %acc : !tile * !tile -> tensor<64x64xf32, #mma>
    tt.return
  }
}
