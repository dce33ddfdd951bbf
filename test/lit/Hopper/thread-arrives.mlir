// RUN: %tlx-opt %s --tlx-thread-arrives-as-expects --mlir-print-debuginfo | %FileCheck %s

// A warp barrier's arrive (tlx.arrive_per_thread) becomes a zero-byte
// barrier_expect that triton's barrier analysis sees as touching its own
// mbarrier only; its location carries the per-thread count, and whether the
// arrive had a predicate. A leader arrive stays as it is.

#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // CHECK-LABEL: tt.func @arrives
  tt.func @arrives(%pred: i1) {
    %c0 = arith.constant 0 : i32
    %bars = ttg.local_alloc : () -> !ttg.memdesc<1x1xi64, #shared1, #smem, mutable>
    %bar = ttg.memdesc_index %bars[%c0] : !ttg.memdesc<1x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // CHECK: %[[TRUE:.*]] = arith.constant true loc(#[[ARRIVE1:loc[0-9]*]])
    // CHECK: ttng.barrier_expect %{{.*}}, 0, %[[TRUE]] {{.*}}loc(#[[MARK1:loc[0-9]*]])
    ttng.arrive_barrier %bar, 128 {tlx.arrive_per_thread = 1 : i32} : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("k.py":3:4)
    // CHECK: ttng.barrier_expect %{{.*}}, 0, %arg0 {{.*}}loc(#[[MARK2:loc[0-9]*]])
    ttng.arrive_barrier %bar, 256, %pred {tlx.arrive_per_thread = 2 : i32} : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("k.py":5:4)
    // CHECK: ttng.arrive_barrier %{{.*}}, 1 :
    ttng.arrive_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // CHECK-NOT: tlx.arrive_per_thread
    tt.return
  }
}
// CHECK: #[[ARRIVE1]] = loc("k.py":3:4)
// CHECK: #[[MARK1]] = loc(fused<{tlx.arrive_per_thread = 1 : i32}>[#[[ARRIVE1]]])
// CHECK: #[[MARK2]] = loc(fused<{tlx.arrive_per_thread = 2 : i32, tlx.predicated}>[#{{loc[0-9]*}}])
