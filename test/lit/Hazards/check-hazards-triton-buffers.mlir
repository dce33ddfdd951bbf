// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics --tlx-check-hazards
//
// tlx-check-hazards on what triton adds around a kernel's own buffers (each
// case next to its silent twin): the staging copies of tensor-descriptor
// stores (an initialized local_alloc: triton places it after TTGIR, ending
// its lifetime at its last use, so the task's staging copies may share
// bytes: a GEMM's two C halves do), a TMA store still reading when its task
// ends, and, in a kernel without warp_specialize, a TMA load nothing waits
// for.

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!desc = !tt.tensordesc<tensor<64x64xf16, #nv>>
!tile = !ttg.memdesc<64x64xf16, #nv, #smem>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // Two halves stored as triton lowers desc.store: each copy fenced, and its
  // store waited for before the next copy is written. Silent.
  tt.func @staged_stores(%d: !desc, %x: i32, %t: tensor<64x64xf16, #blocked>) {
    %a = ttg.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tile
    ttng.fence_async_shared {bCluster = false}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %a : !desc, !tile
    ttng.async_tma_store_wait {pendings = 0 : i32}
    %b = ttg.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tile
    ttng.fence_async_shared {bCluster = false}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %b : !desc, !tile
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }

  // The first store not waited for: the second copy may overwrite its bytes
  // while it still reads them.
  tt.func @staged_store_unwaited(%d: !desc, %x: i32, %t: tensor<64x64xf16, #blocked>) {
    %a = ttg.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tile
    ttng.fence_async_shared {bCluster = false}
    // expected-note @+1 {{the TMA store (async_descriptor_store) still in flight}}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %a : !desc, !tile
    // expected-warning @+1 {{local_alloc (a tensor copied into shared memory) of buffer (triton's staging buffer) writes bytes [0, 8192) of triton's staging buffers of this task}}
    %b = ttg.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tile
    ttng.fence_async_shared {bCluster = false}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %b : !desc, !tile
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }

  // A copy read through the async proxy with no fence after it was written.
  tt.func @staged_store_unfenced(%d: !desc, %x: i32, %t: tensor<64x64xf16, #blocked>) {
    // expected-note @+1 {{the local_alloc (a tensor copied into shared memory) not fenced}}
    %a = ttg.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tile
    // expected-warning @+1 {{TMA store (async_descriptor_store) of buffer (triton's staging buffer) reads bytes [0, 8192) of triton's staging buffers of this task}}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %a : !desc, !tile
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }

  // The kernel ends while its last store may still read its copy.
  tt.func @store_unwaited_at_end(%d: !desc, %x: i32, %t: tensor<64x64xf16, #blocked>) {
    %a = ttg.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tile
    ttng.fence_async_shared {bCluster = false}
    // expected-warning @+1 {{TMA store (async_descriptor_store) of buffer (triton's staging buffer) may still read it when its task ends}}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %a : !desc, !tile
    tt.return
  }
}

// -----

// Without warp_specialize no other task can wait for a TMA load: one whose
// barrier is never waited on is in flight until the end, and the wgmma
// reading its slot races with it; with the wait, silent.
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!desc = !tt.tensordesc<tensor<64x64xf16, #nv>>
!slot = !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
!bars = !ttg.memdesc<1x1xi64, #bar, #smem, mutable>
!bar = !ttg.memdesc<1xi64, #bar, #smem, mutable>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @load_never_waited(%d: !desc, %x: i32) {
    %c0 = arith.constant 0 : i32
    %true = arith.constant true
    %buf = ttg.local_alloc : () -> !ttg.memdesc<1x64x64xf16, #nv, #smem, mutable>
    %s = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<1x64x64xf16, #nv, #smem, mutable> -> !slot
    %bars = ttg.local_alloc : () -> !bars
    %bar = ttg.memdesc_index %bars[%c0] : !bars -> !bar
    ttng.init_barrier %bar, 1 : !bar
    ttng.barrier_expect %bar, 8192, %true : !bar
    // expected-note @+1 {{the TMA load (async_descriptor_load) still in flight}}
    ttng.async_tma_copy_global_to_local %d[%x, %x] %s, %bar, %true : !desc, !bar -> !slot
    // expected-warning @+1 {{local_load of buffer[0] reads bytes [0, 8192) of allocation at}}
    %v = ttg.local_load %s : !slot -> tensor<64x64xf16, #blocked>
    tt.return
  }

  tt.func @load_waited(%d: !desc, %x: i32) {
    %c0 = arith.constant 0 : i32
    %true = arith.constant true
    %buf = ttg.local_alloc : () -> !ttg.memdesc<1x64x64xf16, #nv, #smem, mutable>
    %s = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<1x64x64xf16, #nv, #smem, mutable> -> !slot
    %bars = ttg.local_alloc : () -> !bars
    %bar = ttg.memdesc_index %bars[%c0] : !bars -> !bar
    ttng.init_barrier %bar, 1 : !bar
    ttng.barrier_expect %bar, 8192, %true : !bar
    ttng.async_tma_copy_global_to_local %d[%x, %x] %s, %bar, %true : !desc, !bar -> !slot
    ttng.wait_barrier %bar, %c0 : !bar
    %v = ttg.local_load %s : !slot -> tensor<64x64xf16, #blocked>
    tt.return
  }
}
