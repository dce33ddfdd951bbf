// RUN: %triton-syntax --blank-packed-only %s | %tlx-opt - --tlx-storage-alias-lowering 2>/dev/null | %FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: %triton-syntax --blank-packed-only %s | %tlx-opt - --tlx-storage-alias-lowering --verify-diagnostics
// RUN: %if packed-views %{ %tlx-opt %s --tlx-storage-alias-lowering=exact-views=false 2>/dev/null | %FileCheck %s --check-prefixes=CHECK,PACKED %}
//
// Step 1 of tlx-storage-alias-lowering: how big each storage_alias_spec's
// allocation is, and how it is aligned.
//
//  * no set_buffer_overlap: max over allocations of num * bytes-per-buffer,
//    with bytes-per-buffer = ceil(prod(shape[1:]) * bits / 8) (pointers are
//    8 bytes); every allocation keeps its own layout (no expansion).
//  * set_buffer_overlap: num * alignTo(size(tree), align(tree)), where leaves
//    are aligned to max(128, encoding alignment) in shared memory (NVMMA:
//    128 * swizzlingByteWidth / 16), shared = max and distinct = sum.
//  * an explicit size is kept as is (padding); see errors.mlir for too small.
//  * sub-byte element types (i1, i4): sub-byte-sizes.mlir (triton 3.7/3.8).
//
// Those are packed views' sizes (exact-views=false, triton 3.7 only;
// PACKED). Exact views (the default; EXACT, exact-views.mlir) also align
// each buffer to its own size and round the size up to a multiple of every
// buffer's alignment, an explicit size included; the storage is
// (N / G) x G x i8 and every view spans it, (N / B) buffers. A tree keeps
// the interleaved layout (one stride) unless it does not fit the target and
// ring by ring does (exact-views.mlir). Between
// PACKED-ONLY-BEGIN and PACKED-ONLY-END: what only the packed run sees
// (the exact runs read the file through %triton-syntax --blank-packed-only).

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1d = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#nv128 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#nv64 = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>
#nv32 = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16}>
#nv0 = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory

// CHECK-DAG: #[[$BYTES:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-DAG: #[[$NV128:[a-z0-9_]+]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {

  // The design's phase 2 example: max(2 * 16384, 2 * 8192) = 32768.
  // CHECK-LABEL: tt.func @max_of_allocations
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // CHECK-NOT: tlx.storage_alias
  // CHECK: tt.return
  tt.func @max_of_allocations() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    tt.return
  }

  // The buffer count matters: 8 x 4096 beats 2 x 8192 although its buffers
  // are smaller.
  // CHECK-LABEL: tt.func @count_times_buffer
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x64xf16, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<8x32x32xf32, #[[$SHARED]], #smem, mutable>
  tt.func @count_times_buffer() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<8x32x32xf32, #shared, #smem, mutable>
    tt.return
  }

  // An explicit size larger than needed is kept (padding); the views keep
  // their natural layout (exact: 4 buffers span the 65536 bytes).
  // CHECK-LABEL: tt.func @explicit_padding
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<65536xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : !ttg.memdesc<65536xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: tt.return
  tt.func @explicit_padding() {
    %spec = tlx.storage_alias_spec storage = smem, size = 65536 : !tlx.storage_alias_spec<smem, 65536>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 65536> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    tt.return
  }

  // An explicit size that is exactly enough.
  // CHECK-LABEL: tt.func @explicit_exact
  // EXACT-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<8x32x64xf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable>
  tt.func @explicit_exact() {
    %spec = tlx.storage_alias_spec storage = smem, size = 32768 : !tlx.storage_alias_spec<smem, 32768>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 32768> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 32768> -> !ttg.memdesc<4x32x64xf16, #shared, #smem, mutable>
    tt.return
  }

  // Element widths, one spec each. Pointers are 8 bytes. (Sub-byte
  // buffers: sub_byte_buffers below.)
  // CHECK-LABEL: tt.func @element_types
  // EXACT-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x8192xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<8192xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<2x32x32xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x4096xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<4096xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<2x32x32xbf16, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x2048xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<2048xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<2x32x32xf8E4M3FN, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x2048xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<2048xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<2x32x32xi8, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x256xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<256xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<2x16xf64, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x256xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<256xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<2x16x!tt.ptr<f32>, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tt.return
  tt.func @element_types() {
    %s0 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a0 = tlx.storage_alias_local_alloc %s0 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x32x32xf32, #shared, #smem, mutable>
    %s1 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a1 = tlx.storage_alias_local_alloc %s1 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x32x32xbf16, #shared, #smem, mutable>
    %s2 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a2 = tlx.storage_alias_local_alloc %s2 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x32x32xf8E4M3FN, #shared, #smem, mutable>
    %s3 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a3 = tlx.storage_alias_local_alloc %s3 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x32x32xi8, #shared, #smem, mutable>
    %s4 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a4 = tlx.storage_alias_local_alloc %s4 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x16xf64, #shared1d, #smem, mutable>
    %s8 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a8 = tlx.storage_alias_local_alloc %s8 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x16x!tt.ptr<f32>, #shared1d, #smem, mutable>
    tt.return
  }

  // Pointers and bytes sharing one spec: 2 x 16 x 8 = 256 = 2 x 128 x 1.
  // CHECK-LABEL: tt.func @pointers_and_bytes
  // EXACT-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x256xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<256xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<2x16x!tt.ptr<f32>, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<2x128xi8, #[[$BYTES]], #smem, mutable>
  tt.func @pointers_and_bytes() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x16x!tt.ptr<f32>, #shared1d, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x128xi8, #shared1d, #smem, mutable>
    tt.return
  }

  // A spec nobody allocates from is dropped with a warning.
  // CHECK-LABEL: tt.func @unused_spec
  // CHECK-NEXT: tt.return
  tt.func @unused_spec() {
    // expected-warning @+1 {{storage_alias_spec has no tlx.storage_alias_local_alloc users; it is removed}}
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    // expected-warning @+1 {{storage_alias_spec has no tlx.storage_alias_local_alloc users; it is removed}}
    %sized = tlx.storage_alias_spec storage = tmem, size = 16384 : !tlx.storage_alias_spec<tmem, 16384>
    tt.return
  }

  // With an overlap tree the stride is the tree's size rounded up to its
  // alignment: one 2 x 64-element f32 buffer needs 256 bytes, a multiple
  // of 128, so nothing moves.
  // CHECK-LABEL: tt.func @overlap_single_leaf
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x512xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<512xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64xf32, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tt.return
  tt.func @overlap_single_leaf() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    %g = tlx.reuse_group(%a) group_kind = shared : (!ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    tt.return
  }

  // Each leaf starts on a 128-byte boundary: a (32 bytes) at 0, b (8 bytes)
  // at 128, stride alignTo(136, 128) = 256, size 4 x 256.
  // a: index 8i over 25 buffers (exact: 32); b: index 32i + 16 over 113
  // buffers (exact: 128).
  // CHECK-LABEL: tt.func @overlap_small_buffers
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x1024xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<32x16xf16, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<128x8xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1024xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<25x16xf16, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<113x8xi8, #[[$BYTES]], #smem, mutable>
  tt.func @overlap_small_buffers() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x16xf16, #shared1d, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x8xi8, #shared1d, #smem, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<4x16xf16, #shared1d, #smem, mutable>, !ttg.memdesc<4x8xi8, #shared1d, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    tt.return
  }

  // An explicit size with an overlap tree fixes the stride at
  // alignDown(40000 / 2, 128) = 19968; 16384-byte buffers then need a slot
  // view of gcd(16384, 19968) = 512-byte slots. The size itself is kept.
  // Exact views: the stride is the buffer's 16384 and the size is rounded
  // up to a multiple of it, 49152: 3 buffers.
  // CHECK-LABEL: tt.func @overlap_explicit_size
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<3x16384xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<3x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<40000xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<40x512xi8, #[[$BYTES]], #smem, mutable>
  tt.func @overlap_explicit_size() {
    %spec = tlx.storage_alias_spec storage = smem, size = 40000 : !tlx.storage_alias_spec<smem, 40000>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 40000> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %g = tlx.reuse_group(%a) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem, 40000>, !tlx.reuse_group<shared>) -> ()
    tt.return
  }

  // NVMMA layouts: the allocation takes the strictest alignment of its
  // users (1024 for a 128-byte swizzle), even without an overlap tree.
  // CHECK-LABEL: tt.func @nvmma_alignment_no_overlap
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<1x16384xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<16384xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x64xf16, #[[$NV128]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<64x64xf32, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64xf32, #[[$BYTES]], #smem, mutable>
  tt.func @nvmma_alignment_no_overlap() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #nv128, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    tt.return
  }

  // distinct(alpha: 256 B, P: 8192 B NVMMA-128). P must start on a 1024-byte
  // boundary: alpha at 0, P at 1024, stride 9216, size 18432, alignment 1024.
  // alpha: 9216 / 256 = 36 buffers apart (37 in the view); P: 1024-byte slots.
  // Exact views: P aligned to its size, at 8192, and the stride to P's
  // size, 16384: 32768 bytes, alpha at 64i of 128, P at 2i + 1 of 4.
  // CHECK-LABEL: tt.func @nvmma_alignment_distinct
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<128x64xf32, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf16, #[[$NV128]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<18432xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<37x64xf32, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<11x1024xi8, #[[$BYTES]], #smem, mutable>
  tt.func @nvmma_alignment_distinct() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #nv128, #smem, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>, !ttg.memdesc<2x64x64xf16, #nv128, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    tt.return
  }

  // NVMMA-64: alignment 512. alpha at 0, P (4096 B) at 512, stride 4608.
  // Exact: P at 4096, stride 8192, 16384 bytes.
  // CHECK-LABEL: tt.func @nvmma64_alignment_distinct
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 512 : i32} : () -> !ttg.memdesc<1x16384xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<64x64xf32, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x32xf16, #{{.+}}, #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 512 : i32} : () -> !ttg.memdesc<9216xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<19x64xf32, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<11x512xi8, #[[$BYTES]], #smem, mutable>
  tt.func @nvmma64_alignment_distinct() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x32xf16, #nv64, #smem, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>, !ttg.memdesc<2x64x32xf16, #nv64, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    tt.return
  }

  // NVMMA-32: alignment 256. alpha at 0, P (2048 B) at 256, stride 2304.
  // Exact: P at 2048, stride 4096, 8192 bytes.
  // CHECK-LABEL: tt.func @nvmma32_alignment_distinct
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 256 : i32} : () -> !ttg.memdesc<1x8192xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<32x64xf32, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x16xf16, #{{.+}}, #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 256 : i32} : () -> !ttg.memdesc<4608xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<10x64xf32, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<11x256xi8, #[[$BYTES]], #smem, mutable>
  tt.func @nvmma32_alignment_distinct() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x16xf16, #nv32, #smem, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>, !ttg.memdesc<2x64x16xf16, #nv32, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    tt.return
  }

  // No swizzle: the 128-byte floor. alpha at 0, P at 256, stride 8448.
  // Exact: P aligned to its 8192 bytes, as with NVMMA-128: 32768 bytes.
  // CHECK-LABEL: tt.func @nvmma0_alignment_distinct
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<128x64xf32, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf16, #{{.+}}, #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<16896xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<34x64xf32, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<35x256xi8, #[[$BYTES]], #smem, mutable>
  tt.func @nvmma0_alignment_distinct() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #nv0, #smem, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>, !ttg.memdesc<2x64x64xf16, #nv0, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    tt.return
  }
}
