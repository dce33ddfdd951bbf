// The design's flash-attention overlap, in TTGIR: the fp32 score tile (QK)
// shares storage with the bf16 probabilities (P) and the per-row alpha, which
// sit side by side. Try:  tlx-opt examples/flash_attention_overlap.mlir --tlx-lower
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#rows = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  tt.func public @attention_tiles(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %qk = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %p = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    %alpha = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #rows, #smem, mutable>
    %inner = tlx.reuse_group(%p, %alpha) group_kind = distinct : (!ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>, !ttg.memdesc<2x64xf32, #rows, #smem, mutable>) -> !tlx.reuse_group<distinct>
    %outer = tlx.reuse_group(%qk, %inner) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %outer) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()

    %s = arith.constant dense<1.0> : tensor<64x64xf32, #blocked>
    %qk_i = ttg.memdesc_index %qk[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ttg.local_store %s, %qk_i : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %probs = arith.constant dense<0.5> : tensor<64x64xbf16, #blocked>
    %p_i = ttg.memdesc_index %p[%i] : !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    ttg.local_store %probs, %p_i : tensor<64x64xbf16, #blocked> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    %a = arith.constant dense<2.0> : tensor<64xf32, #blocked1>
    %c1 = arith.constant 1 : i32
    %alpha_1 = ttg.memdesc_index %alpha[%c1] : !ttg.memdesc<2x64xf32, #rows, #smem, mutable> -> !ttg.memdesc<64xf32, #rows, #smem, mutable>
    ttg.local_store %a, %alpha_1 : tensor<64xf32, #blocked1> -> !ttg.memdesc<64xf32, #rows, #smem, mutable>
    tt.return
  }
}
