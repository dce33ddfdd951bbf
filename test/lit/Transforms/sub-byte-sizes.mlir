// REQUIRES: subbyte-smem
// RUN: %tlx-opt %s --tlx-storage-alias-lowering 2>/dev/null | %FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: %if packed-views %{ %tlx-opt %s --tlx-storage-alias-lowering=exact-views=false 2>/dev/null | %FileCheck %s --check-prefixes=CHECK,PACKED %}
//
// Shared-memory buffers of sub-byte element types, as sizes.mlir sizes the
// others (buffers of part of a byte: sub-byte-buffers.mlir). Only triton 3.7
// and 3.8 have them: triton 3.9's memdesc verifier refuses an element type
// of less than 8 bits in shared memory ("shared-memory element type bit
// width must be a multiple of 8"), so the IR below does not parse there.

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1d = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
// CHECK-DAG: #[[$BYTES:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // 2 x 8x8 i1 = 2 x 8 bytes, in a spec of 128 bytes (exact: the 128-byte
  // alignment of shared buffers rounds it up; 16 buffers).
  // CHECK-LABEL: tt.func @i1_buffers
  // EXACT-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<1x128xi8, #[[$BYTES]], #smem, mutable>
  // EXACT-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<16x8x8xi1, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<16xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<2x8x8xi1, #[[$SHARED]], #smem, mutable>
  tt.func @i1_buffers() {
    %s7 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a7 = tlx.storage_alias_local_alloc %s7 : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x8x8xi1, #shared, #smem, mutable>
    tt.return
  }
}
