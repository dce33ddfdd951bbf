// RUN: %tlx-opt %s --split-input-file --verify-diagnostics --tlx-storage-alias-lowering
//
// Regression (tlx-storage-alias-lowering, step 4): a ttg.memdesc_reinterpret
// (or tlx.local_alias) of a moved view that changes the buffer count is
// silently mis-lowered. b is placed at offset 16384 with 32768 bytes between
// its two 16 KiB buffers; r = b as 4x32x64xf32 (8 KiB buffers). The pass
// derives r's layout as "buffer j at 16384 + j * 32768" (a 15x32x64xf32
// view, r[1] -> slot 6 = bytes 49152..57343), which is wrong either way:
//  * as a plain reinterpret, r[1] is the second half of b[0], bytes
//    24576..32767; r[j] = 16384 + (j / 2) * 32768 + (j % 2) * 8192 is not
//    affine in j, so no single view can express it;
//  * as "buffer j of r is buffer j of b", r[2] and r[3] do not exist: r[3]
//    lands at 114688, past the 65536-byte storage (the 15x32x64xf32 view is
//    122880 bytes; after tlx-lower the ttg.local_alloc stays 65536).
// Now: a diagnostic at the reinterpret (the existing "cannot follow a
// storage alias view" is the natural place).

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!buf = !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  tt.func @reinterpret_more_buffers(%x: tensor<32x64xf32, #blocked>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    // expected-error @+1 {{cannot follow a storage alias view}}
    %r = ttg.memdesc_reinterpret %b : !buf -> !ttg.memdesc<4x32x64xf32, #shared, #smem, mutable>
    %c1 = arith.constant 1 : i32
    %v = ttg.memdesc_index %r[%c1] : !ttg.memdesc<4x32x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %v : tensor<32x64xf32, #blocked> -> !ttg.memdesc<32x64xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!buf = !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  tt.func @alias_more_buffers(%x: tensor<32x64xf32, #blocked>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    // expected-error @+1 {{cannot follow a storage alias view}}
    %r = tlx.local_alias %b : !buf -> !ttg.memdesc<4x32x64xf32, #shared, #smem, mutable>
    %c1 = arith.constant 1 : i32
    %v = ttg.memdesc_index %r[%c1] : !ttg.memdesc<4x32x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf32, #shared, #smem, mutable>
    ttg.local_store %x, %v : tensor<32x64xf32, #blocked> -> !ttg.memdesc<32x64xf32, #shared, #smem, mutable>
    tt.return
  }
}
