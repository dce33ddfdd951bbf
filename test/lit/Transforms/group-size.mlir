// RUN: %tlx-opt %s --tlx-storage-alias-lowering | %FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: %if packed-views %{ %tlx-opt %s --tlx-storage-alias-lowering=exact-views=false | %FileCheck %s --check-prefixes=CHECK,PACKED %}
//
// reuse_group group_size (TLX's subtiling, nested too), leaves with
// different buffer counts, and tensor memory counted in Triton's columns with
// TLX's automatic alignment: exact sizes, view shapes and index arithmetic.
// Exact views (the default, EXACT) span the whole storage, (N / B) buffers
// of B bytes or columns; packed views (exact-views=false, triton 3.7 only,
// PACKED) end at their last buffer. Offsets and indices are the same in both
// unless a test says otherwise.

// CHECK-DAG: #[[$T256:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 1>
// CHECK-DAG: #[[$T128:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
// CHECK-DAG: #[[$T64:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
// CHECK-DAG: #[[$T64U:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 2>
// CHECK-DAG: #[[$T64M:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 64, blockN = 64, colStride = 1>
// CHECK-DAG: #[[$T32:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>
// CHECK-DAG: #[[$T1:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 1, colStride = 1>

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#tmem128 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tmem64 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#tmem64u = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 2>
#tmem64m = #ttng.tensor_memory_encoding<blockM = 64, blockN = 64, colStride = 1>
#tmem32 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>
#tmem1 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 1, colStride = 1>
#tm = #ttng.tensor_memory

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {

  // shared(qk, shared(p) group_size 2): p's buffers 2i, 2i+1 are the two
  // 4 KiB halves of the first 8 KiB of qk's 16 KiB buffer i. Buffer j at
  // (j / 2) * 16384 + (j % 2) * 4096: slot 4 (j / 2) + j % 2 of 8 (exact),
  // of 6 (packed).
  // CHECK-LABEL: tt.func @subtile_smem(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[S:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8
  // PACKED-NEXT: %[[S:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32768xi8
  // CHECK-NEXT: tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
  // EXACT-NEXT: %[[P:.+]] = tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<8x64x32xbf16, #shared, #smem, mutable>
  // PACKED-NEXT: %[[P:.+]] = tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<6x64x32xbf16, #shared, #smem, mutable>
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[R:.+]] = arith.remui %[[I]], %[[C2]] : i32
  // CHECK-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[Q:.+]] = arith.divui %[[I]], %[[C2B]] : i32
  // CHECK-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // CHECK-NEXT: %[[QS:.+]] = arith.muli %[[Q]], %[[C4]] : i32
  // CHECK-NEXT: %[[J:.+]] = arith.addi %[[QS]], %[[R]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[P]][%[[J]]] : !ttg.memdesc<8x64x32xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x32xbf16, #shared, #smem, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[P]][%[[J]]] : !ttg.memdesc<6x64x32xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x32xbf16, #shared, #smem, mutable>
  tt.func @subtile_smem(%i: i32) -> !ttg.memdesc<64x32xbf16, #shared, #smem, mutable> {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %qk = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %p = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x64x32xbf16, #shared, #smem, mutable>
    %sub = tlx.reuse_group(%p) group_kind = shared group_size = 2 : (!ttg.memdesc<4x64x32xbf16, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
    %g = tlx.reuse_group(%qk, %sub) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !tlx.reuse_group<shared>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    %v = ttg.memdesc_index %p[%i] : !ttg.memdesc<4x64x32xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x32xbf16, #shared, #smem, mutable>
    tt.return %v : !ttg.memdesc<64x32xbf16, #shared, #smem, mutable>
  }

  // Nested subtiles: p (12 buffers of 2 KiB) by 3 inside by 2, distinct from
  // alpha, shared with qk: per qk buffer, 2 x (3 x 2 KiB) = 12 KiB of p, then
  // alpha (256 B) at 12288; stride 16384. Buffer j at (j / 6) * 16384 +
  // ((j / 3) % 2) * 6144 + (j % 3) * 2048: in 2 KiB slots 8 (j / 6) +
  // 3 ((j / 3) % 2) + j % 3, the last (j = 11) slot 13: a view of 16 slots
  // (32768 / 2048) exact, of 14 packed; alpha's of 128 (32768 / 256) exact,
  // of 113 packed (the last, 64 i + 48 for i = 1, is 112).
  // CHECK-LABEL: tt.func @nested_subtiles(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[S:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8
  // PACKED-NEXT: %[[S:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32768xi8
  // CHECK-NEXT: tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
  // EXACT-NEXT: %[[P:.+]] = tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<16x64x16xbf16, #shared, #smem, mutable>
  // EXACT-NEXT: tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<128x64xf32, #shared1, #smem, mutable>
  // PACKED-NEXT: %[[P:.+]] = tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<14x64x16xbf16, #shared, #smem, mutable>
  // PACKED-NEXT: tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<113x64xf32, #shared1, #smem, mutable>
  // CHECK-NEXT: %[[C3:.+]] = arith.constant 3 : i32
  // CHECK-NEXT: %[[RI:.+]] = arith.remui %[[I]], %[[C3]] : i32
  // CHECK-NEXT: %[[C3B:.+]] = arith.constant 3 : i32
  // CHECK-NEXT: %[[QI:.+]] = arith.divui %[[I]], %[[C3B]] : i32
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[RO:.+]] = arith.remui %[[QI]], %[[C2]] : i32
  // CHECK-NEXT: %[[C3C:.+]] = arith.constant 3 : i32
  // CHECK-NEXT: %[[ROS:.+]] = arith.muli %[[RO]], %[[C3C]] : i32
  // CHECK-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[Q:.+]] = arith.divui %[[QI]], %[[C2B]] : i32
  // CHECK-NEXT: %[[C8:.+]] = arith.constant 8 : i32
  // CHECK-NEXT: %[[QS:.+]] = arith.muli %[[Q]], %[[C8]] : i32
  // CHECK-NEXT: %[[A:.+]] = arith.addi %[[QS]], %[[RI]] : i32
  // CHECK-NEXT: %[[J:.+]] = arith.addi %[[A]], %[[ROS]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[P]][%[[J]]] : !ttg.memdesc<16x64x16xbf16, #shared, #smem, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[P]][%[[J]]] : !ttg.memdesc<14x64x16xbf16, #shared, #smem, mutable>
  tt.func @nested_subtiles(%i: i32) -> !ttg.memdesc<64x16xbf16, #shared, #smem, mutable> {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %qk = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %p = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<12x64x16xbf16, #shared, #smem, mutable>
    %alpha = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1, #smem, mutable>
    %in = tlx.reuse_group(%p) group_kind = shared group_size = 3 : (!ttg.memdesc<12x64x16xbf16, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
    %out = tlx.reuse_group(%in) group_kind = shared group_size = 2 : (!tlx.reuse_group<shared>) -> !tlx.reuse_group<shared>
    %d = tlx.reuse_group(%out, %alpha) group_kind = distinct : (!tlx.reuse_group<shared>, !ttg.memdesc<2x64xf32, #shared1, #smem, mutable>) -> !tlx.reuse_group<distinct>
    %g = tlx.reuse_group(%qk, %d) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    %v = ttg.memdesc_index %p[%i] : !ttg.memdesc<12x64x16xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x16xbf16, #shared, #smem, mutable>
    tt.return %v : !ttg.memdesc<64x16xbf16, #shared, #smem, mutable>
  }

  // Buffer counts 2 and 3, distinct: buffer i of each in the spec's buffer
  // index i, 3 indices of 8 KiB + 8 KiB (exact views too, though ring by
  // ring would take 40 KiB: the interleaved 48 KiB fit the target); a: 2i,
  // b at 8 KiB: 2i + 1, of 6 (exact; a of 3 packed).
  // CHECK-LABEL: tt.func @mixed_counts
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[S:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<3x16384xi8
  // EXACT-NEXT: %[[A:.+]] = tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<6x64x64xf16, #shared, #smem, mutable>
  // EXACT-NEXT: %[[B:.+]] = tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<6x64x64xf16, #shared, #smem, mutable>
  // EXACT-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // EXACT-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<6x64x64xf16
  // EXACT-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // EXACT-NEXT: %[[BM:.+]] = arith.muli %[[I]], %[[C2B]] : i32
  // EXACT-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // EXACT-NEXT: %[[BI:.+]] = arith.addi %[[BM]], %[[C1]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<6x64x64xf16
  // PACKED-NEXT: %[[S:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<49152xi8
  // PACKED-NEXT: %[[A:.+]] = tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>
  // PACKED-NEXT: %[[B:.+]] = tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<6x64x64xf16, #shared, #smem, mutable>
  // PACKED-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // PACKED-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // PACKED-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<3x64x64xf16
  // PACKED-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // PACKED-NEXT: %[[BM:.+]] = arith.muli %[[I]], %[[C2B]] : i32
  // PACKED-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // PACKED-NEXT: %[[BI:.+]] = arith.addi %[[BM]], %[[C1]] : i32
  // PACKED-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<6x64x64xf16
  tt.func @mixed_counts(%i: i32) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %x = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %y = ttg.memdesc_index %b[%i] : !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    tt.return
  }

  // TLX's subtiled flash-attention tree in tensor memory: qk 128 columns;
  // p (bf16, packed) 32 columns, by 2 = 64; alpha 1 column at 64. Stride
  // 128 columns (the largest leaf), 256 in all. p in 32-column slots:
  // 4 (j / 2) + j % 2 of 8 (exact; of 6 packed); alpha 128 i + 64 of 256
  // (exact; of 193 packed).
  // CHECK-LABEL: tt.func @tmem_flash_attention_subtiled(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<2x128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable>
  // EXACT-NEXT: %[[P:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<8x128x64xbf16, #[[$T64]], #ttng.tensor_memory, mutable>
  // EXACT-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<256x128x1xf32, #[[$T1]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: %[[P:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<6x128x64xbf16, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<193x128x1xf32, #[[$T1]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[R:.+]] = arith.remui %[[I]], %[[C2]] : i32
  // CHECK-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[Q:.+]] = arith.divui %[[I]], %[[C2B]] : i32
  // CHECK-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // CHECK-NEXT: %[[QS:.+]] = arith.muli %[[Q]], %[[C4]] : i32
  // CHECK-NEXT: %[[J:.+]] = arith.addi %[[QS]], %[[R]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[P]][%[[J]]] : !ttg.memdesc<8x128x64xbf16, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[P]][%[[J]]] : !ttg.memdesc<6x128x64xbf16, #[[$T64]], #ttng.tensor_memory, mutable>
  tt.func @tmem_flash_attention_subtiled(%i: i32) {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %qk = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x128xf32, #tmem128, #tm, mutable>
    %p = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<4x128x64xbf16, #tmem64, #tm, mutable>
    %alpha = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x1xf32, #tmem1, #tm, mutable>
    %sub = tlx.reuse_group(%p) group_kind = shared group_size = 2 : (!ttg.memdesc<4x128x64xbf16, #tmem64, #tm, mutable>) -> !tlx.reuse_group<shared>
    %d = tlx.reuse_group(%sub, %alpha) group_kind = distinct : (!tlx.reuse_group<shared>, !ttg.memdesc<2x128x1xf32, #tmem1, #tm, mutable>) -> !tlx.reuse_group<distinct>
    %g = tlx.reuse_group(%qk, %d) group_kind = shared : (!ttg.memdesc<2x128x128xf32, #tmem128, #tm, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<shared>) -> ()
    %v = ttg.memdesc_index %p[%i] : !ttg.memdesc<4x128x64xbf16, #tmem64, #tm, mutable> -> !ttg.memdesc<128x64xbf16, #tmem64, #tm, mutable>
    tt.return
  }

  // Automatic TMEM alignment, distinct(b 32 columns, a 64 columns) x 2, as
  // TLX (and the design: exact views too, though ring by ring would take 192
  // columns; 256 fit the 512): b first, a aligned to its own 64 columns: b at
  // 0, a at 64, stride 128 (the largest leaf's multiple), 256 in all; a:
  // 2i + 1 of 4; b: 4i of 8 (exact; of 5 packed).
  // CHECK-LABEL: tt.func @tmem_auto_alignment
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[A:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<4x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // EXACT-NEXT: %[[B:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<8x128x32xf32, #[[$T32]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: %[[B:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<5x128x32xf32, #[[$T32]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[AM:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.addi %[[AM]], %[[C1]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<4x128x64xf32
  // CHECK-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // CHECK-NEXT: %[[BI:.+]] = arith.muli %[[I]], %[[C4]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<8x128x32xf32
  // PACKED-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<5x128x32xf32
  tt.func @tmem_auto_alignment(%i: i32) {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x32xf32, #tmem32, #tm, mutable>
    %g = tlx.reuse_group(%b, %a) group_kind = distinct : (!ttg.memdesc<2x128x32xf32, #tmem32, #tm, mutable>, !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<distinct>) -> ()
    %x = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable>
    %y = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x128x32xf32, #tmem32, #tm, mutable> -> !ttg.memdesc<128x32xf32, #tmem32, #tm, mutable>
    tt.return
  }

  // Unpacked f16 (colStride 2) and blockM 64 take 64 columns a buffer each,
  // twice their bytes / 512: distinct, stride 128, 256 columns (bytes would
  // say 128). a: 2i of 4 (exact; of 3 packed); b at column 64: 2i + 1 of 4.
  // CHECK-LABEL: tt.func @tmem_unpacked_and_block_m_64
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable>
  // EXACT-NEXT: %[[A:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<4x128x64xf16, #[[$T64U]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: %[[A:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<3x128x64xf16, #[[$T64U]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[B:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$T64M]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[A]][%[[AI]]]
  // CHECK-NEXT: %[[C2B:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[BM:.+]] = arith.muli %[[I]], %[[C2B]] : i32
  // CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[BI:.+]] = arith.addi %[[BM]], %[[C1]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[B]][%[[BI]]]
  tt.func @tmem_unpacked_and_block_m_64(%i: i32) {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf16, #tmem64u, #tm, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x64x64xf32, #tmem64m, #tm, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x128x64xf16, #tmem64u, #tm, mutable>, !ttg.memdesc<2x64x64xf32, #tmem64m, #tm, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<distinct>) -> ()
    %x = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x128x64xf16, #tmem64u, #tm, mutable> -> !ttg.memdesc<128x64xf16, #tmem64u, #tm, mutable>
    %y = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64x64xf32, #tmem64m, #tm, mutable> -> !ttg.memdesc<64x64xf32, #tmem64m, #tm, mutable>
    tt.return
  }
}
