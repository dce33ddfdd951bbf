// RUN: %triton-syntax --blank-packed-only %s | %tlx-opt - --tlx-rewrite-local-alias | %FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: %triton-syntax --blank-packed-only %s | %tlx-opt - --tlx-lower | %FileCheck %s --check-prefixes=LOWER,LOWER-EXACT
// RUN: %if packed-views %{ %tlx-opt %s --tlx-rewrite-local-alias=exact-views=false | %FileCheck %s --check-prefixes=CHECK,PACKED %}
// RUN: %if packed-views %{ %tlx-opt %s --tlx-lower=exact-views=false | %FileCheck %s --check-prefixes=LOWER,LOWER-PACKED %}
//
// tlx-rewrite-local-alias: every tlx.local_alias becomes a
// ttg.memdesc_reinterpret of the allocation at the root of its alias chain.
// A root that is too small or not aligned enough for its views is replaced
// by a byte allocation (shared memory) or a wider ttng.tmem_alloc (tensor
// memory), and the root's own uses get a reinterpret to its old type.
// tlx-lower runs the whole lowering and leaves no tlx op behind.
//
// Exact views (the default; EXACT) make every reinterpret span the whole
// base: a view smaller than the base is widened to more buffers (indices
// unchanged), so a root whose views differ in size gets a new base.
// Packed views (exact-views=false, triton 3.7 only; PACKED) reinterpret
// the root as it is when it is large and aligned enough. Between
// PACKED-ONLY-BEGIN and PACKED-ONLY-END: roots without a buffer dimension,
// which only packed views lower (the exact runs read the file through
// %triton-syntax --blank-packed-only).

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1d = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1d = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blockedt = #ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#smem = #ttg.shared_memory
#tmem64 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#tmem128 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tm = #ttng.tensor_memory

// CHECK-DAG: #[[$BYTES:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-DAG: #[[$NVMMA:[a-z0-9_]+]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[$T64:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
// CHECK-DAG: #[[$T128:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
// LOWER-DAG: #[[$BYTES:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// LOWER-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {

  // The legacy reuse=buffered_tensor pattern: the root (32768 bytes) holds
  // its bf16 view (16384 bytes). Packed: the root stays as is. Exact: the
  // view spans the 32768 bytes as 4 buffers, of a byte base (the root has no
  // other use, so no reinterpret to its own type).
  // CHECK-LABEL: tt.func @root_big_enough(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 16 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: %[[V:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: ttg.memdesc_index %[[V]][%[[I]]] : !ttg.memdesc<4x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[ROOT:.+]] = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[V:.+]] = ttg.memdesc_reinterpret %[[ROOT]] : !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<2x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[V]][%[[I]]] : !ttg.memdesc<2x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // CHECK-NOT: tlx.local_alias
  // CHECK: tt.return
  tt.func @root_big_enough(%i: i32, %x: tensor<64x64xbf16, #blocked>) {
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    ttg.local_store %x, %v : tensor<64x64xbf16, #blocked> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    tt.return
  }

  // The root (16384 bytes of bf16) is smaller than its f32 view (32768): it
  // becomes a 32768-byte allocation, and both the root's own uses and the
  // view are reinterprets of it (exact: the root's as 4 buffers, indexed as
  // before).
  // CHECK-LABEL: tt.func @root_too_small(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 16 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: %[[ROOT:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: %[[V:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT-NEXT: ttg.memdesc_index %[[V]][%[[I]]] : !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // EXACT: ttg.memdesc_index %[[ROOT]][%[[I]]] : !ttg.memdesc<4x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 16 : i32} : () -> !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[ROOT:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[V:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[V]][%[[I]]] : !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED: ttg.memdesc_index %[[ROOT]][%[[I]]] : !ttg.memdesc<2x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // CHECK-NOT: ttg.local_alloc
  // CHECK: tt.return
  tt.func @root_too_small(%i: i32, %x: tensor<64x64xf32, #blocked>, %y: tensor<64x64xbf16, #blocked>) {
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %v : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %w = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    ttg.local_store %y, %w : tensor<64x64xbf16, #blocked> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    tt.return
  }

  // Big enough but not aligned enough: a 128-byte-swizzled NVMMA view needs
  // 1024-byte alignment, more than the swizzled root's 16. (The root has no
  // use of its own: no reinterpret to its type.)
  // CHECK-LABEL: tt.func @root_not_aligned(
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<1x16384xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<16384xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: %[[V:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<{{(1x)?}}16384xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_index %[[V]]
  tt.func @root_not_aligned(%i: i32, %x: tensor<64x64xf16, #blocked>) {
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<2x64x64xf16, #nvmma, #smem, mutable>
    %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64x64xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<64x64xf16, #nvmma, #smem, mutable>
    ttg.local_store %x, %v : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #nvmma, #smem, mutable>
    tt.return
  }

  // A root that already has the alignment (explicitly, or through its own
  // NVMMA encoding) is kept.
  // CHECK-LABEL: tt.func @root_aligned(
  // CHECK-NEXT: %[[ROOT:.+]] = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<16384xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[ROOT]] : !ttg.memdesc<16384xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK: %[[ROOT2:.+]] = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[ROOT2]] : !ttg.memdesc<2x64x64xf16, #[[$NVMMA]], #smem, mutable> -> !ttg.memdesc<2x64x64xbf16, #[[$NVMMA]], #smem, mutable>
  // CHECK-NEXT: tt.return
  tt.func @root_aligned() {
    %a = ttg.local_alloc {alignment = 1024 : i32} : () -> !ttg.memdesc<16384xi8, #shared1d, #smem, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<16384xi8, #shared1d, #smem, mutable> -> !ttg.memdesc<2x64x64xf16, #nvmma, #smem, mutable>
    %c = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #nvmma, #smem, mutable>
    %d = tlx.local_alias %c : !ttg.memdesc<2x64x64xf16, #nvmma, #smem, mutable> -> !ttg.memdesc<2x64x64xbf16, #nvmma, #smem, mutable>
    tt.return
  }

  // Chains: an alias of an alias views the root directly. The largest view
  // (4 x 64x64xf32 = 65536 bytes) sizes the new base; exact views widen
  // the middle view to it. The root has no use of its own: no reinterpret
  // to its type.
  // CHECK-LABEL: tt.func @chain(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 16 : i32} : () -> !ttg.memdesc<1x65536xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 16 : i32} : () -> !ttg.memdesc<65536xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[C:.+]] = ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_index %[[C]][%[[I]]]
  // CHECK-NOT: tlx.local_alias
  // CHECK: tt.return
  tt.func @chain(%i: i32, %x: tensor<64x64xf32, #blocked>) {
    %a = ttg.local_alloc : () -> !ttg.memdesc<1x32768xi8, #shared1d, #smem, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<1x32768xi8, #shared1d, #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %c = tlx.local_alias %b : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<4x64x64xf32, #shared, #smem, mutable>
    %v = ttg.memdesc_index %c[%i] : !ttg.memdesc<4x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %v : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }

  // The same chain from a byte root without a buffer dimension: exact views
  // cannot widen it (an error, in exact-views-errors.mlir); packed only.
  // PACKED-ONLY-BEGIN
  // PACKED-LABEL: tt.func @chain_1d(
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 16 : i32} : () -> !ttg.memdesc<65536xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[C:.+]] = ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[C]]
  // PACKED-NOT: tlx.local_alias
  // PACKED: tt.return
  tt.func @chain_1d(%i: i32, %x: tensor<64x64xf32, #blocked>) {
    %a = ttg.local_alloc : () -> !ttg.memdesc<32768xi8, #shared1d, #smem, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<32768xi8, #shared1d, #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %c = tlx.local_alias %b : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<4x64x64xf32, #shared, #smem, mutable>
    %v = ttg.memdesc_index %c[%i] : !ttg.memdesc<4x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %v : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }
  // PACKED-ONLY-END

  // A view of the root's own type is the root itself.
  // CHECK-LABEL: tt.func @same_type(
  // CHECK-NEXT: %[[ROOT:.+]] = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: ttg.memdesc_index %[[ROOT]]
  tt.func @same_type(%i: i32, %x: tensor<64x64xf32, #blocked>) {
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %v : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }

  // Tensor memory: a 64-column root with a 128-column view becomes a
  // 128-column ttng.tmem_alloc; exact views widen the root to 2 buffers.
  // CHECK-LABEL: tt.func @tmem_root_too_small(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK-NEXT: %[[BASE:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable>
  // EXACT-NEXT: %[[ROOT:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<2x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: %[[ROOT:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<1x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: %[[V:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<2x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: ttg.memdesc_index %[[V]][%[[I]]]
  // CHECK: %[[C0:.+]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[R:.+]] = ttg.memdesc_index %[[ROOT]][%[[C0]]]
  // CHECK-NEXT: ttng.tmem_load %[[R]]
  tt.func @tmem_root_too_small(%i: i32) -> (tensor<128x64xf32, #blockedt>, tensor<128x64xf32, #blockedt>) {
    %a = ttng.tmem_alloc : () -> !ttg.memdesc<1x128x64xf32, #tmem64, #tm, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<1x128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable>
    %t = ttng.tmem_load %v : !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable> -> tensor<128x64xf32, #blockedt>
    %c0 = arith.constant 0 : i32
    %w = ttg.memdesc_index %a[%c0] : !ttg.memdesc<1x128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable>
    %r = ttng.tmem_load %w : !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable> -> tensor<128x64xf32, #blockedt>
    tt.return %t, %r : tensor<128x64xf32, #blockedt>, tensor<128x64xf32, #blockedt>
  }

  // The same with a root without a buffer dimension (128x64), packed only:
  // exact views widen it as if its 128 rows were buffers, and then refuse
  // the root's own tmem_load.
  // PACKED-ONLY-BEGIN
  // PACKED-LABEL: tt.func @tmem_root_too_small_2d(
  // PACKED-NEXT: %[[BASE:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: %[[ROOT:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: %[[V:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<2x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  // PACKED-NEXT: ttg.memdesc_index %[[V]]
  // PACKED: ttng.tmem_load %[[ROOT]]
  tt.func @tmem_root_too_small_2d(%i: i32) -> (tensor<128x64xf32, #blockedt>, tensor<128x64xf32, #blockedt>) {
    %a = ttng.tmem_alloc : () -> !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable>
    %t = ttng.tmem_load %v : !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable> -> tensor<128x64xf32, #blockedt>
    %r = ttng.tmem_load %a : !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable> -> tensor<128x64xf32, #blockedt>
    tt.return %t, %r : tensor<128x64xf32, #blockedt>, tensor<128x64xf32, #blockedt>
  }
  // PACKED-ONLY-END

  // Tensor memory, big enough: kept.
  // CHECK-LABEL: tt.func @tmem_root_big_enough(
  // CHECK-NEXT: %[[ROOT:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable>
  // CHECK-NEXT: ttg.memdesc_reinterpret %[[ROOT]] : !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable> -> !ttg.memdesc<2x128x64xf32, #[[$T64]], #ttng.tensor_memory, mutable>
  tt.func @tmem_root_big_enough(%i: i32) -> tensor<128x64xf32, #blockedt> {
    %a = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem128, #tm, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<128x128xf32, #tmem128, #tm, mutable> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable>
    %t = ttng.tmem_load %v : !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable> -> tensor<128x64xf32, #blockedt>
    tt.return %t : tensor<128x64xf32, #blockedt>
  }

  // End to end (tlx-lower): the design's phase 5 example with all its
  // accesses, down to one allocation and reinterprets. Constant indices
  // fold: P buffer 1 is P slot 2, alpha buffer 1 is alpha slot 96. Exact
  // views span the 32768 bytes: P as 4 buffers, alpha as 128.
  // LOWER-LABEL: tt.func @lower_flash_attention(
  // LOWER-SAME: %[[I:arg[0-9]+]]: i32
  // LOWER-DAG: %[[C2:.+]] = arith.constant 2 : i32
  // LOWER-DAG: %[[C96:.+]] = arith.constant 96 : i32
  // LOWER-DAG: %[[C1:.+]] = arith.constant 1 : i32
  // LOWER-EXACT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable>
  // LOWER-EXACT-DAG: %[[QK:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // LOWER-EXACT-DAG: %[[P:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<4x64x64xf16, #[[$SHARED]], #smem, mutable>
  // LOWER-EXACT-DAG: %[[ALPHA:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<1x32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<128x64xf32, #[[$BYTES]], #smem, mutable>
  // LOWER-PACKED: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable>
  // LOWER-PACKED-DAG: %[[QK:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // LOWER-PACKED-DAG: %[[P:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<3x64x64xf16, #[[$SHARED]], #smem, mutable>
  // LOWER-PACKED-DAG: %[[ALPHA:.+]] = ttg.memdesc_reinterpret %[[BASE]] : !ttg.memdesc<32768xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<97x64xf32, #[[$BYTES]], #smem, mutable>
  // LOWER: ttg.memdesc_index %[[QK]][%[[I]]]
  // LOWER: ttg.memdesc_index %[[QK]][%[[C1]]]
  // LOWER: ttg.memdesc_index %[[P]][%[[C2]]]
  // LOWER: ttg.memdesc_index %[[ALPHA]][%[[C96]]]
  // LOWER-NOT: tlx.
  // LOWER: tt.return
  tt.func @lower_flash_attention(%i: i32, %x: tensor<64x64xf32, #blocked>, %y: tensor<64x64xf16, #blocked>, %z: tensor<64xf32, #blocked1d>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %qk = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %p = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %alpha = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    %inner = tlx.reuse_group(%p, %alpha) group_kind = distinct : (!ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>) -> !tlx.reuse_group<distinct>
    %outer = tlx.reuse_group(%qk, %inner) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
    tlx.set_buffer_overlap(%spec, %outer) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    %c1 = arith.constant 1 : i32
    %v0 = ttg.memdesc_index %qk[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %v0 : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %v1 = ttg.memdesc_index %qk[%c1] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %v1 : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    %v2 = ttg.memdesc_index %p[%c1] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttg.local_store %y, %v2 : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %v3 = ttg.memdesc_index %alpha[%c1] : !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable> -> !ttg.memdesc<64xf32, #shared1d, #smem, mutable>
    ttg.local_store %z, %v3 : tensor<64xf32, #blocked1d> -> !ttg.memdesc<64xf32, #shared1d, #smem, mutable>
    tt.return
  }

  // End to end with a legacy alias next to a storage alias spec: both end as
  // reinterprets.
  // LOWER-LABEL: tt.func @lower_mixed(
  // LOWER-NOT: tlx.
  // LOWER: tt.return
  tt.func @lower_mixed(%i: i32, %x: tensor<64x64xbf16, #blocked>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %s = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    %vs = ttg.memdesc_index %s[%i] : !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    ttg.local_store %x, %vs : tensor<64x64xbf16, #blocked> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    ttg.local_store %x, %v : tensor<64x64xbf16, #blocked> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    tt.return
  }
}
