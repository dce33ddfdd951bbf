// RUN: %tlx-opt %s --tlx-pid-address-analysis -o /dev/null 2>&1 | %FileCheck %s
//
// The example of the design pid_address_analysis.md (section 7),
// with the tt.splat that arith.addi needs between the scalar block start and
// the range: every value the design lists gets exactly its section-7 fact,
// the load its pattern. Program-independent values (the constant, the
// range, the splat base pointer) get none.

// CHECK-NOT: remark
// CHECK: :[[@LINE+5]]:{{[0-9]+}}: remark: PID_INFO(axis=0, stride=1, offset=0)
// CHECK-NOT: remark
// CHECK: :[[@LINE+4]]:{{[0-9]+}}: remark: PID_INFO(axis=0, stride=128, offset=0)
tt.func @vector_add(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: !tt.ptr<f32>) {
  %c128 = arith.constant 128 : i32
  %pid = tt.get_program_id x : i32
  %block_start = arith.muli %pid, %c128 : i32
  %offsets = tt.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // CHECK-NOT: remark
  // CHECK: :[[@LINE+1]]:{{[0-9]+}}: remark: PID_INFO(axis=0, stride=128, offset=0)
  %block = tt.splat %block_start : i32 -> tensor<128xi32>
  // CHECK-NOT: remark
  // CHECK: :[[@LINE+1]]:{{[0-9]+}}: remark: PID_INFO(axis=0, stride=128, offset=[0,127], elem_range)
  %indices = arith.addi %block, %offsets : tensor<128xi32>
  %ptr_a = tt.splat %arg0 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  // CHECK-NOT: remark
  // CHECK: :[[@LINE+1]]:{{[0-9]+}}: remark: ADDR_INFO(base=%arg0, axis=0, stride=512, offset=[0,508], coalesced=true)
  %ptrs_a = tt.addptr %ptr_a, %indices : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // CHECK-NOT: remark
  // CHECK: :[[@LINE+1]]:{{[0-9]+}}: remark: PATTERN(PID_AFFINE, block_size=128, stride=512, coalesced=true)
  %a = tt.load %ptrs_a : tensor<128x!tt.ptr<f32>>
  // CHECK-NOT: remark
  tt.return
}
