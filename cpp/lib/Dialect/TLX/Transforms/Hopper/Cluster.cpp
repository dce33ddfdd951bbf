// CTA clusters whose CTAs are each a whole program (TLX's Hopper clusters):
// tlx-cluster-program-ids, tlx-cluster-ops-as-marks and
// tlx-lower-cluster-ops (see Passes.td).

#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "TritonByName/PointerAccess.h"
#include "TritonByName/TritonOps.h"
#include "tlx_alias/Support/Location.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <string>

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXCLUSTERPROGRAMIDS
#define GEN_PASS_DEF_TLXCLUSTEROPSASMARKS
#define GEN_PASS_DEF_TLXLOWERCLUSTEROPS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace ttg_names;

// The frontend's attributes (and the marks' metadata keys).
constexpr StringLiteral kMulticastMask = "tlx.multicast_mask";
constexpr StringLiteral kRemoteArrive = "tlx.remote_arrive";
constexpr StringLiteral kRemoteRank = "tlx.remote_rank";
constexpr StringLiteral kMarkKeys[] = {kMulticastMask, kRemoteArrive, kRemoteRank};

// What triton emits for a TMA load into its own CTA (3.7 to 3.9) and for an
// arrive (a leader's, or every thread's after tlx-lower-thread-arrives).
constexpr StringLiteral kTmaLoadOwn = ".shared::cta.global.mbarrier::complete_tx::bytes";
constexpr StringLiteral kTmaLoadCluster = ".shared::cluster.global.mbarrier::complete_tx::bytes";
constexpr StringLiteral kArriveOwn = "mbarrier.arrive.shared::cta.b64 _, [";

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

struct TLXClusterOpsAsMarksPass
    : impl::TLXClusterOpsAsMarksBase<TLXClusterOpsAsMarksPass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      for (StringRef key : kMarkKeys) {
        Attribute value = op->getAttr(key);
        if (!value)
          continue;
        NamedAttribute entry(StringAttr::get(op->getContext(), key), value);
        op->setLoc(tlx_alias::markLocation(op->getLoc(), {entry}));
        op->removeAttr(key);
      }
    });
  }
};

struct Mark {
  StringRef key;
  int64_t value;
  Location original;
};

std::optional<Mark> markOf(Location loc) {
  auto marked = tlx_alias::markOfLocation(loc);
  for (StringRef key : kMarkKeys)
    if (auto value = marked ? dyn_cast_or_null<IntegerAttr>(marked->first.get(key)) : nullptr)
      return Mark{key, value.getInt(), marked->second};
  return std::nullopt;
}

StringRef asmText(Operation *op) {
  StringAttr text = getInlineAsmText(op);
  return text ? text.getValue() : StringRef();
}

// `...complete_tx::bytes [$d], [$desc, {...}], [$bar]...` multicast to the
// CTAs of `mask`: the destination in the cluster's window, the mask after
// the mbarrier operand (before an optional cache policy).
LogicalResult multicast(Operation *op, int64_t mask) {
  std::string text = asmText(op).str();
  size_t own = text.find(kTmaLoadOwn.str());
  size_t suffix = own != std::string::npos ? own : text.find(kTmaLoadCluster.str());
  size_t bar = text.find("], [", text.find("}]", suffix));
  size_t barEnd = bar == std::string::npos ? bar : text.find(']', bar + 4);
  if (text.find("cp.async.bulk.tensor.") == std::string::npos || suffix == std::string::npos ||
      barEnd == std::string::npos)
    return op->emitError("tlx-lower-cluster-ops: triton lowered a multicast TMA load to an "
                         "unexpected '")
           << text << "' (expected `cp.async.bulk.tensor` with `" << kTmaLoadOwn << "`)";
  text.insert(barEnd + 1, ", %tlx_mask");
  StringRef from = own != std::string::npos ? kTmaLoadOwn : kTmaLoadCluster;
  text.replace(suffix, from.size(), kTmaLoadCluster.str() + ".multicast::cluster");
  text = "{\n.reg .b16 %tlx_mask;\nmov.b16 %tlx_mask, " + std::to_string(mask) + ";\n" +
         text + "\n}";
  setInlineAsm(op, text, getInlineAsmConstraints(op));
  return success();
}

// `mbarrier.arrive.shared::cta.b64 _, [$a]...` on the barrier at the same
// offset of CTA `rank`'s shared memory, with the default semantics (release
// at CTA scope) as triton's own remote arrive: `.release.cluster` costs a
// MEMBAR.ALL.GPU before each arrive.
LogicalResult remoteArrive(Operation *op, Value rank) {
  std::string text = asmText(op).str();
  size_t at = text.find(kArriveOwn.str());
  size_t close = at == std::string::npos ? at : text.find(']', at);
  if (close == std::string::npos)
    return op->emitError("tlx-lower-cluster-ops: triton lowered a remote mbarrier arrive to "
                         "an unexpected '")
           << text << "' (expected `" << kArriveOwn << "$n]`)";
  size_t operand = at + kArriveOwn.size();
  std::string address = text.substr(operand, close - operand);
  std::string rankOperand = "$" + std::to_string(op->getNumOperands());
  text.replace(at, close + 1 - at,
               "mbarrier.arrive.shared::cluster.b64 _, [%tlx_remote]");
  text = "{\n.reg .b32 %tlx_remote;\nmapa.shared::cluster.u32 %tlx_remote, " + address + ", " +
         rankOperand + ";\n" + text + "\n}";
  std::string before = getInlineAsmConstraints(op).str();
  op->insertOperands(op->getNumOperands(), rank);
  setInlineAsm(op, text, before.empty() ? "r" : before + ",r");
  return success();
}

// The rank asm paired with a remote arrive: the nearest one before it in its
// block with the arrive's number (a jit function inlined twice has two pairs
// of one number).
Value rankOf(Operation *arrive, int64_t pairing,
             const llvm::DenseMap<Operation *, Mark> &marks) {
  for (Operation *op = arrive->getPrevNode(); op; op = op->getPrevNode()) {
    auto mark = marks.find(op);
    if (mark != marks.end() && mark->second.key == kRemoteRank &&
        mark->second.value == pairing && op->getNumResults() == 1)
      return op->getResult(0);
  }
  return Value();
}

struct TLXLowerClusterOpsPass
    : impl::TLXLowerClusterOpsBase<TLXLowerClusterOpsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> order;
    llvm::DenseMap<Operation *, Mark> marks;
    getOperation().walk([&](Operation *op) {
      if (auto mark = markOf(op->getLoc())) {
        order.push_back(op);
        marks.try_emplace(op, *mark);
      }
    });
    // Each marked source op must have had its instruction rewritten.
    llvm::DenseSet<Location> pending, done;
    bool anyFailed = false;
    for (Operation *op : order) {
      const Mark &mark = marks.find(op)->second;
      if (mark.key == kRemoteRank)
        continue;
      pending.insert(op->getLoc());
      StringRef text = asmText(op);
      LogicalResult result = success();
      if (mark.key == kMulticastMask && text.contains("cp.async.bulk.tensor")) {
        result = multicast(op, mark.value);
      } else if (mark.key == kRemoteArrive && text.contains("mbarrier.arrive")) {
        Value rank = rankOf(op, mark.value, marks);
        result = rank ? remoteArrive(op, rank)
                      : op->emitError("tlx-lower-cluster-ops: a remote arrive without its rank");
      } else {
        continue;
      }
      anyFailed |= failed(result);
      done.insert(op->getLoc());
    }
    for (Location marking : pending)
      if (!done.contains(marking)) {
        emitError(marking) << "tlx-lower-cluster-ops: triton lowered this "
                           << (markOf(marking)->key == kMulticastMask ? "multicast TMA load"
                                                                      : "remote mbarrier arrive")
                           << " to no inline asm this pass recognizes";
        anyFailed = true;
      }
    for (Operation *op : order)
      op->setLoc(marks.find(op)->second.original);
    if (anyFailed)
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::triton::tlx
