// RUN: %tlx-opt %s --tlx-storage-alias-lowering | %FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: %if packed-views %{ %tlx-opt %s --tlx-storage-alias-lowering=exact-views=false | %FileCheck %s --check-prefixes=CHECK,PACKED %}
//
// Regression (tlx-storage-alias-lowering, step 4): a moved view captured by
// ttg.warp_specialize is rejected with "'ttg.warp_specialize.partitions' op
// uses a storage alias view whose buffers were placed by set_buffer_overlap".
// In triton 3.7.1 the explicit captures are operands of the nested
// ttg.warp_specialize.partitions op (region 1 of ttg.warp_specialize), not
// of ttg.warp_specialize, so the capture is never recognised. Now: the
// partition's block argument takes the view type and its accesses are
// rewritten like any other.

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!buf = !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
!one = !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
!t = tensor<64x64xf32, #blocked>

// CHECK-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // b: offset 16384, 32768 bytes between buffers -> 4x64x64xf32, 2i + 1
  // (in both modes). a's view spans the whole 65536 bytes with exact views
  // (4 buffers), up to its last buffer packed (3).
  // CHECK-LABEL: tt.func @capture(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #{{.+}}, #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<65536xi8, #{{.+}}, #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<3x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: ttg.warp_specialize(%[[B]], %[[I]])
  // CHECK: default {
  // CHECK: %[[DMUL:.+]] = arith.muli %[[I]], %{{.+}} : i32
  // CHECK: %[[DADD:.+]] = arith.addi %[[DMUL]], %{{.+}} : i32
  // CHECK-NEXT: ttg.memdesc_index %[[B]][%[[DADD]]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: partition0(%[[ARG:.+]]: !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>, %[[J:.+]]: i32) num_warps(4) {
  // CHECK: %[[MUL:.+]] = arith.muli %[[J]], %{{.+}} : i32
  // CHECK: %[[ADD:.+]] = arith.addi %[[MUL]], %{{.+}} : i32
  // CHECK-NEXT: ttg.memdesc_index %[[ARG]][%[[ADD]]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: } : (!ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>, i32) -> ()
  tt.func @capture(%i: i32, %x: !t) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    ttg.warp_specialize(%b, %i)
    default {
      %v = ttg.memdesc_index %b[%i] : !buf -> !one
      ttg.local_store %x, %v : !t -> !one
      ttg.warp_yield
    }
    partition0(%arg0: !buf, %arg1: i32) num_warps(4) {
      %v = ttg.memdesc_index %arg0[%arg1] : !buf -> !one
      %y = ttg.local_load %v : !one -> !t
      ttg.local_store %y, %v : !t -> !one
      ttg.warp_return
    } : (!buf, i32) -> ()
    tt.return
  }
}
