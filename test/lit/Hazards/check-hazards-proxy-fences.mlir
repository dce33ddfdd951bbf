// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics --tlx-check-hazards
//
// tlx-check-hazards: proxy fences across warp_specialize partitions. A
// generic-proxy write (local_store, cp.async) handed to another partition
// for an async-proxy access (TMA store, wgmma operand) needs a
// fence_async_shared on the way: in the writer after the write, or in the
// reader after its wait. Triton's own fence insertion follows one
// partition's program order only. Each racy case next to its silent twins.

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!tile = !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
!bar = !ttg.memdesc<1xi64, #bar, #smem, mutable>
!desc = !tt.tensordesc<tensor<64x64xf16, #nv>>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // The default partition stores a tile and arrives; the other waits and
  // TMA-stores it. The hand-off orders them, no fence makes the generic
  // write visible to the async proxy.
  tt.func @handoff_unfenced(%d: !desc, %t: tensor<64x64xf16, #blocked>) {
    %tile = ttg.local_alloc : () -> !tile
    %full = ttg.local_alloc : () -> !bar
    ttg.warp_specialize(%tile, %full, %d, %t)
    default {
      // expected-note @+1 {{the local_store not fenced}}
      ttg.local_store %t, %tile : tensor<64x64xf16, #blocked> -> !tile
      ttng.arrive_barrier %full, 1 : !bar
      ttg.warp_yield
    }
    partition0(%tl: !tile, %f: !bar, %dd: !desc, %tt: tensor<64x64xf16, #blocked>) num_warps(4) {
      %c0 = arith.constant 0 : i32
      ttng.wait_barrier %f, %c0 : !bar
      // expected-warning @+1 {{TMA store (async_descriptor_store) of buffer reads bytes [0, 8192) of allocation at}}
      ttng.async_tma_copy_local_to_global %dd[%c0, %c0] %tl : !desc, !tile
      ttng.async_tma_store_wait {pendings = 0 : i32}
      ttg.warp_return
    } : (!tile, !bar, !desc, tensor<64x64xf16, #blocked>) -> ()
    tt.return
  }

  // The writer fences before it arrives: silent.
  tt.func @fenced_by_writer(%d: !desc, %t: tensor<64x64xf16, #blocked>) {
    %tile = ttg.local_alloc : () -> !tile
    %full = ttg.local_alloc : () -> !bar
    ttg.warp_specialize(%tile, %full, %d, %t)
    default {
      ttg.local_store %t, %tile : tensor<64x64xf16, #blocked> -> !tile
      ttng.fence_async_shared {bCluster = false}
      ttng.arrive_barrier %full, 1 : !bar
      ttg.warp_yield
    }
    partition0(%tl: !tile, %f: !bar, %dd: !desc, %tt: tensor<64x64xf16, #blocked>) num_warps(4) {
      %c0 = arith.constant 0 : i32
      ttng.wait_barrier %f, %c0 : !bar
      ttng.async_tma_copy_local_to_global %dd[%c0, %c0] %tl : !desc, !tile
      ttng.async_tma_store_wait {pendings = 0 : i32}
      ttg.warp_return
    } : (!tile, !bar, !desc, tensor<64x64xf16, #blocked>) -> ()
    tt.return
  }

  // The reader fences after its wait: silent.
  tt.func @fenced_by_reader(%d: !desc, %t: tensor<64x64xf16, #blocked>) {
    %tile = ttg.local_alloc : () -> !tile
    %full = ttg.local_alloc : () -> !bar
    ttg.warp_specialize(%tile, %full, %d, %t)
    default {
      ttg.local_store %t, %tile : tensor<64x64xf16, #blocked> -> !tile
      ttng.arrive_barrier %full, 1 : !bar
      ttg.warp_yield
    }
    partition0(%tl: !tile, %f: !bar, %dd: !desc, %tt: tensor<64x64xf16, #blocked>) num_warps(4) {
      %c0 = arith.constant 0 : i32
      ttng.wait_barrier %f, %c0 : !bar
      ttng.fence_async_shared {bCluster = false}
      ttng.async_tma_copy_local_to_global %dd[%c0, %c0] %tl : !desc, !tile
      ttng.async_tma_store_wait {pendings = 0 : i32}
      ttg.warp_return
    } : (!tile, !bar, !desc, tensor<64x64xf16, #blocked>) -> ()
    tt.return
  }

  // A fence before the write orders nothing: reported.
  tt.func @fenced_too_early(%d: !desc, %t: tensor<64x64xf16, #blocked>) {
    %tile = ttg.local_alloc : () -> !tile
    %full = ttg.local_alloc : () -> !bar
    ttg.warp_specialize(%tile, %full, %d, %t)
    default {
      ttng.fence_async_shared {bCluster = false}
      // expected-note @+1 {{the local_store not fenced}}
      ttg.local_store %t, %tile : tensor<64x64xf16, #blocked> -> !tile
      ttng.arrive_barrier %full, 1 : !bar
      ttg.warp_yield
    }
    partition0(%tl: !tile, %f: !bar, %dd: !desc, %tt: tensor<64x64xf16, #blocked>) num_warps(4) {
      %c0 = arith.constant 0 : i32
      ttng.wait_barrier %f, %c0 : !bar
      // expected-warning @+1 {{TMA store (async_descriptor_store) of buffer reads bytes [0, 8192) of allocation at}}
      ttng.async_tma_copy_local_to_global %dd[%c0, %c0] %tl : !desc, !tile
      ttng.async_tma_store_wait {pendings = 0 : i32}
      ttg.warp_return
    } : (!tile, !bar, !desc, tensor<64x64xf16, #blocked>) -> ()
    tt.return
  }
}

// -----

// A cp.async copy (generic proxy) waited for and handed off for a wgmma
// operand (async proxy): reported without a fence, silent with one in the
// reader.
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!tile = !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
!bar = !ttg.memdesc<1xi64, #bar, #smem, mutable>
!ptrs = tensor<64x64x!tt.ptr<f16>, #blocked>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @cp_async_handoff_unfenced(%p: !ptrs) {
    %a = ttg.local_alloc : () -> !tile
    %full = ttg.local_alloc : () -> !bar
    ttg.warp_specialize(%a, %full, %p)
    default {
      // expected-note @+1 {{the cp.async copy (async_load) not fenced}}
      %t = ttg.async_copy_global_to_local %p, %a : !ptrs -> !tile
      %g = ttg.async_commit_group tokens %t
      %w = ttg.async_wait %g {num = 0 : i32}
      ttng.arrive_barrier %full, 1 : !bar
      ttg.warp_yield
    }
    partition0(%x: !tile, %f: !bar, %pp: !ptrs) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
      ttng.wait_barrier %f, %c0 : !bar
      // expected-warning @+1 {{wgmma (dot) of buffer reads bytes [0, 8192) of allocation at}}
      %r = ttng.warp_group_dot %x, %x, %acc : !tile * !tile -> tensor<64x64xf32, #mma>
      ttg.warp_return
    } : (!tile, !bar, !ptrs) -> ()
    tt.return
  }

  tt.func @cp_async_handoff_fenced(%p: !ptrs) {
    %a = ttg.local_alloc : () -> !tile
    %full = ttg.local_alloc : () -> !bar
    ttg.warp_specialize(%a, %full, %p)
    default {
      %t = ttg.async_copy_global_to_local %p, %a : !ptrs -> !tile
      %g = ttg.async_commit_group tokens %t
      %w = ttg.async_wait %g {num = 0 : i32}
      ttng.arrive_barrier %full, 1 : !bar
      ttg.warp_yield
    }
    partition0(%x: !tile, %f: !bar, %pp: !ptrs) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
      ttng.wait_barrier %f, %c0 : !bar
      ttng.fence_async_shared {bCluster = false}
      %r = ttng.warp_group_dot %x, %x, %acc : !tile * !tile -> tensor<64x64xf32, #mma>
      ttg.warp_return
    } : (!tile, !bar, !ptrs) -> ()
    tt.return
  }
}
