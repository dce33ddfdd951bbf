// tlx-sync-before-leader-arrive: a warp-group barrier right before each
// leader mbarrier arrive (see Passes.td).

#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "TritonByName/TritonOps.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXSYNCBEFORELEADERARRIVE
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

// The CTA barrier (bar.sync 0, which triton turns into the partition's named
// barrier inside warp specialization): nvvm.barrier0 up to triton 3.7, an
// nvvm.barrier without operands in 3.8's LLVM, which dropped barrier0.
constexpr StringLiteral kBarrier0 = "nvvm.barrier0";
constexpr StringLiteral kBarrier = "nvvm.barrier";
// Triton's lowering of ttng.arrive_barrier: thread 0 ($0 = tid == 0 [&& pred])
// arrives for every thread of its warp group.
constexpr StringLiteral kLeaderArrive = "@$0 mbarrier.arrive.shared::cta.b64 _, [$1]";

bool isLeaderArrive(Operation *op) {
  StringAttr text = getInlineAsmText(op);
  return text && text.getValue().starts_with(kLeaderArrive);
}

struct TLXSyncBeforeLeaderArrivePass
    : impl::TLXSyncBeforeLeaderArriveBase<TLXSyncBeforeLeaderArrivePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    StringRef barrier = kBarrier0;
    if (!RegisteredOperationName::lookup(barrier, context))
      barrier = kBarrier;
    if (!RegisteredOperationName::lookup(barrier, context))
      return;
    SmallVector<Operation *> arrives;
    getOperation().walk([&](Operation *op) {
      if (isLeaderArrive(op))
        arrives.push_back(op);
    });
    for (Operation *arrive : arrives) {
      OpBuilder builder(arrive);
      createOp(builder, arrive->getLoc(), barrier, {}, {});
    }
  }
};

} // namespace
} // namespace mlir::triton::tlx
