// RUN: %tlx-opt %s --tlx-storage-alias-lowering | %FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: %if packed-views %{ %tlx-opt %s --tlx-storage-alias-lowering=exact-views=false | %FileCheck %s --check-prefixes=CHECK,PACKED %}
//
// Regression (tlx-storage-alias-lowering, step 3, getViewLayout): an
// allocation whose shared encoding has the full rank of its shape (here
// order = [2, 1, 0] for 2x64x64) is rejected with "Triton rejects the memory
// descriptor !ttg.memdesc<64x64xf32, #ttg.swizzled_shared<{..., order = [2,
// 1, 0]}>, ...>: rank must be equal to or one less than the shape size",
// even without set_buffer_overlap: the one-buffer type is built (keeping the
// rank-3 encoding) although a natural-layout view never needs it. The same
// type is a valid ttg.local_alloc. Now: the view keeps the user's
// type, with exact views (the default) and packed ones (exact-views=false,
// triton 3.7 only).

#shared3 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [2, 1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: tt.func @full_rank
  // EXACT-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x32768xi8, #{{.+}}, #smem, mutable>
  // PACKED-NEXT: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<32768xi8, #{{.+}}, #smem, mutable>
  // CHECK-NEXT: tlx.local_alias %[[BASE]] : {{.*}} -> !ttg.memdesc<2x64x64xf32, #{{.+}}, #smem, mutable>
  // CHECK-NEXT: tt.return
  tt.func @full_rank() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared3, #smem, mutable>
    tt.return
  }
}
