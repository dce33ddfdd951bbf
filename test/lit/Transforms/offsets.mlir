// RUN: %tlx-opt %s --tlx-storage-alias-lowering | %FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: %if packed-views %{ %tlx-opt %s --tlx-storage-alias-lowering=exact-views=false | %FileCheck %s --check-prefixes=CHECK,PACKED %}
//
// Step 2 of tlx-storage-alias-lowering: where set_buffer_overlap places each
// allocation. Buffer i of an allocation at offset o with stride s lives at
// o + i * s bytes of the spec's storage; the view expresses that as index
// (s / B) * i + o / B (B = bytes per buffer).
//
// Exact views (the default; EXACT, triton 3.7 and 3.8): every buffer starts
// at a multiple of B, the storage is (N / G) x G x i8 with N a multiple of
// every B, and each view spans it whole, N / B buffers. The tree is laid out
// as the design says, interleaved with one stride (a multiple of every
// buffer), even where ring by ring would be smaller: rings only where the
// interleaved layout does not fit the target (exact-views.mlir).
//
// Packed views (exact-views=false, triton 3.7 only; PACKED): buffers at
// their layouts' alignment, views just long enough for the last buffer,
// (o + (num - 1) * s) / B + 1, and a stride that B does not divide reached
// through byte slots (a slot index, then a reinterpret).

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1d = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory

// CHECK-DAG: #[[$BYTES:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {

  // The design's phase 5 example: shared(QK, distinct(P, alpha)) in 32768
  // bytes. Stride 16384; QK at 0 (its natural layout), P at 0 (index 2i of
  // 3 buffers; exact: of 4), alpha at 8192 (index 64i + 32 of 97 buffers of
  // 256 bytes; exact: of 128).
  // CHECK-LABEL: tt.func @flash_attention(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: %[[QK:.+]] = tlx.local_alias %[[BASE]] : !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[P:.+]] = tlx.local_alias %[[BASE]] : !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x64x64xf16, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[ALPHA:.+]] = tlx.local_alias %[[BASE]] : !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<128x64xf32, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[QK:.+]] = tlx.local_alias %[[BASE]] : !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[P:.+]] = tlx.local_alias %[[BASE]] : !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<3x64x64xf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[ALPHA:.+]] = tlx.local_alias %[[BASE]] : !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<97x64xf32, #[[$BYTES]], #smem, mutable>
  // CHECK-NOT: tlx.reuse_group
  // CHECK-NOT: tlx.set_buffer_overlap
  // CHECK: ttg.memdesc_index %[[QK]][%[[I]]] : !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[PI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[P]][%[[PI]]] : !ttg.memdesc<4x64x64xf16, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[P]][%[[PI]]] : !ttg.memdesc<3x64x64xf16, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf16, #[[$SHARED]], #smem, mutable>
  // CHECK: %[[C64:.+]] = arith.constant 64 : i32
  // CHECK-NEXT: %[[AS:.+]] = arith.muli %[[I]], %[[C64]] : i32
  // CHECK-NEXT: %[[C32:.+]] = arith.constant 32 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.addi %[[AS]], %[[C32]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[ALPHA]][%[[AI]]] : !ttg.memdesc<128x64xf32, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<64xf32, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[ALPHA]][%[[AI]]] : !ttg.memdesc<97x64xf32, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<64xf32, #[[$BYTES]], #smem, mutable>
  tt.func @flash_attention(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem, size = 32768 : !tlx.storage_alias_spec<smem, 32768>
    %qk = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 32768> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %p = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 32768> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %alpha = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 32768> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    %inner = tlx.reuse_group(%p, %alpha) group_kind = distinct : (!ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>) -> !tlx.reuse_group<distinct>
    %outer = tlx.reuse_group(%qk, %inner) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %outer) : (!tlx.storage_alias_spec<smem, 32768>, !tlx.reuse_group<shared>) -> ()
    %a = ttg.memdesc_index %qk[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %b = ttg.memdesc_index %p[%i] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %c = ttg.memdesc_index %alpha[%i] : !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable> -> !ttg.memdesc<64xf32, #shared1d, #smem, mutable>
    tt.return
  }

  // The same tree without a size: the compiler picks the same 32768 bytes.
  // CHECK-LABEL: tt.func @flash_attention_unsized
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf16, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<128x64xf32, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<3x64x64xf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<97x64xf32, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tt.return
  tt.func @flash_attention_unsized() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %qk = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %p = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %alpha = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    %inner = tlx.reuse_group(%p, %alpha) group_kind = distinct : (!ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>) -> !tlx.reuse_group<distinct>
    %outer = tlx.reuse_group(%qk, %inner) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %outer) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    tt.return
  }

  // The design's distinct example: 65536 bytes, stride 32768; a at 0 (index
  // 2i of 3; exact: of 4), b at 16384 (index 2i + 1 of 4).
  // CHECK-LABEL: tt.func @distinct_offsets(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: %[[A:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<65536xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[A:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<3x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<3x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[BS:.+]] = arith.muli %[[I]], %[[C2B]] : i32
  // CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[BI:.+]] = arith.addi %[[BS]], %[[C1]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  tt.func @distinct_offsets(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem, size = 65536 : !tlx.storage_alias_spec<smem, 65536>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 65536> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 65536> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem, 65536>, !tlx.reuse_group<distinct>) -> ()
    %va = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %vb = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }

  // Order in a distinct group is the group's order, not program order: b
  // (16384 B) first at 0, a (8192 B) second at 16384; stride 24576. a: 3i + 2
  // of 6; b: 24576 is no multiple of 16384, so 8192-byte slots, 3i of 4.
  // Exact: the stride rounded up to a multiple of b, 32768 (65536 bytes):
  // b at 2i of 4, a at 4i + 2 of 8.
  // CHECK-LABEL: tt.func @distinct_order(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: %[[A:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<8x64x64xf16, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[B:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // EXACT-NEXT: %[[AS:.+]] = arith.muli %[[I]], %[[C4]] : i32
  // EXACT-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // EXACT-NEXT: %[[AI:.+]] = arith.addi %[[AS]], %[[C2]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<8x64x64xf16
  // EXACT-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // EXACT-NEXT: %[[BI:.+]] = arith.muli %[[I]], %[[C2B]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<4x64x64xf32
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<49152xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[A:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<6x64x64xf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[B:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x8192xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[C3:.+]] = arith.constant 3 : i32
  // PACKED-NEXT: %[[AS:.+]] = arith.muli %[[I]], %[[C3]] : i32
  // PACKED-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // PACKED-NEXT: %[[AI:.+]] = arith.addi %[[AS]], %[[C2]] : i32
  // PACKED-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<6x64x64xf16
  // PACKED-NEXT: %[[C3B:.+]] = arith.constant 3 : i32
  // PACKED-NEXT: %[[BI:.+]] = arith.muli %[[I]], %[[C3B]] : i32
  // PACKED-NEXT: %[[SLOT:.+]] = ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<4x8192xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<8192xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: ttg.memdesc_reinterpret %[[SLOT]] : !ttg.memdesc<8192xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: tt.return
  tt.func @distinct_order(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %g = tlx.reuse_group(%b, %a) group_kind = distinct : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %va = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %vb = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }

  // Three distinct allocations: a (16384 B) at 0, b (8192 B) at 16384,
  // c (8192 B) at 24576; stride 32768, exact too. c: 4i + 3 of 8.
  // CHECK-LABEL: tt.func @distinct_three(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<8x64x64xf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<65536xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<3x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<7x64x64xf16, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[C:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<8x32x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // CHECK-NEXT: %[[S:.+]] = arith.muli %[[I]], %[[C4]] : i32
  // CHECK-NEXT: %[[C3:.+]] = arith.constant 3 : i32
  // CHECK-NEXT: %[[CI:.+]] = arith.addi %[[S]], %[[C3]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[C]][%[[CI]]]
  tt.func @distinct_three(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %c = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x32x64xf32, #shared, #smem, mutable>
    %g = tlx.reuse_group(%a, %b, %c) group_kind = distinct : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<2x32x64xf32, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %vc = ttg.memdesc_index %c[%i] : !ttg.memdesc<2x32x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf32, #shared, #smem, mutable>
    tt.return
  }

  // A shared group: everything at 0, the stride is the largest buffer
  // (exact: views of 2, 4 and 8 buffers; packed: 2, 3 and 5).
  // CHECK-LABEL: tt.func @shared_group
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<8x32x32xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<3x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<5x32x32xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: tt.return
  tt.func @shared_group() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    %c = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x32x32xf32, #shared, #smem, mutable>
    %g = tlx.reuse_group(%a, %b, %c) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>, !ttg.memdesc<2x32x32xf32, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    tt.return
  }

  // Three levels: shared(QK, distinct(P, shared(alpha, l))). The inner
  // shared group is max(256, 512) = 512 bytes at 8192; stride 16384.
  // alpha: 64i + 32 of 97 (exact: 128); l: 32i + 16 of 49 (exact: 64).
  // CHECK-LABEL: tt.func @three_levels(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf16, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[ALPHA:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<128x64xf32, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: %[[L:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<64x128xf32, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<3x64x64xf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[ALPHA:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<97x64xf32, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[L:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<49x128xf32, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: %[[C64:.+]] = arith.constant 64 : i32
  // CHECK-NEXT: %[[S0:.+]] = arith.muli %[[I]], %[[C64]] : i32
  // CHECK-NEXT: %[[C32:.+]] = arith.constant 32 : i32
  // CHECK-NEXT: %[[I0:.+]] = arith.addi %[[S0]], %[[C32]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[ALPHA]][%[[I0]]]
  // CHECK-NEXT: %[[C32B:.+]] = arith.constant 32 : i32
  // CHECK-NEXT: %[[S1:.+]] = arith.muli %[[I]], %[[C32B]] : i32
  // CHECK-NEXT: %[[C16:.+]] = arith.constant 16 : i32
  // CHECK-NEXT: %[[I1:.+]] = arith.addi %[[S1]], %[[C16]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[L]][%[[I1]]]
  tt.func @three_levels(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %qk = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %p = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %alpha = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    %l = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x128xf32, #shared1d, #smem, mutable>
    %stats = tlx.reuse_group(%alpha, %l) group_kind = shared : (!ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>, !ttg.memdesc<2x128xf32, #shared1d, #smem, mutable>) -> !tlx.reuse_group<shared>
    %inner = tlx.reuse_group(%p, %stats) group_kind = distinct : (!ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>, !tlx.reuse_group<shared>) -> !tlx.reuse_group<distinct>
    %outer = tlx.reuse_group(%qk, %inner) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %outer) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    %va = ttg.memdesc_index %alpha[%i] : !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable> -> !ttg.memdesc<64xf32, #shared1d, #smem, mutable>
    %vl = ttg.memdesc_index %l[%i] : !ttg.memdesc<2x128xf32, #shared1d, #smem, mutable> -> !ttg.memdesc<128xf32, #shared1d, #smem, mutable>
    tt.return
  }

  // distinct(a, shared(b, c)): the shared group counts as its largest
  // member (8192) and starts after a at 16384; stride 24576. a then needs
  // 8192-byte slots (16384 does not divide 24576); b: 3i + 2 of 6; c (4096
  // B): 6i + 4 of 11. Exact: the stride rounded up to a multiple of a,
  // 32768 (65536 bytes): a 2i of 4, b 4i + 2 of 8, c 8i + 4 of 16.
  // CHECK-LABEL: tt.func @distinct_containing_shared(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: %[[A:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[B:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<8x64x64xf16, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[C:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<16x16x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // EXACT-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<4x64x64xf32
  // EXACT-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // EXACT-NEXT: %[[BS:.+]] = arith.muli %[[I]], %[[C4]] : i32
  // EXACT-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // EXACT-NEXT: %[[BI:.+]] = arith.addi %[[BS]], %[[C2B]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<8x64x64xf16
  // EXACT-NEXT: %[[C8:.+]] = arith.constant 8 : i32
  // EXACT-NEXT: %[[CS:.+]] = arith.muli %[[I]], %[[C8]] : i32
  // EXACT-NEXT: %[[C4B:.+]] = arith.constant 4 : i32
  // EXACT-NEXT: %[[CI:.+]] = arith.addi %[[CS]], %[[C4B]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[C]][%[[CI]]] : !ttg.memdesc<16x16x64xf32
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<49152xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[A:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x8192xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[B:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<6x64x64xf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[C:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<11x16x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[C3:.+]] = arith.constant 3 : i32
  // PACKED-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C3]] : i32
  // PACKED-NEXT: %[[SLOT:.+]] = ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<4x8192xi8
  // PACKED-NEXT: ttg.memdesc_reinterpret %[[SLOT]] : !ttg.memdesc<8192xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[C3B:.+]] = arith.constant 3 : i32
  // PACKED-NEXT: %[[BS:.+]] = arith.muli %[[I]], %[[C3B]] : i32
  // PACKED-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // PACKED-NEXT: %[[BI:.+]] = arith.addi %[[BS]], %[[C2]] : i32
  // PACKED-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<6x64x64xf16
  // PACKED-NEXT: %[[C6:.+]] = arith.constant 6 : i32
  // PACKED-NEXT: %[[CS:.+]] = arith.muli %[[I]], %[[C6]] : i32
  // PACKED-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // PACKED-NEXT: %[[CI:.+]] = arith.addi %[[CS]], %[[C4]] : i32
  // PACKED-NEXT: ttg.memdesc_index %[[C]][%[[CI]]] : !ttg.memdesc<11x16x64xf32
  // CHECK-NEXT: tt.return
  tt.func @distinct_containing_shared(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %c = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x16x64xf32, #shared, #smem, mutable>
    %inner = tlx.reuse_group(%b, %c) group_kind = shared : (!ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<2x16x64xf32, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
    %outer = tlx.reuse_group(%a, %inner) group_kind = distinct : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !tlx.reuse_group<shared>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %outer) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %va = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %vb = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %vc = ttg.memdesc_index %c[%i] : !ttg.memdesc<2x16x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<16x64xf32, #shared, #smem, mutable>
    tt.return
  }

  // More buffers: 4 x distinct(a, b) of 8192 + 4096 bytes, stride 12288.
  // a: 4096-byte slots, 3i of 10; b: 3i + 2 of 12. Exact: the stride rounded
  // up to a multiple of a, 16384 (65536 bytes): a 2i of 8, b 4i + 2 of 16.
  // CHECK-LABEL: tt.func @four_buffers(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: %[[A:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<8x64x64xf16, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[B:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<16x32x32xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // EXACT-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<8x64x64xf16
  // EXACT-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // EXACT-NEXT: %[[BS:.+]] = arith.muli %[[I]], %[[C4]] : i32
  // EXACT-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // EXACT-NEXT: %[[BI:.+]] = arith.addi %[[BS]], %[[C2B]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<16x32x32xf32
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<49152xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[A:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<10x4096xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[B:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<12x32x32xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[C3:.+]] = arith.constant 3 : i32
  // PACKED-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C3]] : i32
  // PACKED-NEXT: %[[SLOT:.+]] = ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<10x4096xi8
  // PACKED-NEXT: ttg.memdesc_reinterpret %[[SLOT]] : !ttg.memdesc<4096xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<64x64xf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[C3B:.+]] = arith.constant 3 : i32
  // PACKED-NEXT: %[[BS:.+]] = arith.muli %[[I]], %[[C3B]] : i32
  // PACKED-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // PACKED-NEXT: %[[BI:.+]] = arith.addi %[[BS]], %[[C2]] : i32
  // PACKED-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<12x32x32xf32
  // CHECK-NEXT: tt.return
  tt.func @four_buffers(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x64x64xf16, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x32x32xf32, #shared, #smem, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<4x64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<4x32x32xf32, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %va = ttg.memdesc_index %a[%i] : !ttg.memdesc<4x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %vb = ttg.memdesc_index %b[%i] : !ttg.memdesc<4x32x32xf32, #shared, #smem, mutable> -> !ttg.memdesc<32x32xf32, #shared, #smem, mutable>
    tt.return
  }
}
