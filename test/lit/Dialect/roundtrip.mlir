// RUN: %tlx-opt %s | %tlx-opt | %FileCheck %s
// Every op and type of the tlx dialect, in the design's syntax (phases 1-4),
// printed and re-parsed unchanged.

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1d = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#bytes = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#tmem_enc = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#tmem = #ttng.tensor_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {

  // Phase 1: unsized and sized specs.
  // CHECK-LABEL: tt.func @specs
  tt.func @specs() {
    // CHECK: tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %0 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    // CHECK: tlx.storage_alias_spec storage = tmem, size = 16384 : !tlx.storage_alias_spec<tmem, 16384>
    %1 = tlx.storage_alias_spec storage = tmem, size = 16384 : !tlx.storage_alias_spec<tmem, 16384>
    // CHECK: tlx.storage_alias_spec storage = smem, size = 32768 : !tlx.storage_alias_spec<smem, 32768>
    %2 = tlx.storage_alias_spec storage = smem, size = 32768 : !tlx.storage_alias_spec<smem, 32768>
    tt.return
  }

  // Phase 2: allocations referencing a spec, and local_alias views.
  // CHECK-LABEL: tt.func @allocs
  tt.func @allocs() {
    %spec = tlx.storage_alias_spec storage = smem, size = 32768 : !tlx.storage_alias_spec<smem, 32768>
    // CHECK: %[[A:.*]] = tlx.storage_alias_local_alloc %{{.*}} : !tlx.storage_alias_spec<smem, 32768> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 32768> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    // CHECK: tlx.storage_alias_local_alloc %{{.*}} : !tlx.storage_alias_spec<smem, 32768> -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 32768> -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    %tspec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    // CHECK: tlx.storage_alias_local_alloc %{{.*}} : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem, #ttng.tensor_memory, mutable>
    %t = tlx.storage_alias_local_alloc %tspec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x64xf32, #tmem_enc, #tmem, mutable>
    // CHECK: %[[BASE:.*]] = ttg.local_alloc : () -> !ttg.memdesc<32768xi8, #[[BYTES:.*]], #smem, mutable>
    %alloc = ttg.local_alloc : () -> !ttg.memdesc<32768xi8, #bytes, #smem, mutable>
    // CHECK: tlx.local_alias %[[BASE]] : !ttg.memdesc<32768xi8, #[[BYTES]], #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %va = tlx.local_alias %alloc : !ttg.memdesc<32768xi8, #bytes, #smem, mutable> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    // CHECK: tlx.local_alias %[[A]] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    %vb = tlx.local_alias %a : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    tt.return
  }

  // Phases 3 and 4: a simple shared group, and the nested flash-attention
  // tree (P and alpha distinct, sharing with QK).
  // CHECK-LABEL: tt.func @groups
  tt.func @groups() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    // CHECK: %[[G:.*]] = tlx.reuse_group(%{{.*}}, %{{.*}}) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
    %group = tlx.reuse_group(%a, %b) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
    // CHECK: tlx.set_buffer_overlap(%{{.*}}, %[[G]]) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    tlx.set_buffer_overlap(%spec, %group) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()

    %spec2 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %qk = tlx.storage_alias_local_alloc %spec2 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
    %p = tlx.storage_alias_local_alloc %spec2 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %alpha = tlx.storage_alias_local_alloc %spec2 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>
    // CHECK: %[[IN:.*]] = tlx.reuse_group(%{{.*}}, %{{.*}}) group_kind = distinct : (!ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<2x64xf32, #{{.*}}, #smem, mutable>) -> !tlx.reuse_group<distinct>
    %inner = tlx.reuse_group(%p, %alpha) group_kind = distinct : (!ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<2x64xf32, #shared1d, #smem, mutable>) -> !tlx.reuse_group<distinct>
    // CHECK: %[[OUT:.*]] = tlx.reuse_group(%{{.*}}, %[[IN]]) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
    %outer = tlx.reuse_group(%qk, %inner) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !tlx.reuse_group<distinct>) -> !tlx.reuse_group<shared>
    // CHECK: tlx.set_buffer_overlap(%{{.*}}, %[[OUT]]) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    tlx.set_buffer_overlap(%spec2, %outer) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
    tt.return
  }

  // Types as function arguments print in full.
  // CHECK-LABEL: tt.func @types(%{{.*}}: !tlx.storage_alias_spec<smem>, %{{.*}}: !tlx.storage_alias_spec<tmem, 16384>, %{{.*}}: !tlx.reuse_group<shared>, %{{.*}}: !tlx.reuse_group<distinct>)
  tt.func @types(%a: !tlx.storage_alias_spec<smem>, %b: !tlx.storage_alias_spec<tmem, 16384>, %c: !tlx.reuse_group<shared>, %d: !tlx.reuse_group<distinct>) {
    tt.return
  }
}
