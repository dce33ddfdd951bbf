// RUN: %tlx-opt %s --split-input-file --tlx-dot-operands-in-place | %FileCheck %s
// wgmma reads a buffer in place instead of triton's copy of it, when the copy
// would be the same bytes in the same layout and nothing writes in between.

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
!buf = !ttg.memdesc<64x64xf16, #nvmma, #smem, mutable>
!copy = !ttg.memdesc<64x64xf16, #nvmma, #smem>
!opA = tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
!opB = tensor<64x64xf16, #ttg.dot_op<{opIdx = 1, parent = #blocked1}>>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: tt.func @in_place
  tt.func @in_place(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf32, #mma> {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    // CHECK: ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #{{.*}}, #smem, mutable>
    // CHECK-NEXT: %[[B:.*]] = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #{{.*}}, #smem, mutable>
    %a = ttg.local_alloc : () -> !buf
    %b = ttg.local_alloc : () -> !buf
    ttg.local_store %x, %a : tensor<64x64xf16, #blocked> -> !buf
    ttg.local_store %x, %b : tensor<64x64xf16, #blocked> -> !buf
    %al = ttg.local_load %a : !buf -> !opA
    %bl = ttg.local_load %b : !buf -> !opB
    %bc = ttg.local_alloc %bl : (!opB) -> !copy
    // CHECK-NOT: ttg.local_alloc %
    // CHECK: ttng.fence_async_shared {bCluster = false}
    // CHECK-NEXT: ttng.warp_group_dot %{{.*}}, %[[B]], %{{.*}} {{.*}} * !ttg.memdesc<64x64xf16, #{{.*}}, #smem, mutable> -> tensor<64x64xf32, #mma>
    %d = ttng.warp_group_dot %al, %bc, %zero {inputPrecision = 0 : i32} : !opA * !copy -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }

  // A write between the load and the dot: the copy's snapshot is needed.
  // CHECK-LABEL: tt.func @write_in_between
  tt.func @write_in_between(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf32, #mma> {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %a = ttg.local_alloc : () -> !buf
    %b = ttg.local_alloc : () -> !buf
    %al = ttg.local_load %a : !buf -> !opA
    %bl = ttg.local_load %b : !buf -> !opB
    ttg.local_store %x, %b : tensor<64x64xf16, #blocked> -> !buf
    // CHECK: %[[COPY:.*]] = ttg.local_alloc %{{.*}} : (tensor
    %bc = ttg.local_alloc %bl : (!opB) -> !copy
    // CHECK: ttng.warp_group_dot %{{.*}}, %[[COPY]]
    %d = ttng.warp_group_dot %al, %bc, %zero {inputPrecision = 0 : i32} : !opA * !copy -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }

  // The view's layout differs from the copy's: keep the copy.
  // CHECK-LABEL: tt.func @other_layout
  tt.func @other_layout(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf32, #mma> {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %a = ttg.local_alloc : () -> !buf
    %b = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #smem, mutable>
    %al = ttg.local_load %a : !buf -> !opA
    %bl = ttg.local_load %b : !ttg.memdesc<64x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #smem, mutable> -> !opB
    // CHECK: ttg.local_alloc %{{.*}} : (tensor
    %bc = ttg.local_alloc %bl : (!opB) -> !copy
    %d = ttng.warp_group_dot %al, %bc, %zero {inputPrecision = 0 : i32} : !opA * !copy -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}
