// tlx-thread-arrives-as-expects and tlx-lower-thread-arrives: a warp
// barrier's arrive is every thread's own, with no bar.sync of the warp group
// around it; tlx-lower-thread-arrives also turns the expects that
// tlx-unchained-waits-as-expects marked back into waits (see Passes.td).

#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "BarrierMarks.h"
#include "TritonByName/TritonOps.h"
#include "tlx_alias/Support/Location.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXTHREADARRIVESASEXPECTS
#define GEN_PASS_DEF_TLXLOWERTHREADARRIVES
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace ttg_names;

constexpr StringLiteral kAnd = "llvm.and";
constexpr StringLiteral kICmp = "llvm.icmp";
// Triton's lowering of ttng.barrier_expect: `@$0 mbarrier.arrive.expect_tx...`
// by the leader thread ($0 = leader && pred).
constexpr StringLiteral kExpectAsm = "mbarrier.arrive.expect_tx";
// Triton's lowering of ttng.wait_barrier, the phase's parity taken from the
// predicate ($0) a marked wait's expect carries.
constexpr StringLiteral kWaitOnParityAsm =
    "\n{\n\t.reg .pred complete;\n\t.reg .b32 parity;\n\tselp.b32 parity, 1, 0, $0;\n"
    "\twaitLoop:\n\tmbarrier.try_wait.parity.shared::cta.b64 complete, [$1], parity;\n"
    "\t@!complete bra.uni waitLoop;\n}\n";

struct Mark {
  int64_t count; // 0: a wait (tlx-unchained-waits-as-expects)
  bool predicated;
  Location original;
};

std::optional<Mark> markOf(Location loc) {
  auto marked = tlx_alias::markOfLocation(loc);
  if (!marked)
    return std::nullopt;
  if (marked->first.get(kUnchainedWait))
    return Mark{0, true, marked->second};
  auto count = dyn_cast_or_null<IntegerAttr>(marked->first.get(kPerThread));
  if (!count)
    return std::nullopt;
  return Mark{count.getInt(), static_cast<bool>(marked->first.get(kPredicated)), marked->second};
}

struct TLXThreadArrivesAsExpectsPass
    : impl::TLXThreadArrivesAsExpectsBase<TLXThreadArrivesAsExpectsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> arrives;
    getOperation().walk([&](Operation *op) {
      if (isOpNamed(op, kArriveBarrier) && op->hasAttr(kPerThread))
        arrives.push_back(op);
    });
    for (Operation *arrive : arrives) {
      OpBuilder builder(arrive);
      bool predicated = arrive->getNumOperands() > 1;
      SmallVector<NamedAttribute> meta{
          builder.getNamedAttr(kPerThread, arrive->getAttr(kPerThread))};
      if (predicated)
        meta.push_back(builder.getNamedAttr(kPredicated, builder.getUnitAttr()));
      Location loc = tlx_alias::markLocation(arrive->getLoc(), meta);
      Value pred = predicated
                       ? arrive->getOperand(1)
                       : arith::ConstantOp::create(builder, arrive->getLoc(),
                                                   builder.getBoolAttr(true))
                             .getResult();
      createOp(builder, loc, kBarrierExpect, {arrive->getOperand(0), pred}, {},
               builder.getNamedAttr("size", builder.getI32IntegerAttr(0)));
      arrive->erase();
    }
  }
};

struct TLXLowerThreadArrivesPass
    : impl::TLXLowerThreadArrivesBase<TLXLowerThreadArrivesPass> {
  void runOnOperation() override {
    SmallVector<std::pair<Operation *, Mark>> marked;
    getOperation().walk([&](Operation *op) {
      if (auto mark = markOf(op->getLoc()))
        marked.push_back({op, *mark});
    });
    bool anyFailed = false;
    for (auto &[op, mark] : marked) {
      op->setLoc(mark.original);
      if (isOpNamed(op, kLLVMInlineAsm) && failed(lowerArrive(op, mark)))
        anyFailed = true;
    }
    if (anyFailed)
      signalPassFailure();
  }

  // `@$0 mbarrier.arrive.expect_tx... [$1], 0` (pred, address) becomes an
  // arrive of every thread: unpredicated, or on the arrive's own predicate,
  // the operand of triton's `and` that is not its leader test; or, marked as
  // a wait, every thread's wait for the phase whose parity that operand is.
  LogicalResult lowerArrive(Operation *op, const Mark &mark) {
    StringAttr text = getInlineAsmText(op);
    Value leaderPred, address;
    for (Value operand : op->getOperands())
      (operand.getType().isInteger(1) ? leaderPred : address) = operand;
    if (!text || !text.getValue().contains(kExpectAsm) || op->getNumOperands() != 2 ||
        !leaderPred || !address)
      return op->emitError("tlx-lower-thread-arrives: triton lowered a warp "
                           "barrier's arrive (or an unchained wait) to an unexpected ")
             << (text ? "'" + text.getValue().str() + "'" : std::string("op"))
             << " (expected `@$0 " << kExpectAsm
             << "` on a predicate and an address)";
    SmallVector<Value> operands;
    std::string asmText, constraints;
    std::string count =
        mark.count == 1 ? std::string() : ", " + std::to_string(mark.count);
    if (mark.predicated) {
      Operation *both = leaderPred.getDefiningOp();
      if (!isOpNamed(both, kAnd) || !isOpNamed(both->getOperand(0).getDefiningOp(), kICmp))
        return op->emitError("tlx-lower-thread-arrives: the predicate of triton's "
                             "lowering is not `and(leader test, pred)`");
      operands = {both->getOperand(1), address};
      asmText = mark.count == 0 ? kWaitOnParityAsm.str()
                                : "@$0 mbarrier.arrive.shared::cta.b64 _, [$1]" + count + ";";
      constraints = "b,r";
    } else {
      operands = {address};
      asmText = "mbarrier.arrive.shared::cta.b64 _, [$0]" + count + ";";
      constraints = "r";
    }
    op->setOperands(operands);
    setInlineAsm(op, asmText, constraints);
    return success();
  }
};

} // namespace
} // namespace mlir::triton::tlx
