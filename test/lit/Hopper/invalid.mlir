// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics
//
// TMA descriptors are written in triton 3.7's spelling; %triton-syntax rewrites
// them for the running triton (lit.cfg.py).

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @dot_k_mismatch(%a: !ttg.memdesc<64x64xf16, #nv, #smem, mutable>, %b: !ttg.memdesc<32x64xf16, #nv, #smem, mutable>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{A is 64x64 but B is 32x64: A's columns must equal B's rows}}
  %d = tlx.async_dot %a, %b, %c : !ttg.memdesc<64x64xf16, #nv, #smem, mutable>, !ttg.memdesc<32x64xf16, #nv, #smem, mutable>, tensor<64x64xf32> -> tensor<64x64xf32>
  tt.return
}

// -----

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @dot_dtype_mismatch(%a: !ttg.memdesc<64x64xf16, #nv, #smem, mutable>, %b: !ttg.memdesc<64x64xbf16, #nv, #smem, mutable>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{A and B element types differ: 'f16' vs 'bf16'}}
  %d = tlx.async_dot %a, %b, %c : !ttg.memdesc<64x64xf16, #nv, #smem, mutable>, !ttg.memdesc<64x64xbf16, #nv, #smem, mutable>, tensor<64x64xf32> -> tensor<64x64xf32>
  tt.return
}

// -----

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @dot_acc_shape(%a: !ttg.memdesc<64x64xf16, #nv, #smem, mutable>, %b: !ttg.memdesc<64x128xf16, #nv, #smem, mutable>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{accumulator is 64x64 but A x B is 64x128}}
  %d = tlx.async_dot %a, %b, %c : !ttg.memdesc<64x64xf16, #nv, #smem, mutable>, !ttg.memdesc<64x128xf16, #nv, #smem, mutable>, tensor<64x64xf32> -> tensor<64x64xf32>
  tt.return
}

// -----

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
tt.func @tma_wrong_shape(%d: !tt.tensordesc<tensor<128x64xf16>>, %a: !ttg.memdesc<64x64xf16, #nv, #smem, mutable>, %bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>, %x: i32, %p: i1) {
  // expected-error @+1 {{does not match the descriptor's block 'tensor<128x64xf16>'}}
  tlx.async_descriptor_load %d[%x, %x] %a, %bar, %p : !tt.tensordesc<tensor<128x64xf16>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
  tt.return
}

// -----

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @tma_barrier_not_one(%d: !tt.tensordesc<tensor<64x64xf16>>, %a: !ttg.memdesc<64x64xf16, #nv, #smem, mutable>, %x: i32, %p: i1) {
  // expected-error @+1 {{barrier must be one mbarrier (!ttg.memdesc<1xi64>)}}
  tlx.async_descriptor_load %d[%x, %x] %a, %a, %p : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
  tt.return
}

// -----

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
tt.func @tma_coords(%d: !tt.tensordesc<tensor<64x64xf16>>, %a: !ttg.memdesc<64x64xf16, #nv, #smem, mutable>, %x: i32) {
  // expected-error @+1 {{expects 2 coordinates, got 1}}
  tlx.async_descriptor_store %d[%x] %a : !tt.tensordesc<tensor<64x64xf16>>, !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
  tt.return
}

// -----

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#smem = #ttg.shared_memory
tt.func @tma_reduce_kind(%d: !tt.tensordesc<tensor<64x64xf32>>, %a: !ttg.memdesc<64x64xf32, #nv, #smem, mutable>, %x: i32) {
  // expected-error @+1 {{reduce_kind must be a triton DescriptorReduceKind (> 0), got 0}}
  tlx.async_descriptor_store %d[%x, %x] %a {reduce_kind = 0 : i32} : !tt.tensordesc<tensor<64x64xf32>>, !ttg.memdesc<64x64xf32, #nv, #smem, mutable>
  tt.return
}
