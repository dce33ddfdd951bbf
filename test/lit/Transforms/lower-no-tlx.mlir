// RUN: %tlx-opt %s --tlx-lower | %FileCheck %s
//
// tlx-lower leaves a module without tlx ops untouched: in particular it does
// not run its canonicalizer over it (the dead, foldable arithmetic and the
// unused allocation below would otherwise disappear).

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: tt.func @no_tlx()
  // CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: arith.addi %[[C1]], %[[C2]] : i32
  // CHECK-NEXT: ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf32, #{{.+}}, #smem, mutable>
  // CHECK-NEXT: tt.return
  tt.func @no_tlx() {
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %s = arith.addi %c1, %c2 : i32
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    tt.return
  }
}
