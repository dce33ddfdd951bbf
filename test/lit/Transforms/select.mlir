// RUN: %tlx-opt %s --tlx-storage-alias-lowering | %FileCheck %s
// RUN: %tlx-opt %s --canonicalize --tlx-storage-alias-lowering | %FileCheck %s
//
// Regression (tlx-storage-alias-lowering, step 4): arith.select is not
// followed, so a select between two moved views fails with "'arith.select'
// op uses a storage alias view whose buffers were placed by
// set_buffer_overlap". The canonicalizer itself turns an scf.if that yields
// two views (supported, see control-flow.mlir @if_same_layout) into such a
// select, so running --canonicalize before the lowering (second RUN line)
// breaks a supported input. Now: the select result takes the common
// layout (and mixing layouts is an error, as for scf.if).

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!buf = !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
!one = !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
!t = tensor<64x64xf32, #blocked>

// CHECK-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: tt.func @select_same_layout(
  // CHECK: %[[R:.+]] = arith.select %{{.+}}, %{{.+}}, %{{.+}} : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: %[[MUL:.+]] = arith.muli %{{.+}}, %{{.+}} : i32
  // CHECK: %[[ADD:.+]] = arith.addi %[[MUL]], %{{.+}} : i32
  // CHECK-NEXT: ttg.memdesc_index %[[R]][%[[ADD]]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  tt.func @select_same_layout(%c: i1, %i: i32, %x: !t) {
    %s1 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a1 = tlx.storage_alias_local_alloc %s1 : !tlx.storage_alias_spec<smem> -> !buf
    %b1 = tlx.storage_alias_local_alloc %s1 : !tlx.storage_alias_spec<smem> -> !buf
    %g1 = tlx.reuse_group(%a1, %b1) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%s1, %g1) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %s2 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a2 = tlx.storage_alias_local_alloc %s2 : !tlx.storage_alias_spec<smem> -> !buf
    %b2 = tlx.storage_alias_local_alloc %s2 : !tlx.storage_alias_spec<smem> -> !buf
    %g2 = tlx.reuse_group(%a2, %b2) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%s2, %g2) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %r = scf.if %c -> (!buf) {
      scf.yield %b1 : !buf
    } else {
      scf.yield %b2 : !buf
    }
    %s = arith.select %c, %r, %b2 : !buf
    %v = ttg.memdesc_index %s[%i] : !buf -> !one
    ttg.local_store %x, %v : !t -> !one
    tt.return
  }
}
