// CTA clusters whose CTAs are each a whole program (TLX's Hopper clusters):
// tlx-cluster-program-ids (see Passes.td; their multicast loads and remote
// arrives: Marks.cpp).

#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "TritonByName/PointerAccess.h"
#include "TritonByName/TritonOps.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXCLUSTERPROGRAMIDS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace ttg_names;

struct TLXClusterProgramIdsPass
    : impl::TLXClusterProgramIdsBase<TLXClusterProgramIdsPass> {
  using TLXClusterProgramIdsBase::TLXClusterProgramIdsBase;

  void runOnOperation() override {
    if (clusterSize <= 1)
      return;
    SmallVector<Operation *> queries;
    getOperation().walk([&](Operation *op) {
      if (getGridQueryAxis(op) == 0)
        queries.push_back(op);
    });
    for (Operation *query : queries) {
      OpBuilder builder(query->getContext());
      builder.setInsertionPointAfter(query);
      Value id = query->getResult(0);
      Value size = arith::ConstantOp::create(builder, query->getLoc(),
                                             builder.getI32IntegerAttr(clusterSize));
      Value cluster = arith::DivUIOp::create(builder, query->getLoc(), id, size);
      id.replaceAllUsesExcept(cluster, cluster.getDefiningOp());
    }
  }
};

} // namespace
} // namespace mlir::triton::tlx
