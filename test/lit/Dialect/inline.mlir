// RUN: %tlx-opt %s --inline | %FileCheck %s

// A @triton.jit helper holding tlx ops inlines into its caller (the TLX
// dialect's inliner interface): make_ttir's inliner would otherwise keep the
// call, and the TLX lowering sees only the kernel.

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
!a = !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  tt.func private @qk(%a: !a, %b: !a, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %d = tlx.async_dot %a, %b, %c : !a, !a, tensor<64x64xf32> -> tensor<64x64xf32>
    %w = tlx.async_dot_wait %d {pendings = 0 : i32} : tensor<64x64xf32>
    tt.return %w : tensor<64x64xf32>
  }
  // CHECK-NOT: tt.func private @qk
  // CHECK-LABEL: tt.func public @kernel(
  // CHECK-NOT: tt.call
  // CHECK: %[[D:.+]] = tlx.async_dot %arg0, %arg1, %{{.+}}
  // CHECK: %[[W:.+]] = tlx.async_dot_wait %[[D]] {pendings = 0 : i32}
  // CHECK: tt.store %arg2, %[[W]]
  tt.func public @kernel(%a: !a, %b: !a, %out: tensor<64x64x!tt.ptr<f32>>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %r = tt.call @qk(%a, %b, %zero) : (!a, !a, tensor<64x64xf32>) -> tensor<64x64xf32>
    tt.store %out, %r : tensor<64x64x!tt.ptr<f32>>
    tt.return
  }
}
