// The value model of tlx-check-hazards: integers computed from constants,
// the simulated task's known values and integer arithmetic, so that ring
// slots such as `k % STAGES` become concrete.

#include "HazardModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::triton::tlx::hazards {

std::optional<int64_t> evaluate(Value v, const DenseMap<Value, int64_t> &env, int depth) {
  auto it = env.find(v);
  if (it != env.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 64)
    return std::nullopt;
  if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
    if (auto attr = dyn_cast<IntegerAttr>(constant.getValue()))
      return attr.getValue().getSExtValue();
    return std::nullopt;
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
          arith::IndexCastUIOp>(def))
    return evaluate(def->getOperand(0), env, depth + 1);
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    std::optional<int64_t> c = evaluate(select.getCondition(), env, depth + 1);
    if (!c)
      return std::nullopt;
    return evaluate(*c ? select.getTrueValue() : select.getFalseValue(), env, depth + 1);
  }
  if (def->getNumOperands() != 2 || def->getDialect() == nullptr ||
      def->getDialect()->getNamespace() != "arith")
    return std::nullopt;
  std::optional<int64_t> a = evaluate(def->getOperand(0), env, depth + 1);
  if (!a)
    return std::nullopt;
  std::optional<int64_t> b = evaluate(def->getOperand(1), env, depth + 1);
  if (!b)
    return std::nullopt;
  int64_t x = *a, y = *b;
  if (isa<arith::AddIOp>(def))
    return x + y;
  if (isa<arith::SubIOp>(def))
    return x - y;
  if (isa<arith::MulIOp>(def))
    return x * y;
  if (isa<arith::DivSIOp, arith::DivUIOp>(def))
    return y ? std::optional<int64_t>(x / y) : std::nullopt;
  if (isa<arith::RemSIOp, arith::RemUIOp>(def))
    return y ? std::optional<int64_t>(x % y) : std::nullopt;
  if (isa<arith::AndIOp>(def))
    return x & y;
  if (isa<arith::OrIOp>(def))
    return x | y;
  if (isa<arith::XOrIOp>(def))
    return x ^ y;
  if (isa<arith::ShLIOp>(def))
    return (y >= 0 && y < 62) ? std::optional<int64_t>(x << y) : std::nullopt;
  if (isa<arith::ShRSIOp, arith::ShRUIOp>(def))
    return (y >= 0 && y < 62) ? std::optional<int64_t>(x >> y) : std::nullopt;
  if (isa<arith::MinSIOp, arith::MinUIOp>(def))
    return std::min(x, y);
  if (isa<arith::MaxSIOp, arith::MaxUIOp>(def))
    return std::max(x, y);
  if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::eq: return x == y;
    case arith::CmpIPredicate::ne: return x != y;
    case arith::CmpIPredicate::slt: case arith::CmpIPredicate::ult: return x < y;
    case arith::CmpIPredicate::sle: case arith::CmpIPredicate::ule: return x <= y;
    case arith::CmpIPredicate::sgt: case arith::CmpIPredicate::ugt: return x > y;
    case arith::CmpIPredicate::sge: case arith::CmpIPredicate::uge: return x >= y;
    }
  }
  return std::nullopt;
}

} // namespace mlir::triton::tlx::hazards

namespace mlir::triton::tlx::hazards {

/// `v` without integer casts in front of it.
static Value skipCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// The operand of binary `op` other than a constant 1 (a constant, not a
/// value that happens to be 1 now), if it has one.
static Value besideOne(Operation *op) {
  static const DenseMap<Value, int64_t> constantsOnly;
  for (unsigned k = 0; k < 2; ++k) {
    std::optional<int64_t> c = evaluate(op->getOperand(1 - k), constantsOnly);
    if (c && *c == 1)
      return op->getOperand(k);
  }
  return Value();
}

std::optional<std::pair<int64_t, int64_t>>
phaseRound(Value parity, const DenseMap<Value, int64_t> &env) {
  Operation *def = skipCasts(parity).getDefiningOp();
  bool flipped = false;
  if (def && isa<arith::XOrIOp>(def)) {
    Value inner = besideOne(def);
    if (!inner)
      return std::nullopt;
    flipped = true;
    def = skipCasts(inner).getDefiningOp();
  }
  if (!def || !isa<arith::AndIOp>(def))
    return std::nullopt;
  Value counter = besideOne(def);
  if (!counter)
    return std::nullopt;
  std::optional<int64_t> round = evaluate(counter, env);
  if (!round)
    return std::nullopt;
  // (X & 1) waits for phase X; its flip for the phase before (the previous
  // round's release, -1 on the first: a fresh barrier's completed phase).
  return std::make_pair(*round, flipped ? *round - 1 : *round);
}

} // namespace mlir::triton::tlx::hazards
