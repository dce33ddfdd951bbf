// What triton's TTGIR->LLVM lowering cannot express, carried through it in
// locations and written into the PTX it emits: tlx-ops-as-marks and
// tlx-lower-marked-ops (see Passes.td). Multicast TMA loads, TMA copies' L2
// eviction priority and remote mbarrier arrives.

#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "TritonByName/TritonOps.h"
#include "tlx_alias/Support/Location.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <string>

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXOPSASMARKS
#define GEN_PASS_DEF_TLXLOWERMARKEDOPS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

// The attributes tlx-convert-tma and the frontend put on triton's ops (and
// the marks' metadata keys).
constexpr StringLiteral kMulticastMask = "tlx.multicast_mask";
constexpr StringLiteral kL2Eviction = "tlx.l2_eviction";
constexpr StringLiteral kRemoteArrive = "tlx.remote_arrive";
constexpr StringLiteral kRemoteRank = "tlx.remote_rank";
constexpr StringLiteral kMarkKeys[] = {kMulticastMask, kL2Eviction, kRemoteArrive, kRemoteRank};

// triton's EvictionPolicy values (TritonAttrDefs.td) a mark carries.
constexpr int64_t kEvictFirst = 2, kEvictLast = 3;

// What triton emits for a TMA load into its own CTA (3.7 to 3.9) and for an
// arrive (a leader's, or every thread's after tlx-lower-thread-arrives).
constexpr StringLiteral kTmaLoadOwn = ".shared::cta.global.mbarrier::complete_tx::bytes";
constexpr StringLiteral kTmaLoadCluster = ".shared::cluster.global.mbarrier::complete_tx::bytes";
constexpr StringLiteral kArriveOwn = "mbarrier.arrive.shared::cta.b64 _, [";

struct TLXOpsAsMarksPass : impl::TLXOpsAsMarksBase<TLXOpsAsMarksPass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      SmallVector<NamedAttribute> entries;
      for (StringRef key : kMarkKeys)
        if (Attribute value = op->getAttr(key)) {
          entries.push_back(NamedAttribute(StringAttr::get(op->getContext(), key), value));
          op->removeAttr(key);
        }
      if (!entries.empty())
        op->setLoc(tlx_alias::markLocation(op->getLoc(), entries));
    });
  }
};

// An op's marks: each key's integer, and the location they wrap.
struct Marks {
  DictionaryAttr entries;
  Location original;

  std::optional<int64_t> get(StringRef key) const {
    if (auto value = dyn_cast_or_null<IntegerAttr>(entries.get(key)))
      return value.getInt();
    return std::nullopt;
  }
};

std::optional<Marks> marksOf(Location loc) {
  auto marked = tlx_alias::markOfLocation(loc);
  if (!marked || !llvm::any_of(kMarkKeys, [&](StringRef key) { return marked->first.get(key); }))
    return std::nullopt;
  return Marks{marked->first, marked->second};
}

StringRef asmText(Operation *op) {
  StringAttr text = getInlineAsmText(op);
  return text ? text.getValue() : StringRef();
}

// Where the TMA load's qualifiers start (".shared::cta..." or
// ".shared::cluster..."), or npos.
size_t tmaLoadSuffix(StringRef text) {
  if (!text.contains("cp.async.bulk.tensor."))
    return StringRef::npos;
  size_t own = text.find(kTmaLoadOwn);
  return own != StringRef::npos ? own : text.find(kTmaLoadCluster);
}

// A TMA copy's instruction: a load (`cp.async.bulk.tensor`), a store (the
// same, `.global.shared::cta.bulk_group`) or a reduce
// (`cp.reduce.async.bulk.tensor`).
constexpr StringLiteral kTmaCopy = "async.bulk.tensor.";

// `...complete_tx::bytes [$d], [$desc, {...}], [$bar]...` multicast to the
// CTAs of `mask`: the destination in the cluster's window, the mask after
// the mbarrier operand.
LogicalResult multicast(Operation *op, int64_t mask) {
  std::string text = asmText(op).str();
  size_t suffix = tmaLoadSuffix(text);
  size_t bar = suffix == StringRef::npos ? suffix : text.find("], [", text.find("}]", suffix));
  size_t barEnd = bar == std::string::npos ? bar : text.find(']', bar + 4);
  if (barEnd == std::string::npos)
    return op->emitError("tlx-lower-marked-ops: triton lowered a multicast TMA load to an unexpected '")
           << text << "' (expected `cp.async.bulk.tensor` with `" << kTmaLoadOwn << "`)";
  text.insert(barEnd + 1, ", %tlx_mask");
  StringRef from = StringRef(text).substr(suffix).starts_with(kTmaLoadOwn) ? kTmaLoadOwn : kTmaLoadCluster;
  text.replace(suffix, from.size(), kTmaLoadCluster.str() + ".multicast::cluster");
  text = "{\n.reg .b16 %tlx_mask;\nmov.b16 %tlx_mask, " + std::to_string(mask) + ";\n" + text + "\n}";
  setInlineAsm(op, text, getInlineAsmConstraints(op));
  return success();
}

// A TMA copy with an L2 eviction priority: `.L2::cache_hint` last among the
// qualifiers (after a load's `.multicast::cluster`, a store's `.bulk_group`)
// and a `createpolicy` (the whole line at that priority) as the last operand,
// after a multicast's mask (PTX ISA, cp.async.bulk.tensor and
// cp.reduce.async.bulk.tensor).
LogicalResult l2CacheHint(Operation *op, int64_t eviction) {
  if (eviction != kEvictFirst && eviction != kEvictLast)
    return op->emitError("tlx-lower-marked-ops: unknown L2 eviction policy ") << eviction;
  std::string text = asmText(op).str();
  size_t copy = text.find(kTmaCopy.str());
  size_t qualifiersEnd = copy == std::string::npos ? copy : text.find(' ', copy);
  size_t end = qualifiersEnd == std::string::npos ? qualifiersEnd : text.find(';', qualifiersEnd);
  if (end == std::string::npos || text.find("L2::cache_hint") != std::string::npos)
    return op->emitError("tlx-lower-marked-ops: triton lowered a TMA copy with an L2 eviction "
                         "policy to an unexpected '")
           << text << "' (expected `" << kTmaCopy << "...` without a cache hint)";
  text.insert(end, ", %tlx_policy");
  text.insert(qualifiersEnd, ".L2::cache_hint");
  StringRef priority = eviction == kEvictLast ? "evict_last" : "evict_first";
  text = "{\n.reg .b64 %tlx_policy;\ncreatepolicy.fractional.L2::" + priority.str() +
         ".b64 %tlx_policy, 1.0;\n" + text + "\n}";
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
    return op->emitError("tlx-lower-marked-ops: triton lowered a remote mbarrier arrive to "
                         "an unexpected '")
           << text << "' (expected `" << kArriveOwn << "$n]`)";
  size_t operand = at + kArriveOwn.size();
  std::string address = text.substr(operand, close - operand);
  std::string rankOperand = "$" + std::to_string(op->getNumOperands());
  text.replace(at, close + 1 - at, "mbarrier.arrive.shared::cluster.b64 _, [%tlx_remote]");
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
Value rankOf(Operation *arrive, int64_t pairing, const llvm::DenseMap<Operation *, Marks> &marks) {
  for (Operation *op = arrive->getPrevNode(); op; op = op->getPrevNode()) {
    auto mark = marks.find(op);
    if (mark != marks.end() && mark->second.get(kRemoteRank) == pairing && op->getNumResults() == 1)
      return op->getResult(0);
  }
  return Value();
}

// What a marked source op is, for the error when nothing it became matched.
StringRef markedWhat(const Marks &marks) {
  if (marks.get(kMulticastMask))
    return "multicast TMA load";
  return marks.get(kL2Eviction) ? "TMA copy with an L2 eviction policy" : "remote mbarrier arrive";
}

struct TLXLowerMarkedOpsPass : impl::TLXLowerMarkedOpsBase<TLXLowerMarkedOpsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> order;
    llvm::DenseMap<Operation *, Marks> marks;
    getOperation().walk([&](Operation *op) {
      if (auto found = marksOf(op->getLoc())) {
        order.push_back(op);
        marks.try_emplace(op, *found);
      }
    });
    // The marks leave the locations first: errors name the kernel's line.
    for (Operation *op : order)
      op->setLoc(marks.find(op)->second.original);
    // Each marked source op must have had its instruction rewritten.
    llvm::DenseMap<Location, StringRef> pending;
    llvm::DenseSet<Location> done;
    bool anyFailed = false;
    for (Operation *op : order) {
      const Marks &mark = marks.find(op)->second;
      if (mark.get(kRemoteRank))
        continue;
      pending.try_emplace(op->getLoc(), markedWhat(mark));
      StringRef text = asmText(op);
      LogicalResult result = success();
      if (text.contains(kTmaCopy) && (mark.get(kMulticastMask) || mark.get(kL2Eviction))) {
        if (std::optional<int64_t> mask = mark.get(kMulticastMask))
          result = multicast(op, *mask);
        if (std::optional<int64_t> eviction = mark.get(kL2Eviction); eviction && succeeded(result))
          result = l2CacheHint(op, *eviction);
      } else if (std::optional<int64_t> pairing = mark.get(kRemoteArrive);
                 pairing && text.contains("mbarrier.arrive")) {
        Value rank = rankOf(op, *pairing, marks);
        result = rank ? remoteArrive(op, rank)
                      : op->emitError("tlx-lower-marked-ops: a remote arrive without its rank");
      } else {
        continue;
      }
      anyFailed |= failed(result);
      done.insert(op->getLoc());
    }
    for (auto [marking, what] : pending)
      if (!done.contains(marking)) {
        emitError(marking) << "tlx-lower-marked-ops: triton lowered this " << what
                           << " to no inline asm this pass recognizes";
        anyFailed = true;
      }
    if (anyFailed)
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::triton::tlx
