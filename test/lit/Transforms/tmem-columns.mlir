// RUN: %tlx-opt %s --tlx-storage-alias-lowering | %FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: %tlx-opt %s --tlx-rewrite-local-alias | %FileCheck %s --check-prefixes=REWRITE,REWRITE-EXACT
// RUN: %if packed-views %{ %tlx-opt %s --tlx-storage-alias-lowering=exact-views=false | %FileCheck %s --check-prefixes=CHECK,PACKED %}
// RUN: %if packed-views %{ %tlx-opt %s --tlx-rewrite-local-alias=exact-views=false | %FileCheck %s --check-prefixes=REWRITE,REWRITE-PACKED %}
//
// Regression (tlx-storage-alias-lowering step 3 and tlx-rewrite-local-alias):
// a tensor-memory storage whose column count is not a power of two fails
// with "cannot build attribute #ttng.tensor_memory_encoding<blockM = 128,
// blockN = 96, ...>: blockN must be a power of 2": the ttng.tmem_alloc is
// built as 128 x C with C = ceil(bytes / 512) verbatim. Now: C rounded
// up to a power of two (TMEM is allocated in power-of-two column counts
// anyway), still at most 512.
//
// Exact views (the default; EXACT) span the whole allocation in whole
// buffers; packed views (exact-views=false, triton 3.7 only; PACKED) end at
// their last buffer.

#tmem32 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>
#tmem64 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#tm = #ttng.tensor_memory

// CHECK-DAG: #[[$T512:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 512, colStride = 1>
// CHECK-DAG: #[[$T128:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
// REWRITE-DAG: #[[$T256:[a-z0-9_]+]] = #ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 1>

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {
  // 3 buffers of 32 columns: 96 columns -> a 128-column allocation, viewed
  // as 4 buffers (exact) or 3 (packed).
  // CHECK-LABEL: tt.func @three_buffers
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #[[$T128]], #ttng.tensor_memory, mutable>
  // EXACT-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<4x128x32xf32, #{{.+}}, #ttng.tensor_memory, mutable>
  // PACKED-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<3x128x32xf32, #{{.+}}, #ttng.tensor_memory, mutable>
  tt.func @three_buffers() {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<3x128x32xf32, #tmem32, #tm, mutable>
    tt.return
  }

  // distinct of three 64-column buffers, 2 deep: 384 columns -> 512; the
  // k-th child at 3i + k: views of 8 buffers each (exact), of 4, 5 and 6
  // (packed).
  // CHECK-LABEL: tt.func @distinct_three
  // CHECK-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x512xf32, #[[$T512]], #ttng.tensor_memory, mutable>
  // EXACT-COUNT-3: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<8x128x64xf32, #{{.+}}, #ttng.tensor_memory, mutable>
  // PACKED-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<4x128x64xf32, #{{.+}}, #ttng.tensor_memory, mutable>
  // PACKED-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<5x128x64xf32, #{{.+}}, #ttng.tensor_memory, mutable>
  // PACKED-NEXT: tlx.local_alias %[[T]] : {{.*}} -> !ttg.memdesc<6x128x64xf32, #{{.+}}, #ttng.tensor_memory, mutable>
  // CHECK-NEXT: tt.return
  tt.func @distinct_three() {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %c = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>
    %g = tlx.reuse_group(%a, %b, %c) group_kind = distinct : (!ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>, !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>, !ttg.memdesc<2x128x64xf32, #tmem64, #tm, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<distinct>) -> ()
    tt.return
  }

  // tlx-rewrite-local-alias: a 64-column root viewed as 3 x 64 columns
  // needs a 192 -> 256-column allocation; exact views widen the view to 4
  // buffers. The root has no use of its own: no reinterpret to its type.
  // REWRITE-LABEL: tt.func @legacy_alias(
  // REWRITE-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable>
  // REWRITE-EXACT-NEXT: ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<4x128x64xf32, #{{.+}}, #ttng.tensor_memory, mutable>
  // REWRITE-PACKED-NEXT: ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<3x128x64xf32, #{{.+}}, #ttng.tensor_memory, mutable>
  // REWRITE-NEXT: tt.return
  tt.func @legacy_alias() {
    %a = ttng.tmem_alloc : () -> !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<3x128x64xf32, #tmem64, #tm, mutable>
    tt.return
  }

  // The same with a root with a buffer dimension (1x128x64).
  // REWRITE-LABEL: tt.func @legacy_alias_buffered(
  // REWRITE-NEXT: %[[T:.+]] = ttng.tmem_alloc : () -> !ttg.memdesc<128x256xf32, #[[$T256]], #ttng.tensor_memory, mutable>
  // REWRITE-EXACT-NEXT: ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<4x128x64xf32, #{{.+}}, #ttng.tensor_memory, mutable>
  // REWRITE-PACKED-NEXT: ttg.memdesc_reinterpret %[[T]] : {{.*}} -> !ttg.memdesc<3x128x64xf32, #{{.+}}, #ttng.tensor_memory, mutable>
  // REWRITE-NEXT: tt.return
  tt.func @legacy_alias_buffered() {
    %a = ttng.tmem_alloc : () -> !ttg.memdesc<1x128x64xf32, #tmem64, #tm, mutable>
    %b = tlx.local_alias %a : !ttg.memdesc<1x128x64xf32, #tmem64, #tm, mutable> -> !ttg.memdesc<3x128x64xf32, #tmem64, #tm, mutable>
    tt.return
  }
}
