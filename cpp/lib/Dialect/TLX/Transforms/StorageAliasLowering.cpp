// tlx-storage-alias-lowering: the four steps, each in its own file.
//
// Everything is verified before anything is rewritten where possible: steps
// 1 and 2 only read the IR (and erase the overlap trees once every spec is
// placed), so bad input fails with a diagnostic before step 3 changes types.

#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "tlx_alias/Dialect/TLX/Transforms/StorageAliasLowering.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXSTORAGEALIASLOWERING
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

struct TLXStorageAliasLoweringPass
    : impl::TLXStorageAliasLoweringBase<TLXStorageAliasLoweringPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // An allocation whose spec is not a tlx.storage_alias_spec op (e.g. a
    // function argument) has nowhere to go.
    WalkResult orphan = module.walk([](StorageAliasLocalAllocOp alloc) {
      if (alloc.getStorageAliasSpec().getDefiningOp<StorageAliasSpecOp>())
        return WalkResult::advance();
      alloc.emitOpError("has no storage_alias_spec defined by a "
                        "tlx.storage_alias_spec op in this function");
      return WalkResult::interrupt();
    });
    if (orphan.wasInterrupted())
      return signalPassFailure();

    std::vector<SpecPlan> plans;
    if (failed(computeStorageAliasSizes(module, plans)) ||
        failed(assignStorageAliasOffsets(module, plans)))
      return signalPassFailure();

    SmallVector<PaddedView> views;
    if (failed(materializeStorageAliases(plans, views)) ||
        failed(rewritePaddedAccesses(views)))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::triton::tlx
