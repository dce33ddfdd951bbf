// RUN: %tlx-opt %s --tlx-storage-alias-lowering | %FileCheck %s
// RUN: %tlx-opt %s --tlx-rewrite-local-alias | %FileCheck %s --check-prefix=REWRITE
//
// Padded layouts are sized with their padding. In a multi-buffered
// #ttg.padded_shared allocation buffer i starts at element i * N plus the
// padding before it, so a 256x16 bf16 buffer with [32:+4] takes 4096 + 512
// elements = 9216 bytes up to the next one.

// CHECK-DAG: #[[$P:[a-z0-9_]+]] = #ttg.padded_shared<[32:+4]
#padded = #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [256, 16]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {

  // No overlap tree: 2 x 9216 = 18432 bytes (16384 without the padding).
  // CHECK-LABEL: tt.func @padded_alone
  // CHECK-NEXT: %[[S:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<18432xi8
  // CHECK-NEXT: tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<2x256x16xbf16, #[[$P]], #smem, mutable>
  tt.func @padded_alone() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x256x16xbf16, #padded, #smem, mutable>
    tt.return
  }

  // distinct(padded, 64x64xf16): 9216 + 8192 = 17408 bytes per index,
  // 34816 in all. 17408 is no multiple of either buffer: both become views
  // of 1024-byte slots (gcd of 9216, 8192, 17408), the padded buffer i at
  // slot 17i of 18, the f16 tile at 9216: slot 17i + 9 of 27.
  // CHECK-LABEL: tt.func @padded_distinct
  // CHECK-NEXT: %[[S:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<34816xi8
  // CHECK-NEXT: tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<18x1024xi8
  // CHECK-NEXT: tlx.local_alias %[[S]] : {{.*}} -> !ttg.memdesc<27x1024xi8
  tt.func @padded_distinct() {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x256x16xbf16, #padded, #smem, mutable>
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x256x16xbf16, #padded, #smem, mutable>, !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    tt.return
  }

  // tlx-rewrite-local-alias: a 8192-byte root viewed as one padded buffer
  // (4096 elements and 4 x 127 of padding = 9208 bytes, as Triton's
  // allocator counts a 256x16 padded allocation) is widened to 9208 bytes.
  // REWRITE-LABEL: tt.func @padded_view_widens_root
  // REWRITE-NEXT: %[[S:.+]] = ttg.local_alloc {alignment = 16 : i32} : () -> !ttg.memdesc<9208xi8
  tt.func @padded_view_widens_root() {
    %r = ttg.local_alloc : () -> !ttg.memdesc<8192xi8, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #smem, mutable>
    %v = tlx.local_alias %r : !ttg.memdesc<8192xi8, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #smem, mutable> -> !ttg.memdesc<256x16xbf16, #padded, #smem, mutable>
    tt.return
  }
}
