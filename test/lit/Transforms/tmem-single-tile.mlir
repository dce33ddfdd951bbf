// RUN: %tlx-opt %s --tlx-storage-alias-lowering | %FileCheck %s
//
// A rank-2 tensor-memory buffer has no buffer dimension (its rows are TMEM
// lanes): it is one tile, allocated whole as triton's allocator does, the
// same as its 1xMxN twin. 128x64xf16 with colStride 2 takes 64 columns (it
// took 128, counted as 128 buffers of one column). A tree that places it
// past column 0 is an error (errors.mlir).

#tmemh = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 2>
#tm = #ttng.tensor_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {
  // CHECK-LABEL: tt.func @tile
  // CHECK-NEXT: ttng.tmem_alloc : () -> !ttg.memdesc<128x64xf32
  // CHECK-NEXT: tlx.local_alias {{.*}} -> !ttg.memdesc<128x64xf16
  tt.func @tile() {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<128x64xf16, #tmemh, #tm, mutable>
    tt.return
  }
  // CHECK-LABEL: tt.func @one_buffer
  // CHECK-NEXT: ttng.tmem_alloc : () -> !ttg.memdesc<128x64xf32
  tt.func @one_buffer() {
    %spec = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<1x128x64xf16, #tmemh, #tm, mutable>
    tt.return
  }
}

