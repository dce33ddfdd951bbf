// tlx-convert-local-memory: tlx.local_load/local_store -> ttg ones, with the
// layouts the TTIR->TTGIR conversion gave their neighbours.
//
// Triton's convert-triton-to-tritongpu has no patterns for memory ops; it
// leaves our ops with layout-less tensors: a loaded tensor reaches its
// converted users through ttg.convert_layout (or an unrealized cast), and a
// stored tensor arrives through an unrealized cast from its encoded form.

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "tlx_alias/Dialect/TLX/Transforms/TritonOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXCONVERTLOCALMEMORY
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace ttg_names;

bool isEncodedTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getEncoding();
}

bool isLayoutBridge(Operation *op) {
  return (isOpNamed(op, kConvertLayout) || isOpNamed(op, kUnrealizedCast)) &&
         op->getNumOperands() == 1 && op->getNumResults() == 1;
}

int64_t moduleIntAttr(ModuleOp module, StringRef name, int64_t fallback) {
  if (auto attr = module->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return fallback;
}

// A blocked layout over `shape`: `vector` consecutive elements per thread
// along the fastest dimension (1 gives triton's default layout), then threads
// and warps spread over the fastest-varying dimensions first.
std::string blockedLayout(ArrayRef<int64_t> shape, int64_t numWarps,
                          int64_t threadsPerWarp, int64_t vector = 1) {
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

LogicalResult convertLoad(LocalLoadOp load, ModuleOp module) {
  auto tensorType = cast<RankedTensorType>(load.getType());
  // The layout the users ask for, else Triton's default.
  RankedTensorType encodedType;
  for (Operation *user : load->getUsers())
    if (isLayoutBridge(user) && isEncodedTensor(user->getResult(0).getType())) {
      encodedType = cast<RankedTensorType>(user->getResult(0).getType());
      break;
    }
  if (!encodedType) {
    Attribute encoding = parseAttributeText(
        load.getContext(),
        blockedLayout(tensorType.getShape(),
                             moduleIntAttr(module, "ttg.num-warps", 4),
                             moduleIntAttr(module, "ttg.threads-per-warp", 32)),
        [&] { return load.emitOpError(); });
    if (!encoding)
      return failure();
    encodedType = RankedTensorType::get(tensorType.getShape(),
                                        tensorType.getElementType(), encoding);
  }
  OpBuilder builder(load);
  Value loaded = createValue(builder, load.getLoc(), kLocalLoad, load.getSrc(), encodedType);
  for (OpOperand &use : llvm::make_early_inc_range(load->getUses())) {
    Operation *user = use.getOwner();
    if (isLayoutBridge(user) && user->getResult(0).getType() == encodedType) {
      user->getResult(0).replaceAllUsesWith(loaded);
      user->erase();
    } else if (isLayoutBridge(user) && isEncodedTensor(user->getResult(0).getType())) {
      OpBuilder at(user);
      Value converted = createValue(at, user->getLoc(), kConvertLayout, loaded,
                                    user->getResult(0).getType());
      user->getResult(0).replaceAllUsesWith(converted);
      user->erase();
    } else if (isa<LocalStoreOp>(user)) {
      use.set(loaded); // converted right after
    } else {
      return user->emitOpError("uses a tlx.local_load result that has no layout "
                               "after the TTGIR conversion");
    }
  }
  load.erase();
  return success();
}

// The encoded form of an operand the conversion left behind an unrealized
// cast; null when there is none.
Value encodedOperand(Value value) {
  if (isEncodedTensor(value.getType()))
    return value;
  Operation *cast = value.getDefiningOp();
  if (cast && isOpNamed(cast, kUnrealizedCast) && cast->getNumOperands() == 1 &&
      isEncodedTensor(cast->getOperand(0).getType()))
    return cast->getOperand(0);
  return Value();
}

void eraseDeadCasts(ArrayRef<Value> operands) {
  for (Value operand : operands)
    if (Operation *cast = operand.getDefiningOp())
      if (isOpNamed(cast, kUnrealizedCast) && cast->use_empty())
        cast->erase();
}

LogicalResult convertStore(LocalStoreOp store) {
  Value value = encodedOperand(store.getValue());
  if (!value)
    return store.emitOpError("stores a tensor that has no layout after the "
                             "TTGIR conversion");
  Value original = store.getValue();
  OpBuilder builder(store);
  createOp(builder, store.getLoc(), kLocalStore, {value, store.getDst()}, {});
  store.erase();
  eraseDeadCasts(original);
  return success();
}

LogicalResult convertAsyncLoad(AsyncLoadOp load) {
  SmallVector<Value> originals{load.getSrc()};
  Value src = encodedOperand(load.getSrc());
  Value mask = load.getMask() ? encodedOperand(load.getMask()) : Value();
  Value other = load.getOther() ? encodedOperand(load.getOther()) : Value();
  if (!src || (load.getMask() && !mask) || (load.getOther() && !other))
    return load.emitOpError("copies from a tensor that has no layout after the "
                            "TTGIR conversion");
  if (load.getMask())
    originals.push_back(load.getMask());
  if (load.getOther())
    originals.push_back(load.getOther());
  // cp.async moves 4 to 16 bytes per thread: give the pointers (and mask,
  // other) a layout with 16 bytes per thread along the fastest dimension, as
  // triton's coalesce pass would have given a tt.load. The lowering still
  // vectorizes only as far as its axis analysis proves contiguity.
  OpBuilder builder(load);
  auto srcType = cast<RankedTensorType>(src.getType());
  std::optional<MemDescInfo> dstInfo = getMemDescInfo(load.getDst().getType());
  int64_t elementBytes = std::max<int64_t>(1, dstInfo->elementBits() / 8);
  ModuleOp module = load->getParentOfType<ModuleOp>();
  Attribute vectorized = parseAttributeText(
      load.getContext(),
      blockedLayout(srcType.getShape(), moduleIntAttr(module, "ttg.num-warps", 4),
                    moduleIntAttr(module, "ttg.threads-per-warp", 32), 16 / elementBytes),
      [&] { return load.emitOpError(); });
  if (!vectorized)
    return failure();
  auto relayout = [&](Value value) -> Value {
    if (!value)
      return value;
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getEncoding() == vectorized)
      return value;
    return createValue(builder, load.getLoc(), kConvertLayout, value,
                       RankedTensorType::get(type.getShape(), type.getElementType(), vectorized));
  };
  src = relayout(src);
  mask = relayout(mask);
  other = relayout(other);
  SmallVector<Value> operands{src, load.getDst()};
  if (mask)
    operands.push_back(mask);
  if (other)
    operands.push_back(other);
  // triton's defaults: no cache modifier, normal eviction; the lowering
  // vectorizes from its own axis analysis of the pointers.
  Operation *copy = createOp(
      builder, load.getLoc(), kAsyncCopy, operands, load.getType(),
      {builder.getNamedAttr("operandSegmentSizes",
                            builder.getDenseI32ArrayAttr({1, 1, mask ? 1 : 0, other ? 1 : 0})),
       builder.getNamedAttr("cache", builder.getI32IntegerAttr(1)),
       builder.getNamedAttr("evict", builder.getI32IntegerAttr(1)),
       builder.getNamedAttr("isVolatile", builder.getBoolAttr(false)),
       builder.getNamedAttr("contiguity", builder.getI32IntegerAttr(1))});
  load.getToken().replaceAllUsesWith(copy->getResult(0));
  load.erase();
  eraseDeadCasts(originals);
  return success();
}

struct TLXConvertLocalMemoryPass
    : impl::TLXConvertLocalMemoryBase<TLXConvertLocalMemoryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LocalLoadOp> loads;
    SmallVector<LocalStoreOp> stores;
    SmallVector<AsyncLoadOp> copies;
    module.walk([&](Operation *op) {
      if (auto load = dyn_cast<LocalLoadOp>(op))
        loads.push_back(load);
      else if (auto store = dyn_cast<LocalStoreOp>(op))
        stores.push_back(store);
      else if (auto copy = dyn_cast<AsyncLoadOp>(op))
        copies.push_back(copy);
    });
    for (LocalLoadOp load : loads)
      if (failed(convertLoad(load, module)))
        return signalPassFailure();
    for (LocalStoreOp store : stores)
      if (failed(convertStore(store)))
        return signalPassFailure();
    for (AsyncLoadOp copy : copies)
      if (failed(convertAsyncLoad(copy)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::triton::tlx
