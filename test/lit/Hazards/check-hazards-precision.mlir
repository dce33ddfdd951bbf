// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics --tlx-check-hazards
//
// tlx-check-hazards precision: row slices of NVMMA-swizzled buffers are their
// own bytes, and barrier hand-offs are followed through a third partition.

// A 128x128 f16 buffer with a 128-byte swizzle is two column blocks of 128
// rows x 128 bytes: rows [r0, r1) are bytes [128 r0, 128 r1) and
// [16384 + 128 r0, 16384 + 128 r1). A TMA store still reads rows [0, 64)
// while rows [64, 128) are written (disjoint: silent) and rows [32, 64)
// (inside: reported, both pieces).
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!tile = !ttg.memdesc<128x128xf16, #nv, #smem, mutable>
!half = !ttg.memdesc<64x128xf16, #nv, #smem, mutable, 128x128>
!quarter = !ttg.memdesc<32x128xf16, #nv, #smem, mutable, 128x128>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @nvmma_row_slices_disjoint(%d: !tt.tensordesc<tensor<64x128xf16, #nv>>, %x: i32, %t: tensor<64x128xf16, #blocked>) {
    %c0 = arith.constant 0 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<1x128x128xf16, #nv, #smem, mutable>
    %tile = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<1x128x128xf16, #nv, #smem, mutable> -> !tile
    %top = ttg.memdesc_subslice %tile[0, 0] : !tile -> !half
    %bottom = ttg.memdesc_subslice %tile[64, 0] : !tile -> !half
    ttng.async_tma_copy_local_to_global %d[%x, %x] %top : !tt.tensordesc<tensor<64x128xf16, #nv>>, !half
    ttg.local_store %t, %bottom : tensor<64x128xf16, #blocked> -> !half
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }

  tt.func @nvmma_row_slices_overlapping(%d: !tt.tensordesc<tensor<64x128xf16, #nv>>, %x: i32, %q: tensor<32x128xf16, #blocked>) {
    %c0 = arith.constant 0 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<1x128x128xf16, #nv, #smem, mutable>
    %tile = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<1x128x128xf16, #nv, #smem, mutable> -> !tile
    %top = ttg.memdesc_subslice %tile[0, 0] : !tile -> !half
    %middle = ttg.memdesc_subslice %tile[32, 0] : !tile -> !quarter
    // expected-note @+1 {{the TMA store (async_descriptor_store) still in flight}}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %top : !tt.tensordesc<tensor<64x128xf16, #nv>>, !half
    // expected-warning @+1 {{local_store of buffer[0] writes bytes [4096, 8192) and [20480, 24576) of allocation at}}
    ttg.local_store %q, %middle : tensor<32x128xf16, #blocked> -> !quarter
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }
}

// -----

// The same across partitions, in a ring slot (slot 1 starts at byte 32768):
// two partitions write their row halves with no barrier between them
// (silent), or rows [0, 64) and [32, 64) (reported).
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!ring = !ttg.memdesc<2x128x128xf16, #nv, #smem, mutable>
!tile = !ttg.memdesc<128x128xf16, #nv, #smem, mutable>
!half = !ttg.memdesc<64x128xf16, #nv, #smem, mutable, 128x128>
!quarter = !ttg.memdesc<32x128xf16, #nv, #smem, mutable, 128x128>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @row_halves_per_partition(%t: tensor<64x128xf16, #blocked>) {
    %ring = ttg.local_alloc : () -> !ring
    ttg.warp_specialize(%ring, %t)
    default {
      ttg.warp_yield
    }
    partition0(%r: !ring, %v: tensor<64x128xf16, #blocked>) num_warps(4) {
      %c1 = arith.constant 1 : i32
      %tile = ttg.memdesc_index %r[%c1] : !ring -> !tile
      %rows = ttg.memdesc_subslice %tile[0, 0] : !tile -> !half
      ttg.local_store %v, %rows : tensor<64x128xf16, #blocked> -> !half
      ttg.warp_return
    }
    partition1(%r: !ring, %v: tensor<64x128xf16, #blocked>) num_warps(4) {
      %c1 = arith.constant 1 : i32
      %tile = ttg.memdesc_index %r[%c1] : !ring -> !tile
      %rows = ttg.memdesc_subslice %tile[64, 0] : !tile -> !half
      ttg.local_store %v, %rows : tensor<64x128xf16, #blocked> -> !half
      ttg.warp_return
    } : (!ring, tensor<64x128xf16, #blocked>) -> ()
    tt.return
  }

  tt.func @row_halves_overlap(%t: tensor<64x128xf16, #blocked>, %q: tensor<32x128xf16, #blocked>) {
    %ring = ttg.local_alloc : () -> !ring
    ttg.warp_specialize(%ring, %t, %q)
    default {
      ttg.warp_yield
    }
    partition0(%r: !ring, %v: tensor<64x128xf16, #blocked>, %w: tensor<32x128xf16, #blocked>) num_warps(4) {
      %c1 = arith.constant 1 : i32
      %tile = ttg.memdesc_index %r[%c1] : !ring -> !tile
      %rows = ttg.memdesc_subslice %tile[0, 0] : !tile -> !half
      // expected-note @+1 {{the local_store in the other partition}}
      ttg.local_store %v, %rows : tensor<64x128xf16, #blocked> -> !half
      ttg.warp_return
    }
    partition1(%r: !ring, %v: tensor<64x128xf16, #blocked>, %w: tensor<32x128xf16, #blocked>) num_warps(4) {
      %c1 = arith.constant 1 : i32
      %tile = ttg.memdesc_index %r[%c1] : !ring -> !tile
      %rows = ttg.memdesc_subslice %tile[32, 0] : !tile -> !quarter
      // expected-warning @+1 {{local_store of buffer[1] writes bytes [36864, 40960) and [53248, 57344) of allocation at}}
      ttg.local_store %w, %rows : tensor<32x128xf16, #blocked> -> !quarter
      ttg.warp_return
    } : (!ring, tensor<64x128xf16, #blocked>, tensor<32x128xf16, #blocked>) -> ()
    tt.return
  }
}

// -----

// A slot lent through a third partition: partition0 reads the slot and
// arrives on `empty`; the default partition waits on `empty` and arrives on
// `full` (lends the slot, no copy); partition1 waits on `full` and
// overwrites the slot. Ordered by the chain (silent). Without the middle
// wait on `empty` the lend orders nothing: reported.
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!ring = !ttg.memdesc<2x64x64xf16, #nv, #smem, mutable>
!slot = !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
!bars = !ttg.memdesc<2x1xi64, #bar, #smem, mutable>
!bar = !ttg.memdesc<1xi64, #bar, #smem, mutable>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @lend_chain(%t: tensor<64x64xf16, #blocked>) {
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    ttg.warp_specialize(%ring, %full, %empty, %t)
    default {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %e = ttg.memdesc_index %empty[%c1] : !bars -> !bar
      ttng.wait_barrier %e, %c0 : !bar
      %f = ttg.memdesc_index %full[%c1] : !bars -> !bar
      ttng.arrive_barrier %f, 1 : !bar
      ttg.warp_yield
    }
    partition0(%r: !ring, %fa: !bars, %ea: !bars, %v: tensor<64x64xf16, #blocked>) num_warps(4) {
      %c1 = arith.constant 1 : i32
      %s = ttg.memdesc_index %r[%c1] : !ring -> !slot
      %x = ttg.local_load %s : !slot -> tensor<64x64xf16, #blocked>
      %e = ttg.memdesc_index %ea[%c1] : !bars -> !bar
      ttng.arrive_barrier %e, 1 : !bar
      ttg.warp_return
    }
    partition1(%r: !ring, %fa: !bars, %ea: !bars, %v: tensor<64x64xf16, #blocked>) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %f = ttg.memdesc_index %fa[%c1] : !bars -> !bar
      ttng.wait_barrier %f, %c0 : !bar
      %s = ttg.memdesc_index %r[%c1] : !ring -> !slot
      ttg.local_store %v, %s : tensor<64x64xf16, #blocked> -> !slot
      ttg.warp_return
    } : (!ring, !bars, !bars, tensor<64x64xf16, #blocked>) -> ()
    tt.return
  }

  tt.func @lend_chain_without_middle_wait(%t: tensor<64x64xf16, #blocked>) {
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    ttg.warp_specialize(%ring, %full, %empty, %t)
    default {
      %c1 = arith.constant 1 : i32
      %f = ttg.memdesc_index %full[%c1] : !bars -> !bar
      ttng.arrive_barrier %f, 1 : !bar
      ttg.warp_yield
    }
    partition0(%r: !ring, %fa: !bars, %ea: !bars, %v: tensor<64x64xf16, #blocked>) num_warps(4) {
      %c1 = arith.constant 1 : i32
      %s = ttg.memdesc_index %r[%c1] : !ring -> !slot
      // expected-note @+1 {{the local_load in the other partition}}
      %x = ttg.local_load %s : !slot -> tensor<64x64xf16, #blocked>
      %e = ttg.memdesc_index %ea[%c1] : !bars -> !bar
      ttng.arrive_barrier %e, 1 : !bar
      ttg.warp_return
    }
    partition1(%r: !ring, %fa: !bars, %ea: !bars, %v: tensor<64x64xf16, #blocked>) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %f = ttg.memdesc_index %fa[%c1] : !bars -> !bar
      ttng.wait_barrier %f, %c0 : !bar
      %s = ttg.memdesc_index %r[%c1] : !ring -> !slot
      // expected-warning @+1 {{local_store of buffer[1] writes bytes [8192, 16384) of allocation at}}
      ttg.local_store %v, %s : tensor<64x64xf16, #blocked> -> !slot
      ttg.warp_return
    } : (!ring, !bars, !bars, tensor<64x64xf16, #blocked>) -> ()
    tt.return
  }
}
