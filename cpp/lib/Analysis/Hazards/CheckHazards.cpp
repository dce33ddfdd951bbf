// tlx-check-hazards: races on shared local memory that no completing wait or
// barrier hand-off orders (see Passes.td). The replay (HazardReplay.h) runs
// each task in program order with concrete ring slots and barrier phases
// where it can compute them; anything not computable is unknown and may
// overlap every slot of its allocation. The tasks of a warp_specialize are
// then ordered against each other phase by phase (HandOffs.cpp) and their
// accesses paired (Races.cpp).

#include "HazardReplay.h"
#include "TritonByName/TritonOps.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"

#include <numeric>

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXCHECKHAZARDS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace hazards;

// Enough iterations to see every ring slot reused after a full phase cycle
// (2 x its buffers), and a whole number of those cycles for every ring: a loop
// of unknown trip count leaves its counters as after the unrolled iterations,
// so ending on a phase boundary of each ring keeps the next loop's slots and
// phases consistent with the waits they pair with. At least 12: fewer left a
// persistent GEMM's nested tile/K loops (ring depth 2 and 4) with a spurious
// finding; the cost is small (the loops are simulated, not analysed per path).
int64_t defaultIterations(ModuleOp module) {
  constexpr int64_t kMin = 12, kMax = 24;
  int64_t buffers = 1, period = 1;
  module.walk([&](Operation *op) {
    if (isOpNamed(op, ttg_names::kMemDescIndex) && op->getNumOperands() >= 1)
      if (std::optional<MemDescInfo> info = getMemDescInfo(op->getOperand(0).getType())) {
        buffers = std::max(buffers, info->numBuffers());
        period = std::min<int64_t>(std::lcm(period, 2 * info->numBuffers()), kMax + 1);
      }
  });
  int64_t least = std::clamp<int64_t>(2 * buffers + 2, kMin, kMax);
  int64_t aligned = llvm::alignTo(least, period);
  return aligned <= kMax ? aligned : least;
}

struct TLXCheckHazardsPass : impl::TLXCheckHazardsBase<TLXCheckHazardsPass> {
  using TLXCheckHazardsBase::TLXCheckHazardsBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    int iterations = maxIterations > 0 ? int(maxIterations) : int(defaultIterations(module));
    ControlFlowReplay(module, std::min(iterations, 64), reportUnchecked).run();
  }
};

} // namespace
} // namespace mlir::triton::tlx
