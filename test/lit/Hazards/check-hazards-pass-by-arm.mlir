// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics --tlx-check-hazards
//
// tlx-check-hazards on an scf.if whose condition it cannot know (it depends
// on the program id): an else arm that waits and arrives exactly as the
// then arm does but touches no memory (a consumer that passes a ring
// position by) is the then arm's barrier events once, not a second round of
// them. Any other else arm still follows the then arm.

// A ring of depth 2: the producer loads position k into slot k % 2; the
// consumer reads it (then) or passes it by (else), and releases the slot
// either way. Silent: the pass-by arm's wait and arrive are the then arm's.
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
  tt.func @pass_by(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    %e0 = ttg.memdesc_index %empty[%c0] : !bars -> !bar
    ttng.init_barrier %e0, 1 : !bar
    %e1 = ttg.memdesc_index %empty[%c1] : !bars -> !bar
    ttng.init_barrier %e1, 1 : !bar
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
      %pid = tt.get_program_id x : i32
      %live = arith.cmpi slt, %pid, %nn : i32
      scf.for %k = %z to %nn step %one : i32 {
        %s = arith.remsi %k, %two : i32
        %r = arith.divsi %k, %two : i32
        %p = arith.andi %r, %one : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        scf.if %live {
          ttng.wait_barrier %f, %p : !bar
          %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
          %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
          ttng.arrive_barrier %e, 1 : !bar
        } else {
          ttng.wait_barrier %f, %p : !bar
          ttng.arrive_barrier %e, 1 : !bar
        }
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
}

// -----

// The else arm reads the slot before its wait: an access of its own, so the
// arms follow each other as they did before the rule, and that read races
// with the load. (Replayed one after the other, the arms' hand-offs count
// twice a round: the producer's refill and the then arm's read are
// reported too, the over-approximation the rule above avoids.)
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
  tt.func @early_read(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = ttg.local_alloc : () -> !ring
    %full = ttg.local_alloc : () -> !bars
    %empty = ttg.local_alloc : () -> !bars
    %e0 = ttg.memdesc_index %empty[%c0] : !bars -> !bar
    ttng.init_barrier %e0, 1 : !bar
    %e1 = ttg.memdesc_index %empty[%c1] : !bars -> !bar
    ttng.init_barrier %e1, 1 : !bar
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
        // expected-warning @+3 {{TMA load (async_descriptor_load) of buffer[0] writes bytes [0, 8192) of allocation at}}
        // expected-note @+2 {{the TMA load (async_descriptor_load) still in flight}}
        // expected-note @+1 {{the TMA load (async_descriptor_load) in the other partition}}
        ttng.async_tma_copy_global_to_local %d[%k, %k] %b, %f, %true : !desc, !bar -> !slot
      }
      ttg.warp_yield
    }
    partition0(%rg: !ring, %fa: !bars, %ea: !bars, %dd: !desc, %nn: i32) num_warps(4) {
      %z = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %pid = tt.get_program_id x : i32
      %live = arith.cmpi slt, %pid, %nn : i32
      scf.for %k = %z to %nn step %one : i32 {
        %s = arith.remsi %k, %two : i32
        %r = arith.divsi %k, %two : i32
        %p = arith.andi %r, %one : i32
        %f = ttg.memdesc_index %fa[%s] : !bars -> !bar
        %e = ttg.memdesc_index %ea[%s] : !bars -> !bar
        %b = ttg.memdesc_index %rg[%s] : !ring -> !slot
        scf.if %live {
          ttng.wait_barrier %f, %p : !bar
          // expected-warning @+1 {{local_load of buffer[0] reads bytes [0, 8192) of allocation at}}
          %v = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
          ttng.arrive_barrier %e, 1 : !bar
        } else {
          // expected-warning @+1 {{local_load of buffer[0] reads bytes [0, 8192) of allocation at}}
          %w = ttg.local_load %b : !slot -> tensor<64x64xf16, #blocked>
          ttng.wait_barrier %f, %p : !bar
          ttng.arrive_barrier %e, 1 : !bar
        }
      }
      ttg.warp_return
    } : (!ring, !bars, !bars, !desc, i32) -> ()
    tt.return
  }
}
