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

AddressFact factOf(DataFlowSolver &solver, Value value) {
  if (value)
    if (const AddressLattice *lattice = solver.lookupState<AddressLattice>(value))
      if (lattice->getValue().initialized)
        return lattice->getValue();
  return AddressFact::unknown(value ? shapeOf(value.getType()) : SmallVector<int64_t>{});
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

void PidAddressAnalysis::setToEntryState(AddressLattice *lattice) {
  Value value = lattice->getAnchor();
  SmallVector<int64_t> shape = shapeOf(value.getType());
  AddressFact fact = AddressFact::unknown(shape);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (arg.getOwner()->isEntryBlock() && isa_and_nonnull<FunctionOpInterface>(owner)) {
      // A kernel argument: the same in every program.
      if (isTritonPointer(value.getType())) {
        fact = AddressFact::constant(shape, 0);
        fact.base = value;
        fact.baseDivisor = getArgumentDivisibility(value);
      } else if (shape.empty()) {
        fact = AddressFact::uniform(shape, false, getArgumentDivisibility(value));
      } else {
        fact.mayVary = false;
      }
    } else if (auto loop = dyn_cast_or_null<scf::ForOp>(owner)) {
      if (arg == loop.getInductionVar())
        fact = inductionVariable(loop);
    }
  }
  propagateIfChanged(lattice, lattice->join(fact));
}

void PidAddressAnalysis::visitNonControlFlowArgumentsImpl(
    Operation *op, const RegionSuccessor &successor,
    ArrayRef<dataflow::AbstractSparseLattice *> argLattices, unsigned firstIndex) {
  // libtriton passed (ValueRange, ArrayRef): the first 16 bytes are the
  // ValueRange (both are two words passed in the same registers).
  static_assert(sizeof(ValueRange) == sizeof(argLattices) &&
                    std::is_trivially_copyable_v<ValueRange>,
                "ValueRange and ArrayRef are both two words");
  alignas(ValueRange) char bytes[sizeof(ValueRange)];
  std::memcpy(bytes, &argLattices, sizeof(ValueRange));
  for (Value value : *reinterpret_cast<const ValueRange *>(bytes))
    setToEntryState(static_cast<AddressLattice *>(getLatticeElement(value)));
}

void PidAddressAnalysis::visitNonControlFlowArgumentsImpl(
    Operation *op, const RegionSuccessor &successor, ValueRange nonSuccessorInputs,
    ArrayRef<dataflow::AbstractSparseLattice *> lattices) {
  for (dataflow::AbstractSparseLattice *lattice : lattices)
    setToEntryState(static_cast<AddressLattice *>(lattice));
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
static AddressFact otherArith(Operation *op, ArrayRef<const AddressLattice *> operands,
                              ArrayRef<int64_t> shape) {
  bool uniform = true, mayVary = false;
  for (const AddressLattice *operand : operands) {
    uniform = uniform && operand->getValue().isUniformAcrossElements();
    mayVary = mayVary || operand->getValue().mayVary;
  }
  if (operands.size() == 2 && operands[0]->getValue().isConstant() &&
      operands[1]->getValue().isConstant())
    if (std::optional<int64_t> folded =
            fold(op, operands[0]->getValue().c, operands[1]->getValue().c))
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

LogicalResult PidAddressAnalysis::visitOperation(Operation *op,
                                                 ArrayRef<const AddressLattice *> operands,
                                                 ArrayRef<AddressLattice *> results) {
  if (results.empty())
    return success();
  SmallVector<int64_t> shape = shapeOf(op->getResult(0).getType());
  auto setAll = [&](const AddressFact &fact) {
    for (AddressLattice *result : results)
      propagateIfChanged(result, result->join(fact));
  };
  auto operand = [&](unsigned i) -> const AddressFact & { return operands[i]->getValue(); };
  if (std::optional<int> axis = getProgramIdAxis(op)) {
    AddressFact fact = AddressFact::constant(shape, 0);
    fact.pid[std::clamp(*axis, 0, 2)] = 1;
    fact.mayVary = true;
    fact.uniformDivisor = 1;
    setAll(fact);
    return success();
  }
  if (isOpNamed(op, tt_names::kGetNumPrograms)) {
    setAll(AddressFact::uniform(shape, false, 1));
    return success();
  }
  if (std::optional<std::pair<int64_t, int64_t>> range = getMakeRangeBounds(op)) {
    AddressFact fact = AddressFact::constant(shape, range->first);
    if (!fact.coef.empty())
      fact.coef[0] = Coef::exact(1);
    setAll(fact);
    return success();
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    setAll(constantFact(constant, shape));
    return success();
  }
  // Everything below reads its operands: wait until they have a fact.
  for (const AddressLattice *lattice : operands)
    if (!lattice->getValue().initialized)
      return success();
  StringRef name = op->getName().getStringRef();
  if (isa<arith::AddIOp>(op))
    setAll(add(operand(0), operand(1), shape));
  else if (isa<arith::SubIOp>(op))
    setAll(add(operand(0), negate(operand(1)), shape));
  else if (isa<arith::MulIOp>(op))
    setAll(multiply(operand(0), operand(1), shape));
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
  return success();
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
