// RUN: %tlx-opt %s --split-input-file --verify-diagnostics --tlx-storage-alias-lowering
//
// Regression (tlx-storage-alias-lowering, step 1): with two set_buffer_overlap
// ops on one spec, "storage_alias_spec already has a set_buffer_overlap
// defined" is reported at the FIRST one (in program order), not at the
// duplicate: collectUsers walks the spec's use list, which MLIR keeps
// newest-first, so the later op becomes "the" overlap and the earlier one
// the "extra". Fixed: program order decides (as in the design): the error on the second.

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
tt.func @duplicate_overlap() {
  %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
  %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>
  %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
  %g1 = tlx.reuse_group(%a, %b) group_kind = shared : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>) -> !tlx.reuse_group<shared>
  tlx.set_buffer_overlap(%spec, %g1) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<shared>) -> ()
  %g2 = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>) -> !tlx.reuse_group<distinct>
  // expected-error @+1 {{'tlx.set_buffer_overlap' op storage_alias_spec already has a set_buffer_overlap defined; each spec can only have one overlap definition}}
  tlx.set_buffer_overlap(%spec, %g2) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
  tt.return
}
