// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics --tlx-check-hazards
//
// tlx-check-hazards: waits named by their parity only, in tasks that skip
// the rounds another task takes (the peer's persistent ping-pong GEMM): the
// parity names the first phase of that parity after the last one the task
// knows complete, from its own waits and arrivals or from another task's
// waits it learned of, as mbarrier.try_wait.parity would at the earliest.

// A ring of depth 2, filled position by position. Two consumers take turns
// over tiles of 3 positions (consumer c: tiles c, c + 2, ...), handing the
// turn over on a one-arrival barrier each waits on with a fixed parity;
// their ring waits take the parity `(position / 2) % 2` (no round counter).
// Consumer 0's first wait of tile 2 (slot 0, round 3) follows consumer 1's
// wait of round 2 through the turn, so it waits for phase 3, not phase 1
// (its own last); its turn wait after its own arrival (phase 0) waits for
// consumer 1's (phase 1). Silent. In @no_turns nothing orders the
// consumers: consumer 0's parity wait of round 3 can pass on phase 1 while
// round 2 is still unconsumed, and its read races with the load of round 3.
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
  tt.func @turns(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    %turns = ttg.local_alloc : () -> !bars
    %e0 = ttg.memdesc_index %empty[%c0] : !bars -> !bar
    ttng.init_barrier %e0, 1 : !bar
    %e1 = ttg.memdesc_index %empty[%c1] : !bars -> !bar
    ttng.init_barrier %e1, 1 : !bar
    %turn = ttg.memdesc_index %turns[%c0] : !bars -> !bar
    ttng.init_barrier %turn, 1 : !bar
    ttg.warp_specialize(%ring, %full, %empty, %turns, %d, %n)
    default {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %three = arith.constant 3 : i32
      %true = arith.constant true
      scf.for %t = %z to %n step %one : i32 {
        scf.for %j = %z to %three step %one : i32 {
          %t3 = arith.muli %t, %three : i32
          %k = arith.addi %t3, %j : i32
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
      }
      ttg.warp_yield
    }
    partition0(%rg: !ring, %fa: !bars, %ea: !bars, %ta: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %three = arith.constant 3 : i32
      %tb = ttg.memdesc_index %ta[%z] : !bars -> !bar
      scf.for %t = %z to %nn step %two : i32 {
        ttng.wait_barrier %tb, %one : !bar
        scf.for %j = %z to %three step %one : i32 {
          %t3 = arith.muli %t, %three : i32
          %k = arith.addi %t3, %j : i32
          %s = arith.remsi %k, %two : i32
          %r = arith.divsi %k, %two : i32
          %p = arith.remsi %r, %two : i32
          %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
          ttng.wait_barrier %f, %p : !bar
          %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
          %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
          %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
          ttng.arrive_barrier %e, 1 : !bar
        }
        ttng.arrive_barrier %tb, 1 : !bar
      }
      ttg.warp_return
    }
    partition1(%rg: !ring, %fa: !bars, %ea: !bars, %ta: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %three = arith.constant 3 : i32
      %tb = ttg.memdesc_index %ta[%z] : !bars -> !bar
      scf.for %t = %one to %nn step %two : i32 {
        ttng.wait_barrier %tb, %z : !bar
        scf.for %j = %z to %three step %one : i32 {
          %t3 = arith.muli %t, %three : i32
          %k = arith.addi %t3, %j : i32
          %s = arith.remsi %k, %two : i32
          %r = arith.divsi %k, %two : i32
          %p = arith.remsi %r, %two : i32
          %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
          ttng.wait_barrier %f, %p : !bar
          %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
          %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
          %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
          ttng.arrive_barrier %e, 1 : !bar
        }
        ttng.arrive_barrier %tb, 1 : !bar
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !bars, !desc, i32) -> ()
    tt.return
  }

  tt.func @no_turns(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    %turns = ttg.local_alloc : () -> !bars
    %e0 = ttg.memdesc_index %empty[%c0] : !bars -> !bar
    ttng.init_barrier %e0, 1 : !bar
    %e1 = ttg.memdesc_index %empty[%c1] : !bars -> !bar
    ttng.init_barrier %e1, 1 : !bar
    %turn = ttg.memdesc_index %turns[%c0] : !bars -> !bar
    ttng.init_barrier %turn, 1 : !bar
    ttg.warp_specialize(%ring, %full, %empty, %turns, %d, %n)
    default {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %three = arith.constant 3 : i32
      %true = arith.constant true
      scf.for %t = %z to %n step %one : i32 {
        scf.for %j = %z to %three step %one : i32 {
          %t3 = arith.muli %t, %three : i32
          %k = arith.addi %t3, %j : i32
          %s = arith.remsi %k, %two : i32
          %r = arith.divsi %k, %two : i32
          %p = arith.andi %r, %one : i32
          %q = arith.xori %p, %one : i32
          %e = ttg.memdesc_index %empty[%s] : !bars -> !bar
          ttng.wait_barrier %e, %q : !bar
          %f = ttg.memdesc_index %full[%s] : !bars -> !bar
          ttng.barrier_expect %f, 8192, %true : !bar
          %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
          // Released by a consumer whose wait passed early: the refill may
          // overtake the load before it.
          // expected-note @+3 {{the TMA load (async_descriptor_load) still in flight}}
          // expected-note @+2 {{the TMA load (async_descriptor_load) in the other partition}}
          // expected-warning @+1 {{TMA load (async_descriptor_load) of buffer[0] writes bytes [0, 8192) of allocation at}}
          ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
        }
      }
      ttg.warp_yield
    }
    partition0(%rg: !ring, %fa: !bars, %ea: !bars, %ta: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %three = arith.constant 3 : i32
      %tb = ttg.memdesc_index %ta[%z] : !bars -> !bar
      scf.for %t = %z to %nn step %two : i32 {
        scf.for %j = %z to %three step %one : i32 {
          %t3 = arith.muli %t, %three : i32
          %k = arith.addi %t3, %j : i32
          %s = arith.remsi %k, %two : i32
          %r = arith.divsi %k, %two : i32
          %p = arith.remsi %r, %two : i32
          %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
          ttng.wait_barrier %f, %p : !bar
          %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
          // expected-warning @+1 {{local_load of buffer[0] reads bytes [0, 8192) of allocation at}}
          %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
          %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
          ttng.arrive_barrier %e, 1 : !bar
        }
      }
      ttg.warp_return
    }
    partition1(%rg: !ring, %fa: !bars, %ea: !bars, %ta: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %three = arith.constant 3 : i32
      %tb = ttg.memdesc_index %ta[%z] : !bars -> !bar
      scf.for %t = %one to %nn step %two : i32 {
        scf.for %j = %z to %three step %one : i32 {
          %t3 = arith.muli %t, %three : i32
          %k = arith.addi %t3, %j : i32
          %s = arith.remsi %k, %two : i32
          %r = arith.divsi %k, %two : i32
          %p = arith.remsi %r, %two : i32
          %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
          ttng.wait_barrier %f, %p : !bar
          %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
          // A parity-1 wait on a fresh barrier passes at once.
          // expected-warning @+1 {{local_load of buffer[1] reads bytes [8192, 16384) of allocation at}}
          %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
          %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
          ttng.arrive_barrier %e, 1 : !bar
        }
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
}
