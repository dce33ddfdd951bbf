// RUN: %triton-syntax %s | %tlx-opt - --split-input-file --verify-diagnostics --tlx-pid-address-analysis=remarks=true -o /dev/null
//
// tlx-pid-address-analysis on TTGIR: each access's vector as compiled (the
// layout's sizePerThread along the contiguous dimension, within what the
// alignment allows) against the best one (contiguity, divisibility, mask;
// at most 16 bytes and a thread's share of the tile), with the reason when
// it is uncoalesced or narrower than 16 bytes.

#row = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
#one = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#h8 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // A row-major 64x64 f32 tile at a 16-byte aligned base (row stride 64):
  // 16-byte vectors along the rows. The same pointers under a column-major
  // layout are uncoalesced; under one element per thread, too narrow.
  tt.func @row_major(%base: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %c64 = arith.constant dense<64> : tensor<64x1xi32, #row>
    %r = tt.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #row}>>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #row}>> -> tensor<64x1xi32, #row>
    %rs = arith.muli %r2, %c64 : tensor<64x1xi32, #row>
    %rb = tt.broadcast %rs : tensor<64x1xi32, #row> -> tensor<64x64xi32, #row>
    %c = tt.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #row}>>
    %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #row}>> -> tensor<1x64xi32, #row>
    %cb = tt.broadcast %c2 : tensor<1x64xi32, #row> -> tensor<64x64xi32, #row>
    %offs = arith.addi %rb, %cb : tensor<64x64xi32, #row>
    %p = tt.splat %base : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #row>
    %ptrs = tt.addptr %p, %offs : tensor<64x64x!tt.ptr<f32>, #row>, tensor<64x64xi32, #row>
    // expected-remark @below {{PATTERN(PID_INDEPENDENT, block_size=4096, coalesced=true, vector_bytes=16, best_vector_bytes=16)}}
    %v = tt.load %ptrs : tensor<64x64x!tt.ptr<f32>, #row>
    %colptrs = ttg.convert_layout %ptrs : tensor<64x64x!tt.ptr<f32>, #row> -> tensor<64x64x!tt.ptr<f32>, #col>
    // expected-remark @below {{PATTERN(PID_INDEPENDENT, block_size=4096, coalesced=false, vector_bytes=4, best_vector_bytes=16, reason="contiguous dim is 1 but the layout's order is [0, 1]")}}
    %w = tt.load %colptrs : tensor<64x64x!tt.ptr<f32>, #col>
    %oneptrs = ttg.convert_layout %ptrs : tensor<64x64x!tt.ptr<f32>, #row> -> tensor<64x64x!tt.ptr<f32>, #one>
    // expected-remark @below {{PATTERN(PID_INDEPENDENT, block_size=4096, coalesced=true, vector_bytes=4, best_vector_bytes=16, reason="the layout's sizePerThread [1, 1] gives 4 bytes per thread where the alignment allows 16")}}
    %x = tt.load %oneptrs : tensor<64x64x!tt.ptr<f32>, #one>
    // Every other element of each row: no dimension is contiguous.
    %two = arith.constant dense<2> : tensor<64x64xi32, #row>
    %cb2 = arith.muli %cb, %two : tensor<64x64xi32, #row>
    %goffs = arith.addi %rb, %cb2 : tensor<64x64xi32, #row>
    %gptrs = tt.addptr %p, %goffs : tensor<64x64x!tt.ptr<f32>, #row>, tensor<64x64xi32, #row>
    // expected-remark @below {{PATTERN(PID_INDEPENDENT, block_size=4096, coalesced=false, vector_bytes=4, best_vector_bytes=4, reason="no dimension is contiguous: element strides [64, 2]")}}
    %g = tt.load %gptrs : tensor<64x64x!tt.ptr<f32>, #row>
    tt.return
  }

  // An f16 tile whose base is only 4-byte aligned: two elements a vector.
  tt.func @divisibility(%base: !tt.ptr<f16> {tt.divisibility = 4 : i32}) {
    %c64 = arith.constant dense<64> : tensor<64x1xi32, #h8>
    %r = tt.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #h8}>>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #h8}>> -> tensor<64x1xi32, #h8>
    %rs = arith.muli %r2, %c64 : tensor<64x1xi32, #h8>
    %rb = tt.broadcast %rs : tensor<64x1xi32, #h8> -> tensor<64x64xi32, #h8>
    %c = tt.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #h8}>>
    %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #h8}>> -> tensor<1x64xi32, #h8>
    %cb = tt.broadcast %c2 : tensor<1x64xi32, #h8> -> tensor<64x64xi32, #h8>
    %offs = arith.addi %rb, %cb : tensor<64x64xi32, #h8>
    %p = tt.splat %base : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #h8>
    %ptrs = tt.addptr %p, %offs : tensor<64x64x!tt.ptr<f16>, #h8>, tensor<64x64xi32, #h8>
    // expected-remark @below {{PATTERN(PID_INDEPENDENT, block_size=4096, coalesced=true, vector_bytes=4, best_vector_bytes=4, reason="divisibility 4 bytes limits vectors to 4 bytes")}}
    %v = tt.load %ptrs : tensor<64x64x!tt.ptr<f16>, #h8>
    tt.return
  }
}

// -----

#b1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // offs < n: with n of unknown divisibility the mask may change at every
  // element (one-element vectors); with n a multiple of 16, every 16.
  tt.func @masks(%base: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32, %m: i32 {tt.divisibility = 16 : i32}) {
    %c1024 = arith.constant 1024 : i32
    // expected-remark @below {{PID_INFO(axis=0, stride=1, offset=0)}}
    %pid = tt.get_program_id x : i32
    // expected-remark @below {{PID_INFO(axis=0, stride=1024, offset=0)}}
    %start = arith.muli %pid, %c1024 : i32
    // expected-remark @below {{PID_INFO(axis=0, stride=1024, offset=0)}}
    %starts = tt.splat %start : i32 -> tensor<1024xi32, #b1>
    %r = tt.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #b1>
    // expected-remark @below {{PID_INFO(axis=0, stride=1024, offset=[0,1023], elem_range)}}
    %offs = arith.addi %starts, %r : tensor<1024xi32, #b1>
    %p = tt.splat %base : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #b1>
    // expected-remark @below {{ADDR_INFO(base=%arg0, axis=0, stride=4096, offset=[0,4092], coalesced=true)}}
    %ptrs = tt.addptr %p, %offs : tensor<1024x!tt.ptr<f32>, #b1>, tensor<1024xi32, #b1>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #b1>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32, #b1>
    // expected-remark @below {{PATTERN(PID_AFFINE, block_size=1024, stride=4096, coalesced=true, vector_bytes=4, best_vector_bytes=4, reason="the mask is constant over runs of 1 elements: vectors of 4 bytes")}}
    %v = tt.load %ptrs, %mask : tensor<1024x!tt.ptr<f32>, #b1>
    %ms = tt.splat %m : i32 -> tensor<1024xi32, #b1>
    %mask16 = arith.cmpi slt, %offs, %ms : tensor<1024xi32, #b1>
    // expected-remark @below {{PATTERN(PID_AFFINE, block_size=1024, stride=4096, coalesced=true, vector_bytes=16, best_vector_bytes=16)}}
    %w = tt.load %ptrs, %mask16 : tensor<1024x!tt.ptr<f32>, #b1>
    tt.return
  }
}

// -----

#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // TMA copies: listed with the descriptor's box.
  tt.func @tma(%d: !tt.tensordesc<tensor<64x128xf16, #nv>>, %x: i32, %bar: !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #smem, mutable>) {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #nv, #smem, mutable>
    %true = arith.constant true
    // expected-remark @below {{PATTERN(TMA, box=[64, 128], element_bytes=2)}}
    ttng.async_tma_copy_global_to_local %d[%x, %x] %buf, %bar, %true : !tt.tensordesc<tensor<64x128xf16, #nv>>, !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #smem, mutable> -> !ttg.memdesc<64x128xf16, #nv, #smem, mutable>
    // expected-remark @below {{PATTERN(TMA, box=[64, 128], element_bytes=2)}}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %buf : !tt.tensordesc<tensor<64x128xf16, #nv>>, !ttg.memdesc<64x128xf16, #nv, #smem, mutable>
    tt.return
  }
}
