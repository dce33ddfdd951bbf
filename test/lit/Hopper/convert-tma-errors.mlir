// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --tlx-convert-tma --verify-diagnostics
//
// TMA descriptors are written in triton 3.7's spelling; %triton-syntax rewrites
// them for the running triton (lit.cfg.py).

// A descriptor serves one buffer layout; TMA needs one whose source it can retype.

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#nv64 = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  tt.func @two_layouts(%d: !tt.tensordesc<tensor<128x64xf16>>, %a: !ttg.memdesc<128x64xf16, #nv, #smem, mutable>, %b: !ttg.memdesc<128x64xf16, #nv64, #smem, mutable>, %bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>, %x: i32, %p: i1) {
    tlx.async_descriptor_load %d[%x, %x] %a, %bar, %p : !tt.tensordesc<tensor<128x64xf16>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<128x64xf16, #nv, #smem, mutable>
    // expected-error @+1 {{one descriptor serves buffers of one layout}}
    tlx.async_descriptor_load %d[%x, %x] %b, %bar, %p : !tt.tensordesc<tensor<128x64xf16>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<128x64xf16, #nv64, #smem, mutable>
    tt.return
  }
}

// -----

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  tt.func @loop_carried(%d: !tt.tensordesc<tensor<128x64xf16>>, %a: !ttg.memdesc<128x64xf16, #nv, #smem, mutable>, %bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>, %x: i32, %p: i1) {
    %r = scf.for %i = %x to %x step %x iter_args(%it = %d) -> (!tt.tensordesc<tensor<128x64xf16>>) : i32 {
      // expected-error @+1 {{needs a descriptor that is a kernel argument or comes from tl.make_tensor_descriptor}}
      tlx.async_descriptor_load %it[%x, %x] %a, %bar, %p : !tt.tensordesc<tensor<128x64xf16>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<128x64xf16, #nv, #smem, mutable>
      scf.yield %it : !tt.tensordesc<tensor<128x64xf16>>
    }
    tt.return
  }
}
