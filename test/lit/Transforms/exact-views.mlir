// RUN: %tlx-opt %s --tlx-storage-alias-lowering=exact-views=1 --tlx-rewrite-local-alias=exact-views=1 | %FileCheck %s
//
// Exact views: what triton 3.8 accepts (docs/design/triton-3.8-memdesc-rules.md),
// the default when the plugin is built for 3.8 and checked here on every
// triton. Every reinterpret is of the whole allocation and keeps its size, so
// each view spans the storage in whole buffers, (N / B) x ...; each buffer
// starts at a multiple of its own size B (its alignment is B), and N is a
// multiple of every B. The byte storage is (N / G) x G x i8: 3.8 cannot lay
// out a 1-D descriptor whose size is not a power of two. An overlap tree is
// laid out ring by ring where that is smaller and keeps its promise
// (StorageAliasRings.cpp), else interleaved with each index padded.

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
#tmem64 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#tmem128 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tm = #ttng.tensor_memory

// CHECK-DAG: #[[$BYTES:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-DAG: #[[$NVMMA:[a-z0-9_]+]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[$T64:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
// CHECK-DAG: #[[$T128:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
// CHECK-DAG: #[[$T256:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 1>

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {
  // distinct(a: 8 KiB, b: 16 KiB) x 2. Interleaved, b would start at 16384
  // of each index (a 32 KiB stride); ring by ring it takes the 48 KiB it
  // takes packed: b's ring at 0 (the larger alignment first), a's at 32768,
  // index i + 4 of 6.
  // CHECK-LABEL: tt.func @distinct_aligned_to_size(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<3x16384xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: %[[A:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<3x16384xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<6x32x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<3x16384xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<3x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.addi %[[I]], %[[C4]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<6x32x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<32x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_index %[[B]][%[[I]]] : !ttg.memdesc<3x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
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
  // x 4. Interleaved, B would need a 64 KiB stride (256 KiB in all); ring by
  // ring it takes the 192 KiB it takes packed: B's ring first (the largest
  // alignment), A's after it, and C[i] on B[i].
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

  // shared(distinct(A 16 KiB, B 32 KiB), C 16 KiB) x 2: C's ring at the
  // start, or on A's or B's ring with its own stride, would put C[1] on a
  // buffer of index 0; on B's ring with B's stride (index 2i of 16 KiB
  // buffers) C[i] lies in B[i]: 96 KiB, as packed.
  // CHECK-LABEL: tt.func @shared_child_on_a_sibling_ring(
  // CHECK-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<3x32768xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<6x128x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<3x64x256xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<6x128x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.addi %{{.+}}, %[[C4]] : i32
  // CHECK-NEXT: ttg.memdesc_index %{{.+}}[%[[AI]]] : !ttg.memdesc<6x128x64xf16
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[CI:.+]] = arith.muli %{{.+}}, %[[C2]] : i32
  // CHECK-NEXT: ttg.memdesc_index %{{.+}}[%[[CI]]] : !ttg.memdesc<6x128x64xf16
  tt.func @shared_child_on_a_sibling_ring(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x128x64xf16, #nvmma, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x256xf16, #nvmma, #smem, mutable>
    %c = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x128x64xf16, #nvmma, #smem, mutable>
    %ab = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x128x64xf16, #nvmma, #smem, mutable>, !ttg.memdesc<2x64x256xf16, #nvmma, #smem, mutable>) -> !tlx.reuse_group<distinct>
    %root = tlx.reuse_group(%ab, %c) group_kind = shared : (!tlx.reuse_group<distinct>, !ttg.memdesc<2x128x64xf16, #nvmma, #smem, mutable>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %root) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    %x = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x128x64xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<128x64xf16, #nvmma, #smem, mutable>
    %z = ttg.memdesc_index %c[%i] : !ttg.memdesc<2x128x64xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<128x64xf16, #nvmma, #smem, mutable>
    tt.return
  }

  // shared(distinct(A 16 KiB, B 32 KiB), C 64 KiB) x 2: C's ring would put
  // C[0] on B[1] wherever it starts, and no sibling's stride is a multiple of
  // C's size, so the tree is laid out interleaved: 64 KiB per index.
  // CHECK-LABEL: tt.func @rings_break_the_promise(
  // CHECK-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<1x131072xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<8x128x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x256xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<2x128x256xf16, #[[$NVMMA]], #smem, mutable>
  tt.func @rings_break_the_promise(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x128x64xf16, #nvmma, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x256xf16, #nvmma, #smem, mutable>
    %c = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x128x256xf16, #nvmma, #smem, mutable>
    %ab = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x128x64xf16, #nvmma, #smem, mutable>, !ttg.memdesc<2x64x256xf16, #nvmma, #smem, mutable>) -> !tlx.reuse_group<distinct>
    %root = tlx.reuse_group(%ab, %c) group_kind = shared : (!tlx.reuse_group<distinct>, !ttg.memdesc<2x128x256xf16, #nvmma, #smem, mutable>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %root) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    tt.return
  }
}
