// Where triton's own proxy-fence insertion (its FenceInsertion pass, which
// on triton 3.7/3.8 runs in make_llir, after tlx-check-hazards) will put a
// fence_async_shared: before a wgmma one of whose operands comes, through
// memdesc views, loop-carried values and warp_specialize captures, from a
// register-to-shared copy; hoisted out of every enclosing loop that holds
// none of those copies. The replay runs such a fence as if it were in the
// IR, so that a local_store read by a wgmma of the same task is not reported
// for a fence the binary will have.
//
// Triton's rule, as this follows it: a local_alloc initialized from
// registers is a copy; so is a local_store reached from a local_alloc's
// result down a chain of single-use views; a memdesc that is an argument of
// any other block (a function argument, an scf.while's) counts as one.

#include "HazardReplay.h"
#include "TritonByName/TritonOps.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::triton::tlx::hazards {
namespace {

void collectCopies(Value value, DenseSet<Value> &seen, llvm::SetVector<Operation *> &copies) {
  if (!seen.insert(value).second || !isMemDesc(value.getType()))
    return;
  if (Operation *def = value.getDefiningOp()) {
    if (isOpNamed(def, ttg_names::kLocalAlloc)) {
      if (def->getNumOperands() >= 1)
        copies.insert(def);
      for (Operation *user : def->getResult(0).getUsers()) {
        while (user->hasOneUse() && isMemDescView(user))
          user = *user->getUsers().begin();
        if (isOpNamed(user, ttg_names::kLocalStore)) {
          copies.insert(user);
          return;
        }
      }
    }
    for (Value operand : def->getOperands())
      collectCopies(operand, seen, copies);
    return;
  }
  auto arg = cast<BlockArgument>(value);
  Operation *owner = arg.getOwner()->getParentOp();
  if (auto forOp = dyn_cast<scf::ForOp>(owner)) {
    if (arg.getArgNumber() == 0)
      return; // the induction variable
    unsigned k = arg.getArgNumber() - 1;
    collectCopies(forOp.getInitArgs()[k], seen, copies);
    collectCopies(forOp.getBody()->getTerminator()->getOperand(k), seen, copies);
    return;
  }
  if (isOpNamed(owner, ttg_names::kWarpSpecializePartitions)) {
    Operation *ws = owner->getParentOp();
    if (ws && arg.getArgNumber() < ws->getNumOperands())
      collectCopies(ws->getOperand(arg.getArgNumber()), seen, copies);
    return;
  }
  copies.insert(owner);
}

} // namespace

llvm::DenseSet<Operation *> findTritonFences(ModuleOp module) {
  llvm::DenseSet<Operation *> fenced;
  module.walk([&](Operation *dot) {
    if (!isOpNamed(dot, ttg_names::kWarpGroupDot) || dot->getNumOperands() < 2)
      return;
    DenseSet<Value> seen;
    llvm::SetVector<Operation *> copies;
    collectCopies(dot->getOperand(0), seen, copies);
    collectCopies(dot->getOperand(1), seen, copies);
    if (copies.empty())
      return;
    // Out of every loop (scf.for, scf.while: TTGIR's) none of the copies is in.
    Operation *at = dot;
    for (Operation *loop = at->getParentOp(); loop; loop = loop->getParentOp()) {
      if (isOpNamed(loop, ttg_names::kWarpSpecializePartitions))
        break; // a partition's code stays in it
      if (!isa<scf::ForOp, scf::WhileOp>(loop))
        continue;
      if (llvm::any_of(copies, [&](Operation *copy) { return loop->isAncestor(copy); }))
        break;
      at = loop;
    }
    fenced.insert(at);
  });
  return fenced;
}

} // namespace mlir::triton::tlx::hazards
