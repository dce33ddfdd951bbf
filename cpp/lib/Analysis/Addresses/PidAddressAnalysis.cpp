// The transfer functions of tlx-pid-address-analysis: MLIR's sparse forward
// dataflow over program ids, integer arithmetic, splat/broadcast/expand_dims,
// tt.make_range, tt.addptr and loads (AddressFact.h has the lattice).

#include "PidAddressAnalysis.h"
#include "TritonByName/PointerAccess.h"
#include "TritonByName/TritonOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cstring>
#include <type_traits>

namespace mlir::triton::tlx::addresses {

SmallVector<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t>(tensor.getShape());
  return {};
}

AddressFact AddressFacts::get(Value value) const {
  auto it = value ? facts.find(value) : facts.end();
  if (it != facts.end() && it->second.initialized)
    return it->second;
  return AddressFact::unknown(value ? shapeOf(value.getType()) : SmallVector<int64_t>{});
}

bool AddressFacts::set(Value value, const AddressFact &fact) {
  AddressFact &slot = facts[value];
  AddressFact joined = AddressFact::join(slot, fact);
  if (joined == slot)
    return false;
  slot = joined;
  return true;
}

static std::optional<int64_t> constantInt(Value value, int depth = 0) {
  if (!value || depth > 8)
    return std::nullopt;
  Operation *def = value.getDefiningOp();
  if (auto constant = dyn_cast_or_null<arith::ConstantOp>(def))
    if (auto attr = dyn_cast<IntegerAttr>(constant.getValue()))
      return attr.getValue().getSExtValue();
  if (isa_and_nonnull<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp>(def))
    return constantInt(def->getOperand(0), depth + 1);
  return std::nullopt;
}

// A power of two dividing a loop bound, from its definition alone.
static int64_t structuralDivisor(Value value, int depth = 0) {
  if (std::optional<int64_t> constant = constantInt(value))
    return powerOfTwoDivisor(*constant);
  Operation *def = value.getDefiningOp();
  if (!def)
    return getArgumentDivisibility(value);
  if (depth > 8)
    return 1;
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp>(def))
    return structuralDivisor(def->getOperand(0), depth + 1);
  if (isa<arith::MulIOp>(def))
    return multiplyDivisors(structuralDivisor(def->getOperand(0), depth + 1),
                            structuralDivisor(def->getOperand(1), depth + 1));
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return std::min(structuralDivisor(def->getOperand(0), depth + 1),
                    structuralDivisor(def->getOperand(1), depth + 1));
  return 1;
}

static bool isKernelArgOrConstant(Value value) {
  return constantInt(value) || (isa<BlockArgument>(value) &&
                                cast<BlockArgument>(value).getOwner()->isEntryBlock() &&
                                isa<FunctionOpInterface>(
                                    cast<BlockArgument>(value).getOwner()->getParentOp()));
}

// An scf.for induction variable: a program-independent range when its
// bounds are constants (v in [lb, last]), else a uniform value.
static AddressFact inductionVariable(scf::ForOp loop) {
  std::optional<int64_t> lb = constantInt(loop.getLowerBound()),
                         ub = constantInt(loop.getUpperBound()),
                         step = constantInt(loop.getStep());
  if (lb && ub && step && *step > 0) {
    AddressFact fact = AddressFact::constant({}, 0);
    int64_t trips = *ub > *lb ? (*ub - *lb - 1) / *step : 0;
    fact.vlo = *lb;
    fact.vhi = *lb + trips * *step;
    fact.uniformDivisor = std::min(powerOfTwoDivisor(*lb), powerOfTwoDivisor(*step));
    return fact;
  }
  bool pidFree = isKernelArgOrConstant(loop.getLowerBound()) &&
                 isKernelArgOrConstant(loop.getUpperBound()) &&
                 isKernelArgOrConstant(loop.getStep());
  return AddressFact::uniform({}, !pidFree,
                              std::min(structuralDivisor(loop.getLowerBound()),
                                       structuralDivisor(loop.getStep())));
}

// A kernel argument: the same in every program.
static AddressFact argumentFact(BlockArgument arg) {
  SmallVector<int64_t> shape = shapeOf(arg.getType());
  AddressFact fact = AddressFact::unknown(shape);
  if (isTritonPointer(arg.getType())) {
    fact = AddressFact::constant(shape, 0);
    fact.base = arg;
    fact.baseDivisor = getArgumentDivisibility(arg);
  } else if (shape.empty()) {
    fact = AddressFact::uniform(shape, false, getArgumentDivisibility(arg));
  } else {
    fact.mayVary = false;
  }
  return fact;
}

static std::optional<int64_t> fold(Operation *op, int64_t x, int64_t y) {
  if (isa<arith::DivSIOp, arith::DivUIOp>(op))
    return y ? std::optional<int64_t>(x / y) : std::nullopt;
  if (isa<arith::RemSIOp, arith::RemUIOp>(op))
    return y ? std::optional<int64_t>(x % y) : std::nullopt;
  if (isa<arith::AndIOp>(op))
    return x & y;
  if (isa<arith::OrIOp>(op))
    return x | y;
  if (isa<arith::MaxSIOp>(op))
    return std::max(x, y);
  if (isa<arith::MinSIOp>(op))
    return std::min(x, y);
  return std::nullopt;
}

// arith ops without an affine rule: folded when constant; the same for every
// element when every operand is; else unknown.
static AddressFact otherArith(Operation *op, ArrayRef<AddressFact> operands,
                              ArrayRef<int64_t> shape) {
  bool uniform = true, mayVary = false;
  for (const AddressFact &operand : operands) {
    uniform = uniform && operand.isUniformAcrossElements();
    mayVary = mayVary || operand.mayVary;
  }
  if (operands.size() == 2 && operands[0].isConstant() && operands[1].isConstant())
    if (std::optional<int64_t> folded = fold(op, operands[0].c, operands[1].c))
      return AddressFact::constant(shape, *folded);
  if (uniform)
    return AddressFact::uniform(shape, mayVary, 1);
  AddressFact fact = AddressFact::unknown(shape);
  fact.mayVary = mayVary;
  return fact;
}

static AddressFact constantFact(arith::ConstantOp op, ArrayRef<int64_t> shape) {
  Attribute value = op.getValue();
  if (auto dense = dyn_cast<DenseIntElementsAttr>(value))
    if (dense.isSplat())
      value = dense.getSplatValue<Attribute>();
  if (auto integer = dyn_cast<IntegerAttr>(value))
    return AddressFact::constant(shape, integer.getType().isInteger(1)
                                            ? int64_t(integer.getValue().getZExtValue())
                                            : integer.getValue().getSExtValue());
  AddressFact fact = AddressFact::unknown(shape);
  fact.mayVary = false;
  return fact;
}

// The fact of an op's results from its operands' facts.
static AddressFact transfer(Operation *op, ArrayRef<AddressFact> operands) {
  SmallVector<int64_t> shape = shapeOf(op->getResult(0).getType());
  AddressFact out;
  auto setAll = [&](const AddressFact &fact) { out = fact; };
  auto operand = [&](unsigned i) -> const AddressFact & { return operands[i]; };
  if (std::optional<int> axis = getProgramIdAxis(op)) {
    AddressFact fact = AddressFact::constant(shape, 0);
    fact.pid[std::clamp(*axis, 0, 2)] = 1;
    fact.mayVary = true;
    fact.uniformDivisor = 1;
    return fact;
  }
  if (isOpNamed(op, tt_names::kGetNumPrograms)) {
    return AddressFact::uniform(shape, false, 1);
  }
  if (std::optional<std::pair<int64_t, int64_t>> range = getMakeRangeBounds(op)) {
    AddressFact fact = AddressFact::constant(shape, range->first);
    if (!fact.coef.empty())
      fact.coef[0] = Coef::exact(1);
    return fact;
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    return constantFact(constant, shape);
  }
  StringRef name = op->getName().getStringRef();
  if (isa<arith::AddIOp>(op))
    setAll(add(operand(0), operand(1), shape));
  else if (isa<arith::SubIOp>(op))
    setAll(add(operand(0), negate(operand(1)), shape));
  else if (isa<arith::MulIOp>(op))
    setAll(multiply(operand(0), operand(1), shape));
  else if (isa<arith::RemSIOp, arith::RemUIOp>(op) && !operand(1).isConstant())
    setAll(remainder(operand(0), operand(1), shape));
  else if (isa<arith::ShLIOp>(op) && operand(1).isConstant() && operand(1).c >= 0 &&
           operand(1).c < 62)
    setAll(scale(operand(0), int64_t(1) << operand(1).c));
  else if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
               arith::IndexCastUIOp>(op) ||
           name == ttg_names::kConvertLayout || name == tt_names::kSplat ||
           name == tt_names::kBroadcast)
    setAll(reshapeTo(operand(0), shape));
  else if (std::optional<int> axis = getExpandDimsAxis(op))
    setAll(expandDims(operand(0), *axis, shape));
  else if (name == tt_names::kAddPtr) {
    int64_t bytes = getPointeeBytes(op->getResult(0).getType());
    AddressFact fact = bytes ? add(operand(0), scale(operand(1), bytes), shape)
                             : AddressFact::unknown(shape);
    setAll(fact);
  } else if (auto select = dyn_cast<arith::SelectOp>(op)) {
    const AddressFact &cond = operand(0), &a = operand(1), &b = operand(2);
    AddressFact fact = a == b ? a : AddressFact::join(a, b);
    if (!(a == b) && !cond.isUniformAcrossElements())
      fact = AddressFact::unknown(shape);
    fact.mayVary = fact.mayVary || cond.mayVary;
    setAll(fact);
  } else if (name == tt_names::kLoad) {
    // Loaded values are data: unknown, the same for every element only when
    // every element reads one address.
    setAll(operand(0).isUniformAcrossElements() ? AddressFact::uniform(shape, true, 1)
                                                : AddressFact::unknown(shape));
  } else if (op->getDialect() && op->getDialect()->getNamespace() == "arith") {
    setAll(otherArith(op, operands, shape));
  } else {
    setAll(shape.empty() ? AddressFact::uniform(shape, true, 1) : AddressFact::unknown(shape));
  }
  return out;
}

AddressFacts::AddressFacts(ModuleOp module) {
  module.walk([&](FunctionOpInterface func) {
    if (func.isExternal())
      return WalkResult::skip();
    Block &entry = func.getFunctionBody().front();
    for (BlockArgument arg : entry.getArguments())
      set(arg, argumentFact(arg));
    for (Block &block : func.getFunctionBody())
      visitBlock(block);
    return WalkResult::skip();
  });
}

void AddressFacts::visitBlock(Block &block) {
  for (Operation &op : block)
    visitOp(&op);
}

void AddressFacts::visitOp(Operation *op) {
  if (isa<scf::ForOp>(op))
    return visitFor(op);
  if (isa<scf::IfOp>(op))
    return visitIf(op);
  if (op->getNumRegions())
    return visitOtherRegions(op);
  if (op->getNumResults() == 0)
    return;
  SmallVector<AddressFact> operands;
  for (Value operand : op->getOperands())
    operands.push_back(get(operand));
  AddressFact fact = transfer(op, operands);
  for (Value result : op->getResults())
    set(result, fact.initialized ? fact : AddressFact::unknown(shapeOf(result.getType())));
}

// Carried values start as the inits and take the yielded values until
// nothing changes (joins only lose knowledge: a few rounds); a loop that
// does not settle within the bound leaves them unknown.
void AddressFacts::visitFor(Operation *op) {
  auto loop = cast<scf::ForOp>(op);
  Block &body = *loop.getBody();
  set(loop.getInductionVar(), inductionVariable(loop));
  for (auto [arg, init] : llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    set(arg, get(init));
  Operation *yield = body.getTerminator();
  bool settled = false;
  for (int round = 0; round < 16 && !settled; ++round) {
    visitBlock(body);
    settled = true;
    for (auto [arg, next] : llvm::zip(loop.getRegionIterArgs(), yield->getOperands()))
      settled &= !set(arg, get(next));
  }
  if (!settled)
    for (BlockArgument arg : loop.getRegionIterArgs())
      facts[arg] = AddressFact::unknown(shapeOf(arg.getType()));
  for (auto [result, arg] : llvm::zip(loop.getResults(), loop.getRegionIterArgs()))
    set(result, get(arg));
}

void AddressFacts::visitIf(Operation *op) {
  auto branch = cast<scf::IfOp>(op);
  for (Region &region : op->getRegions()) {
    if (region.empty())
      continue;
    visitBlock(region.front());
    Operation *yield = region.front().getTerminator();
    for (auto [result, value] : llvm::zip(branch.getResults(), yield->getOperands()))
      set(result, get(value));
  }
  bool mayVary = get(branch.getCondition()).mayVary;
  for (Value result : branch.getResults()) {
    AddressFact fact = get(result);
    fact.mayVary = fact.mayVary || mayVary;
    facts[result] = fact;
  }
}

// Other ops with regions (scf.while, warp_specialize, reductions): their
// block arguments are unknown, except a warp_specialize partition's, which
// are its captures; their results are unknown.
void AddressFacts::visitOtherRegions(Operation *op) {
  bool partitions = isOpNamed(op, ttg_names::kWarpSpecializePartitions);
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      for (BlockArgument arg : block.getArguments())
        set(arg, partitions && arg.getArgNumber() < op->getNumOperands()
                     ? get(op->getOperand(arg.getArgNumber()))
                     : AddressFact::unknown(shapeOf(arg.getType())));
      visitBlock(block);
    }
  for (Value result : op->getResults())
    set(result, AddressFact::unknown(shapeOf(result.getType())));
}

std::string baseName(Value base, bool preferSourceName) {
  auto arg = dyn_cast_or_null<BlockArgument>(base);
  if (!arg)
    return "?";
  if (preferSourceName)
    if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
      return name.getName().str();
  return "%arg" + std::to_string(arg.getArgNumber());
}

} // namespace mlir::triton::tlx::addresses
