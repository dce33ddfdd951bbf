// tlx-lower: the whole storage-alias lowering as one pass, so that a pipeline
// (and triton's Python stages) adds it with one call.

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXLOWER
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

struct TLXLowerPass : impl::TLXLowerBase<TLXLowerPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Kernels without tlx ops must come out byte-identical: touch nothing.
    bool hasTLX = module
                      .walk([](Operation *op) {
                        return isa<TLXDialect>(op->getDialect())
                                   ? WalkResult::interrupt()
                                   : WalkResult::advance();
                      })
                      .wasInterrupted();
    if (!hasTLX)
      return;
    OpPassManager pipeline(ModuleOp::getOperationName());
    pipeline.addPass(createTLXStorageAliasLowering({memoryMap, exactViews}));
    pipeline.addPass(createCanonicalizerPass());
    pipeline.addPass(createTLXRewriteLocalAlias({exactViews}));
    if (failed(runPipeline(pipeline, module)))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::triton::tlx
