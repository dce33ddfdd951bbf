// tlx-storage-alias-lowering: the four steps, each in its own file.
//
// Everything is verified before anything is rewritten where possible: steps
// 1 and 2 only read the IR (and erase the overlap trees once every spec is
// placed), so bad input fails with a diagnostic before step 3 changes types.

#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "StorageAliasLowering.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXSTORAGEALIASLOWERING
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

struct TLXStorageAliasLoweringPass
    : impl::TLXStorageAliasLoweringBase<TLXStorageAliasLoweringPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkViewsOption(&getContext(), exactViews)))
      return signalPassFailure();
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
    if (failed(computeStorageAliasSizes(module, exactViews, checkTargetMemory, plans)))
      return signalPassFailure();
    if (checkTargetMemory)
      for (SpecPlan &plan : plans)
        if (failed(checkSharedMemoryLimit(module, plan)))
          return signalPassFailure();
    if (failed(assignStorageAliasOffsets(module, plans)))
      return signalPassFailure();

    std::optional<llvm::raw_fd_ostream> memoryMapFile;
    if (!memoryMap.empty()) {
      std::error_code error;
      memoryMapFile.emplace(memoryMap, error, llvm::sys::fs::OF_Append);
      if (error) {
        // About the option, not the IR: no location, no op printed with it.
        mlir::emitError(UnknownLoc::get(&getContext()),
                        "cannot open memory map file ")
            << memoryMap << ": " << error.message();
        return signalPassFailure();
      }
    }
    SmallVector<PaddedView> views;
    if (failed(materializeStorageAliases(
            plans, views, memoryMapFile ? &*memoryMapFile : nullptr)) ||
        failed(rewritePaddedAccesses(views)))
      return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::triton::tlx
