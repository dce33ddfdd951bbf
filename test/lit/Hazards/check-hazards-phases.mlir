// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics --tlx-check-hazards
//
// tlx-check-hazards with barrier phases: a wait orders only the round whose
// arrivals complete the phase it waits for, so a wait on a slot's barrier in
// round r does not cover round r + 1 (each silent case next to its racy
// twin).

// A TMA ring of depth 2 between a producer (the default task) and a
// consumer, wait phases affine in the loop counter: the producer waits on
// `empty` for the previous round's release ((k / 2 & 1) ^ 1), the consumer
// on `full` for this round's load (k / 2 & 1). Silent. In
// @one_round_unwaited the consumer skips its wait in round k = 2 only: slot
// 0's wait of round k = 0 exists, but it does not order the load of k = 2.
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
  tt.func @ring_of_two(%d: !desc, %n: i32) {
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
        ttng.wait_barrier %e, %q : !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
      }
      ttg.warp_yield
    }
    partition0(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      scf.for %k = %c0 to %nn step %c1 : i32 {
        %s = arith.remsi %k, %c2 : i32
        %r = arith.divsi %k, %c2 : i32
        %p = arith.andi %r, %c1 : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }

  tt.func @one_round_unwaited(%d: !desc, %n: i32) {
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
        ttng.wait_barrier %e, %q : !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        // The consumer's release of k = 2 does not show the load of k = 2
        // complete either: the load of k = 4 may overtake it.
        // expected-note @+3 {{the TMA load (async_descriptor_load) in the other partition}}
        // expected-note @+2 {{the TMA load (async_descriptor_load) still in flight}}
        // expected-warning @+1 {{TMA load (async_descriptor_load) of buffer[0] writes bytes [0, 8192) of allocation at}}
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
      }
      ttg.warp_yield
    }
    partition0(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      scf.for %k = %c0 to %nn step %c1 : i32 {
        %s = arith.remsi %k, %c2 : i32
        %r = arith.divsi %k, %c2 : i32
        %p = arith.andi %r, %c1 : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        %waits = arith.cmpi ne, %k, %c2 : i32
        scf.if %waits {
          ttng.wait_barrier %f, %p : !bar
        }
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        // expected-warning @+1 {{local_load of buffer[0] reads bytes [0, 8192) of allocation at}}
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
}

// -----

// A ring of depth 3 read by two consumers: `empty` counts both (init count
// 2), so the producer refills a slot only after both released it. Silent.
// In @producer_skips_a_round the producer skips its wait on `empty` in round
// k = 4 only (slot 1, whose wait of round k = 1 exists): the refill races
// with both consumers' reads of k = 1.
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!ring = !ttg.memdesc<3x64x64xf16, #nv, #smem, mutable>
!slot = !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
!bars = !ttg.memdesc<3x1xi64, #bar, #smem, mutable>
!bar = !ttg.memdesc<1xi64, #bar, #smem, mutable>
!desc = !tt.tensordesc<tensor<64x64xf16, #nv>>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @ring_of_three(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    %e0 = ttg.memdesc_index %empty[%c0] : !bars -> !bar
    ttng.init_barrier %e0, 2 : !bar
    %e1 = ttg.memdesc_index %empty[%c1] : !bars -> !bar
    ttng.init_barrier %e1, 2 : !bar
    %e2 = ttg.memdesc_index %empty[%c2] : !bars -> !bar
    ttng.init_barrier %e2, 2 : !bar
    ttg.warp_specialize(%ring, %full, %empty, %d, %n)
    default {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %three = arith.constant 3 : i32
      %true = arith.constant true
      scf.for %k = %z to %n step %one : i32 {
        %s = arith.remsi %k, %three : i32
        %r = arith.divsi %k, %three : i32
        %p = arith.andi %r, %one : i32
        %q = arith.xori %p, %one : i32
        %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
        ttng.wait_barrier %e, %q : !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
      }
      ttg.warp_yield
    }
    partition0(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %three = arith.constant 3 : i32
      scf.for %k = %z to %nn step %one : i32 {
        %s = arith.remsi %k, %three : i32
        %r = arith.divsi %k, %three : i32
        %p = arith.andi %r, %one : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    }
    partition1(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %three = arith.constant 3 : i32
      scf.for %k = %z to %nn step %one : i32 {
        %s = arith.remsi %k, %three : i32
        %r = arith.divsi %k, %three : i32
        %p = arith.andi %r, %one : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }

  tt.func @producer_skips_a_round(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    %e0 = ttg.memdesc_index %empty[%c0] : !bars -> !bar
    ttng.init_barrier %e0, 2 : !bar
    %e1 = ttg.memdesc_index %empty[%c1] : !bars -> !bar
    ttng.init_barrier %e1, 2 : !bar
    %e2 = ttg.memdesc_index %empty[%c2] : !bars -> !bar
    ttng.init_barrier %e2, 2 : !bar
    ttg.warp_specialize(%ring, %full, %empty, %d, %n)
    default {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %three = arith.constant 3 : i32
      %four = arith.constant 4 : i32
      %true = arith.constant true
      scf.for %k = %z to %n step %one : i32 {
        %s = arith.remsi %k, %three : i32
        %r = arith.divsi %k, %three : i32
        %p = arith.andi %r, %one : i32
        %q = arith.xori %p, %one : i32
        %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
        %waits = arith.cmpi ne, %k, %four : i32
        scf.if %waits {
          ttng.wait_barrier %e, %q : !bar
        }
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        // Nor does anything show the load of k = 1 complete before k = 4's.
        // (One note per consumer; --verify-diagnostics matches both to one line.)
        // expected-note @+3 {{the TMA load (async_descriptor_load) in the other partition}}
        // expected-note @+2 {{the TMA load (async_descriptor_load) still in flight}}
        // expected-warning @+1 {{TMA load (async_descriptor_load) of buffer[1] writes bytes [8192, 16384) of allocation at}}
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
      }
      ttg.warp_yield
    }
    partition0(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %three = arith.constant 3 : i32
      scf.for %k = %z to %nn step %one : i32 {
        %s = arith.remsi %k, %three : i32
        %r = arith.divsi %k, %three : i32
        %p = arith.andi %r, %one : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        // expected-warning @+1 {{local_load of buffer[1] reads bytes [8192, 16384) of allocation at}}
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    }
    partition1(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %three = arith.constant 3 : i32
      scf.for %k = %z to %nn step %one : i32 {
        %s = arith.remsi %k, %three : i32
        %r = arith.divsi %k, %three : i32
        %p = arith.andi %r, %one : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        // expected-warning @+1 {{local_load of buffer[1] reads bytes [8192, 16384) of allocation at}}
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
}

// -----

// The phase as a loop-carried bit flipped when the slot index wraps (no
// round counter to read it from): a task waits for a barrier's phases in
// order, so each parity names the next phase. Silent.
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
  tt.func @carried_phase_bit(%d: !desc, %n: i32) {
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    ttg.warp_specialize(%ring, %full, %empty, %d, %n)
    default {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %true = arith.constant true
      %last = scf.for %k = %c0 to %n step %c1 iter_args(%q = %c1) -> (i32) : i32 {
        %s = arith.remsi %k, %c2 : i32
        %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
        ttng.wait_barrier %e, %q : !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
        %wraps = arith.cmpi eq, %s, %c1 : i32
        %flipped = arith.xori %q, %c1 : i32
        %next = arith.select %wraps, %flipped, %q : i32
        scf.yield %next : i32
      }
      ttg.warp_yield
    }
    partition0(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %last = scf.for %k = %c0 to %nn step %c1 iter_args(%p = %c0) -> (i32) : i32 {
        %s = arith.remsi %k, %c2 : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
        %wraps = arith.cmpi eq, %s, %c1 : i32
        %flipped = arith.xori %p, %c1 : i32
        %next = arith.select %wraps, %flipped, %p : i32
        scf.yield %next : i32
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
}

// -----

// Named-barrier generations (a ping-pong of two consumers): consumer 1 waits
// on `full` and then arrives on named barrier 9; consumer 0 syncs on it and
// reads the slot without a wait of its own: the n-th sync pairs with the
// n-th arrival, which follows consumer 1's wait of the same round. Silent.
// In @arrives_before_waiting consumer 1 arrives before its wait: nothing
// orders consumer 0's read after the load.
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
  tt.func @ping_pong(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    %e0 = ttg.memdesc_index %empty[%c0] : !bars -> !bar
    ttng.init_barrier %e0, 2 : !bar
    %e1 = ttg.memdesc_index %empty[%c1] : !bars -> !bar
    ttng.init_barrier %e1, 2 : !bar
    ttg.warp_specialize(%ring, %full, %empty, %d, %n)
    default {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %true = arith.constant true
      scf.for %k = %z to %n step %one : i32 {
        %s = arith.remsi %k, %two : i32
        %r = arith.divsi %k, %two : i32
        %p = arith.andi %r, %one : i32
        %q = arith.xori %p, %one : i32
        %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
        ttng.wait_barrier %e, %q : !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
      }
      ttg.warp_yield
    }
    partition0(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %c9 = arith.constant 9 : i32
      %c256 = arith.constant 256 : i32
      scf.for %k = %z to %nn step %one : i32 {
        %s = arith.remsi %k, %two : i32
        %x = tt.elementwise_inline_asm "bar.sync $1, $2;\0A\09mov.u32 $0, 0;" {constraints = "=r,r,r", packed_element = 1 : i32, pure = false} %c9, %c256 : i32, i32 -> i32
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    }
    partition1(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %c9 = arith.constant 9 : i32
      %c256 = arith.constant 256 : i32
      scf.for %k = %z to %nn step %one : i32 {
        %s = arith.remsi %k, %two : i32
        %r = arith.divsi %k, %two : i32
        %p = arith.andi %r, %one : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %x = tt.elementwise_inline_asm "bar.arrive $1, $2;\0A\09mov.u32 $0, 0;" {constraints = "=r,r,r", packed_element = 1 : i32, pure = false} %c9, %c256 : i32, i32 -> i32
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }

  tt.func @arrives_before_waiting(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    %e0 = ttg.memdesc_index %empty[%c0] : !bars -> !bar
    ttng.init_barrier %e0, 2 : !bar
    %e1 = ttg.memdesc_index %empty[%c1] : !bars -> !bar
    ttng.init_barrier %e1, 2 : !bar
    ttg.warp_specialize(%ring, %full, %empty, %d, %n)
    default {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %true = arith.constant true
      scf.for %k = %z to %n step %one : i32 {
        %s = arith.remsi %k, %two : i32
        %r = arith.divsi %k, %two : i32
        %p = arith.andi %r, %one : i32
        %q = arith.xori %p, %one : i32
        %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
        ttng.wait_barrier %e, %q : !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        // expected-note @+1 {{the TMA load (async_descriptor_load) in the other partition}}
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
      }
      ttg.warp_yield
    }
    partition0(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %c9 = arith.constant 9 : i32
      %c256 = arith.constant 256 : i32
      scf.for %k = %z to %nn step %one : i32 {
        %s = arith.remsi %k, %two : i32
        %x = tt.elementwise_inline_asm "bar.sync $1, $2;\0A\09mov.u32 $0, 0;" {constraints = "=r,r,r", packed_element = 1 : i32, pure = false} %c9, %c256 : i32, i32 -> i32
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        // expected-warning @+1 {{local_load of buffer[0] reads bytes [0, 8192) of allocation at}}
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    }
    partition1(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %c9 = arith.constant 9 : i32
      %c256 = arith.constant 256 : i32
      scf.for %k = %z to %nn step %one : i32 {
        %s = arith.remsi %k, %two : i32
        %r = arith.divsi %k, %two : i32
        %p = arith.andi %r, %one : i32
        %x = tt.elementwise_inline_asm "bar.arrive $1, $2;\0A\09mov.u32 $0, 0;" {constraints = "=r,r,r", packed_element = 1 : i32, pure = false} %c9, %c256 : i32, i32 -> i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
}

// -----

// Slots from the program id (unknown): the barriers' slots are unknown too,
// so no phase can be named; the loads are left out rather than reported
// against every access of the ring. Silent.
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
  tt.func @slots_from_the_program_id(%d: !desc, %n: i32) {
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    ttg.warp_specialize(%ring, %full, %empty, %d, %n)
    default {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %true = arith.constant true
      %pid = tt.get_program_id x : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %j = arith.addi %pid, %k : i32
        %s = arith.remsi %j, %c2 : i32
        %r = arith.divsi %j, %c2 : i32
        %p = arith.andi %r, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
        ttng.wait_barrier %e, %q : !bar
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
      }
      ttg.warp_yield
    }
    partition0(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %pid = tt.get_program_id x : i32
      scf.for %k = %c0 to %nn step %c1 : i32 {
        %j = arith.addi %pid, %k : i32
        %s = arith.remsi %j, %c2 : i32
        %r = arith.divsi %j, %c2 : i32
        %p = arith.andi %r, %c1 : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        ttng.wait_barrier %f, %p : !bar
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        ttng.arrive_barrier %e, 1 : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
}
