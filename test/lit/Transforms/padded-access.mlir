// RUN: %tlx-opt %s --tlx-storage-alias-lowering | %FileCheck %s --check-prefixes=RAW,RAW-EXACT
// RUN: %tlx-opt %s --tlx-lower | %FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: %if packed-views %{ %tlx-opt %s --tlx-storage-alias-lowering=exact-views=false | %FileCheck %s --check-prefixes=RAW,RAW-PACKED %}
// RUN: %if packed-views %{ %tlx-opt %s --tlx-lower=exact-views=false | %FileCheck %s --check-prefixes=CHECK,PACKED %}
//
// Step 4 of tlx-storage-alias-lowering (the design's phase 6): every
// ttg.memdesc_index of a moved view indexes scale * i + offset_slots. The
// arithmetic is emitted as arith.muli / arith.addi (RAW); constant indices
// fold, and after tlx-lower (lowering, canonicalize, rewrite-local-alias) the
// view is a ttg.memdesc_reinterpret of the one allocation.
//
// Shared-memory buffers start on 128-byte boundaries, so the design's 64-byte
// examples are shown with 64- and 128-byte buffers.
//
// Exact views (the default; EXACT, triton 3.7 and 3.8) span the whole
// storage, (N / G) x G x i8, in whole buffers, each buffer at a multiple of
// its size, the tree interleaved with one stride (ring by ring only past the
// target's memory: exact-views.mlir). Packed
// views (exact-views=false, triton 3.7 only; PACKED) end at the last buffer
// and reach a stride the buffer does not divide through byte slots.

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1d = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1d = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#smem = #ttg.shared_memory

// CHECK-DAG: #[[$BYTES:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// RAW-DAG: #[[$BYTES:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// RAW-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {

  // Design example 1 (padding doubles the stride): 2 x 4x8xf16 (64 B) with
  // 128 bytes between buffers and no offset. buffer[i] becomes buffer[2i]
  // of a 3-buffer view: 3 is enough to reach buffer 1 (no 4th slot). Exact:
  // a 4-buffer view spanning the 256 bytes.
  // RAW-LABEL: tt.func @example1_stride(
  // RAW-SAME: %[[I:arg[0-9]+]]: i32
  // RAW-EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x256xi8, #[[$BYTES]], #smem, mutable>
  // RAW-EXACT-NEXT: %[[VIEW:.+]] = tlx.local_alias %[[BASE]] : !ttg.memdesc<1x256xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x4x8xf16, #[[$SHARED]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<256xi8, #[[$BYTES]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[VIEW:.+]] = tlx.local_alias %[[BASE]] : !ttg.memdesc<256xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<3x4x8xf16, #[[$SHARED]], #smem, mutable>
  // RAW-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // RAW-NEXT: %[[IDX:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // RAW-EXACT-NEXT: ttg.memdesc_index %[[VIEW]][%[[IDX]]] : !ttg.memdesc<4x4x8xf16, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<4x8xf16, #[[$SHARED]], #smem, mutable>
  // RAW-PACKED-NEXT: ttg.memdesc_index %[[VIEW]][%[[IDX]]] : !ttg.memdesc<3x4x8xf16, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<4x8xf16, #[[$SHARED]], #smem, mutable>
  // CHECK-LABEL: tt.func @example1_stride(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-DAG: %[[C0:.+]] = arith.constant 0 : i32
  // CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i32
  // EXACT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x256xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: %[[VIEW:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<1x256xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x4x8xf16, #[[$SHARED]], #smem, mutable>
  // PACKED: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<256xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[VIEW:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<256xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<3x4x8xf16, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[IDX:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // CHECK-NEXT: %[[BI:.+]] = ttg.memdesc_index %[[VIEW]][%[[IDX]]]
  // CHECK-NEXT: ttg.local_store %{{.+}}, %[[BI]]
  // CHECK-NEXT: %[[B0:.+]] = ttg.memdesc_index %[[VIEW]][%[[C0]]]
  // CHECK-NEXT: ttg.local_store %{{.+}}, %[[B0]]
  // CHECK-NEXT: %[[B1:.+]] = ttg.memdesc_index %[[VIEW]][%[[C2]]]
  // CHECK-NEXT: ttg.local_store %{{.+}}, %[[B1]]
  // CHECK-NEXT: tt.return
  tt.func @example1_stride(%i: i32, %x: tensor<4x8xf16, #blocked>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x4x8xf16, #shared, #smem, mutable>
    %g = tlx.reuse_group(%a) group_kind = shared : (!ttg.memdesc<2x4x8xf16, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    %vi = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x4x8xf16, #shared, #smem, mutable> -> !ttg.memdesc<4x8xf16, #shared, #smem, mutable>
    ttg.local_store %x, %vi : tensor<4x8xf16, #blocked> -> !ttg.memdesc<4x8xf16, #shared, #smem, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %v0 = ttg.memdesc_index %a[%c0] : !ttg.memdesc<2x4x8xf16, #shared, #smem, mutable> -> !ttg.memdesc<4x8xf16, #shared, #smem, mutable>
    ttg.local_store %x, %v0 : tensor<4x8xf16, #blocked> -> !ttg.memdesc<4x8xf16, #shared, #smem, mutable>
    %v1 = ttg.memdesc_index %a[%c1] : !ttg.memdesc<2x4x8xf16, #shared, #smem, mutable> -> !ttg.memdesc<4x8xf16, #shared, #smem, mutable>
    ttg.local_store %x, %v1 : tensor<4x8xf16, #blocked> -> !ttg.memdesc<4x8xf16, #shared, #smem, mutable>
    tt.return
  }

  // Design example 2 (padding with an offset): buffers of B bytes at offset
  // B with 2B between them (here B = 128: 8x8xf16 behind a same-sized
  // neighbour). buffer[i] becomes buffer[2i + 1] of a 4-buffer view:
  // buffer 0 -> 1 and buffer 1 -> 3 once folded.
  // RAW-LABEL: tt.func @example2_offset(
  // RAW-SAME: %[[I:arg[0-9]+]]: i32
  // RAW-EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x512xi8, #[[$BYTES]], #smem, mutable>
  // RAW-EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x8x8xf16, #[[$SHARED]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<512xi8, #[[$BYTES]], #smem, mutable>
  // RAW-PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<3x8x8xf16, #[[$SHARED]], #smem, mutable>
  // RAW-NEXT: %[[VIEW:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x8x8xf16, #[[$SHARED]], #smem, mutable>
  // RAW-NEXT: %[[SCALE:.+]] = arith.constant 2 : i32
  // RAW-NEXT: %[[MUL:.+]] = arith.muli %[[I]], %[[SCALE]] : i32
  // RAW-NEXT: %[[OFF:.+]] = arith.constant 1 : i32
  // RAW-NEXT: %[[ADD:.+]] = arith.addi %[[MUL]], %[[OFF]] : i32
  // RAW-NEXT: ttg.memdesc_index %[[VIEW]][%[[ADD]]] : !ttg.memdesc<4x8x8xf16, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<8x8xf16, #[[$SHARED]], #smem, mutable>
  // CHECK-LABEL: tt.func @example2_offset(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-DAG: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK-DAG: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-DAG: %[[C3:.+]] = arith.constant 3 : i32
  // CHECK: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<{{(1x)?}}512xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: %[[VIEW:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<{{(1x)?}}512xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x8x8xf16, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[MUL:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // CHECK-NEXT: %[[ADD:.+]] = arith.addi %[[MUL]], %[[C1]] : i32
  // CHECK-NEXT: %[[BI:.+]] = ttg.memdesc_index %[[VIEW]][%[[ADD]]]
  // CHECK-NEXT: ttg.local_store %{{.+}}, %[[BI]]
  // CHECK-NEXT: %[[B0:.+]] = ttg.memdesc_index %[[VIEW]][%[[C1]]]
  // CHECK-NEXT: ttg.local_store %{{.+}}, %[[B0]]
  // CHECK-NEXT: %[[B1:.+]] = ttg.memdesc_index %[[VIEW]][%[[C3]]]
  // CHECK-NEXT: ttg.local_store %{{.+}}, %[[B1]]
  // CHECK-NEXT: tt.return
  tt.func @example2_offset(%i: i32, %x: tensor<8x8xf16, #blocked>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %pad = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x8x8xf16, #shared, #smem, mutable>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x8x8xf16, #shared, #smem, mutable>
    %g = tlx.reuse_group(%pad, %a) group_kind = distinct : (!ttg.memdesc<2x8x8xf16, #shared, #smem, mutable>, !ttg.memdesc<2x8x8xf16, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %vi = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x8x8xf16, #shared, #smem, mutable> -> !ttg.memdesc<8x8xf16, #shared, #smem, mutable>
    ttg.local_store %x, %vi : tensor<8x8xf16, #blocked> -> !ttg.memdesc<8x8xf16, #shared, #smem, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %v0 = ttg.memdesc_index %a[%c0] : !ttg.memdesc<2x8x8xf16, #shared, #smem, mutable> -> !ttg.memdesc<8x8xf16, #shared, #smem, mutable>
    ttg.local_store %x, %v0 : tensor<8x8xf16, #blocked> -> !ttg.memdesc<8x8xf16, #shared, #smem, mutable>
    %v1 = ttg.memdesc_index %a[%c1] : !ttg.memdesc<2x8x8xf16, #shared, #smem, mutable> -> !ttg.memdesc<8x8xf16, #shared, #smem, mutable>
    ttg.local_store %x, %v1 : tensor<8x8xf16, #blocked> -> !ttg.memdesc<8x8xf16, #shared, #smem, mutable>
    tt.return
  }

  // A stride that is no multiple of the buffer: distinct(QK 16384 B, P 8192 B)
  // has 24576 bytes between buffers. QK is indexed through 8192-byte slots
  // (index 3i of 4 slots) and each slot is reinterpreted back to 64x64xf32;
  // P, at 16384, is a whole number of its own buffers away (3i + 2 of 6).
  // Exact: P at 16384 and the stride rounded up to a multiple of QK, 32768:
  // QK at 2i of 4, P at 4i + 2 of 8, no slots.
  // RAW-LABEL: tt.func @slot_view(
  // RAW-SAME: %[[I:arg[0-9]+]]: i32
  // RAW-EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // RAW-EXACT-NEXT: %[[QK:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // RAW-EXACT-NEXT: %[[P:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<8x64x64xf16, #[[$SHARED]], #smem, mutable>
  // RAW-EXACT-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // RAW-EXACT-NEXT: %[[QI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // RAW-EXACT-NEXT: ttg.memdesc_index %[[QK]][%[[QI]]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // RAW-EXACT-NEXT: ttg.local_store
  // RAW-EXACT-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // RAW-EXACT-NEXT: %[[PS:.+]] = arith.muli %[[I]], %[[C4]] : i32
  // RAW-EXACT-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // RAW-EXACT-NEXT: %[[PI:.+]] = arith.addi %[[PS]], %[[C2B]] : i32
  // RAW-EXACT-NEXT: ttg.memdesc_index %[[P]][%[[PI]]] : !ttg.memdesc<8x64x64xf16, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf16, #[[$SHARED]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<49152xi8, #[[$BYTES]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[QK:.+]] = tlx.local_alias %[[BASE]] : !ttg.memdesc<49152xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x8192xi8, #[[$BYTES]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[P:.+]] = tlx.local_alias %[[BASE]] : !ttg.memdesc<49152xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<6x64x64xf16, #[[$SHARED]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[C3:.+]] = arith.constant 3 : i32
  // RAW-PACKED-NEXT: %[[QI:.+]] = arith.muli %[[I]], %[[C3]] : i32
  // RAW-PACKED-NEXT: %[[SLOT:.+]] = ttg.memdesc_index %[[QK]][%[[QI]]] : !ttg.memdesc<4x8192xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<8192xi8, #[[$BYTES]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[BUF:.+]] = ttg.memdesc_reinterpret %[[SLOT]] : !ttg.memdesc<8192xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // RAW-PACKED-NEXT: ttg.local_store %{{.+}}, %[[BUF]] : tensor<64x64xf32, #{{.+}}> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // RAW-PACKED: %[[C3B:.+]] = arith.constant 3 : i32
  // RAW-PACKED-NEXT: %[[PS:.+]] = arith.muli %[[I]], %[[C3B]] : i32
  // RAW-PACKED-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // RAW-PACKED-NEXT: %[[PI:.+]] = arith.addi %[[PS]], %[[C2]] : i32
  // RAW-PACKED-NEXT: ttg.memdesc_index %[[P]][%[[PI]]] : !ttg.memdesc<6x64x64xf16, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf16, #[[$SHARED]], #smem, mutable>
  // CHECK-LABEL: tt.func @slot_view(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-DAG: %[[C2:.+]] = arith.constant 2 : i32
  // EXACT-DAG: %[[C4:.+]] = arith.constant 4 : i32
  // EXACT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: %[[QK:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[P:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<8x64x64xf16, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[QI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // EXACT-NEXT: %[[QB:.+]] = ttg.memdesc_index %[[QK]][%[[QI]]]
  // EXACT-NEXT: ttg.local_store %{{.+}}, %[[QB]]
  // EXACT-NEXT: %[[PS:.+]] = arith.muli %[[I]], %[[C4]] : i32
  // EXACT-NEXT: %[[PI:.+]] = arith.addi %[[PS]], %[[C2]] : i32
  // EXACT-NEXT: %[[PB:.+]] = ttg.memdesc_index %[[P]][%[[PI]]]
  // EXACT-NEXT: ttg.local_store %{{.+}}, %[[PB]]
  // EXACT-NEXT: %[[QB1:.+]] = ttg.memdesc_index %[[QK]][%[[C2]]]
  // EXACT-NEXT: ttg.local_store %{{.+}}, %[[QB1]]
  // EXACT-NEXT: tt.return
  // PACKED-DAG: %[[C2:.+]] = arith.constant 2 : i32
  // PACKED-DAG: %[[C3:.+]] = arith.constant 3 : i32
  // PACKED: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<49152xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-DAG: %[[QK:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<49152xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x8192xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-DAG: %[[P:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<49152xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<6x64x64xf16, #[[$SHARED]], #smem, mutable>
  // PACKED: %[[QI:.+]] = arith.muli %[[I]], %[[C3]] : i32
  // PACKED-NEXT: %[[SLOT:.+]] = ttg.memdesc_index %[[QK]][%[[QI]]]
  // PACKED-NEXT: %[[BUF:.+]] = ttg.memdesc_reinterpret %[[SLOT]] : !ttg.memdesc<8192xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: ttg.local_store %{{.+}}, %[[BUF]]
  // PACKED: %[[PI:.+]] = arith.addi %{{.+}}, %[[C2]] : i32
  // PACKED-NEXT: %[[PB:.+]] = ttg.memdesc_index %[[P]][%[[PI]]]
  // PACKED-NEXT: ttg.local_store %{{.+}}, %[[PB]]
  // PACKED-NEXT: %[[SLOT1:.+]] = ttg.memdesc_index %[[QK]][%[[C3]]]
  // PACKED-NEXT: %[[BUF1:.+]] = ttg.memdesc_reinterpret %[[SLOT1]]
  // PACKED-NEXT: ttg.local_store %{{.+}}, %[[BUF1]]
  // PACKED-NEXT: tt.return
  tt.func @slot_view(%i: i32, %x: tensor<64x64xf32, #blocked>, %y: tensor<64x64xf16, #blocked>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %qk = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %p = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %g = tlx.reuse_group(%qk, %p) group_kind = distinct : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %vq = ttg.memdesc_index %qk[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %vq : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %vp = ttg.memdesc_index %p[%i] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttg.local_store %y, %vp : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %c1 = arith.constant 1 : i32
    %vq1 = ttg.memdesc_index %qk[%c1] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %vq1 : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }

  // The expanded leading dimension is the smallest that reaches the last
  // buffer, not the storage size over the buffer size: distinct(a 16384 B,
  // b 256 B), stride 16640. a: 256-byte slots, 65i of 66 (not 130);
  // b at 16384: 65i + 64 of 130. Exact views have no slots: the stride is
  // rounded up to a multiple of a, 32768 (65536 bytes); a at 2i of 4, b at
  // 128i + 64 of 256.
  // RAW-LABEL: tt.func @minimal_leading_dim(
  // RAW-SAME: %[[I:arg[0-9]+]]: i32
  // RAW-EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // RAW-EXACT-NEXT: %[[A:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // RAW-EXACT-NEXT: %[[B:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<256x64xf32, #[[$BYTES]], #smem, mutable>
  // RAW-EXACT-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // RAW-EXACT-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // RAW-EXACT-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // RAW-EXACT-NEXT: ttg.local_store
  // RAW-EXACT-NEXT: %[[C128:.+]] = arith.constant 128 : i32
  // RAW-EXACT-NEXT: %[[BS:.+]] = arith.muli %[[I]], %[[C128]] : i32
  // RAW-EXACT-NEXT: %[[C64:.+]] = arith.constant 64 : i32
  // RAW-EXACT-NEXT: %[[BI:.+]] = arith.addi %[[BS]], %[[C64]] : i32
  // RAW-EXACT-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<256x64xf32, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<64xf32, #[[$BYTES]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<33280xi8, #[[$BYTES]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[A:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<66x256xi8, #[[$BYTES]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[B:.+]] = tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<130x64xf32, #[[$BYTES]], #smem, mutable>
  // RAW-PACKED-NEXT: %[[C65:.+]] = arith.constant 65 : i32
  // RAW-PACKED-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C65]] : i32
  // RAW-PACKED-NEXT: %[[SLOT:.+]] = ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<66x256xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<256xi8, #[[$BYTES]], #smem, mutable>
  // RAW-PACKED-NEXT: ttg.memdesc_reinterpret %[[SLOT]] : !ttg.memdesc<256xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // RAW-PACKED: %[[C65B:.+]] = arith.constant 65 : i32
  // RAW-PACKED-NEXT: %[[BS:.+]] = arith.muli %[[I]], %[[C65B]] : i32
  // RAW-PACKED-NEXT: %[[C64:.+]] = arith.constant 64 : i32
  // RAW-PACKED-NEXT: %[[BI:.+]] = arith.addi %[[BS]], %[[C64]] : i32
  // RAW-PACKED-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<130x64xf32, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<64xf32, #[[$BYTES]], #smem, mutable>
  // CHECK-LABEL: tt.func @minimal_leading_dim
  // EXACT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-DAG: ttg.memdesc_reinterpret %{{.+}} : !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-DAG: ttg.memdesc_reinterpret %{{.+}} : !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<256x64xf32, #[[$BYTES]], #smem, mutable>
  // PACKED: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<33280xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-DAG: ttg.memdesc_reinterpret %{{.+}} : !ttg.memdesc<33280xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<66x256xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-DAG: ttg.memdesc_reinterpret %{{.+}} : !ttg.memdesc<33280xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<130x64xf32, #[[$BYTES]], #smem, mutable>
  tt.func @minimal_leading_dim(%i: i32, %x: tensor<64x64xf32, #blocked>, %y: tensor<64xf32, #blocked1d>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %va = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %va : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %vb = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable> -> !ttg.memdesc<64xf32, #shared1d, #smem, mutable>
    ttg.local_store %y, %vb : tensor<64xf32, #blocked1d> -> !ttg.memdesc<64xf32, #shared1d, #smem, mutable>
    tt.return
  }

  // A view whose placement is its natural layout (offset 0, stride = buffer)
  // is left alone: no arithmetic.
  // RAW-LABEL: tt.func @identity_view(
  // RAW-SAME: %[[I:arg[0-9]+]]: i32
  // RAW: %[[QK:.+]] = tlx.local_alias %{{.+}} : {{.*}} -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // RAW-NOT: arith.muli
  // RAW: ttg.memdesc_index %[[QK]][%[[I]]]
  // RAW-NOT: arith.
  // RAW: tt.return
  tt.func @identity_view(%i: i32, %x: tensor<64x64xf32, #blocked>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %qk = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %p = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %g = tlx.reuse_group(%qk, %p) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    %vq = ttg.memdesc_index %qk[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %vq : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }
}
