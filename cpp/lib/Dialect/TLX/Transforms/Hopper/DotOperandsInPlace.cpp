// tlx-dot-operands-in-place: wgmma reads a tlx buffer directly instead of a
// copy triton makes of it (see Passes.td).

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "TritonByName/TritonOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXDOTOPERANDSINPLACE
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace ttg_names;

// Same bytes, same layout: the copy would reproduce the view exactly.
bool sameBuffer(Type view, Type copy) {
  auto a = getMemDescInfo(view), b = getMemDescInfo(copy);
  return a && b && a->shape == b->shape && a->elementType == b->elementType &&
         a->encoding == b->encoding && a->memorySpace == b->memorySpace &&
         (a->allocShape.empty() || a->allocShape == a->shape);
}

bool mayWriteMemory(Operation *op) {
  if (isOpNamed(op, kFenceAsyncShared) || isOpNamed(op, kWarpGroupDot) ||
      isOpNamed(op, kWarpGroupDotWait) || isOpNamed(op, kLocalLoad))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || op->getNumRegions();
  return effects.hasEffect<MemoryEffects::Write>() ||
         effects.hasEffect<MemoryEffects::Free>();
}

// The copy's users are wgmma ops (and their waits) in the same block, with
// nothing that may write memory from the view's load to the last of them.
bool canReadInPlace(Operation *load, Operation *copy) {
  Block *block = copy->getBlock();
  if (load->getBlock() != block)
    return false;
  Operation *last = copy;
  for (Operation *user : copy->getUsers()) {
    if (user->getBlock() != block ||
        !(isOpNamed(user, kWarpGroupDot) || isOpNamed(user, kWarpGroupDotWait)))
      return false;
    if (last->isBeforeInBlock(user))
      last = user;
  }
  for (Operation *op = load->getNextNode(); op && op != last; op = op->getNextNode())
    if (op != copy && mayWriteMemory(op))
      return false;
  return true;
}

struct TLXDotOperandsInPlacePass
    : impl::TLXDotOperandsInPlaceBase<TLXDotOperandsInPlacePass> {
  void runOnOperation() override {
    SmallVector<Operation *> copies;
    getOperation().walk([&](Operation *op) {
      if (isOpNamed(op, ttg_names::kLocalAlloc) && op->getNumOperands() == 1)
        copies.push_back(op);
    });
    for (Operation *copy : copies) {
      Operation *load = copy->getOperand(0).getDefiningOp();
      if (!isOpNamed(load, kLocalLoad) || load->getNumOperands() != 1)
        continue;
      Value view = load->getOperand(0);
      if (!sameBuffer(view.getType(), copy->getResult(0).getType()) ||
          !canReadInPlace(load, copy))
        continue;
      // The view's writers (local_store, cp.async) use the generic proxy and
      // wgmma the async one: fence before each dot, as the copy had been.
      for (Operation *user : copy->getUsers()) {
        Operation *previous = user->getPrevNode();
        if (!isOpNamed(user, kWarpGroupDot) || (previous && isOpNamed(previous, kFenceAsyncShared)))
          continue;
        OpBuilder builder(user);
        createOp(builder, user->getLoc(), kFenceAsyncShared, {}, {},
                 builder.getNamedAttr("bCluster", builder.getBoolAttr(false)));
      }
      copy->getResult(0).replaceAllUsesWith(view);
      // warp_group_dot_wait passes its operands through: keep types equal.
      for (Operation *user : view.getUsers())
        if (isOpNamed(user, kWarpGroupDotWait))
          for (auto [operand, result] : llvm::zip(user->getOperands(), user->getResults()))
            result.setType(operand.getType());
      copy->erase();
      if (load->use_empty())
        load->erase();
    }
  }
};

} // namespace
} // namespace mlir::triton::tlx
