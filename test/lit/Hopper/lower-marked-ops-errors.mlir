// RUN: not %tlx-opt %s --tlx-lower-marked-ops --split-input-file 2>&1 | %FileCheck %s

// A marked TMA copy that triton lowered to no instruction this pass knows,
// with a cache hint already, or with a policy it does not know, is an error
// at the kernel's line.

// CHECK: k.py:3:4: error: tlx-lower-marked-ops: triton lowered this TMA copy with an L2 eviction policy to no inline asm this pass recognizes
llvm.func @no_tma_asm(%addr: !llvm.ptr<3>) {
  llvm.inline_asm has_side_effects asm_dialect = att "cp.async.bulk.shared::cta.global [$0];", "r" %addr : (!llvm.ptr<3>) -> () loc(fused<{tlx.l2_eviction = 3 : i32}>["k.py":3:4])
  llvm.return
}

// -----

// CHECK: k.py:5:4: error: tlx-lower-marked-ops: triton lowered a TMA copy with an L2 eviction policy to an unexpected 'cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [$0, {$1}], [$0], $1;' (expected `async.bulk.tensor....` without a cache hint)
llvm.func @unexpected_tma_asm(%addr: !llvm.ptr<3>) {
  llvm.inline_asm has_side_effects asm_dialect = att "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [$0, {$1}], [$0], $1;", "r" %addr : (!llvm.ptr<3>) -> () loc(fused<{tlx.l2_eviction = 3 : i32}>["k.py":5:4])
  llvm.return
}

// -----

// CHECK: k.py:7:4: error: tlx-lower-marked-ops: unknown L2 eviction policy 7
llvm.func @unknown_policy(%addr: !llvm.ptr<3>) {
  llvm.inline_asm has_side_effects asm_dialect = att "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [$0], [$0, {$0}], [$0];", "r" %addr : (!llvm.ptr<3>) -> () loc(fused<{tlx.l2_eviction = 7 : i32}>["k.py":7:4])
  llvm.return
}
