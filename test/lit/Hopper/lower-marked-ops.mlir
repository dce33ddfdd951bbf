// RUN: %tlx-opt %s --tlx-lower-marked-ops --mlir-print-debuginfo | %FileCheck %s

// Triton's lowering of marked TMA loads (`@$0 cp.async.bulk.tensor` into
// its own CTA, no cache hint) becomes a multicast to the mask's CTAs, takes
// an L2 eviction priority (stores and reduces too), or both (the mask, then the policy, as the PTX
// ISA orders the operands); the other ops of the marked location (the
// predicate's arithmetic) stay; the marks leave every location.

// CHECK-LABEL: llvm.func @tma_loads
llvm.func @tma_loads(%tid: i32, %dst: !llvm.ptr<3>, %desc: !llvm.ptr, %x: i32, %bar: !llvm.ptr<3>) {
  %c0 = llvm.mlir.constant(0 : i32) : i32 loc(fused<{tlx.l2_eviction = 3 : i32}>["k.py":3:4])
  %leader = llvm.icmp "eq" %tid, %c0 : i32 loc(fused<{tlx.l2_eviction = 3 : i32}>["k.py":3:4])
  // CHECK: "{\0A.reg .b64 %tlx_policy;\0Acreatepolicy.fractional.L2::evict_last.b64 %tlx_policy, 1.0;\0A@$0 cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes.L2::cache_hint [$1], [$2, {$3, $4}], [$5], %tlx_policy;\0A}", "b,r,l,r,r,r" {{.*}} loc(#[[K3:loc[0-9]*]])
  llvm.inline_asm has_side_effects asm_dialect = att "@$0 cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r" %leader, %dst, %desc, %x, %x, %bar : (i1, !llvm.ptr<3>, !llvm.ptr, i32, i32, !llvm.ptr<3>) -> () loc(fused<{tlx.l2_eviction = 3 : i32}>["k.py":3:4])
  // CHECK: createpolicy.fractional.L2::evict_first.b64 %tlx_policy, 1.0;{{.*}}bytes.L2::cache_hint [$1], [$2, {$3, $4}], [$5], %tlx_policy;
  llvm.inline_asm has_side_effects asm_dialect = att "@$0 cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r" %leader, %dst, %desc, %x, %x, %bar : (i1, !llvm.ptr<3>, !llvm.ptr, i32, i32, !llvm.ptr<3>) -> () loc(fused<{tlx.l2_eviction = 2 : i32}>["k.py":5:4])
  // CHECK: "{\0A.reg .b64 %tlx_policy;\0Acreatepolicy.fractional.L2::evict_last.b64 %tlx_policy, 1.0;\0A{\0A.reg .b16 %tlx_mask;\0Amov.b16 %tlx_mask, 3;\0A@$0 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [$1], [$2, {$3, $4}], [$5], %tlx_mask, %tlx_policy;\0A}\0A}"
  llvm.inline_asm has_side_effects asm_dialect = att "@$0 cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r" %leader, %dst, %desc, %x, %x, %bar : (i1, !llvm.ptr<3>, !llvm.ptr, i32, i32, !llvm.ptr<3>) -> () loc(fused<{tlx.multicast_mask = 3 : i32, tlx.l2_eviction = 3 : i32}>["k.py":7:4])
  // CHECK: "{\0A.reg .b16 %tlx_mask;\0Amov.b16 %tlx_mask, 1;\0A@$0 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [$1], [$2, {$3, $4}], [$5], %tlx_mask;\0A}"
  llvm.inline_asm has_side_effects asm_dialect = att "@$0 cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r" %leader, %dst, %desc, %x, %x, %bar : (i1, !llvm.ptr<3>, !llvm.ptr, i32, i32, !llvm.ptr<3>) -> () loc(fused<{tlx.multicast_mask = 1 : i32}>["k.py":9:4])
  // A store takes the hint after `.bulk_group`, a reduce too.
  // CHECK: createpolicy.fractional.L2::evict_first.b64 %tlx_policy, 1.0;\0A@$0 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [$1, {$2, $3}], [$4], %tlx_policy;\0A}"
  llvm.inline_asm has_side_effects asm_dialect = att "@$0 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$1, {$2, $3}], [$4];", "b,l,r,r,r" %leader, %desc, %x, %x, %dst : (i1, !llvm.ptr, i32, i32, !llvm.ptr<3>) -> () loc(fused<{tlx.l2_eviction = 2 : i32}>["k.py":11:4])
  // CHECK: createpolicy.fractional.L2::evict_last.b64 %tlx_policy, 1.0;\0A@$0 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group.L2::cache_hint [$1, {$2, $3}], [$4], %tlx_policy;\0A}"
  llvm.inline_asm has_side_effects asm_dialect = att "@$0 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [$1, {$2, $3}], [$4];", "b,l,r,r,r" %leader, %desc, %x, %x, %dst : (i1, !llvm.ptr, i32, i32, !llvm.ptr<3>) -> () loc(fused<{tlx.l2_eviction = 3 : i32}>["k.py":13:4])
  // A load without a mark stays.
  // CHECK: "@$0 cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];"
  llvm.inline_asm has_side_effects asm_dialect = att "@$0 cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r" %leader, %dst, %desc, %x, %x, %bar : (i1, !llvm.ptr<3>, !llvm.ptr, i32, i32, !llvm.ptr<3>) -> ()
  llvm.return
}
// CHECK-NOT: fused<{tlx.
// CHECK-DAG: #[[K3]] = loc("k.py":3:4)
// CHECK-NOT: fused<{tlx.
