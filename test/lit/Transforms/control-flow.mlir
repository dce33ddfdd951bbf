// RUN: %triton-syntax --blank-packed-only %s | %tlx-opt - --tlx-storage-alias-lowering | %FileCheck %s
// RUN: %triton-syntax --blank-packed-only %s | %tlx-opt - --tlx-lower | %FileCheck %s --check-prefix=LOWER
// RUN: %if packed-views %{ %tlx-opt %s --tlx-storage-alias-lowering=exact-views=false | %FileCheck %s --check-prefixes=CHECK,PACKED %}
// RUN: %if packed-views %{ %tlx-opt %s --tlx-lower=exact-views=false | %FileCheck %s --check-prefixes=LOWER,LOWER-PACKED %}
//
// Step 4 of tlx-storage-alias-lowering follows a moved view wherever it
// flows -- scf.for / scf.while iter_args and results, scf.if results, cf
// block arguments, ttg.memdesc_reinterpret and tlx.local_alias -- retypes
// every value on the way and rewrites each ttg.memdesc_index it reaches.
//
// Throughout, distinct(a, b) of two 2x64x64xf32 puts a at 0 and b at 16384
// with 32768 bytes between buffers: b becomes a 4x64x64xf32 view indexed by
// 2i + 1, with exact views (the default, triton 3.7 and 3.8) and packed
// views (exact-views=false, triton 3.7 only) alike; a's view has 4 buffers
// with exact views (the whole storage), 3 with packed ones. Between PACKED-ONLY-BEGIN
// and PACKED-ONLY-END (checked with PACKED prefixes): what only packed views
// lower, or only triton 3.7 parses (a reinterpret that changes the size);
// the exact runs read the file through %triton-syntax --blank-packed-only.

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
!buf = !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
!one = !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
!t = tensor<64x64xf32, #blocked>

// CHECK-DAG: #[[$BYTES:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// LOWER-DAG: #[[$SHARED:[a-z0-9_]+]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {

  // A loop carrying the view: the iter_arg, the yield and the loop result
  // all take the expanded type; accesses inside and after are rewritten.
  // CHECK-LABEL: tt.func @for_iter_arg(
  // CHECK: tlx.local_alias %{{.+}} -> !ttg.memdesc<{{3|4}}x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: %[[R:.+]] = scf.for %[[IV:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[B]]) -> (!ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>)
  // CHECK: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[MUL:.+]] = arith.muli %[[IV]], %[[C2]] : i32
  // CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[ADD:.+]] = arith.addi %[[MUL]], %[[C1]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[ACC]][%[[ADD]]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: scf.yield %[[ACC]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: ttg.memdesc_index %[[R]][%c3_i32{{(_[0-9]+)?}}] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // After canonicalization the loop no longer carries the view at all.
  // LOWER-LABEL: tt.func @for_iter_arg(
  // LOWER-DAG: %[[C1:.+]] = arith.constant 1 : i32
  // LOWER-DAG: %[[C2:.+]] = arith.constant 2 : i32
  // LOWER-DAG: %[[C3:.+]] = arith.constant 3 : i32
  // LOWER: %[[B:.+]] = ttg.memdesc_reinterpret %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // LOWER: scf.for %[[IV:.+]] = %{{.+}} to %{{.+}} step %{{.+}}  : i32 {
  // LOWER-NEXT: %[[MUL:.+]] = arith.muli %[[IV]], %[[C2]] : i32
  // LOWER-NEXT: %[[ADD:.+]] = arith.addi %[[MUL]], %[[C1]] : i32
  // LOWER-NEXT: ttg.memdesc_index %[[B]][%[[ADD]]]
  // LOWER: ttg.memdesc_index %[[B]][%[[C3]]]
  // LOWER-NOT: tlx.
  // LOWER: tt.return
  tt.func @for_iter_arg(%n: i32, %x: !t) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %b) -> (!buf) : i32 {
      %v = ttg.memdesc_index %acc[%i] : !buf -> !one
      ttg.local_store %x, %v : !t -> !one
      scf.yield %acc : !buf
    }
    %w = ttg.memdesc_index %r[%c1] : !buf -> !one
    ttg.local_store %x, %w : !t -> !one
    tt.return
  }

  // A loop that alternates between the two views of the same spec would
  // merge two layouts (an error, see errors.mlir); a loop that alternates
  // between two specs with the same layout is fine.
  // CHECK-LABEL: tt.func @for_swap_same_layout(
  // CHECK: tlx.local_alias %{{.+}} -> !ttg.memdesc<{{3|4}}x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B1:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: tlx.local_alias %{{.+}} -> !ttg.memdesc<{{3|4}}x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B2:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: scf.for {{.+}} iter_args(%[[X:.+]] = %[[B1]], %[[Y:.+]] = %[[B2]]) -> (!ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>, !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>)
  // CHECK: ttg.memdesc_index %[[X]][%{{.+}}] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: scf.yield %[[Y]], %[[X]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>, !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  tt.func @for_swap_same_layout(%n: i32, %x: !t) {
    %s1 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a1 = tlx.storage_alias_local_alloc %s1 : !tlx.storage_alias_spec<smem> -> !buf
    %b1 = tlx.storage_alias_local_alloc %s1 : !tlx.storage_alias_spec<smem> -> !buf
    %g1 = tlx.reuse_group(%a1, %b1) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%s1, %g1) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %s2 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a2 = tlx.storage_alias_local_alloc %s2 : !tlx.storage_alias_spec<smem> -> !buf
    %b2 = tlx.storage_alias_local_alloc %s2 : !tlx.storage_alias_spec<smem> -> !buf
    %g2 = tlx.reuse_group(%a2, %b2) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%s2, %g2) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %b1, %q = %b2) -> (!buf, !buf) : i32 {
      %v = ttg.memdesc_index %p[%i] : !buf -> !one
      ttg.local_store %x, %v : !t -> !one
      scf.yield %q, %p : !buf, !buf
    }
    tt.return
  }

  // scf.if yielding views of two specs laid out alike.
  // CHECK-LABEL: tt.func @if_same_layout(
  // CHECK-SAME: %{{.+}}: i1, %[[I:arg[0-9]+]]: i32
  // CHECK: tlx.local_alias %{{.+}} -> !ttg.memdesc<{{3|4}}x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B1:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: tlx.local_alias %{{.+}} -> !ttg.memdesc<{{3|4}}x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B2:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: %[[R:.+]] = scf.if %{{.+}} -> (!ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>) {
  // CHECK-NEXT: scf.yield %[[B1]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: } else {
  // CHECK-NEXT: scf.yield %[[B2]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: }
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[MUL:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[ADD:.+]] = arith.addi %[[MUL]], %[[C1]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[R]][%[[ADD]]]
  tt.func @if_same_layout(%c: i1, %i: i32, %x: !t) {
    %s1 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a1 = tlx.storage_alias_local_alloc %s1 : !tlx.storage_alias_spec<smem> -> !buf
    %b1 = tlx.storage_alias_local_alloc %s1 : !tlx.storage_alias_spec<smem> -> !buf
    %g1 = tlx.reuse_group(%a1, %b1) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%s1, %g1) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %s2 = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a2 = tlx.storage_alias_local_alloc %s2 : !tlx.storage_alias_spec<smem> -> !buf
    %b2 = tlx.storage_alias_local_alloc %s2 : !tlx.storage_alias_spec<smem> -> !buf
    %g2 = tlx.reuse_group(%a2, %b2) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%s2, %g2) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %r = scf.if %c -> (!buf) {
      scf.yield %b1 : !buf
    } else {
      scf.yield %b2 : !buf
    }
    %v = ttg.memdesc_index %r[%i] : !buf -> !one
    ttg.local_store %x, %v : !t -> !one
    tt.return
  }

  // scf.while: the before-region arguments, the condition's forwarded
  // values, the after-region arguments and the results.
  // CHECK-LABEL: tt.func @while_loop(
  // CHECK: tlx.local_alias %{{.+}} -> !ttg.memdesc<{{3|4}}x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: %[[RES:.+]]:2 = scf.while (%{{.+}} = %{{.+}}, %[[V0:.+]] = %[[B]]) : (i32, !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>) -> (i32, !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>) {
  // CHECK: scf.condition(%{{.+}}) %{{.+}}, %[[V0]] : i32, !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: ^bb0(%[[J:.+]]: i32, %[[V1:.+]]: !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>):
  // CHECK: %[[MUL:.+]] = arith.muli %[[J]], %{{.+}} : i32
  // CHECK: %[[ADD:.+]] = arith.addi %[[MUL]], %{{.+}} : i32
  // CHECK-NEXT: ttg.memdesc_index %[[V1]][%[[ADD]]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: scf.yield %{{.+}}, %[[V1]] : i32, !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // The folded index of constant buffer 0 is 1 (its name says so).
  // CHECK: ttg.memdesc_index %[[RES]]#1[%c1_i32{{(_[0-9]+)?}}] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  tt.func @while_loop(%n: i32, %x: !t) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %res:2 = scf.while (%j = %c0, %view = %b) : (i32, !buf) -> (i32, !buf) {
      %cond = arith.cmpi slt, %j, %n : i32
      scf.condition(%cond) %j, %view : i32, !buf
    } do {
    ^bb0(%j2: i32, %view2: !buf):
      %v = ttg.memdesc_index %view2[%j2] : !buf -> !one
      ttg.local_store %x, %v : !t -> !one
      %next = arith.addi %j2, %c1 : i32
      scf.yield %next, %view2 : i32, !buf
    }
    %w = ttg.memdesc_index %res#1[%c0] : !buf -> !one
    ttg.local_store %x, %w : !t -> !one
    tt.return
  }

  // cf.cond_br / cf.br block arguments.
  // CHECK-LABEL: tt.func @branches(
  // CHECK: tlx.local_alias %{{.+}} -> !ttg.memdesc<{{3|4}}x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: cf.cond_br %{{.+}}, ^bb1(%[[B]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>), ^bb2(%[[B]], %{{.+}} : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>, i32)
  // CHECK: ^bb1(%[[V1:.+]]: !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>):
  // CHECK-NEXT: cf.br ^bb2(%[[V1]], %{{.+}} : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>, i32)
  // CHECK: ^bb2(%[[V2:.+]]: !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>, %[[K:.+]]: i32):
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[MUL:.+]] = arith.muli %[[K]], %[[C2]] : i32
  // CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[ADD:.+]] = arith.addi %[[MUL]], %[[C1]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[V2]][%[[ADD]]]
  tt.func @branches(%c: i1, %i: i32, %x: !t) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    cf.cond_br %c, ^bb1(%b : !buf), ^bb2(%b, %i : !buf, i32)
  ^bb1(%v1: !buf):
    cf.br ^bb2(%v1, %i : !buf, i32)
  ^bb2(%v2: !buf, %k: i32):
    %v = ttg.memdesc_index %v2[%k] : !buf -> !one
    ttg.local_store %x, %v : !t -> !one
    tt.return
  }

  // A loop back edge in cf form: the header block argument merges the entry
  // value and the latch value, both the same view.
  // CHECK-LABEL: tt.func @cf_loop(
  // CHECK: tlx.local_alias %{{.+}} -> !ttg.memdesc<{{3|4}}x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: cf.br ^bb1(%{{.+}}, %[[B]] : i32, !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>)
  // CHECK: ^bb1(%[[J:.+]]: i32, %[[V:.+]]: !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>):
  // CHECK: ^bb2:
  // CHECK: %[[MUL:.+]] = arith.muli %[[J]], %{{.+}} : i32
  // CHECK: %[[ADD:.+]] = arith.addi %[[MUL]], %{{.+}} : i32
  // CHECK-NEXT: ttg.memdesc_index %[[V]][%[[ADD]]]
  // CHECK: cf.br ^bb1(%{{.+}}, %[[V]] : i32, !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>)
  tt.func @cf_loop(%n: i32, %x: !t) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cf.br ^header(%c0, %b : i32, !buf)
  ^header(%j: i32, %view: !buf):
    %cond = arith.cmpi slt, %j, %n : i32
    cf.cond_br %cond, ^body, ^exit
  ^body:
    %v = ttg.memdesc_index %view[%j] : !buf -> !one
    ttg.local_store %x, %v : !t -> !one
    %next = arith.addi %j, %c1 : i32
    cf.br ^header(%next, %view : i32, !buf)
  ^exit:
    tt.return
  }

  // PACKED-ONLY-BEGIN
  // ttg.memdesc_reinterpret of a moved view derives its own layout from the
  // same placement (offset 16384, stride 32768), with per-buffer meaning:
  // buffer i of the reinterpreted view starts where buffer i of the view
  // does. As bf16 (8192-byte buffers) that is 4i + 2 of 7; to the same type,
  // 2i + 1 of 4. (Reinterprets that change the buffer count are a known
  // bug, see reinterpret-buffer-count.mlir.) Triton 3.8 does not parse a
  // reinterpret that halves the size: reinterpret_same_size below.
  // PACKED-LABEL: tt.func @reinterpret(
  // PACKED-SAME: %[[I:arg[0-9]+]]: i32
  // PACKED: %[[B:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[R:.+]] = ttg.memdesc_reinterpret %[[B]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<7x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[C4:.+]] = arith.constant 4 : i32
  // PACKED-NEXT: %[[MUL:.+]] = arith.muli %[[I]], %[[C4]] : i32
  // PACKED-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // PACKED-NEXT: %[[ADD:.+]] = arith.addi %[[MUL]], %[[C2]] : i32
  // PACKED-NEXT: ttg.memdesc_index %[[R]][%[[ADD]]] : !ttg.memdesc<7x64x64xbf16, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x64xbf16, #[[$SHARED]], #smem, mutable>
  // PACKED: %[[S:.+]] = ttg.memdesc_reinterpret %[[B]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED: ttg.memdesc_index %[[S]][%{{.+}}] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // LOWER-PACKED-LABEL: tt.func @reinterpret(
  // LOWER-PACKED: ttg.memdesc_reinterpret %{{.+}} -> !ttg.memdesc<7x64x64xbf16, #[[$SHARED]], #smem, mutable>
  // LOWER-PACKED-NOT: tlx.
  // LOWER-PACKED: tt.return
  tt.func @reinterpret(%i: i32, %x: !t, %y: tensor<64x64xbf16, #blocked>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %r = ttg.memdesc_reinterpret %b : !buf -> !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>
    %v = ttg.memdesc_index %r[%i] : !ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    ttg.local_store %y, %v : tensor<64x64xbf16, #blocked> -> !ttg.memdesc<64x64xbf16, #shared, #smem, mutable>
    %s = ttg.memdesc_reinterpret %b : !buf -> !buf
    %u = ttg.memdesc_index %s[%i] : !buf -> !one
    ttg.local_store %x, %u : !t -> !one
    tt.return
  }

  // tlx.local_alias of a moved view, to a type whose buffers (32768 bytes)
  // no longer divide the offset: a slot view of 16384-byte slots, each
  // indexed slot reinterpreted to the buffer type. Exact views cannot place
  // it (exact-views-errors.mlir).
  // PACKED-LABEL: tt.func @local_alias_of_view(
  // PACKED-SAME: %[[I:arg[0-9]+]]: i32
  // PACKED: %[[B:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: %[[L:.+]] = tlx.local_alias %[[B]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<4x16384xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // PACKED-NEXT: %[[MUL:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // PACKED-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // PACKED-NEXT: %[[ADD:.+]] = arith.addi %[[MUL]], %[[C1]] : i32
  // PACKED-NEXT: %[[SLOT:.+]] = ttg.memdesc_index %[[L]][%[[ADD]]] : !ttg.memdesc<4x16384xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<16384xi8, #[[$BYTES]], #smem, mutable>
  // PACKED-NEXT: %[[BUF:.+]] = ttg.memdesc_reinterpret %[[SLOT]] : !ttg.memdesc<16384xi8, #[[$BYTES]], #smem, mutable> -> !ttg.memdesc<64x128xf32, #[[$SHARED]], #smem, mutable>
  // PACKED-NEXT: ttg.local_store %{{.+}}, %[[BUF]]
  // LOWER-PACKED-LABEL: tt.func @local_alias_of_view(
  // LOWER-PACKED: %[[BASE:.+]] = ttg.local_alloc {alignment = 128 : i32} : () -> !ttg.memdesc<65536xi8
  // LOWER-PACKED: %[[L:.+]] = ttg.memdesc_reinterpret %[[BASE]] : {{.*}} -> !ttg.memdesc<4x16384xi8
  // LOWER-PACKED: %[[SLOT:.+]] = ttg.memdesc_index %[[L]]
  // LOWER-PACKED-NEXT: ttg.memdesc_reinterpret %[[SLOT]] : {{.*}} -> !ttg.memdesc<64x128xf32, #[[$SHARED]], #smem, mutable>
  // LOWER-PACKED-NOT: tlx.
  // LOWER-PACKED: tt.return
  tt.func @local_alias_of_view(%i: i32, %x: tensor<64x128xf32, #blocked>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %l = tlx.local_alias %b : !buf -> !ttg.memdesc<2x64x128xf32, #shared, #smem, mutable>
    %w = ttg.memdesc_index %l[%i] : !ttg.memdesc<2x64x128xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x128xf32, #shared, #smem, mutable>
    ttg.local_store %x, %w : tensor<64x128xf32, #blocked> -> !ttg.memdesc<64x128xf32, #shared, #smem, mutable>
    tt.return
  }
  // PACKED-ONLY-END

  // A reinterpret to buffers of the same size (64x128xbf16, 16384 bytes):
  // buffer i of it is buffer i of the view, 2i + 1 of 4.
  // CHECK-LABEL: tt.func @reinterpret_same_size(
  // CHECK-SAME: %[[I:arg[0-9]+]]: i32
  // CHECK: tlx.local_alias %{{.+}} -> !ttg.memdesc<{{3|4}}x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[R:.+]] = ttg.memdesc_reinterpret %[[B]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<4x64x128xbf16, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[MUL:.+]] = arith.muli %[[I]], %[[C2]] : i32
  // CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[ADD:.+]] = arith.addi %[[MUL]], %[[C1]] : i32
  // CHECK-NEXT: ttg.memdesc_index %[[R]][%[[ADD]]] : !ttg.memdesc<4x64x128xbf16, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<64x128xbf16, #[[$SHARED]], #smem, mutable>
  // LOWER-LABEL: tt.func @reinterpret_same_size(
  // LOWER: ttg.memdesc_reinterpret %{{.+}} -> !ttg.memdesc<4x64x128xbf16, #[[$SHARED]], #smem, mutable>
  // LOWER-NOT: tlx.
  // LOWER: tt.return
  tt.func @reinterpret_same_size(%i: i32, %y: tensor<64x128xbf16, #blocked>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %r = ttg.memdesc_reinterpret %b : !buf -> !ttg.memdesc<2x64x128xbf16, #shared, #smem, mutable>
    %v = ttg.memdesc_index %r[%i] : !ttg.memdesc<2x64x128xbf16, #shared, #smem, mutable> -> !ttg.memdesc<64x128xbf16, #shared, #smem, mutable>
    ttg.local_store %y, %v : tensor<64x128xbf16, #blocked> -> !ttg.memdesc<64x128xbf16, #shared, #smem, mutable>
    tt.return
  }

  // A view inside a loop inside an if, through a reinterpret in the loop.
  // CHECK-LABEL: tt.func @nested_regions(
  // CHECK: tlx.local_alias %{{.+}} -> !ttg.memdesc<{{3|4}}x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK-NEXT: %[[B:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: scf.if
  // CHECK: scf.for %[[IV:.+]] = {{.+}} iter_args(%[[ACC:.+]] = %[[B]]) -> (!ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable>)
  // CHECK: %[[R:.+]] = ttg.memdesc_reinterpret %[[ACC]] : !ttg.memdesc<4x64x64xf32, #[[$SHARED]], #smem, mutable> -> !ttg.memdesc<4x64x128xf16, #[[$SHARED]], #smem, mutable>
  // CHECK: %[[MUL:.+]] = arith.muli %[[IV]], %{{.+}} : i32
  // CHECK: %[[ADD:.+]] = arith.addi %[[MUL]], %{{.+}} : i32
  // CHECK-NEXT: ttg.memdesc_index %[[R]][%[[ADD]]] : !ttg.memdesc<4x64x128xf16, #[[$SHARED]], #smem, mutable>
  tt.func @nested_regions(%c: i1, %n: i32, %y: tensor<64x128xf16, #blocked>) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (!buf, !buf) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.if %c {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %b) -> (!buf) : i32 {
        %h = ttg.memdesc_reinterpret %acc : !buf -> !ttg.memdesc<2x64x128xf16, #shared, #smem, mutable>
        %v = ttg.memdesc_index %h[%i] : !ttg.memdesc<2x64x128xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
        ttg.local_store %y, %v : tensor<64x128xf16, #blocked> -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
        scf.yield %acc : !buf
      }
    }
    tt.return
  }

  // Views whose placement is their natural layout (no overlap tree) are not
  // followed: they pass through ttg.warp_specialize captures unchanged.
  // CHECK-LABEL: tt.func @warp_specialize_natural_layout(
  // CHECK: %[[A:.+]] = tlx.local_alias %{{.+}} -> !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  // CHECK: ttg.warp_specialize(%[[A]], %{{.+}})
  // CHECK: partition0(%[[ARG:.+]]: !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>, %[[J:.+]]: i32) num_warps(4) {
  // CHECK-NEXT: ttg.memdesc_index %[[ARG]][%[[J]]] : !ttg.memdesc<2x64x64xf32, #[[$SHARED]], #smem, mutable>
  tt.func @warp_specialize_natural_layout(%i: i32, %x: !t) {
    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !buf
    ttg.warp_specialize(%a, %i)
    default {
      ttg.warp_yield
    }
    partition0(%arg0: !buf, %arg1: i32) num_warps(4) {
      %v = ttg.memdesc_index %arg0[%arg1] : !buf -> !one
      %y = ttg.local_load %v : !one -> !t
      ttg.local_store %y, %v : !t -> !one
      ttg.warp_return
    } : (!buf, i32) -> ()
    tt.return
  }
}
