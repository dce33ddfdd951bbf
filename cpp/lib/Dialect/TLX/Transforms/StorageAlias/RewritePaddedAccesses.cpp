// Step 4 of tlx-storage-alias-lowering: every access to a view whose buffers
// were moved (padded stride, non-zero offset) is rewritten.
//
// The view's new type flows to every value that carries it -- through
// ttg.memdesc_reinterpret and tlx.local_alias (which derive their own layout
// from the same placement), ttg.warp_specialize captures, scf.for/scf.while
// iter_args and results, scf.if results, and cf branch arguments -- and each
// ttg.memdesc_index on such a value indexes `scale * i + offsetSlots`.
// A value that merges views of different layouts, or such a view with
// anything else, cannot be indexed one way and is an error.

#include "StorageAliasLowering.h"
#include "TritonByName/TritonOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::triton::tlx {

namespace {

std::string describe(const ViewLayout &layout) {
  std::string text;
  llvm::raw_string_ostream os(text);
  bool tmem = getMemDescInfo(layout.originalType)->storageKind() == StorageKind::tmem;
  StringRef unit = tmem ? " columns" : " bytes";
  os << "offset " << layout.offset << ", " << layout.unitsBetweenBuffers << unit
     << " between buffers, as " << layout.viewType;
  return text;
}

class AccessRewriter {
public:
  AccessRewriter(StringRef what, StringRef hint) : what(what), hint(hint) {}

  LogicalResult run(ArrayRef<PaddedView> views) {
    for (const PaddedView &view : views)
      if (failed(assign(view.alias, view.layout)))
        return failure();
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      ViewLayout layout = layouts.lookup(value);
      for (OpOperand &use : value.getUses())
        if (failed(visitUse(use, layout)))
          return failure();
    }
    if (failed(checkMergePoints()))
      return failure();
    rewrite();
    return success();
  }

private:
  StringRef what, hint; // the views, as errors name them, and what to do instead
  llvm::MapVector<Value, ViewLayout> layouts;
  SmallVector<Value> worklist;
  SmallVector<Operation *> indexOps;

  LogicalResult assign(Value value, const ViewLayout &layout) {
    auto [it, inserted] = layouts.try_emplace(value, layout);
    if (inserted) {
      worklist.push_back(value);
      return success();
    }
    if (it->second == layout)
      return success();
    return emitLayoutConflict(value, it->second, layout);
  }

  static LogicalResult emitLayoutConflict(Value value, const ViewLayout &a,
                                          const ViewLayout &b) {
    return emitError(value.getLoc())
           << "merges storage alias views with different layouts (" << describe(a)
           << "; and " << describe(b) << ")";
  }

  LogicalResult assignAll(ArrayRef<Value> values, const ViewLayout &layout) {
    for (Value value : values)
      if (failed(assign(value, layout)))
        return failure();
    return success();
  }

  LogicalResult visitUse(OpOperand &use, const ViewLayout &layout) {
    Operation *user = use.getOwner();
    unsigned number = use.getOperandNumber();
    if (isOpNamed(user, ttg_names::kMemDescIndex) && number == 0) {
      indexOps.push_back(user);
      return success();
    }
    if (isOpNamed(user, ttg_names::kMemDescReinterpret) || isa<LocalAliasOp>(user)) {
      // Buffer i of the new view is buffer i of this one: only meaningful
      // when both count the same buffers.
      auto from = getMemDescInfo(layout.originalType);
      auto to = getMemDescInfo(user->getResult(0).getType());
      if (!to || to->shape.size() < 2 || to->numBuffers() != from->numBuffers()) {
        InFlightDiagnostic diag = user->emitOpError("cannot follow a storage alias view (")
                                  << describe(layout) << "): ";
        if (!to || to->shape.size() < 2)
          diag << "the result has no buffer dimension";
        else
          diag << "it changes the buffer count from " << from->numBuffers() << " to "
               << to->numBuffers();
        return diag << "; reinterpret one buffer (after ttg.memdesc_index) instead";
      }
      FailureOr<ViewLayout> derived = getViewLayout(
          user->getResult(0).getType(), layout.placement, layout.storageUnits,
          [&] {
            return user->emitOpError("cannot follow a storage alias view (")
                   << describe(layout) << "): ";
          });
      if (failed(derived))
        return failure();
      return derived->isIdentity() ? success() : assign(user->getResult(0), *derived);
    }
    if (auto forOp = dyn_cast<scf::ForOp>(user)) {
      if (BlockArgument arg = forOp.getTiedLoopRegionIterArg(&use))
        return assignAll({arg, forOp.getTiedLoopResult(&use)}, layout);
    }
    if (auto whileOp = dyn_cast<scf::WhileOp>(user))
      return assign(whileOp.getBeforeArguments()[number], layout);
    if (auto yield = dyn_cast<scf::YieldOp>(user)) {
      Operation *parent = user->getParentOp();
      if (auto forOp = dyn_cast<scf::ForOp>(parent))
        return assignAll({forOp.getRegionIterArgs()[number], forOp.getResult(number)},
                         layout);
      if (isa<scf::IfOp>(parent))
        return assign(parent->getResult(number), layout);
      if (auto whileOp = dyn_cast<scf::WhileOp>(parent))
        return assign(whileOp.getBeforeArguments()[number], layout);
    }
    if (auto condition = dyn_cast<scf::ConditionOp>(user)) {
      if (number == 0)
        return unsupported(user, layout);
      auto whileOp = cast<scf::WhileOp>(user->getParentOp());
      return assignAll({whileOp.getAfterArguments()[number - 1],
                        whileOp.getResult(number - 1)},
                       layout);
    }
    if (auto branch = dyn_cast<BranchOpInterface>(user)) {
      if (std::optional<BlockArgument> arg = branch.getSuccessorBlockArgument(number))
        return assign(*arg, layout);
    }
    if (isOpNamed(user, ttg_names::kWarpSpecializePartitions)) {
      SmallVector<BlockArgument> args = getWarpSpecializeCaptureArgs(user, number);
      return assignAll(SmallVector<Value>(args.begin(), args.end()), layout);
    }
    if (auto select = dyn_cast<arith::SelectOp>(user)) {
      if (number != 0)
        return assign(select.getResult(), layout);
    }
    return unsupported(user, layout);
  }

  LogicalResult unsupported(Operation *user, const ViewLayout &layout) {
    return user->emitOpError("uses ") << what << " (" << describe(layout)
           << "); only ttg.memdesc_index, ttg.memdesc_reinterpret, "
              "tlx.local_alias and control flow may use it"
           << hint;
  }

  // The values flowing into a value that several paths may define.
  SmallVector<Value> getIncoming(Value value) {
    SmallVector<Value> incoming;
    auto yielded = [&](Region &region, unsigned index) {
      if (!region.empty())
        incoming.push_back(region.front().getTerminator()->getOperand(index));
    };
    if (auto result = dyn_cast<OpResult>(value)) {
      Operation *owner = result.getOwner();
      unsigned index = result.getResultNumber();
      if (auto forOp = dyn_cast<scf::ForOp>(owner)) {
        incoming.push_back(forOp.getInitArgs()[index]);
        yielded(forOp.getRegion(), index);
      } else if (auto ifOp = dyn_cast<scf::IfOp>(owner)) {
        yielded(ifOp.getThenRegion(), index);
        yielded(ifOp.getElseRegion(), index);
      } else if (auto whileOp = dyn_cast<scf::WhileOp>(owner)) {
        incoming.push_back(whileOp.getConditionOp().getArgs()[index]);
      } else if (auto select = dyn_cast<arith::SelectOp>(owner)) {
        incoming.push_back(select.getTrueValue());
        incoming.push_back(select.getFalseValue());
      }
      return incoming;
    }
    auto arg = cast<BlockArgument>(value);
    Block *block = arg.getOwner();
    unsigned index = arg.getArgNumber();
    Operation *parent = block->getParentOp();
    if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
      if (index > 0) {
        incoming.push_back(forOp.getInitArgs()[index - 1]);
        yielded(forOp.getRegion(), index - 1);
      }
    } else if (auto whileOp = dyn_cast<scf::WhileOp>(parent)) {
      if (block->getParent() == &whileOp.getBefore()) {
        incoming.push_back(whileOp.getInits()[index]);
        yielded(whileOp.getAfter(), index);
      } else {
        incoming.push_back(whileOp.getConditionOp().getArgs()[index]);
      }
    } else if (isOpNamed(parent, ttg_names::kWarpSpecializePartitions)) {
      incoming.push_back(parent->getOperand(index));
    } else {
      for (Block *pred : block->getPredecessors()) {
        auto branch = dyn_cast<BranchOpInterface>(pred->getTerminator());
        if (!branch)
          continue;
        for (unsigned i = 0; i < branch->getNumSuccessors(); ++i)
          if (branch->getSuccessor(i) == block)
            if (Value operand = branch.getSuccessorOperands(i)[index])
              incoming.push_back(operand);
      }
    }
    return incoming;
  }

  LogicalResult checkMergePoints() {
    for (auto &[value, layout] : layouts) {
      for (Value incoming : getIncoming(value)) {
        auto it = layouts.find(incoming);
        if (it == layouts.end())
          return emitError(value.getLoc())
                 << "merges " << what << " (" << describe(layout)
                 << ") with a value that is not that view; both must be the "
                    "same kind of view to be indexed alike";
        if (!(it->second == layout))
          return emitLayoutConflict(value, layout, it->second);
      }
    }
    return success();
  }

  void rewrite() {
    for (auto &[value, layout] : layouts)
      value.setType(layout.viewType);
    for (Operation *index : indexOps) {
      const ViewLayout &layout = layouts.find(index->getOperand(0))->second;
      OpBuilder builder(index);
      Location loc = index->getLoc();
      Value logical = index->getOperand(1);
      Type indexType = logical.getType();
      auto constant = [&](int64_t v) -> Value {
        return arith::ConstantOp::create(builder, loc, builder.getIntegerAttr(indexType, v));
      };
      // Subtiles: split the index into digits, innermost last.
      Value quotient = logical;
      SmallVector<Value> digits;
      for (auto [k, slots] : llvm::reverse(layout.subtileSlots)) {
        Value digit = builder.createOrFold<arith::RemUIOp>(loc, quotient, constant(k));
        if (slots != 1)
          digit = builder.createOrFold<arith::MulIOp>(loc, digit, constant(slots));
        digits.push_back(digit);
        quotient = builder.createOrFold<arith::DivUIOp>(loc, quotient, constant(k));
      }
      Value physical = quotient;
      if (layout.scale != 1)
        physical = builder.createOrFold<arith::MulIOp>(loc, physical, constant(layout.scale));
      for (Value digit : digits)
        physical = builder.createOrFold<arith::AddIOp>(loc, physical, digit);
      if (layout.offsetSlots != 0)
        physical =
            builder.createOrFold<arith::AddIOp>(loc, physical, constant(layout.offsetSlots));
      index->setOperand(1, physical);
      if (layout.slotBytes == 0)
        continue;
      // A slot is smaller than the buffer: index the slot, then view the
      // buffer that starts there.
      Value result = index->getResult(0);
      Type bufferType = result.getType();
      result.setType(layout.slotType);
      builder.setInsertionPointAfter(index);
      Value buffer = createMemDescReinterpret(builder, loc, result, bufferType);
      result.replaceAllUsesExcept(buffer, buffer.getDefiningOp());
    }
  }
};

} // namespace

LogicalResult rewritePaddedAccesses(ArrayRef<PaddedView> views, StringRef what, StringRef hint) {
  return AccessRewriter(what, hint).run(views);
}

} // namespace mlir::triton::tlx
