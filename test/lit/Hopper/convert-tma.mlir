// RUN: %triton-syntax %s | %tlx-opt - --tlx-convert-tma | %FileCheck %s
//
// TMA descriptors are written in triton 3.7's spelling; %triton-syntax rewrites
// them for the running triton (lit.cfg.py).

// A TMA load gives the kernel argument's descriptor (through the
// warp_specialize capture) the buffer's layout, and the function type with it.

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
!buf = !ttg.memdesc<128x64xf16, #nv, #smem, mutable>
!bar = !ttg.memdesc<1xi64, #bar, #smem, mutable>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  // CHECK-LABEL: tt.func @load(
  // CHECK-SAME: %[[D:.+]]: !tt.tensordesc<{{(tensor<)?}}128x64xf16, #{{[a-z0-9_]+}}>{{>?}}
  tt.func @load(%d: !tt.tensordesc<tensor<128x64xf16>>, %buf: !buf, %bar: !bar, %x: i32, %p: i1) {
    // CHECK: ttg.warp_specialize(%[[D]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}})
    ttg.warp_specialize(%d, %buf, %bar, %x, %p)
    default {
      ttg.warp_yield
    }
    // CHECK: partition0(%[[PD:.+]]: !tt.tensordesc<{{(tensor<)?}}128x64xf16, #{{[a-z0-9_]+}}>{{>?}},
    partition0(%pd: !tt.tensordesc<tensor<128x64xf16>>, %pbuf: !buf, %pbar: !bar, %px: i32, %pp: i1) num_warps(4) {
      // CHECK: ttng.async_tma_copy_global_to_local %[[PD]][%{{.+}}, %{{.+}}] %{{.+}}, %{{.+}}, %{{.+}} :
      tlx.async_descriptor_load %pd[%px, %px] %pbuf, %pbar, %pp : !tt.tensordesc<tensor<128x64xf16>>, !bar -> !buf
      ttg.warp_return
    } : (!tt.tensordesc<tensor<128x64xf16>>, !buf, !bar, i32, i1) -> ()
    // CHECK: ttng.async_tma_copy_local_to_global %[[D]][%{{.+}}, %{{.+}}] %{{.+}} :
    tlx.async_descriptor_store %d[%x, %x] %buf : !tt.tensordesc<tensor<128x64xf16>>, !buf
    tt.return
  }

  // A store with a reduce kind (triton's DescriptorReduceKind: 1 add, 3
  // max) becomes triton's TMA reduce of that kind, the descriptor laid out
  // as its buffer.
  // CHECK-LABEL: tt.func @reduce(
  // CHECK-SAME: %[[R:.+]]: !tt.tensordesc<{{(tensor<)?}}128x64xf16, #{{[a-z0-9_]+}}>{{>?}}
  tt.func @reduce(%d: !tt.tensordesc<tensor<128x64xf16>>, %buf: !buf, %x: i32) {
    // CHECK: ttng.async_tma_reduce add, %[[R]][%{{.+}}, %{{.+}}] %{{.+}} :
    tlx.async_descriptor_store %d[%x, %x] %buf {reduce_kind = 1 : i32} : !tt.tensordesc<tensor<128x64xf16>>, !buf
    // CHECK: ttng.async_tma_reduce max, %[[R]][%{{.+}}, %{{.+}}] %{{.+}} :
    tlx.async_descriptor_store %d[%x, %x] %buf {reduce_kind = 3 : i32} : !tt.tensordesc<tensor<128x64xf16>>, !buf
    // CHECK-NOT: async_tma_copy_local_to_global
    tt.return
  }
}

