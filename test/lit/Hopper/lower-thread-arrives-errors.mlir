// RUN: not %tlx-opt %s --tlx-lower-thread-arrives 2>&1 | %FileCheck %s

// A marked op triton lowered otherwise than tlx-lower-thread-arrives knows is
// an error at the kernel's line, naming what it found.

// CHECK: k.py:7:4: error: tlx-lower-thread-arrives: triton lowered a warp barrier's arrive (or an unchained wait) to an unexpected 'mbarrier.arrive.shared::cta.b64 _, [$0];' (expected `@$0 mbarrier.arrive.expect_tx` on a predicate and an address)
llvm.func @unknown_lowering(%addr: !llvm.ptr<3>) {
  llvm.inline_asm has_side_effects asm_dialect = att "mbarrier.arrive.shared::cta.b64 _, [$0];", "r" %addr : (!llvm.ptr<3>) -> () loc(fused<{tlx.arrive_per_thread = 1 : i32}>["k.py":7:4])
  llvm.return
}
