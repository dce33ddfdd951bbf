// tlx-sync-before-leader-arrive: a warp-group barrier right before each
// leader mbarrier arrive (see Passes.td).

#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "tlx_alias/Dialect/TLX/Transforms/TritonOps.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXSYNCBEFORELEADERARRIVE
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

constexpr StringLiteral kInlineAsm = "llvm.inline_asm";
constexpr StringLiteral kBarrier0 = "nvvm.barrier0";
// Triton's lowering of ttng.arrive_barrier: thread 0 ($0 = tid == 0 [&& pred])
// arrives for every thread of its warp group.
constexpr StringLiteral kLeaderArrive = "@$0 mbarrier.arrive.shared::cta.b64 _, [$1]";

bool isLeaderArrive(Operation *op) {
  if (!isOpNamed(op, kInlineAsm))
    return false;
  auto text = dyn_cast_or_null<StringAttr>(op->getAttr("asm_string"));
  return text && text.getValue().starts_with(kLeaderArrive);
}

struct TLXSyncBeforeLeaderArrivePass
    : impl::TLXSyncBeforeLeaderArriveBase<TLXSyncBeforeLeaderArrivePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    if (!RegisteredOperationName::lookup(kBarrier0, context))
      return;
    SmallVector<Operation *> arrives;
    getOperation().walk([&](Operation *op) {
      if (isLeaderArrive(op))
        arrives.push_back(op);
    });
    for (Operation *arrive : arrives) {
      OpBuilder builder(arrive);
      createOp(builder, arrive->getLoc(), kBarrier0, {}, {});
    }
  }
};

} // namespace
} // namespace mlir::triton::tlx
