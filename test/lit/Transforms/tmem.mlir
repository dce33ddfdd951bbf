// RUN: %tlx-opt %s --tlx-storage-alias-lowering | %FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: %tlx-opt %s --tlx-lower | %FileCheck %s --check-prefixes=LOWER,LOWER-EXACT
// RUN: %if packed-views %{ %tlx-opt %s --tlx-storage-alias-lowering=exact-views=false | %FileCheck %s --check-prefixes=CHECK,PACKED %}
// RUN: %if packed-views %{ %tlx-opt %s --tlx-lower=exact-views=false | %FileCheck %s --check-prefixes=LOWER,LOWER-PACKED %}
//
// Tensor-memory specs: sizes are counted in bytes like shared memory, with
// one TMEM column = 128 lanes x 4 bytes = 512 bytes, and every buffer starts
// on a column. The storage is one ttng.tmem_alloc of 128 x C x f32 with
// C = ceil(bytes / 512) columns. Exact views (the default; EXACT) span all
// C columns in whole buffers; packed views (exact-views=false, triton 3.7
// only; PACKED) end at their last buffer. Offsets and indices are the same.

#tmem64 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#tmem32 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>
#tmem1 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 1, colStride = 1>
#tm = #ttng.tensor_memory
#blocked = #ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>

// CHECK-DAG: #[[$T512:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 512, colStride = 1>
// CHECK-DAG: #[[$T256:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 1>
// CHECK-DAG: #[[$T128:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
// CHECK-DAG: #[[$T64:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
// CHECK-DAG: #[[$T32:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>
// CHECK-DAG: #[[$T1:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 1, colStride = 1>
// LOWER-DAG: #[[$T256:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 1>
// LOWER-DAG: #[[$T64:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {

  // No overlap tree: max(2 x 32768, 4 x 16384) = 65536 bytes = 128 columns.
  // CHECK-LABEL: tt.func @no_overlap
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: tlx.local_alias %[[T]] : !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<2x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: tlx.local_alias %[[T]] : !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<4x128x32xf32, #[[$T32]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: tt.return
  tt.func @no_overlap() {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<4x128x32xf32, #tmem32, #tm, mutable>
    tt.return
  }

  // An explicit size: 65536 bytes for a 32768-byte allocation, still 128
  // columns: 4 buffers of 32 columns (exact), 2 (packed).
  // CHECK-LABEL: tt.func @explicit_size
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable>
  // EXACT-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<4x128x32xf32, #[[$T32]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<2x128x32xf32, #[[$T32]], #ttng.tensor_memory, mutable>
  tt.func @explicit_size() {
    %spec = tlx.storage_alias_spec storage = tmem, size = 65536 : !tlx.storage_alias_spec<tmem, 65536>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem, 65536> -> !ttg.memdesc<2x128x32xf32, #tmem32, #tm, mutable>
    tt.return
  }

  // The smallest: 2 x 128x32xf32 = 32768 bytes = 64 columns.
  // CHECK-LABEL: tt.func @small
  // CHECK-NEXT: ttng.tmem_alloc : () -> !ttg.memdesc<128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  tt.func @small() {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x32xf32, #tmem32, #tm, mutable>
    tt.return
  }

  // distinct(a, b) of two 2x128x64xf32 (64 columns each): stride 128
  // columns, 256 columns in all. a: 2i of 4 (exact; of 3 packed), b at
  // column 64: 2i + 1 of 4.
  // CHECK-LABEL: tt.func @distinct(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable>
  // EXACT-NEXT: %[[A:.+]] = tlx.local_alias %[[T]] : !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<4x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: %[[A:.+]] = tlx.local_alias %[[T]] : !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<3x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[B:.+]] = tlx.local_alias %[[T]] : !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<4x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<4x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[A]][%[[AI]]] : !ttg.memdesc<3x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // CHECK: %[[C2B:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[BS:.+]] = arith.muli %[[I]], %[[C2B]] : i32
  // CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[BI:.+]] = arith.addi %[[BS]], %[[C1]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[B]][%[[BI]]] : !ttg.memdesc<4x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // LOWER-LABEL: tt.func @distinct(
  // LOWER: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable>
  // LOWER-EXACT-NEXT: ttg.memdesc_reinterpret %[[T]] : !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<4x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // LOWER-EXACT-NEXT: ttg.memdesc_reinterpret %[[T]] : !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<4x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // LOWER-PACKED-DAG: ttg.memdesc_reinterpret %[[T]] : !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<3x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // LOWER-PACKED-DAG: ttg.memdesc_reinterpret %[[T]] : !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<4x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // LOWER-NOT: tlx.
  // LOWER: tt.return
  tt.func @distinct(%i: i32) -> (tensor<128x64xf32, #blocked>, tensor<128x64xf32, #blocked>) {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>, !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<distinct>) -> ()
    %va = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable>
    %ta = ttng.tmem_load %va : !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable> -> tensor<128x64xf32, #blocked>
    %vb = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable>
    %tb = ttng.tmem_load %vb : !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable> -> tensor<128x64xf32, #blocked>
    tt.return %ta, %tb : tensor<128x64xf32, #blocked>, tensor<128x64xf32, #blocked>
  }

  // All of tensor memory: 2 x distinct of four 64-column buffers = 512;
  // the k-th child at 4i + k: exact views of 8 buffers each, packed ones of
  // 5, 6, 7 and 8.
  // CHECK-LABEL: tt.func @full
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x512xf32, #[[$T512]], #ttng.tensor_memory, mutable>
  // EXACT-COUNT-4: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<8x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<5x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<6x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<7x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<8x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: tt.return
  tt.func @full() {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %c = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %d = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %g = tlx.reuse_group(%a, %b, %c, %d) group_kind = distinct : (!ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>, !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>, !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>, !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<distinct>) -> ()
    tt.return
  }

  // The flash-attention pattern in tensor memory: shared(QK, distinct(P,
  // alpha)). QK 64 columns, P (bf16, packed) 32 columns, alpha 1 column at
  // column 32; stride 64 columns, 128 in all. P: 2i of 4 (exact; of 3
  // packed); alpha: 64i + 32 of 128 (exact; of 97 packed).
  // CHECK-LABEL: tt.func @flash_attention(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[QK:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<2x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // EXACT-NEXT: %[[P:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<4x128x64xbf16, #[[$T64]], #ttng.tensor_memory, mutable>
  // EXACT-NEXT: %[[ALPHA:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<128x128x1xf32, #[[$T1]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: %[[P:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<3x128x64xbf16, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: %[[ALPHA:.+]] = tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<97x128x1xf32, #[[$T1]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: ttg.memdesc_index %[[QK]][%[[I]]]
  // CHECK: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[PI:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[P]][%[[PI]]]
  // CHECK: %[[C64:.+]] = arith.constant 64 : i32
  // CHECK-NEXT: %[[AS:.+]] = arith.muli %[[I]], %[[C64]] : i32
  // CHECK-NEXT: %[[C32:.+]] = arith.constant 32 : i32
  // CHECK-NEXT: %[[AI:.+]] = arith.addi %[[AS]], %[[C32]] : i32
  // EXACT-NEXT: ttg.memdesc_index %[[ALPHA]][%[[AI]]] : !ttg.memdesc<128x128x1xf32, #[[$T1]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x1xf32, #[[$T1]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[ALPHA]][%[[AI]]] : !ttg.memdesc<97x128x1xf32, #[[$T1]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x1xf32, #[[$T1]], #ttng.tensor_memory, mutable>
  tt.func @flash_attention(%i: i32) -> (tensor<128x64xf32, #blocked>, tensor<128x64xbf16, #blocked>, tensor<128x1xf32, #blocked1>) {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %qk = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %p = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xbf16, #tmem64, #tm, mutable>
    %alpha = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x1xf32, #tmem1, #tm, mutable>
    %inner = tlx.reuse_group(%p, %alpha) group_kind = distinct : (!ttg.memdesc<2x128x64xbf16, #tmem64, #tm, mutable>, !ttg.memdesc<2x128x1xf32, #tmem1, #tm, mutable>) -> !tlx.reuse_group<distinct>
    %outer = tlx.reuse_group(%qk, %inner) group_kind = shared : (!ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %outer) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<shared>) -> ()
    %vq = ttg.memdesc_index %qk[%i] : !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable>
    %tq = ttng.tmem_load %vq : !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable> -> tensor<128x64xf32, #blocked>
    %vp = ttg.memdesc_index %p[%i] : !ttg.memdesc<2x128x64xbf16, #tmem64, #tm, mutable> -> !ttg.memdesc<128x64xbf16, #tmem64, #tm, mutable>
    %tp = ttng.tmem_load %vp : !ttg.memdesc<128x64xbf16, #tmem64, #tm, mutable> -> tensor<128x64xbf16, #blocked>
    %va = ttg.memdesc_index %alpha[%i] : !ttg.memdesc<2x128x1xf32, #tmem1, #tm, mutable> -> !ttg.memdesc<128x1xf32, #tmem1, #tm, mutable>
    %ta = ttng.tmem_load %va : !ttg.memdesc<128x1xf32, #tmem1, #tm, mutable> -> tensor<128x1xf32, #blocked1>
    tt.return %tq, %tp, %ta : tensor<128x64xf32, #blocked>, tensor<128x64xbf16, #blocked>, tensor<128x1xf32, #blocked1>
  }
}
