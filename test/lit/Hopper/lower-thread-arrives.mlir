// RUN: %tlx-opt %s --tlx-lower-thread-arrives --mlir-print-debuginfo | %FileCheck %s

// Triton's lowering of the marked zero-byte expects (a leader's
// `@$0 mbarrier.arrive.expect_tx`, $0 = leader test && pred) becomes an
// arrive of every thread: unpredicated, or on the arrive's own predicate
// (or, marked as an unchained wait, the wait of every thread);
// the mark leaves every location it was on.

// CHECK-LABEL: llvm.func @arrives
llvm.func @arrives(%tid: i32, %pred: i1, %addr: !llvm.ptr<3>) {
  %c0 = llvm.mlir.constant(0 : i32) : i32 loc(fused<{tlx.arrive_per_thread = 1 : i32}>["k.py":3:4])
  %true = llvm.mlir.constant(true) : i1
  %leader = llvm.icmp "eq" %tid, %c0 : i32 loc(fused<{tlx.arrive_per_thread = 1 : i32}>["k.py":3:4])
  %both = llvm.and %leader, %true : i1 loc(fused<{tlx.arrive_per_thread = 1 : i32}>["k.py":3:4])
  // CHECK: llvm.inline_asm has_side_effects {{.*}}"mbarrier.arrive.shared::cta.b64 _, [$0];", "r" %arg2 : (!llvm.ptr<3>) -> () loc(#[[K3:loc[0-9]*]])
  llvm.inline_asm has_side_effects asm_dialect = att "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 0;", "b,r" %both, %addr : (i1, !llvm.ptr<3>) -> () loc(fused<{tlx.arrive_per_thread = 1 : i32}>["k.py":3:4])
  %leader2 = llvm.icmp "eq" %tid, %c0 : i32 loc(fused<{tlx.arrive_per_thread = 2 : i32, tlx.predicated}>["k.py":5:4])
  %both2 = llvm.and %leader2, %pred : i1 loc(fused<{tlx.arrive_per_thread = 2 : i32, tlx.predicated}>["k.py":5:4])
  // CHECK: llvm.inline_asm has_side_effects {{.*}}"@$0 mbarrier.arrive.shared::cta.b64 _, [$1], 2;", "b,r" %arg1, %arg2 : (i1, !llvm.ptr<3>) -> () loc(#[[K5:loc[0-9]*]])
  llvm.inline_asm has_side_effects asm_dialect = att "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 0;", "b,r" %both2, %addr : (i1, !llvm.ptr<3>) -> () loc(fused<{tlx.arrive_per_thread = 2 : i32, tlx.predicated}>["k.py":5:4])
  // An expect marked by tlx-unchained-waits-as-expects is a wait of every
  // thread again: triton's wait loop on the parity its predicate carries.
  %leader3 = llvm.icmp "eq" %tid, %c0 : i32 loc(fused<{tlx.unchained_wait}>["k.py":7:8])
  %both3 = llvm.and %leader3, %pred : i1 loc(fused<{tlx.unchained_wait}>["k.py":7:8])
  // CHECK: llvm.inline_asm has_side_effects {{.*}}"\0A{\0A\09.reg .pred complete;\0A\09.reg .b32 parity;\0A\09selp.b32 parity, 1, 0, $0;\0A\09waitLoop:\0A\09mbarrier.try_wait.parity.shared::cta.b64 complete, [$1], parity;\0A\09@!complete bra.uni waitLoop;\0A}\0A", "b,r" %arg1, %arg2 : (i1, !llvm.ptr<3>) -> () loc(#[[K7:loc[0-9]*]])
  llvm.inline_asm has_side_effects asm_dialect = att "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 0;", "b,r" %both3, %addr : (i1, !llvm.ptr<3>) -> () loc(fused<{tlx.unchained_wait}>["k.py":7:8])
  // A leader's expect without the mark stays.
  // CHECK: "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 0;"
  llvm.inline_asm has_side_effects asm_dialect = att "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 0;", "b,r" %both, %addr : (i1, !llvm.ptr<3>) -> ()
  llvm.return
}
// CHECK-NOT: fused<{tlx.
// CHECK-DAG: #[[K3]] = loc("k.py":3:4)
// CHECK-DAG: #[[K5]] = loc("k.py":5:4)
// CHECK-DAG: #[[K7]] = loc("k.py":7:8)
// CHECK-NOT: fused<{tlx.
