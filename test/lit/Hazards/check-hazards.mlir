// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics --tlx-check-hazards
//
// tlx-check-hazards, one hazard kind per case, each next to its ordered twin
// (which must stay silent: --verify-diagnostics fails on any unexpected
// warning).

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // cp.async into a slot, read before the ttg.async_wait covering its group.
  tt.func @cp_async_unwaited(%p: tensor<64x64x!tt.ptr<f16>, #blocked>) {
    %c0 = arith.constant 0 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %s = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    // expected-note @+1 {{the cp.async copy (async_load) still in flight}}
    %t = ttg.async_copy_global_to_local %p, %s : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
    %g = ttg.async_commit_group tokens %t
    // expected-warning @+1 {{local_load of buffer[0] reads bytes [0, 8192) of allocation at}}
    %v = ttg.local_load %s : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    tt.return
  }

  // The same with the wait: ordered; reading the other slot needs no wait.
  tt.func @cp_async_waited(%p: tensor<64x64x!tt.ptr<f16>, #blocked>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %s = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %o = ttg.memdesc_index %buf[%c1] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %t = ttg.async_copy_global_to_local %p, %s : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
    %g = ttg.async_commit_group tokens %t
    %w = ttg.local_load %o : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    %d = ttg.async_wait %g {num = 0 : i32}
    %v = ttg.local_load %s : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    tt.return
  }
}

// -----

// Two views of one storage (what the storage-alias lowering leaves): a TMA
// load into the f16 view and a read of the overlapping f32 view before the
// barrier wait; the non-overlapping half is fine, and after the wait too.
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bytes = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @tma_into_aliased_view(%d: !tt.tensordesc<tensor<64x64xf16, #nv>>, %x: i32) {
    %true = arith.constant true
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %storage = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<32768xi8, #bytes, #smem, mutable>
    %halves = ttg.memdesc_reinterpret %storage : !ttg.memdesc<32768xi8, #bytes, #smem, mutable> -> !ttg.memdesc<4x64x64xf16, #nv, #smem, mutable>
    %acc = ttg.memdesc_reinterpret %storage : !ttg.memdesc<32768xi8, #bytes, #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %bars = ttg.local_alloc : () -> !ttg.memdesc<1x1xi64, #bytes, #smem, mutable>
    %bar = ttg.memdesc_index %bars[%c0] : !ttg.memdesc<1x1xi64, #bytes, #smem, mutable> -> !ttg.memdesc<1xi64, #bytes, #smem, mutable>
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #bytes, #smem, mutable>
    // halves[1] is bytes [8192, 16384): inside acc[0] ([0, 16384)), not acc[1].
    %h = ttg.memdesc_index %halves[%c1] : !ttg.memdesc<4x64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    ttng.barrier_expect %bar, 8192, %true : !ttg.memdesc<1xi64, #bytes, #smem, mutable>
    // expected-note @+1 {{the TMA load (async_descriptor_load) still in flight}}
    ttng.async_tma_copy_global_to_local %d[%x, %x] %h, %bar, %true : !tt.tensordesc<tensor<64x64xf16, #nv>>, !ttg.memdesc<1xi64, #bytes, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    %a0 = ttg.memdesc_index %acc[%c0] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %a1 = ttg.memdesc_index %acc[%c1] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %v1 = ttg.local_load %a1 : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> tensor<64x64xf32, #blocked>
    // expected-warning @+1 {{local_load of buffer[0] reads bytes [8192, 16384) of allocation at}}
    %v0 = ttg.local_load %a0 : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> tensor<64x64xf32, #blocked>
    ttng.wait_barrier %bar, %c0 : !ttg.memdesc<1xi64, #bytes, #smem, mutable>
    %v2 = ttg.local_load %a0 : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> tensor<64x64xf32, #blocked>
    tt.return
  }

  // A TMA store's source overwritten before async_tma_store_wait, and after.
  tt.func @tma_store_source_reused(%d: !tt.tensordesc<tensor<64x64xf16, #nv>>, %x: i32, %t: tensor<64x64xf16, #blocked>) {
    %c0 = arith.constant 0 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<1x64x64xf16, #nv, #smem, mutable>
    %s = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<1x64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    ttg.local_store %t, %s : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    ttng.fence_async_shared {bCluster = false}
    // expected-note @+1 {{the TMA store (async_descriptor_store) still in flight}}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %s : !tt.tensordesc<tensor<64x64xf16, #nv>>, !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    // expected-warning @+1 {{local_store of buffer[0] writes bytes [0, 8192) of allocation at}}
    ttg.local_store %t, %s : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    ttng.async_tma_store_wait {pendings = 0 : i32}
    ttg.local_store %t, %s : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    tt.return
  }

  // A TMA store (async proxy) of a tile a local_store wrote (generic proxy)
  // needs a fence_async_shared between them; the other tile is fenced.
  tt.func @tma_store_unfenced(%d: !tt.tensordesc<tensor<64x64xf16, #nv>>, %x: i32, %t: tensor<64x64xf16, #blocked>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #nv, #smem, mutable>
    %s = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    %o = ttg.memdesc_index %buf[%c1] : !ttg.memdesc<2x64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    ttg.local_store %t, %o : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    ttng.fence_async_shared {bCluster = false}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %o : !tt.tensordesc<tensor<64x64xf16, #nv>>, !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    // expected-note @+1 {{the local_store not fenced}}
    ttg.local_store %t, %s : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    // expected-warning @+1 {{TMA store (async_descriptor_store) of buffer[0] reads bytes [0, 8192) of allocation at}}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %s : !tt.tensordesc<tensor<64x64xf16, #nv>>, !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }
}

// -----

// async wgmma still reading its operand when it is overwritten; after
// warp_group_dot_wait {pendings = 0} it is not.
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @wgmma_operand_overwritten(%t: tensor<64x64xf16, #blocked>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #nv, #smem, mutable>
    %a = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    %b = ttg.memdesc_index %buf[%c1] : !ttg.memdesc<2x64x64xf16, #nv, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    // expected-note @+1 {{the async wgmma (async_dot) still in flight}}
    %r = ttng.warp_group_dot %a, %b, %acc {isAsync = true} : !ttg.memdesc<64x64xf16, #nv, #smem, mutable> * !ttg.memdesc<64x64xf16, #nv, #smem, mutable> -> tensor<64x64xf32, #mma>
    // expected-warning @+1 {{local_store of buffer[1] writes bytes [8192, 16384) of allocation at}}
    ttg.local_store %t, %b : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    %w = ttng.warp_group_dot_wait %r {pendings = 0 : i32} : tensor<64x64xf32, #mma>
    ttg.local_store %t, %a : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #nv, #smem, mutable>
    tt.return
  }
}

// -----

// A cp.async ring of 3 slots with affine slot indices: iteration k reads slot
// k % 3 and refills slot (k + 2) % 3. Waiting down to 1 pending group leaves
// slot k % 3 complete (silent); waiting down to 2 does not.
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @ring(%p: tensor<64x64x!tt.ptr<f16>, #blocked>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>
    %s0 = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %t0 = ttg.async_copy_global_to_local %p, %s0 : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
    %g0 = ttg.async_commit_group tokens %t0
    %s1 = ttg.memdesc_index %buf[%c1] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %t1 = ttg.async_copy_global_to_local %p, %s1 : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
    %g1 = ttg.async_commit_group tokens %t1
    scf.for %k = %c0 to %n step %c1 : i32 {
      %d = ttg.async_wait {num = 1 : i32}
      %slot = arith.remsi %k, %c3 : i32
      %cur = ttg.memdesc_index %buf[%slot] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %v = ttg.local_load %cur : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
      %k2 = arith.addi %k, %c2 : i32
      %next = arith.remsi %k2, %c3 : i32
      %nxt = ttg.memdesc_index %buf[%next] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %t = ttg.async_copy_global_to_local %p, %nxt : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
      %g = ttg.async_commit_group tokens %t
    }
    tt.return
  }

  tt.func @ring_wait_too_shallow(%p: tensor<64x64x!tt.ptr<f16>, #blocked>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>
    %s0 = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    // expected-note @+1 {{the cp.async copy (async_load) still in flight}}
    %t0 = ttg.async_copy_global_to_local %p, %s0 : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
    %g0 = ttg.async_commit_group tokens %t0
    %s1 = ttg.memdesc_index %buf[%c1] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    // expected-note @+1 {{the cp.async copy (async_load) still in flight}}
    %t1 = ttg.async_copy_global_to_local %p, %s1 : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
    %g1 = ttg.async_commit_group tokens %t1
    scf.for %k = %c0 to %n step %c1 : i32 {
      %d = ttg.async_wait {num = 2 : i32}
      %slot = arith.remsi %k, %c3 : i32
      %cur = ttg.memdesc_index %buf[%slot] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      // Slot k % 3 is still being filled by the copy of two groups ago (the
      // prologue's two, then the loop's own).
      // expected-warning @+3 {{local_load of buffer[0] reads bytes [0, 8192) of allocation at}}
      // expected-warning @+2 {{local_load of buffer[1] reads bytes [8192, 16384) of allocation at}}
      // expected-warning @+1 {{local_load of buffer[2] reads bytes [16384, 24576) of allocation at}}
      %v = ttg.local_load %cur : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
      %k2 = arith.addi %k, %c2 : i32
      %next = arith.remsi %k2, %c3 : i32
      %nxt = ttg.memdesc_index %buf[%next] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      // expected-note @+1 {{the cp.async copy (async_load) still in flight}}
      %t = ttg.async_copy_global_to_local %p, %nxt : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
      %g = ttg.async_commit_group tokens %t
    }
    tt.return
  }
}

// -----

// Warp specialization: the default task TMA-loads slot k % 2 (after waiting
// on `empty` for the previous round's release, phase (k / 2 & 1) ^ 1), the
// partition waits on `full` (phase k / 2 & 1), reads the slot and arrives on
// `empty`: a hand-off both ways. In @no_wait the default task never waits on
// `empty`, so the next load into a slot races with the read of the round
// before (and with the load before it, which nothing shows complete).
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

  tt.func @no_wait(%d: !desc, %n: i32) {
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
        %f = ttg.memdesc_index %full[%s] : !bars -> !bar
        ttng.barrier_expect %f, 8192, %true : !bar
        %b = ttg.memdesc_index %ring[%s] : !ring -> !slot
        // expected-note @+3 {{the TMA load (async_descriptor_load) in the other partition}}
        // expected-note @+2 {{the TMA load (async_descriptor_load) still in flight}}
        // expected-warning @+1 {{TMA load (async_descriptor_load) of buffer[0] writes bytes [0, 8192) of allocation at}}
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
