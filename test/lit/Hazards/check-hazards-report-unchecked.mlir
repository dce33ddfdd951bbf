// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics --tlx-check-hazards=report-unchecked=1
// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --tlx-check-hazards -o /dev/null 2>&1 | %FileCheck %s --allow-empty --check-prefix=QUIET
//
// tlx-check-hazards=report-unchecked: where the simulated tasks fall out of
// step (a wait whose phase no simulated arrival completes), a remark says so
// and how many of the task's accesses after it go unchecked. Without the
// option, nothing. @hand_off (check-hazards.mlir's) stays in step: silent.
// @missing_arrive: the consumer never releases a slot, so the producer's
// wait for the first released round is never completed (a hang), and the
// consumer then waits for a round the producer never loaded: both tasks
// fall out of step there. (Loops whose shapes differ between tasks do the
// same to a correct kernel: test_hazards_examples.py's three-consumer causal
// flash attention.) @while_then_end: scf.while loops of unknown trip count
// (a persistent program taking work from a counter), after which the
// producer hands over one more slot with no data (the end) at the ring
// position its loop left: stays in step, because what follows a while loop
// sees it as having run its unrolled iterations, as after an scf.for.
// QUIET-NOT: remark

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
  tt.func @hand_off(%d: !desc, %n: i32) {
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

  tt.func @missing_arrive(%d: !desc, %n: i32) {
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
        // expected-remark @+1 {{tlx-check-hazards: the tasks fall out of step here (no simulated arrival completes this wait: a missing arrive, or loops whose shapes differ between tasks);}}
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
        // expected-remark @+1 {{tlx-check-hazards: the tasks fall out of step here}}
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %r[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
  tt.func @while_then_end(%d: !desc) {
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    ttg.warp_specialize(%ring, %full, %empty, %d)
    default {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %true = arith.constant true
      %more = tt.get_program_id x : i32
      %end = scf.while (%k = %c0) : (i32) -> i32 {
        %go = arith.cmpi slt, %k, %more : i32
        scf.condition(%go) %k : i32
      } do {
      ^bb0(%k: i32):
        %s = arith.remsi %k, %c2 : i32
        %r = arith.divsi %k, %c2 : i32
        %p = arith.andi %r, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        ttng.wait_barrier %e, %q : !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
        %next = arith.addi %k, %c1 : i32
        scf.yield %next : i32
      }
      %s = arith.remsi %end, %c2 : i32
      %r = arith.divsi %end, %c2 : i32
      %p = arith.andi %r, %c1 : i32
      %q = arith.xori %p, %c1 : i32
      %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
      %f = ttg.memdesc_index %full[%s] : !bars -> !bar
      ttng.wait_barrier %e, %q : !bar
      ttng.arrive_barrier %f, 1 : !bar
      ttg.warp_yield
    }
    partition0(%r: !ring, %fa: !bars, %ea: !bars, %dd: !desc) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %more = tt.get_program_id x : i32
      // the slot's first bytes say whether there is more (here: the end
      // or not, read after each wait, as a tile index would be)
      %f0 = ttg.memdesc_index %fa[%c0] : !bars -> !bar
      ttng.wait_barrier %f0, %c0 : !bar
      %b0 = ttg.memdesc_index %r[%c0] : !ring -> !slot
      %v0 = ttg.local_load %b0 : !slot -> tensor<64x64xf16, #blocked>
      %end = scf.while (%k = %c0) : (i32) -> i32 {
        %go = arith.cmpi slt, %k, %more : i32
        scf.condition(%go) %k : i32
      } do {
      ^bb0(%k: i32):
        %s = arith.remsi %k, %c2 : i32
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
        %next = arith.addi %k, %c1 : i32
        %sn = arith.remsi %next, %c2 : i32
        %rn = arith.divsi %next, %c2 : i32
        %pn = arith.andi %rn, %c1 : i32
        %f = ttg.memdesc_index %fa[%sn] : !bars -> !bar
        ttng.wait_barrier %f, %pn : !bar
        %b = ttg.memdesc_index %r[%sn] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        scf.yield %next : i32
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc) -> ()
    tt.return
  }
}
