// tlx-unchained-waits-as-expects: a consumer's wait on a ring slot that
// needs no bar.sync before the next wait on that ring (see Passes.td).
// tlx-lower-thread-arrives turns the marked expect back into the wait.

#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "BarrierMarks.h"
#include "TritonByName/MemDesc.h"
#include "TritonByName/TritonOps.h"
#include "tlx_alias/Support/Location.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXUNCHAINEDWAITSASEXPECTS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace ttg_names;

/// A barrier operand as (allocation, slot): the allocation through
/// memdesc_index and warp_specialize captures, the slot the index value
/// (null for an unindexed barrier).
struct Slot {
  Value alloc;
  Value index;
};

Value captured(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  Value capture = arg ? getWarpSpecializeCapture(arg) : Value();
  return capture ? capture : v;
}

Slot slotOf(Value bar) {
  Operation *def = bar.getDefiningOp();
  if (def && isOpNamed(def, kMemDescIndex))
    return {captured(def->getOperand(0)), def->getOperand(1)};
  return {captured(bar), Value()};
}

bool sameSlot(const Slot &a, const Slot &b) { return a.alloc == b.alloc && a.index == b.index; }

/// Where `op` can complete a phase of barrier allocation `full` (an arrive,
/// an expect, or a TMA load that signals it), its operand on `full`; else null.
Value completion(Operation *op, Value full) {
  if (!isOpNamed(op, kArriveBarrier) && !isOpNamed(op, kBarrierExpect) && !isOpNamed(op, kTmaLoad))
    return Value();
  for (Value operand : op->getOperands())
    if (isMemDesc(operand.getType()) && slotOf(operand).alloc == full)
      return operand;
  return Value();
}

/// In `op`'s block before it, a wait on `empty` at the slot of index `index`.
bool waitedBefore(Operation *op, Value empty, Value index) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
    if (isOpNamed(prev, kWaitBarrier) && sameSlot(slotOf(prev->getOperand(0)), {empty, index}))
      return true;
  return false;
}

/// The rings' empty allocations `wait` qualifies with: after it in its block
/// its task arrives unpredicated with every thread (a warp barrier) on the
/// same slot of the allocation.
SmallVector<Value> emptiesAfter(Operation *wait, const Slot &full) {
  SmallVector<Value> empties;
  for (Operation *next = wait->getNextNode(); next; next = next->getNextNode()) {
    if (!isOpNamed(next, kArriveBarrier) || !next->hasAttr(kPerThread) || next->getNumOperands() != 1)
      continue;
    Slot slot = slotOf(next->getOperand(0));
    if (slot.alloc != full.alloc && slot.index == full.index)
      empties.push_back(slot.alloc);
  }
  return empties;
}

/// The task (the default region of `warpSpecialize`, or one partition's
/// region) that `op` is in, or null outside them.
Region *taskOf(Operation *op, Operation *warpSpecialize) {
  for (Region *region = op->getParentRegion(); region; region = region->getParentOp()->getParentRegion()) {
    Operation *parent = region->getParentOp();
    if (parent == warpSpecialize ||
        (isOpNamed(parent, kWarpSpecializePartitions) && parent->getParentOp() == warpSpecialize))
      return region;
    if (isa<ModuleOp>(parent))
      return nullptr;
  }
  return nullptr;
}

/// Whether each op that completes a phase of `full` lies in another task of
/// `warpSpecialize` than `task` and comes after a wait on the same slot of
/// `empty` in its block: no phase of `full` completes past a slot's release.
bool gatedBy(ModuleOp module, Operation *warpSpecialize, Region *task, Value full, Value empty) {
  bool gated = true;
  module.walk([&](Operation *op) {
    Value bar = gated ? completion(op, full) : Value();
    if (!bar)
      return;
    Region *owner = taskOf(op, warpSpecialize);
    if (!owner || owner == task || !waitedBefore(op, empty, slotOf(bar).index))
      gated = false;
  });
  return gated;
}

struct TLXUnchainedWaitsAsExpectsPass
    : impl::TLXUnchainedWaitsAsExpectsBase<TLXUnchainedWaitsAsExpectsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> waits;
    getOperation().walk([&](Operation *op) {
      if (!isOpNamed(op, kWarpSpecialize))
        return;
      op->walk([&](Operation *wait) {
        if (isOpNamed(wait, kWaitBarrier) && wait->getNumOperands() == 2 && qualifies(op, wait))
          waits.push_back(wait);
      });
    });
    for (Operation *wait : waits) {
      OpBuilder builder(wait);
      Location loc = tlx_alias::markLocation(
          wait->getLoc(), {builder.getNamedAttr(kUnchainedWait, builder.getUnitAttr())});
      // The phase's parity rides in the expect's predicate.
      Value parity = arith::TruncIOp::create(builder, wait->getLoc(), builder.getI1Type(),
                                             wait->getOperand(1));
      createOp(builder, loc, kBarrierExpect, {wait->getOperand(0), parity}, {},
               builder.getNamedAttr("size", builder.getI32IntegerAttr(0)));
      wait->erase();
    }
  }

  // After the wait its task's every thread releases the slot on a ring's
  // empty barrier, and every other completion of the full barrier waits for
  // that release first: no warp of the task can fall a phase behind.
  bool qualifies(Operation *warpSpecialize, Operation *wait) {
    Region *task = taskOf(wait, warpSpecialize);
    if (!task)
      return false;
    Slot full = slotOf(wait->getOperand(0));
    for (Value empty : emptiesAfter(wait, full))
      if (gatedBy(getOperation(), warpSpecialize, task, full.alloc, empty))
        return true;
    return false;
  }
};

} // namespace
} // namespace mlir::triton::tlx
