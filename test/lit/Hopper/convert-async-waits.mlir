// RUN: %tlx-opt %s --tlx-convert-async-waits | %FileCheck %s

// The count the kernel author wrote survives (Triton's pipeliner would have
// recomputed a tokenless ttg.async_wait to 0); tokens are kept.

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: tt.func @waits(
  tt.func @waits(%t: !ttg.async.token) {
    // CHECK: ttg.async_wait {num = 2 : i32}
    %a = tlx.async_load_wait_group {pendings = 2 : i32} : () -> !ttg.async.token
    // CHECK: ttg.async_wait %{{.+}} {num = 1 : i32}
    %b = tlx.async_load_wait_group %t {pendings = 1 : i32} : (!ttg.async.token) -> !ttg.async.token
    // CHECK-NOT: tlx.
    tt.return
  }
}
