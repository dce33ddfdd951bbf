// RUN: %tlx-opt %s --tlx-convert-local-memory | %FileCheck %s
//
// tlx.local_load/local_store of tensor-memory buffers become
// ttng.tmem_load/tmem_store in the register layout recorded on the op
// (tlx.tmem_reg_layout, chosen by the frontend through Triton's
// compute_tmem_reg_layout), with ttg.convert_layout to or from the layouts
// of their neighbours; shared-memory accesses stay ttg.local_load/store.

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#linear = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#unpacked = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 2>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#tm = #ttng.tensor_memory
#smem = #ttg.shared_memory

// CHECK-DAG: #[[$BLOCKED:[a-z0-9_]+]] = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK-DAG: #[[$LINEAR:[a-z0-9_]+]] = #ttg.linear<{register = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = {{\[\[}}32, 0], [64, 0]], block = []}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {
  // CHECK-LABEL: tt.func @store_then_load
  // CHECK-SAME: (%[[PTRS:[^:]+]]: tensor<128x64x!tt.ptr<f32>, #[[$BLOCKED]]>, %[[X:[^:]+]]: tensor<128x64xf32, #[[$BLOCKED]]>
  tt.func @store_then_load(%ptrs: tensor<128x64x!tt.ptr<f32>, #blocked>, %x: tensor<128x64xf32, #blocked>, %i: i32) {
    // CHECK: %[[BUF:.+]] = ttg.memdesc_index
    %a = ttng.tmem_alloc : () -> !ttg.memdesc<2x128x64xf32, #tmem, #tm, mutable>
    %v = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x128x64xf32, #tmem, #tm, mutable> -> !ttg.memdesc<128x64xf32, #tmem, #tm, mutable>
    // The stored value: from its blocked layout into the register layout.
    // CHECK-NEXT: %[[REG:.+]] = ttg.convert_layout %[[X]] : tensor<128x64xf32, #[[$BLOCKED]]> -> tensor<128x64xf32, #[[$LINEAR]]>
    // CHECK-NEXT: %[[TRUE:.+]] = arith.constant true
    // CHECK-NEXT: ttng.tmem_store %[[REG]], %[[BUF]], %[[TRUE]] : tensor<128x64xf32, #[[$LINEAR]]> -> !ttg.memdesc<128x64xf32, #{{.+}}, #ttng.tensor_memory, mutable>
    %c = builtin.unrealized_conversion_cast %x : tensor<128x64xf32, #blocked> to tensor<128x64xf32>
    tlx.local_store %c, %v {tlx.tmem_reg_layout = #linear} : tensor<128x64xf32> -> !ttg.memdesc<128x64xf32, #tmem, #tm, mutable>
    // Loaded in the register layout, converted to what tt.store uses.
    // CHECK-NEXT: %[[Y:.+]] = ttng.tmem_load %[[BUF]] : !ttg.memdesc<128x64xf32, #{{.+}}, #ttng.tensor_memory, mutable> -> tensor<128x64xf32, #[[$LINEAR]]>
    // CHECK-NEXT: %[[E:.+]] = ttg.convert_layout %[[Y]] : tensor<128x64xf32, #[[$LINEAR]]> -> tensor<128x64xf32, #[[$BLOCKED]]>
    // CHECK-NEXT: tt.store %[[PTRS]], %[[E]]
    %y = tlx.local_load %v {tlx.tmem_reg_layout = #linear} : !ttg.memdesc<128x64xf32, #tmem, #tm, mutable> -> tensor<128x64xf32>
    %e = builtin.unrealized_conversion_cast %y : tensor<128x64xf32> to tensor<128x64xf32, #blocked>
    tt.store %ptrs, %e : tensor<128x64x!tt.ptr<f32>, #blocked>
    // CHECK-NOT: tlx.
    // CHECK-NOT: unrealized_conversion_cast
    tt.return
  }

  // tmem -> tmem in the same register layout: no conversion; tmem -> smem: a
  // ttg.local_store of the register-layout tensor.
  // CHECK-LABEL: tt.func @copies
  tt.func @copies(%i: i32) {
    %a = ttng.tmem_alloc : () -> !ttg.memdesc<128x64xf16, #tmem, #tm, mutable>
    %b = ttng.tmem_alloc : () -> !ttg.memdesc<128x64xf16, #unpacked, #tm, mutable>
    %s = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    // CHECK: %[[Y:.+]] = ttng.tmem_load %{{.+}} : !ttg.memdesc<128x64xf16, {{.+}}> -> tensor<128x64xf16, #[[$LINEAR]]>
    // CHECK-NEXT: %[[TRUE:.+]] = arith.constant true
    // CHECK-NEXT: ttng.tmem_store %[[Y]], %{{.+}}, %[[TRUE]] : tensor<128x64xf16, #[[$LINEAR]]> -> !ttg.memdesc<128x64xf16, #{{.+}}, #ttng.tensor_memory, mutable>
    // CHECK-NEXT: ttg.local_store %[[Y]], %{{.+}} : tensor<128x64xf16, #[[$LINEAR]]> -> !ttg.memdesc<128x64xf16, #{{.+}}, #smem, mutable>
    %y = tlx.local_load %a {tlx.tmem_reg_layout = #linear} : !ttg.memdesc<128x64xf16, #tmem, #tm, mutable> -> tensor<128x64xf16>
    tlx.local_store %y, %b {tlx.tmem_reg_layout = #linear} : tensor<128x64xf16> -> !ttg.memdesc<128x64xf16, #unpacked, #tm, mutable>
    tlx.local_store %y, %s : tensor<128x64xf16> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    tt.return
  }
}
