// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics --tlx-check-hazards
//
// tlx-check-hazards on triton's TMA reduce (`ttng.async_tma_reduce`, what
// async_descriptor_store(..., store_reduce=kind) becomes): a TMA store that
// reduces into global memory, reading its shared-memory source until
// ttng.async_tma_store_wait as a plain TMA store does, and reading it
// through the async proxy (a fence after the source's generic writes).
// Each case next to its silent twin.

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!desc = !tt.tensordesc<tensor<64x64xf32, #nv>>
!tile = !ttg.memdesc<64x64xf32, #nv, #smem, mutable>
!tiles = !ttg.memdesc<2x64x64xf32, #nv, #smem, mutable>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // The source rewritten before the store wait; the other tile, and the
  // source after the wait, are fine.
  tt.func @reduce_source_reused(%d: !desc, %x: i32, %t: tensor<64x64xf32, #blocked>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %buf = ttg.local_alloc : () -> !tiles
    %s = ttg.memdesc_index %buf[%c0] : !tiles -> !tile
    %o = ttg.memdesc_index %buf[%c1] : !tiles -> !tile
    ttg.local_store %t, %s : tensor<64x64xf32, #blocked> -> !tile
    ttng.fence_async_shared {bCluster = false}
    // expected-note @+1 {{the TMA reduce (async_descriptor_store with store_reduce) still in flight}}
    ttng.async_tma_reduce add, %d[%x, %x] %s : !desc, !tile
    ttg.local_store %t, %o : tensor<64x64xf32, #blocked> -> !tile
    // expected-warning @+1 {{local_store of buffer[0] writes bytes [0, 16384) of allocation at}}
    ttg.local_store %t, %s : tensor<64x64xf32, #blocked> -> !tile
    ttng.async_tma_store_wait {pendings = 0 : i32}
    ttg.local_store %t, %s : tensor<64x64xf32, #blocked> -> !tile
    tt.return
  }

  // Two reduces in flight, the wait leaving one: the first's source is
  // free, the second's is not.
  tt.func @reduce_pendings(%d: !desc, %x: i32, %t: tensor<64x64xf32, #blocked>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %buf = ttg.local_alloc : () -> !tiles
    %s = ttg.memdesc_index %buf[%c0] : !tiles -> !tile
    %o = ttg.memdesc_index %buf[%c1] : !tiles -> !tile
    ttg.local_store %t, %s : tensor<64x64xf32, #blocked> -> !tile
    ttg.local_store %t, %o : tensor<64x64xf32, #blocked> -> !tile
    ttng.fence_async_shared {bCluster = false}
    ttng.async_tma_reduce add, %d[%x, %x] %s : !desc, !tile
    // expected-note @+1 {{the TMA reduce (async_descriptor_store with store_reduce) still in flight}}
    ttng.async_tma_reduce add, %d[%x, %x] %o : !desc, !tile
    ttng.async_tma_store_wait {pendings = 1 : i32}
    ttg.local_store %t, %s : tensor<64x64xf32, #blocked> -> !tile
    // expected-warning @+1 {{local_store of buffer[1] writes bytes [16384, 32768) of allocation at}}
    ttg.local_store %t, %o : tensor<64x64xf32, #blocked> -> !tile
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }

  // A reduce of a tile written by a local_store with no fence between.
  tt.func @reduce_unfenced(%d: !desc, %x: i32, %t: tensor<64x64xf32, #blocked>) {
    %c0 = arith.constant 0 : i32
    %buf = ttg.local_alloc : () -> !tiles
    %s = ttg.memdesc_index %buf[%c0] : !tiles -> !tile
    // expected-note @+1 {{the local_store not fenced}}
    ttg.local_store %t, %s : tensor<64x64xf32, #blocked> -> !tile
    // expected-warning @+1 {{TMA reduce (async_descriptor_store with store_reduce) of buffer[0] reads bytes [0, 16384) of allocation at}}
    ttng.async_tma_reduce add, %d[%x, %x] %s : !desc, !tile
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }

  // The task ends while the reduce may still read its source.
  tt.func @reduce_unwaited_at_end(%d: !desc, %x: i32, %t: tensor<64x64xf32, #blocked>) {
    %c0 = arith.constant 0 : i32
    %buf = ttg.local_alloc : () -> !tiles
    %s = ttg.memdesc_index %buf[%c0] : !tiles -> !tile
    ttg.local_store %t, %s : tensor<64x64xf32, #blocked> -> !tile
    ttng.fence_async_shared {bCluster = false}
    // expected-warning @+1 {{TMA reduce (async_descriptor_store with store_reduce) of buffer[0] may still read it when its task ends}}
    ttng.async_tma_reduce add, %d[%x, %x] %s : !desc, !tile
    tt.return
  }
}
