// RUN: %tlx-opt %s --split-input-file --verify-diagnostics --tlx-pid-address-analysis -o /dev/null
//
// tlx-pid-address-analysis on TTIR: every program-dependent integer and
// pointer gets its fact, every global access its pattern; values the
// analysis cannot derive exactly (loaded, passed in, carried around a loop)
// are UNKNOWN and get no fact.

// Arithmetic: other axes, constants on either side, subtraction, shifts,
// extension, two axes at once.
tt.func @arithmetic() {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  // expected-remark @below {{PID_INFO(axis=1, stride=1, offset=0)}}
  %y = tt.get_program_id y : i32
  // expected-remark @below {{PID_INFO(axis=1, stride=4, offset=0)}}
  %a = arith.muli %c4, %y : i32
  // expected-remark @below {{PID_INFO(axis=1, stride=4, offset=-2)}}
  %b = arith.subi %a, %c2 : i32
  // expected-remark @below {{PID_INFO(axis=1, stride=32, offset=-16)}}
  %s = arith.shli %b, %c3 : i32
  // expected-remark @below {{PID_INFO(axis=0, stride=1, offset=0)}}
  %x = tt.get_program_id x : i32
  // expected-remark @below {{PID_INFO(axes=[0, 1], strides=[1, 32], offset=-16)}}
  %sum = arith.addi %s, %x : i32
  // expected-remark @below {{PID_INFO(axes=[0, 1], strides=[1, 32], offset=-16)}}
  %wide = arith.extsi %sum : i32 to i64
  // expected-remark @below {{PID_INFO(axes=[0, 1], strides=[-1, -32], offset=18)}}
  %neg = arith.subi %c2, %sum : i32
  tt.return
}

// -----

// A 2-D tile: rows pid*64 + [0, 64) of a row-major 256-column f16 matrix,
// columns [0, 128): expand_dims and broadcast keep each dimension's stride.
tt.func @tile(%base: !tt.ptr<f16>) {
  %c64 = arith.constant 64 : i32
  %c256 = arith.constant dense<256> : tensor<64x1xi32>
  // expected-remark @below {{PID_INFO(axis=0, stride=1, offset=0)}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{PID_INFO(axis=0, stride=64, offset=0)}}
  %start = arith.muli %pid, %c64 : i32
  // expected-remark @below {{PID_INFO(axis=0, stride=64, offset=0)}}
  %starts = tt.splat %start : i32 -> tensor<64xi32>
  %r = tt.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // expected-remark @below {{PID_INFO(axis=0, stride=64, offset=[0,63], elem_range)}}
  %rows = arith.addi %starts, %r : tensor<64xi32>
  // expected-remark @below {{PID_INFO(axis=0, stride=64, offset=[0,63], elem_range)}}
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  // expected-remark @below {{PID_INFO(axis=0, stride=16384, offset=[0,16128], elem_range)}}
  %rowoff = arith.muli %rows2, %c256 : tensor<64x1xi32>
  // expected-remark @below {{PID_INFO(axis=0, stride=16384, offset=[0,16128], elem_range)}}
  %rowb = tt.broadcast %rowoff : tensor<64x1xi32> -> tensor<64x128xi32>
  %c = tt.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %colb = tt.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  // expected-remark @below {{PID_INFO(axis=0, stride=16384, offset=[0,16255], elem_range)}}
  %offs = arith.addi %rowb, %colb : tensor<64x128xi32>
  %p = tt.splat %base : !tt.ptr<f16> -> tensor<64x128x!tt.ptr<f16>>
  // expected-remark @below {{ADDR_INFO(base=%arg0, axis=0, stride=32768, offset=[0,32510], coalesced=true)}}
  %ptrs = tt.addptr %p, %offs : tensor<64x128x!tt.ptr<f16>>, tensor<64x128xi32>
  // expected-remark @below {{PATTERN(PID_AFFINE, block_size=8192, stride=32768, coalesced=true)}}
  %v = tt.load %ptrs : tensor<64x128x!tt.ptr<f16>>
  tt.return
}

// -----

// A mask leaves the pattern as it is; a pid-independent access is one.
tt.func @masked(%base: !tt.ptr<f32>, %n: i32) {
  %c128 = arith.constant 128 : i32
  // expected-remark @below {{PID_INFO(axis=0, stride=1, offset=0)}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{PID_INFO(axis=0, stride=128, offset=0)}}
  %start = arith.muli %pid, %c128 : i32
  // expected-remark @below {{PID_INFO(axis=0, stride=128, offset=0)}}
  %starts = tt.splat %start : i32 -> tensor<128xi32>
  %r = tt.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // expected-remark @below {{PID_INFO(axis=0, stride=128, offset=[0,127], elem_range)}}
  %offs = arith.addi %starts, %r : tensor<128xi32>
  %ns = tt.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<128xi32>
  %p = tt.splat %base : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  // expected-remark @below {{ADDR_INFO(base=%arg0, axis=0, stride=512, offset=[0,508], coalesced=true)}}
  %ptrs = tt.addptr %p, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // expected-remark @below {{PATTERN(PID_AFFINE, block_size=128, stride=512, coalesced=true)}}
  %v = tt.load %ptrs, %mask : tensor<128x!tt.ptr<f32>>
  %q = tt.addptr %p, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // expected-remark @below {{PATTERN(PID_INDEPENDENT, block_size=128, coalesced=true)}}
  %w = tt.load %q : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// scf.for induction variables with constant bounds are program-independent
// ranges; a pointer advanced around the loop is carried as UNKNOWN (its
// per-element pattern, and so its coalescing, is still known).
tt.func @loops(%base: !tt.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c128 = arith.constant 128 : i32
  %c512 = arith.constant 512 : i32
  %step = arith.constant dense<128> : tensor<128xi32>
  // expected-remark @below {{PID_INFO(axis=0, stride=1, offset=0)}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{PID_INFO(axis=0, stride=512, offset=0)}}
  %start = arith.muli %pid, %c512 : i32
  %r = tt.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %p = tt.splat %base : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  scf.for %k = %c0 to %c4 step %c1 : i32 {
    %kk = arith.muli %k, %c128 : i32
    // expected-remark @below {{PID_INFO(axis=0, stride=512, offset=[0,384])}}
    %s = arith.addi %start, %kk : i32
    // expected-remark @below {{PID_INFO(axis=0, stride=512, offset=[0,384])}}
    %ss = tt.splat %s : i32 -> tensor<128xi32>
    // expected-remark @below {{PID_INFO(axis=0, stride=512, offset=[0,511], elem_range)}}
    %offs = arith.addi %ss, %r : tensor<128xi32>
    // expected-remark @below {{ADDR_INFO(base=%arg0, axis=0, stride=2048, offset=[0,2044], coalesced=true)}}
    %ptrs = tt.addptr %p, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    // expected-remark @below {{PATTERN(PID_AFFINE, block_size=128, stride=2048, coalesced=true)}}
    %v = tt.load %ptrs : tensor<128x!tt.ptr<f32>>
  }
  // expected-remark @below {{PID_INFO(axis=0, stride=512, offset=0)}}
  %starts = tt.splat %start : i32 -> tensor<128xi32>
  // expected-remark @below {{PID_INFO}}
  %offs0 = arith.addi %starts, %r : tensor<128xi32>
  // expected-remark @below {{ADDR_INFO}}
  %ptrs0 = tt.addptr %p, %offs0 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %last = scf.for %k = %c0 to %c4 step %c1 iter_args(%ptrs = %ptrs0) -> (tensor<128x!tt.ptr<f32>>) : i32 {
    // expected-remark @below {{PATTERN(UNKNOWN, block_size=128, coalesced=true)}}
    %v = tt.load %ptrs : tensor<128x!tt.ptr<f32>>
    %next = tt.addptr %ptrs, %step : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    scf.yield %next : tensor<128x!tt.ptr<f32>>
  }
  tt.return
}

// -----

// Offsets passed in or loaded are unknown: UNKNOWN patterns, no facts.
tt.func @unknown_offsets(%base: !tt.ptr<f32>, %off: i32, %idx: !tt.ptr<i32>) {
  %c128 = arith.constant 128 : i32
  // expected-remark @below {{PID_INFO(axis=0, stride=1, offset=0)}}
  %pid = tt.get_program_id x : i32
  // expected-remark @below {{PID_INFO(axis=0, stride=128, offset=0)}}
  %start = arith.muli %pid, %c128 : i32
  %moved = arith.addi %start, %off : i32
  %starts = tt.splat %moved : i32 -> tensor<128xi32>
  %r = tt.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %offs = arith.addi %starts, %r : tensor<128xi32>
  %p = tt.splat %base : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %ptrs = tt.addptr %p, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // expected-remark @below {{PATTERN(UNKNOWN, block_size=128, coalesced=true)}}
  %v = tt.load %ptrs : tensor<128x!tt.ptr<f32>>
  %ip = tt.splat %idx : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
  %iptrs = tt.addptr %ip, %r : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
  // expected-remark @below {{PATTERN(PID_INDEPENDENT, block_size=128, coalesced=true)}}
  %loaded = tt.load %iptrs : tensor<128x!tt.ptr<i32>>
  %gptrs = tt.addptr %p, %loaded : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // expected-remark @below {{PATTERN(UNKNOWN, block_size=128, coalesced=false)}}
  %g = tt.load %gptrs : tensor<128x!tt.ptr<f32>>
  // A pid-dependent but not affine start (pid / 4) is no fact either.
  %c4 = arith.constant 4 : i32
  %q = arith.divsi %pid, %c4 : i32
  %qs = tt.splat %q : i32 -> tensor<128xi32>
  %qoffs = arith.addi %qs, %r : tensor<128xi32>
  %qptrs = tt.addptr %p, %qoffs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // expected-remark @below {{PATTERN(UNKNOWN, block_size=128, coalesced=true)}}
  %qv = tt.load %qptrs : tensor<128x!tt.ptr<f32>>
  tt.return
}
