#include "LayoutUtils.h"
#include "TritonByName/TritonOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::triton::tlx {

using namespace ttg_names;

bool isEncodedTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getEncoding();
}

static bool isLayoutLessTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && !tensor.getEncoding();
}

bool isLayoutBridge(Operation *op) {
  return (isOpNamed(op, kConvertLayout) || isOpNamed(op, kUnrealizedCast)) &&
         op->getNumOperands() == 1 && op->getNumResults() == 1;
}

static int64_t moduleIntAttr(Operation *op, StringRef name, int64_t fallback) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  if (module)
    if (auto attr = module->getAttrOfType<IntegerAttr>(name))
      return attr.getInt();
  return fallback;
}

int64_t numWarpsAt(Operation *op) {
  for (Operation *current = op; current; current = current->getParentOp()) {
    Operation *parent = current->getParentOp();
    if (parent && isOpNamed(parent, kWarpSpecializePartitions)) {
      unsigned region = current->getParentRegion()->getRegionNumber();
      if (auto warps = dyn_cast_or_null<DenseI32ArrayAttr>(
              parent->getParentOp()->getAttr("partitionNumWarps")))
        if (region < warps.size())
          return warps[region];
    }
    if (auto attr = current->getAttrOfType<IntegerAttr>("ttg.num-warps"))
      return attr.getInt();
  }
  return moduleIntAttr(op, "ttg.num-warps", 4);
}

int64_t threadsPerWarpAt(Operation *op) {
  return moduleIntAttr(op, "ttg.threads-per-warp", 32);
}

std::string blockedLayout(ArrayRef<int64_t> shape, int64_t numWarps,
                          int64_t threadsPerWarp, int64_t vector) {
  size_t rank = shape.size();
  SmallVector<int64_t> threads(rank, 1), warps(rank, 1), perThread(rank, 1), order;
  for (size_t i = 0; i < rank; ++i)
    order.push_back(rank - 1 - i);
  perThread[order.front()] = std::max<int64_t>(1, std::min(vector, shape[order.front()]));
  int64_t remainingThreads = threadsPerWarp, remainingWarps = numWarps;
  for (int64_t dim : order) {
    int64_t room = std::max<int64_t>(1, shape[dim] / perThread[dim]);
    int64_t t = std::min<int64_t>(remainingThreads, room);
    threads[dim] = t;
    remainingThreads /= t;
  }
  threads[order.back()] *= remainingThreads;
  for (int64_t dim : order) {
    int64_t room = std::max<int64_t>(1, shape[dim] / (threads[dim] * perThread[dim]));
    int64_t w = std::min<int64_t>(remainingWarps, room);
    warps[dim] = w;
    remainingWarps /= w;
  }
  warps[order.back()] *= remainingWarps;
  std::string text;
  llvm::raw_string_ostream os(text);
  auto list = [&](ArrayRef<int64_t> values) {
    os << "[";
    llvm::interleaveComma(values, os);
    os << "]";
  };
  os << "#ttg.blocked<{sizePerThread = ";
  list(perThread);
  os << ", threadsPerWarp = ";
  list(threads);
  os << ", warpsPerCTA = ";
  list(warps);
  os << ", order = ";
  list(order);
  os << "}>";
  return text;
}

Value createValue(OpBuilder &builder, Location loc, StringRef name,
                  ValueRange operands, Type type) {
  return createOp(builder, loc, name, operands, type)->getResult(0);
}

Value encodedOperand(Value value) {
  if (isEncodedTensor(value.getType()))
    return value;
  Operation *cast = value.getDefiningOp();
  if (cast && isOpNamed(cast, kUnrealizedCast) && cast->getNumOperands() == 1 &&
      isEncodedTensor(cast->getOperand(0).getType()))
    return cast->getOperand(0);
  return Value();
}

Value asEncoded(OpBuilder &builder, Location loc, Value value,
                RankedTensorType type) {
  if (Value encoded = encodedOperand(value)) {
    if (encoded.getType() == type)
      return encoded;
    return createValue(builder, loc, kConvertLayout, encoded, type);
  }
  return createValue(builder, loc, kUnrealizedCast, value, type);
}

void replaceWithEncoded(Value old, Value encoded) {
  if (old.use_empty())
    return;
  OpBuilder builder(encoded.getContext());
  builder.setInsertionPointAfterValue(encoded);
  Value back = createValue(builder, old.getLoc(), kUnrealizedCast, encoded,
                           old.getType());
  old.replaceAllUsesWith(back);
}

void resolveLayoutBridges(ModuleOp module) {
  SmallVector<Operation *> casts;
  module.walk([&](Operation *op) {
    if (isOpNamed(op, kUnrealizedCast) && isLayoutBridge(op) &&
        isEncodedTensor(op->getOperand(0).getType()) &&
        isLayoutLessTensor(op->getResult(0).getType()))
      casts.push_back(op);
  });
  for (Operation *cast : casts) {
    Value encoded = cast->getOperand(0);
    for (Operation *user : llvm::make_early_inc_range(cast->getUsers())) {
      if (!isLayoutBridge(user) || !isEncodedTensor(user->getResult(0).getType()))
        continue;
      Value replacement = encoded;
      if (user->getResult(0).getType() != encoded.getType()) {
        OpBuilder builder(user);
        replacement = createValue(builder, user->getLoc(), kConvertLayout,
                                  encoded, user->getResult(0).getType());
      }
      user->getResult(0).replaceAllUsesWith(replacement);
      user->erase();
    }
    if (cast->use_empty())
      cast->erase();
  }
}

} // namespace mlir::triton::tlx
