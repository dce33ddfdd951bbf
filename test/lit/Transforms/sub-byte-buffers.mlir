// REQUIRES: subbyte-smem
// RUN: %tlx-opt %s --verify-diagnostics --tlx-storage-alias-lowering --tlx-rewrite-local-alias
// RUN: %if packed-views %{ %tlx-opt %s --tlx-storage-alias-lowering=exact-views=false 2>/dev/null | %FileCheck %s %}
//
// Buffers of part of a byte (2x2 i1, 1 i4): packed views (triton 3.7) round
// each up to whole bytes; exact views refuse them. Only triton 3.7 and 3.8
// have such buffers: triton 3.9's memdesc verifier refuses an element type of
// less than 8 bits in shared memory, so the IR below does not parse there.

// CHECK-DAG: #[[$BYTES:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1d = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // Sub-byte buffers round up per buffer: 4 x ceil(2*2*1 / 8) = 4 bytes of
  // i1 and 8 x ceil(1*4 / 8) = 8 bytes of i4 (not 2 and 4). Packed only:
  // exact views refuse buffers of part of a byte (the error below): a view
  // spanning the storage in such buffers would not have its logical size.
  // CHECK-LABEL: tt.func @sub_byte_buffers
  // CHECK-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<4xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<4x2x2xi1, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<8xi8, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<8x1xi4, #[[$BYTES]], #smem, mutable>
  // CHECK-NEXT: tt.return
  tt.func @sub_byte_buffers() {
    %s5 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    // expected-error @below {{cannot place a buffer of 4 bits (2x2xi1) under exact views: a buffer must be whole bytes}}
    %a5 = tlx.storage_alias_local_alloc %s5 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<4x2x2xi1, #shared, #smem, mutable>
    %s6 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a6 = tlx.storage_alias_local_alloc %s6 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<8x1xi4, #shared1d, #smem, mutable>
    tt.return
  }
}
