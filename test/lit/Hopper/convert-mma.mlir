// RUN: %tlx-opt %s --split-input-file --tlx-convert-mma | %FileCheck %s

// An async_dot from shared memory: the accumulator gets Triton's Hopper MMA
// layout (instrShape n = 256 for a 128x256 tile on 4 warps), goes in and out
// through convert_layout, and the wait keeps its count.

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!a = !ttg.memdesc<128x64xf16, #nv, #smem, mutable>
!b = !ttg.memdesc<64x256xf16, #nv, #smem, mutable>
// CHECK-DAG: #[[MMA:.+]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 256, 16]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: tt.func @smem_operands(
  tt.func @smem_operands(%a: !a, %b: !b, %c: tensor<128x256xf32, #blocked>, %out: tensor<128x256x!tt.ptr<f32>, #blocked>) {
    // CHECK: %[[C:.+]] = ttg.convert_layout %{{.+}} : tensor<128x256xf32, #blocked> -> tensor<128x256xf32, #[[MMA]]>
    // CHECK: %[[D:.+]] = ttng.warp_group_dot %{{.+}}, %{{.+}}, %[[C]] {isAsync = true}
    // CHECK: %[[W:.+]] = ttng.warp_group_dot_wait %[[D]] {pendings = 1 : i32}
    // CHECK: %[[E:.+]] = ttg.convert_layout %[[W]] : tensor<128x256xf32, #[[MMA]]> -> tensor<128x256xf32, #blocked>
    // CHECK: tt.store %{{.+}}, %[[E]]
    // CHECK-NOT: unrealized_conversion_cast
    %c0 = builtin.unrealized_conversion_cast %c : tensor<128x256xf32, #blocked> to tensor<128x256xf32>
    %d = tlx.async_dot %a, %b, %c0 : !a, !b, tensor<128x256xf32> -> tensor<128x256xf32>
    %w = tlx.async_dot_wait %d {pendings = 1 : i32} : tensor<128x256xf32>
    %e = builtin.unrealized_conversion_cast %w : tensor<128x256xf32> to tensor<128x256xf32, #blocked>
    tt.store %out, %e : tensor<128x256x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// Eight warps on a 128-row tile: two warp groups along M. Inside a
// warp_specialize partition of 4 warps the layout follows the partition.

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
#blocked4 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!a = !ttg.memdesc<128x64xf16, #nv, #smem, mutable>
!b = !ttg.memdesc<64x128xf16, #nv, #smem, mutable>
// CHECK-DAG: #[[MMA8:.+]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
// CHECK-DAG: #[[MMA4:.+]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
module attributes {"ttg.num-warps" = 8 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: tt.func @warps(
  tt.func @warps(%a: !a, %b: !b, %c: tensor<128x128xf32, #blocked>) {
    // CHECK: ttng.warp_group_dot {{.+}} -> tensor<128x128xf32, #[[MMA8]]>
    %c0 = builtin.unrealized_conversion_cast %c : tensor<128x128xf32, #blocked> to tensor<128x128xf32>
    %d = tlx.async_dot %a, %b, %c0 : !a, !b, tensor<128x128xf32> -> tensor<128x128xf32>
    ttg.warp_specialize(%a, %b)
    default {
      ttg.warp_yield
    }
    // CHECK: partition0
    partition0(%pa: !a, %pb: !b) num_warps(4) {
      // CHECK: ttng.warp_group_dot {{.+}} -> tensor<128x128xf32, #[[MMA4]]>
      %z = arith.constant dense<0.0> : tensor<128x128xf32, #blocked4>
      %z0 = builtin.unrealized_conversion_cast %z : tensor<128x128xf32, #blocked4> to tensor<128x128xf32>
      %e = tlx.async_dot %pa, %pb, %z0 : !a, !b, tensor<128x128xf32> -> tensor<128x128xf32>
      ttg.warp_return
    } : (!a, !b) -> ()
    tt.return
  }
}

// -----

// A register A operand takes the dot-operand layout of the MMA (kWidth 2 for
// 16-bit inputs).

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!b = !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: tt.func @register_a(
  tt.func @register_a(%a: tensor<64x64xf16, #blocked>, %b: !b, %c: tensor<64x64xf32, #blocked>) {
    // CHECK: ttg.convert_layout %{{.+}} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #{{.+}}, kWidth = 2}>>
    %a0 = builtin.unrealized_conversion_cast %a : tensor<64x64xf16, #blocked> to tensor<64x64xf16>
    %c0 = builtin.unrealized_conversion_cast %c : tensor<64x64xf32, #blocked> to tensor<64x64xf32>
    %d = tlx.async_dot %a0, %b, %c0 : tensor<64x64xf16>, !b, tensor<64x64xf32> -> tensor<64x64xf32>
    tt.return
  }
}
