// RUN: %tlx-opt %s --tlx-storage-alias-lowering=exact-views=1 --tlx-rewrite-local-alias=exact-views=1 | %FileCheck %s
//
// Exact views: what triton 3.8 accepts (docs/design/triton-3.8-memdesc-rules.md),
// the default when the plugin is built for 3.8 and checked here on every
// triton. Every reinterpret is of the whole allocation and keeps its size, so
// each view spans the storage in whole buffers, (N / B) x ...; each buffer
// starts at a multiple of its own size B (its alignment is B), and N is a
// multiple of every B. The byte storage is (N / G) x G x i8: 3.8 cannot lay
// out a 1-D descriptor whose size is not a power of two. An overlap tree is
// laid out as the design says, in both memories: interleaved, one stride for
// the whole spec (a multiple of every buffer), shared children starting
// together, distinct children one after the other. Only where that is larger
// than the target's memory (shared: ttg.target's, 232448 bytes on sm_100;
// tensor memory: 512 columns) is it laid out ring by ring
// (StorageAliasRings.cpp), if the rings keep the tree's promise and fit;
// else the spec is an error (exact-views-errors.mlir).

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
#tmem32 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>
#tmem64 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#tmem128 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tm = #ttng.tensor_memory

// CHECK-DAG: #[[$BYTES:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-DAG: #[[$NVMMA:[a-z0-9_]+]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[$T32:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>
// CHECK-DAG: #[[$T64:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
// CHECK-DAG: #[[$T128:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
// CHECK-DAG: #[[$T256:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 1>
// CHECK-DAG: #[[$T512:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 512, colStride = 1>

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {
  // distinct(a: 8 KiB, b: 16 KiB) x 2: b starts at 16384 of each index (a
  // multiple of its size) and the stride is 32 KiB, 64 KiB in all; a at 4i of
  // 8, b at 2i + 1 of 4. Ring by ring would take 48 KiB, but the interleaved
  // layout fits the target, so it is the layout.
  // CHECK-LABEL: tt.func @distinct_aligned_to_size(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: %[[A:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<8x32x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C4]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<8x32x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<32x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[BS:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[BI:.+]] = arith.addi %[[BS]], %[[C1]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  tt.func @distinct_aligned_to_size(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x32x64xf32, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %group = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x32x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %group) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %x = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x32x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf32, #shared, #smem, mutable>
    %y = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }

  // The same tree x 8: interleaved, 8 x 32 KiB = 256 KiB, more than sm_100's
  // 232448 bytes; ring by ring it takes 192 KiB, which fit: b's ring at 0
  // (the larger alignment first, i of 12), a's at 131072 (i + 16 of 24).
  // CHECK-LABEL: tt.func @distinct_rings_past_the_target(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<3x65536xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: %[[A:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<3x65536xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<24x32x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<3x65536xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<12x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[C16:.+]] = arith.constant 16 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.addi %[[I]], %[[C16]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<24x32x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<32x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_index %[[B]][%[[I]]] : !ttg.memdesc<12x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  tt.func @distinct_rings_past_the_target(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<8x32x64xf32, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<8x64x64xf32, #shared, #smem, mutable>
    %group = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<8x32x64xf32, #shared, #smem, mutable>, !ttg.memdesc<8x64x64xf32, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %group) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %x = ttg.memdesc_index %a[%i] : !ttg.memdesc<8x32x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf32, #shared, #smem, mutable>
    %y = ttg.memdesc_index %b[%i] : !ttg.memdesc<8x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }

  // No overlap tree: 3 x 8192 bytes would do, but the 16384-byte c needs a
  // whole number of its buffers: 32768 bytes, a as 4 buffers, c as 2.
  // CHECK-LABEL: tt.func @sizes_rounded_to_buffers(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: %[[C:.+]] = ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x128xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_index %[[C]][%[[I]]] : !ttg.memdesc<2x64x128xf16, #[[$NVMMA]], #smem, mutable> -> !ttg.memdesc<64x128xf16, #[[$NVMMA]], #smem, mutable>
  tt.func @sizes_rounded_to_buffers(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<3x64x64xf16, #nvmma, #smem, mutable>
    %c = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<1x64x128xf16, #nvmma, #smem, mutable>
    %x = ttg.memdesc_index %c[%i] : !ttg.memdesc<1x64x128xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<64x128xf16, #nvmma, #smem, mutable>
    tt.return
  }

  // An explicit 40000 bytes becomes 40960, five 8192-byte buffers, as 5 x 8192 x i8.
  // CHECK-LABEL: tt.func @explicit_size_rounded(
  // CHECK-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<5x8192xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<5x8192xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<5x64x64xf16, #[[$NVMMA]], #smem, mutable>
  tt.func @explicit_size_rounded() {
    %spec = tlx.storage_alias_spec storage = smem, size = 40000 : !tlx.storage_alias_spec<smem, 40000>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 40000> -> !ttg.memdesc<2x64x64xf16, #nvmma, #smem, mutable>
    tt.return
  }

  // Tensor memory, in columns: max(3 x 64, 128) = 192, a multiple of 128 is
  // 256: a as 4 buffers of 64 columns, b as 2 of 128.
  // CHECK-LABEL: tt.func @tmem_whole_storage(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[A:.+]] = ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<4x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<2x128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: ttg.memdesc_index %[[A]][%[[I]]] : !ttg.memdesc<4x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  tt.func @tmem_whole_storage(%i: i32) {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<3x128x64xf32, #tmem64, #tm, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<1x128x128xf32, #tmem128, #tm, mutable>
    %x = ttg.memdesc_index %a[%i] : !ttg.memdesc<3x128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable>
    tt.return
  }

  // tlx.local_alias of a smaller allocation (local_alloc(reuse=...)): the
  // 32768-byte view needs a byte base; the root's own 16384 bytes are widened
  // to 4 buffers, indexed as before.
  // CHECK-LABEL: tt.func @reuse_of_a_smaller_alloc(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: %[[ROOT:.+]] = ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: %[[VIEW:.+]] = ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<1x64x128xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_index %[[ROOT]][%[[I]]] : !ttg.memdesc<4x64x64xf16, #[[$NVMMA]], #smem, mutable> -> !ttg.memdesc<64x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_index %[[VIEW]][%[[I]]] : !ttg.memdesc<1x64x128xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x128xf32, #[[$SHARED]], #smem, mutable>
  tt.func @reuse_of_a_smaller_alloc(%i: i32) {
    %root = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #nvmma, #smem, mutable>
    %view = tlx.local_alias %root : !ttg.memdesc<2x64x64xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<1x64x128xf32, #shared, #smem, mutable>
    %x = ttg.memdesc_index %root[%i] : !ttg.memdesc<2x64x64xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nvmma, #smem, mutable>
    %y = ttg.memdesc_index %view[%i] : !ttg.memdesc<1x64x128xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x128xf32, #shared, #smem, mutable>
    tt.return
  }

  // A persistent GEMM's ring: shared(distinct(A 16 KiB, B 32 KiB), C 32 KiB)
  // x 4. Interleaved, B needs a 64 KiB stride, 256 KiB in all: more than
  // sm_100 has. Ring by ring it takes the 192 KiB it takes packed: B's ring
  // first (the largest alignment), A's after it, and C[i] on B[i].
  // CHECK-LABEL: tt.func @gemm_ring(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x65536xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: %[[A:.+]] = ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<12x128x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<6x64x256xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: %[[C:.+]] = ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<6x128x128xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: %[[C8:.+]] = arith.constant 8 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.addi %[[I]], %[[C8]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[A]][%[[AI]]]
  // CHECK-NEXT: ttg.memdesc_index %[[B]][%[[I]]]
  // CHECK-NEXT: ttg.memdesc_index %[[C]][%[[I]]]
  tt.func @gemm_ring(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x128x64xf16, #nvmma, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x64x256xf16, #nvmma, #smem, mutable>
    %c = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x128x128xf16, #nvmma, #smem, mutable>
    %ab = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<4x128x64xf16, #nvmma, #smem, mutable>, !ttg.memdesc<4x64x256xf16, #nvmma, #smem, mutable>) -> !tlx.reuse_group<distinct>
    %root = tlx.reuse_group(%ab, %c) group_kind = shared : (!tlx.reuse_group<distinct>, !ttg.memdesc<4x128x128xf16, #nvmma, #smem, mutable>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %root) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    %x = ttg.memdesc_index %a[%i] : !ttg.memdesc<4x128x64xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<128x64xf16, #nvmma, #smem, mutable>
    %y = ttg.memdesc_index %b[%i] : !ttg.memdesc<4x64x256xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<64x256xf16, #nvmma, #smem, mutable>
    %z = ttg.memdesc_index %c[%i] : !ttg.memdesc<4x128x128xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<128x128xf16, #nvmma, #smem, mutable>
    tt.return
  }

  // shared(distinct(A 16 KiB, B 32 KiB), C 16 KiB) x 4: 256 KiB interleaved,
  // more than sm_100 has, so ring by ring. C's ring at the start, or on A's
  // or B's ring with its own stride, would put C[1] on a buffer of index 0;
  // on B's ring with B's stride (index 2i of 16 KiB buffers) C[i] lies in
  // B[i]: 192 KiB, as packed. A's ring after B's: i + 8 of 12.
  // CHECK-LABEL: tt.func @shared_child_on_a_sibling_ring(
  // CHECK-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x65536xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<12x128x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<6x64x256xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<12x128x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: %[[C8:.+]] = arith.constant 8 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.addi %{{.+}}, %[[C8]] : i32
  // CHECK-NEXT: ttg.memdesc_index %{{.+}}[%[[AI]]] : !ttg.memdesc<12x128x64xf16
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[CI:.+]] = arith.muli %{{.+}}, %[[C2]] : i32
  // CHECK-NEXT: ttg.memdesc_index %{{.+}}[%[[CI]]] : !ttg.memdesc<12x128x64xf16
  tt.func @shared_child_on_a_sibling_ring(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x128x64xf16, #nvmma, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x64x256xf16, #nvmma, #smem, mutable>
    %c = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x128x64xf16, #nvmma, #smem, mutable>
    %ab = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<4x128x64xf16, #nvmma, #smem, mutable>, !ttg.memdesc<4x64x256xf16, #nvmma, #smem, mutable>) -> !tlx.reuse_group<distinct>
    %root = tlx.reuse_group(%ab, %c) group_kind = shared : (!tlx.reuse_group<distinct>, !ttg.memdesc<4x128x64xf16, #nvmma, #smem, mutable>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %root) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    %x = ttg.memdesc_index %a[%i] : !ttg.memdesc<4x128x64xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<128x64xf16, #nvmma, #smem, mutable>
    %z = ttg.memdesc_index %c[%i] : !ttg.memdesc<4x128x64xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<128x64xf16, #nvmma, #smem, mutable>
    tt.return
  }

  // Tensor memory, the design's layout (issue 29): distinct(shared(A,
  // distinct(B, C)), D) of four 128x32 buffers each, packed (colStride 1):
  // A, B, D f32 of 32 columns, C bf16 of 16. shared(A, distinct(B, C)) is
  // 48 columns (C at 32); D at the next multiple of its 32 columns, 64; the
  // stride 96, a multiple of every buffer: A and B at 96i (3i of 16), C at
  // 96i + 32 (6i + 2 of 32), D at 96i + 64 (3i + 2 of 16). 384 columns,
  // allocated as 512.
  // CHECK-LABEL: tt.func @tmem_design_layout(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x512xf32, #[[$T512]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[A:.+]] = ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<16x128x32xf32, #[[$T32]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[B:.+]] = ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<16x128x32xf32, #[[$T32]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[C:.+]] = ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<32x128x32xbf16, #[[$T32]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[D:.+]] = ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<16x128x32xf32, #[[$T32]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[C3:.+]] = arith.constant 3 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C3]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[A]][%[[AI]]]
  // CHECK-NEXT: %[[C3B:.+]] = arith.constant 3 : i32
  // CHECK-NEXT: %[[BI:.+]] = arith.muli %[[I]], %[[C3B]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[B]][%[[BI]]]
  // CHECK-NEXT: %[[C6:.+]] = arith.constant 6 : i32
  // CHECK-NEXT: %[[CS:.+]] = arith.muli %[[I]], %[[C6]] : i32
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[CI:.+]] = arith.addi %[[CS]], %[[C2]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[C]][%[[CI]]] : !ttg.memdesc<32x128x32xbf16
  // CHECK-NEXT: %[[C3C:.+]] = arith.constant 3 : i32
  // CHECK-NEXT: %[[DS:.+]] = arith.muli %[[I]], %[[C3C]] : i32
  // CHECK-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[DI:.+]] = arith.addi %[[DS]], %[[C2B]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[D]][%[[DI]]]
  tt.func @tmem_design_layout(%i: i32) {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<4x128x32xf32, #tmem32, #tm, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<4x128x32xf32, #tmem32, #tm, mutable>
    %c = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<4x128x32xbf16, #tmem32, #tm, mutable>
    %d = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<4x128x32xf32, #tmem32, #tm, mutable>
    %bc = tlx.reuse_group(%b, %c) group_kind = distinct : (!ttg.memdesc<4x128x32xf32, #tmem32, #tm, mutable>, !ttg.memdesc<4x128x32xbf16, #tmem32, #tm, mutable>) -> !tlx.reuse_group<distinct>
    %abc = tlx.reuse_group(%a, %bc) group_kind = shared : (!ttg.memdesc<4x128x32xf32, #tmem32, #tm, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
    %root = tlx.reuse_group(%abc, %d) group_kind = distinct : (!tlx.reuse_group<shared>, !ttg.memdesc<4x128x32xf32, #tmem32, #tm, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %root) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<distinct>) -> ()
    %va = ttg.memdesc_index %a[%i] : !ttg.memdesc<4x128x32xf32, #tmem32, #tm, mutable> -> !ttg.memdesc<128x32xf32, #tmem32, #tm, mutable>
    %vb = ttg.memdesc_index %b[%i] : !ttg.memdesc<4x128x32xf32, #tmem32, #tm, mutable> -> !ttg.memdesc<128x32xf32, #tmem32, #tm, mutable>
    %vc = ttg.memdesc_index %c[%i] : !ttg.memdesc<4x128x32xbf16, #tmem32, #tm, mutable> -> !ttg.memdesc<128x32xbf16, #tmem32, #tm, mutable>
    %vd = ttg.memdesc_index %d[%i] : !ttg.memdesc<4x128x32xf32, #tmem32, #tm, mutable> -> !ttg.memdesc<128x32xf32, #tmem32, #tm, mutable>
    tt.return
  }

  // Tensor memory past its 512 columns: distinct(a 32 columns, b 128) x 3
  // is 3 x 256 = 768 columns interleaved (b at 128); ring by ring, b's ring
  // at 0 (i of 4) and a's at column 384 (i + 12 of 16): 480 columns, 512
  // as a multiple of b, which fit.
  // CHECK-LABEL: tt.func @tmem_rings_past_512_columns(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x512xf32, #[[$T512]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[A:.+]] = ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<16x128x32xf32, #[[$T32]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[B:.+]] = ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<4x128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[C12:.+]] = arith.constant 12 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.addi %[[I]], %[[C12]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[A]][%[[AI]]]
  // CHECK-NEXT: ttg.memdesc_index %[[B]][%[[I]]]
  tt.func @tmem_rings_past_512_columns(%i: i32) {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<3x128x32xf32, #tmem32, #tm, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<3x128x128xf32, #tmem128, #tm, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<3x128x32xf32, #tmem32, #tm, mutable>, !ttg.memdesc<3x128x128xf32, #tmem128, #tm, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<distinct>) -> ()
    %va = ttg.memdesc_index %a[%i] : !ttg.memdesc<3x128x32xf32, #tmem32, #tm, mutable> -> !ttg.memdesc<128x32xf32, #tmem32, #tm, mutable>
    %vb = ttg.memdesc_index %b[%i] : !ttg.memdesc<3x128x128xf32, #tmem128, #tm, mutable> -> !ttg.memdesc<128x128xf32, #tmem128, #tm, mutable>
    tt.return
  }
}
