// tlx-convert-async-waits: tlx.async_load_wait_group -> ttg.async_wait with
// the count the kernel author wrote.
//
// Runs right after Triton's software pipeliner, whose wait-count update
// recomputes every ttg.async_wait from its tokens (a tokenless wait would
// become `num = 0` and drain the cp.async pipeline each iteration).

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "TritonByName/TritonOps.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXCONVERTASYNCWAITS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

struct TLXConvertAsyncWaitsPass
    : impl::TLXConvertAsyncWaitsBase<TLXConvertAsyncWaitsPass> {
  void runOnOperation() override {
    SmallVector<AsyncLoadWaitGroupOp> waits;
    getOperation().walk([&](AsyncLoadWaitGroupOp wait) { waits.push_back(wait); });
    for (AsyncLoadWaitGroupOp wait : waits) {
      OpBuilder builder(wait);
      Operation *stock = createOp(
          builder, wait.getLoc(), ttg_names::kAsyncWait, wait.getTokens(),
          wait.getToken().getType(),
          {builder.getNamedAttr("num", builder.getI32IntegerAttr(wait.getPendings()))});
      wait.getToken().replaceAllUsesWith(stock->getResult(0));
      wait.erase();
    }
  }
};

} // namespace
} // namespace mlir::triton::tlx
