// tlx-pid-address-analysis (see Passes.td): runs the dataflow analysis
// (PidAddressAnalysis.cpp) and reports its facts as remarks, the global
// accesses as JSON lines and cross-program writes as warnings.

#include "PidAddressAnalysis.h"
#include "TritonByName/MemDesc.h"
#include "TritonByName/PointerAccess.h"
#include "TritonByName/TritonOps.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "tlx_alias/Support/Location.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FileSystem.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXPIDADDRESSANALYSIS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace addresses;

std::string jsonString(StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

std::string jsonList(ArrayRef<int64_t> values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

// What one global access amounts to.
struct AccessReport {
  std::string op, pattern, base, reason;
  SmallVector<int64_t> axes, strides, box, offset;
  int64_t blockElems = 1, elementBytes = 0;
  Coalescing coalescing;
  bool isTma = false;
};

// "axis=0, stride=128" or "axes=[0, 1], strides=[128, 4096]".
std::string pidText(const AddressFact &fact) {
  SmallVector<int64_t> axes, strides;
  for (int a = 0; a < 3; ++a)
    if (fact.pid[a]) {
      axes.push_back(a);
      strides.push_back(fact.pid[a]);
    }
  if (axes.size() == 1)
    return "axis=" + std::to_string(axes[0]) + ", stride=" + std::to_string(strides[0]);
  return "axes=" + jsonList(axes) + ", strides=" + jsonList(strides);
}

std::string offsetText(const AddressFact &fact) {
  std::optional<std::pair<int64_t, int64_t>> range = fact.offsetRange();
  if (!range)
    return "?";
  if (range->first == range->second)
    return std::to_string(range->first);
  return "[" + std::to_string(range->first) + "," + std::to_string(range->second) + "]";
}

// Whether `value` is computed from tt.get_program_id (through operands,
// loop-carried values and bounds, warp_specialize captures).
bool dependsOnProgramId(Value value, DenseSet<Value> &visited) {
  if (!value || !visited.insert(value).second)
    return false;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto loop = dyn_cast_or_null<scf::ForOp>(owner)) {
      if (arg == loop.getInductionVar())
        return dependsOnProgramId(loop.getLowerBound(), visited) ||
               dependsOnProgramId(loop.getStep(), visited);
      unsigned i = arg.getArgNumber() - 1;
      return dependsOnProgramId(loop.getInitArgs()[i], visited) ||
             dependsOnProgramId(loop.getBody()->getTerminator()->getOperand(i), visited);
    }
    if (owner && isOpNamed(owner, ttg_names::kWarpSpecializePartitions) &&
        arg.getArgNumber() < owner->getNumOperands())
      return dependsOnProgramId(owner->getOperand(arg.getArgNumber()), visited);
    return false;
  }
  Operation *def = value.getDefiningOp();
  if (getProgramIdAxis(def))
    return true;
  if (auto loop = dyn_cast<scf::ForOp>(def)) {
    unsigned i = cast<OpResult>(value).getResultNumber();
    return dependsOnProgramId(loop.getInitArgs()[i], visited) ||
           dependsOnProgramId(loop.getBody()->getTerminator()->getOperand(i), visited);
  }
  return llvm::any_of(def->getOperands(),
                      [&](Value operand) { return dependsOnProgramId(operand, visited); });
}

struct TLXPidAddressAnalysisPass
    : impl::TLXPidAddressAnalysisBase<TLXPidAddressAnalysisPass> {
  using TLXPidAddressAnalysisBase::TLXPidAddressAnalysisBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    AddressFacts facts(module);
    // Only a kernel that divides global memory by program id (some access's
    // address or TMA coordinates depend on it) is taken to run as several
    // programs: its stores are compared across programs; one that reads its
    // program id for anything else only (a ring slot) may run as one.
    DenseSet<Operation *> multiProgram;
    module.walk([&](Operation *op) {
      std::optional<GlobalAccess> access = getGlobalAccess(op);
      if (!access)
        return;
      SmallVector<Value> addresses;
      if (access->ptr)
        addresses.push_back(access->ptr);
      else
        for (Value operand : op->getOperands())
          if (operand.getType().isIntOrIndex())
            addresses.push_back(operand);
      DenseSet<Value> visited;
      if (llvm::any_of(addresses, [&](Value v) { return dependsOnProgramId(v, visited); }))
        if (auto func = op->getParentOfType<FunctionOpInterface>())
          multiProgram.insert(func);
    });
    std::string lines;
    module.walk([&](Operation *op) {
      if (std::optional<GlobalAccess> access = getGlobalAccess(op)) {
        AccessReport report = describeAccess(facts, op, *access);
        if (remarks)
          op->emitRemark(patternText(report));
        lines += jsonLine(op, report);
        auto func = op->getParentOfType<FunctionOpInterface>();
        if (op->getName().getStringRef() == tt_names::kStore && access->ptr &&
            multiProgram.contains(func)) {
          std::string race = findCrossProgramRace(facts, op, facts.get(access->ptr),
                                                  getPointeeBytes(access->ptr.getType()),
                                                  access->mask);
          if (!race.empty())
            op->emitWarning(race);
        }
        return;
      }
      if (remarks && op->getNumResults() == 1)
        remarkValue(facts, op);
    });
    if (!report.empty()) {
      std::error_code error;
      llvm::raw_fd_ostream os(report, error, llvm::sys::fs::OF_Append);
      if (error) {
        module.emitError("tlx-pid-address-analysis: cannot write ") << report << ": "
                                                                      << error.message();
        return signalPassFailure();
      }
      os << lines;
    }
  }

  // PID_INFO / ADDR_INFO for a program-dependent integer or pointer.
  void remarkValue(const AddressFacts &facts, Operation *op) {
    Value value = op->getResult(0);
    Type element = getElementTypeOrSelf(value.getType());
    bool pointer = isTritonPointer(element);
    if (!pointer && !element.isIntOrIndex())
      return;
    AddressFact fact = facts.get(value);
    if (!fact.isExact() || !fact.hasPid())
      return;
    if (!pointer) {
      op->emitRemark("PID_INFO(" + pidText(fact) + ", offset=" + offsetText(fact) +
                     (fact.isUniformAcrossElements() ? "" : ", elem_range") + ")");
      return;
    }
    if (!fact.base)
      return;
    int64_t bytes = getPointeeBytes(value.getType());
    Coalescing coalescing = analyzeCoalescing(facts, fact, bytes, value.getType(), Value(),
                                              getNumThreadsAt(op));
    op->emitRemark("ADDR_INFO(base=" + baseName(fact.base, false) + ", " + pidText(fact) +
                   ", offset=" + offsetText(fact) +
                   ", coalesced=" + (coalescing.coalesced ? "true" : "false") + ")");
  }

  static AccessReport describeAccess(const AddressFacts &facts, Operation *op,
                                     const GlobalAccess &access) {
    AccessReport report;
    report.op = access.kind.str();
    if (access.descriptor) {
      report.isTma = true;
      report.pattern = "TMA";
      if (RankedTensorType block = getTensorDescBlockType(access.descriptor.getType())) {
        report.box.assign(block.getShape().begin(), block.getShape().end());
        report.elementBytes =
            std::max<int64_t>(1, block.getElementType().getIntOrFloatBitWidth() / 8);
        report.blockElems = block.getNumElements();
      }
      report.coalescing.bestVectorBytes = -1;
      return report;
    }
    AddressFact fact = facts.get(access.ptr);
    report.elementBytes = getPointeeBytes(access.ptr.getType());
    for (int64_t size : fact.shape)
      report.blockElems *= size;
    report.base = fact.base ? baseName(fact.base, true) : "";
    if (!fact.isExact() || !fact.base)
      report.pattern = "UNKNOWN";
    else
      report.pattern = fact.hasPid() ? "PID_AFFINE" : "PID_INDEPENDENT";
    if (report.pattern != "UNKNOWN") {
      for (int a = 0; a < 3; ++a)
        if (fact.pid[a]) {
          report.axes.push_back(a);
          report.strides.push_back(fact.pid[a]);
        }
      if (std::optional<std::pair<int64_t, int64_t>> range = fact.offsetRange())
        report.offset = {range->first, range->second};
    }
    report.coalescing = analyzeCoalescing(facts, fact, report.elementBytes,
                                          access.ptr.getType(), access.mask,
                                          getNumThreadsAt(op));
    return report;
  }

  static std::string patternText(const AccessReport &report) {
    if (report.isTma)
      return "PATTERN(TMA, box=" + jsonList(report.box) +
             ", element_bytes=" + std::to_string(report.elementBytes) + ")";
    std::string text = "PATTERN(" + report.pattern +
                       ", block_size=" + std::to_string(report.blockElems);
    if (report.axes.size() == 1)
      text += (report.axes[0] ? ", axis=" + std::to_string(report.axes[0]) : "") +
              ", stride=" + std::to_string(report.strides[0]);
    else if (report.axes.size() > 1)
      text += ", axes=" + jsonList(report.axes) + ", strides=" + jsonList(report.strides);
    const Coalescing &c = report.coalescing;
    text += std::string(", coalesced=") + (c.coalesced ? "true" : "false");
    if (c.vectorBytes >= 0)
      text += ", vector_bytes=" + std::to_string(c.vectorBytes) +
              ", best_vector_bytes=" + std::to_string(c.bestVectorBytes);
    if (c.vectorBytes >= 0 && !c.reason.empty())
      text += ", reason=\"" + c.reason + "\"";
    return text + ")";
  }

  static std::string jsonLine(Operation *op, const AccessReport &report) {
    const Coalescing &c = report.coalescing;
    auto optional = [](int64_t value) {
      return value >= 0 ? std::to_string(value) : std::string("null");
    };
    return "{\"op\": " + jsonString(report.op) +
           ", \"name\": " + jsonString(op->getName().getStringRef()) +
           ", \"location\": " + jsonString(tlx_alias::describeLocation(op->getLoc())) +
           ", \"pattern\": " + jsonString(report.pattern) +
           ", \"base\": " + jsonString(report.base) + ", \"axes\": " + jsonList(report.axes) +
           ", \"strides\": " + jsonList(report.strides) +
           ", \"offset\": " + (report.offset.empty() ? "null" : jsonList(report.offset)) +
           ", \"block_elems\": " + std::to_string(report.blockElems) +
           ", \"element_bytes\": " + std::to_string(report.elementBytes) +
           ", \"coalesced\": " + (c.coalesced ? "true" : "false") +
           ", \"vector_bytes\": " + optional(c.vectorBytes) +
           ", \"best_vector_bytes\": " + optional(c.bestVectorBytes) +
           ", \"reason\": " + jsonString(c.reason) +
           ", \"box\": " + (report.isTma ? jsonList(report.box) : "null") + "}\n";
  }
};

} // namespace
} // namespace mlir::triton::tlx
