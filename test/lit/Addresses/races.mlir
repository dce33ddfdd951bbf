// RUN: %tlx-opt %s --split-input-file --verify-diagnostics --tlx-pid-address-analysis=remarks=false -o /dev/null
//
// Cross-program writes: a warning when two program ids provably may store
// to overlapping bytes, naming both programs' byte ranges; silent for
// disjoint tilings and wherever it cannot be proven (a mask or a branch that
// depends on the program, a loaded offset).

tt.func @same_block(%out: !tt.ptr<f32>, %in: !tt.ptr<f32>) {
  %c128 = arith.constant 128 : i32
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c128 : i32
  %s = tt.splat %start : i32 -> tensor<128xi32>
  %r = tt.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %offs = arith.addi %s, %r : tensor<128xi32>
  %q = tt.splat %in : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %qs = tt.addptr %q, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %x = tt.load %qs : tensor<128x!tt.ptr<f32>>
  %p = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %ptrs = tt.addptr %p, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // Every program stores to the same block.
  // expected-warning @below {{two programs may store to the same bytes of %arg0: program {pid0=0} bytes [0, 511] and program {pid0=1} bytes [0, 511] overlap}}
  tt.store %ptrs, %x : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// A kernel whose global addresses never depend on its program id may run
// as one program (grid (1,)): here the program id only picks a value.
tt.func @single_program(%out: !tt.ptr<f32>, %x: tensor<128xf32>, %y: tensor<128xf32>) {
  %c0 = arith.constant 0 : i32
  %pid = tt.get_program_id x : i32
  %first = arith.cmpi eq, %pid, %c0 : i32
  %v = arith.select %first, %x, %y : tensor<128xf32>
  %r = tt.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %p = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %ptrs = tt.addptr %p, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %ptrs, %v : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// A stride of 64 elements per program under a 128-element block: program 1
// writes the second half of program 0's bytes.
tt.func @stride_below_block(%out: !tt.ptr<f32>, %x: tensor<128xf32>) {
  %c64 = arith.constant 64 : i32
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c64 : i32
  %s = tt.splat %start : i32 -> tensor<128xi32>
  %r = tt.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %offs = arith.addi %s, %r : tensor<128xi32>
  %p = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %ptrs = tt.addptr %p, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // expected-warning @below {{program {pid0=0} bytes [0, 511] and program {pid0=1} bytes [256, 767] overlap}}
  tt.store %ptrs, %x : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// Two grid axes whose strides coincide: programs (1, 0) and (0, 1).
tt.func @two_axes(%out: !tt.ptr<f32>, %x: tensor<128xf32>) {
  %c128 = arith.constant 128 : i32
  %pid0 = tt.get_program_id x : i32
  %pid1 = tt.get_program_id y : i32
  %sum = arith.addi %pid0, %pid1 : i32
  %start = arith.muli %sum, %c128 : i32
  %s = tt.splat %start : i32 -> tensor<128xi32>
  %r = tt.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %offs = arith.addi %s, %r : tensor<128xi32>
  %p = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %ptrs = tt.addptr %p, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // expected-warning @below {{program {pid0=0, pid1=1} bytes [512, 1023] and program {pid0=1, pid1=0} bytes [512, 1023] overlap}}
  tt.store %ptrs, %x : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// Disjoint: a block per program, every other element of one (pid * 256 +
// 2 * i; a program's elements interleaved with each other, not with another
// program's: pid + 2 * i would be a race between programs 0 and 2), 2-D
// tiles over a 2-D grid, and a loop over a program's own row.
tt.func @disjoint(%out: !tt.ptr<f32>, %x: tensor<128xf32>, %t: tensor<32x64xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c128 = arith.constant 128 : i32
  %c512 = arith.constant 512 : i32
  %two = arith.constant dense<2> : tensor<128xi32>
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c128 : i32
  %s = tt.splat %start : i32 -> tensor<128xi32>
  %r = tt.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %offs = arith.addi %s, %r : tensor<128xi32>
  %p = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %ptrs = tt.addptr %p, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %ptrs, %x : tensor<128x!tt.ptr<f32>>
  %c256 = arith.constant 256 : i32
  %half = arith.muli %pid, %c256 : i32
  %ps = tt.splat %half : i32 -> tensor<128xi32>
  %r2 = arith.muli %r, %two : tensor<128xi32>
  %ioffs = arith.addi %ps, %r2 : tensor<128xi32>
  %iptrs = tt.addptr %p, %ioffs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %iptrs, %x : tensor<128x!tt.ptr<f32>>
  // rows pid_m * 32 + [0, 32) of 512 columns, columns pid_n * 64 + [0, 64)
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %cols = arith.constant dense<512> : tensor<32x1xi32>
  %pid1 = tt.get_program_id y : i32
  %m0 = arith.muli %pid, %c32 : i32
  %m0s = tt.splat %m0 : i32 -> tensor<32xi32>
  %rm = tt.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %rows = arith.addi %m0s, %rm : tensor<32xi32>
  %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rowoff = arith.muli %rows2, %cols : tensor<32x1xi32>
  %rowb = tt.broadcast %rowoff : tensor<32x1xi32> -> tensor<32x64xi32>
  %n0 = arith.muli %pid1, %c64 : i32
  %n0s = tt.splat %n0 : i32 -> tensor<64xi32>
  %rn = tt.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %cn = arith.addi %n0s, %rn : tensor<64xi32>
  %cn2 = tt.expand_dims %cn {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cnb = tt.broadcast %cn2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %toffs = arith.addi %rowb, %cnb : tensor<32x64xi32>
  %tp = tt.splat %out : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
  %tptrs = tt.addptr %tp, %toffs : tensor<32x64x!tt.ptr<f32>>, tensor<32x64xi32>
  tt.store %tptrs, %t : tensor<32x64x!tt.ptr<f32>>
  %row = arith.muli %pid, %c512 : i32
  scf.for %k = %c0 to %c4 step %c1 : i32 {
    %kk = arith.muli %k, %c128 : i32
    %o = arith.addi %row, %kk : i32
    %os = tt.splat %o : i32 -> tensor<128xi32>
    %loffs = arith.addi %os, %r : tensor<128xi32>
    %lptrs = tt.addptr %p, %loffs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    tt.store %lptrs, %x : tensor<128x!tt.ptr<f32>>
  }
  tt.return
}

// -----

// Not provable: the store depends on the program through a mask or a
// branch, or its offsets are loaded; an atomic is meant to be shared. (The
// kernel divides memory by program: it reads idx[pid].)
tt.func @not_provable(%out: !tt.ptr<f32>, %x: tensor<128xf32>, %idx: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0> : tensor<128xi32>
  %pid = tt.get_program_id x : i32
  %mine = tt.addptr %idx, %pid : !tt.ptr<i32>, i32
  %own = tt.load %mine : !tt.ptr<i32>
  %r = tt.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %p = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %ptrs = tt.addptr %p, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %ps = tt.splat %pid : i32 -> tensor<128xi32>
  %mask = arith.cmpi eq, %ps, %zero : tensor<128xi32>
  tt.store %ptrs, %x, %mask : tensor<128x!tt.ptr<f32>>
  %first = arith.cmpi eq, %pid, %c0 : i32
  scf.if %first {
    tt.store %ptrs, %x : tensor<128x!tt.ptr<f32>>
  }
  %ip = tt.splat %idx : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
  %iptrs = tt.addptr %ip, %r : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
  %loaded = tt.load %iptrs : tensor<128x!tt.ptr<i32>>
  %gptrs = tt.addptr %p, %loaded : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %gptrs, %x : tensor<128x!tt.ptr<f32>>
  %old = tt.atomic_rmw fadd, relaxed, gpu, %ptrs, %x : (tensor<128x!tt.ptr<f32>>, tensor<128xf32>) -> tensor<128xf32>
  tt.return
}

// -----

// A report file that cannot be written is an error, not a crash.
// RUN: not %tlx-opt %s --split-input-file --tlx-pid-address-analysis=report=%t.missing/dir/report.jsonl 2>&1 | %FileCheck %s --check-prefix=REPORT
// REPORT: error: tlx-pid-address-analysis: cannot write {{.*}}report.jsonl
tt.func @report() {
  tt.return
}
