// RUN: %tlx-opt %s --split-input-file --tlx-convert-local-memory --verify-diagnostics
//
// A tensor-memory access needs its register layout (a distributed one).
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {
  tt.func @no_register_layout() {
    %a = ttng.tmem_alloc : () -> !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable>
    // expected-error @+1 {{'tlx.local_load' op accesses tensor memory without a register layout: its 'tlx.tmem_reg_layout' attribute must be a #ttg.linear or #ttg.blocked layout (tlx_alias's local_load/local_store set it)}}
    %y = tlx.local_load %a : !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<128x64xf32>
    tt.return
  }
}

// -----

#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {
  tt.func @shared_layout_as_register_layout(%x: tensor<128x64xf32, #blocked>) {
    %a = ttng.tmem_alloc : () -> !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable>
    %c = builtin.unrealized_conversion_cast %x : tensor<128x64xf32, #blocked> to tensor<128x64xf32>
    // expected-error @+1 {{'tlx.local_store' op accesses tensor memory without a register layout}}
    tlx.local_store %c, %a {tlx.tmem_reg_layout = #shared} : tensor<128x64xf32> -> !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable>
    tt.return
  }
}
