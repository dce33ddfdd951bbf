// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --tlx-unchained-waits-as-expects --mlir-print-debuginfo | %FileCheck %s

// A ring consumer's wait on a full barrier becomes a zero-byte expect whose
// predicate is the phase's parity, its location marked, where every thread
// of the consumer then releases the same slot of the empty barrier (a warp
// barrier's arrive) and the producer fills a slot only after waiting for
// its release: no warp can fall a phase behind, so triton's bar.sync
// between two waits on one mbarrier is not needed. Everything else stays a
// wait: the producer's waits, a consumer releasing by a leader's arrive, a
// release of another slot, a fill that waits for no release.

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!ring = !ttg.memdesc<2x64x64xf16, #nv, #smem, mutable>
!slot = !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
!bars = !ttg.memdesc<2x1xi64, #bar, #smem, mutable>
!bar = !ttg.memdesc<1xi64, #bar, #smem, mutable>
!desc = !tt.tensordesc<tensor<64x64xf16, #nv>>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // CHECK-LABEL: tt.func @ring
  tt.func @ring(%d: !desc, %n: i32) {
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    ttg.warp_specialize(%ring, %full, %empty, %d, %n)
    default {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %true = arith.constant true
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %k, %c2 : i32
        %r = arith.divsi %k, %c2 : i32
        %p = arith.andi %r, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        // CHECK: ttng.wait_barrier
        ttng.wait_barrier %e, %q : !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
      }
      ttg.warp_yield
    }
    partition0(%r: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      scf.for %k = %c0 to %nn step %c1 : i32 {
        %s = arith.remsi %k, %c2 : i32
        %rd = arith.divsi %k, %c2 : i32
        %p = arith.andi %rd, %c1 : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        // CHECK: %[[PARITY:.*]] = arith.trunci %{{.*}} : i32 to i1
        // CHECK-NEXT: ttng.barrier_expect %{{.*}}, 0, %[[PARITY]] {{.*}}loc(#[[MARK:loc[0-9]*]])
        ttng.wait_barrier %f, %p : !bar loc("k.py":7:8)
        %b = ttg.memdesc_index %r[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 128 {tlx.arrive_per_thread = 1 : i32} : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
}
// CHECK: #[[MARK]] = loc(fused<{tlx.unchained_wait}>[#{{loc[0-9]*}}])

// -----

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!ring = !ttg.memdesc<2x64x64xf16, #nv, #smem, mutable>
!slot = !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
!bars = !ttg.memdesc<2x1xi64, #bar, #smem, mutable>
!bar = !ttg.memdesc<1xi64, #bar, #smem, mutable>
!desc = !tt.tensordesc<tensor<64x64xf16, #nv>>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // The consumer releases the slot by a leader's arrive: the producer's wait and the consumer's stay.
  // CHECK-LABEL: tt.func @leader_release
  // CHECK-NOT: ttng.barrier_expect %{{.*}}, 0,
  // CHECK: ttng.wait_barrier
  // CHECK: ttng.wait_barrier
  // CHECK-NOT: ttng.barrier_expect %{{.*}}, 0,
  // CHECK: tt.return
  tt.func @leader_release(%d: !desc, %n: i32) {
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    ttg.warp_specialize(%ring, %full, %empty, %d, %n)
    default {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %true = arith.constant true
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %k, %c2 : i32
        %r = arith.divsi %k, %c2 : i32
        %p = arith.andi %r, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        ttng.wait_barrier %e, %q : !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
      }
      ttg.warp_yield
    }
    partition0(%r: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      scf.for %k = %c0 to %nn step %c1 : i32 {
        %s = arith.remsi %k, %c2 : i32
        %t = arith.addi %k, %c1 : i32
        %other = arith.remsi %t, %c2 : i32
        %rd = arith.divsi %k, %c2 : i32
        %p = arith.andi %rd, %c1 : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %r[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
  // Every thread releases another slot than it waited for.
  // CHECK-LABEL: tt.func @other_slot
  // CHECK-NOT: ttng.barrier_expect %{{.*}}, 0,
  // CHECK: ttng.wait_barrier
  // CHECK: ttng.wait_barrier
  // CHECK-NOT: ttng.barrier_expect %{{.*}}, 0,
  // CHECK: tt.return
  tt.func @other_slot(%d: !desc, %n: i32) {
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    ttg.warp_specialize(%ring, %full, %empty, %d, %n)
    default {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %true = arith.constant true
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %k, %c2 : i32
        %r = arith.divsi %k, %c2 : i32
        %p = arith.andi %r, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        ttng.wait_barrier %e, %q : !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
      }
      ttg.warp_yield
    }
    partition0(%r: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      scf.for %k = %c0 to %nn step %c1 : i32 {
        %s = arith.remsi %k, %c2 : i32
        %t = arith.addi %k, %c1 : i32
        %other = arith.remsi %t, %c2 : i32
        %rd = arith.divsi %k, %c2 : i32
        %p = arith.andi %rd, %c1 : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %r[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%other] : !bars -> !bar
        ttng.arrive_barrier %e, 128 {tlx.arrive_per_thread = 1 : i32} : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
  // The producer fills the slot before it waits for the slot's release.
  // CHECK-LABEL: tt.func @ungated_fill
  // CHECK-NOT: ttng.barrier_expect %{{.*}}, 0,
  // CHECK: ttng.wait_barrier
  // CHECK: ttng.wait_barrier
  // CHECK-NOT: ttng.barrier_expect %{{.*}}, 0,
  // CHECK: tt.return
  tt.func @ungated_fill(%d: !desc, %n: i32) {
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    ttg.warp_specialize(%ring, %full, %empty, %d, %n)
    default {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %true = arith.constant true
      scf.for %k = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %k, %c2 : i32
        %r = arith.divsi %k, %c2 : i32
        %p = arith.andi %r, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        ttng.barrier_expect %f, 8192, %true : !bar
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
        ttng.wait_barrier %e, %q : !bar
      }
      ttg.warp_yield
    }
    partition0(%r: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      scf.for %k = %c0 to %nn step %c1 : i32 {
        %s = arith.remsi %k, %c2 : i32
        %t = arith.addi %k, %c1 : i32
        %other = arith.remsi %t, %c2 : i32
        %rd = arith.divsi %k, %c2 : i32
        %p = arith.andi %rd, %c1 : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %r[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 128 {tlx.arrive_per_thread = 1 : i32} : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
}
