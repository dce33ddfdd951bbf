// tlx-convert-local-memory: tlx.local_load/local_store -> ttg ones, with the
// layouts the TTIR->TTGIR conversion gave their neighbours.
//
// Triton's convert-triton-to-tritongpu has no patterns for memory ops; it
// leaves our ops with layout-less tensors: a loaded tensor reaches its
// converted users through ttg.convert_layout (or an unrealized cast), and a
// stored tensor arrives through an unrealized cast from its encoded form.
//
// Tensor-memory buffers become ttng.tmem_load/tmem_store in the register
// layout the frontend recorded (`tlx.tmem_reg_layout`: the one Triton's
// compute_tmem_reg_layout, i.e. Gluon's get_tmem_reg_layout, gives the
// buffer), with a ttg.convert_layout to or from what the neighbours use.

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "LayoutUtils.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "TritonByName/TritonOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXCONVERTLOCALMEMORY
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace ttg_names;

constexpr StringLiteral kTmemLoad = "ttng.tmem_load";
constexpr StringLiteral kTmemStore = "ttng.tmem_store";
constexpr StringLiteral kTmemRegLayout = "tlx.tmem_reg_layout";

bool isTensorMemory(Value buffer) {
  std::optional<MemDescInfo> info = getMemDescInfo(buffer.getType());
  return info && info->storageKind() == StorageKind::tmem;
}

/// The register tensor a tmem_load/tmem_store of `op`'s buffer moves: the
/// layout recorded on the op. Null after reporting when there is none.
RankedTensorType tmemRegisterType(Operation *op, RankedTensorType tensorType) {
  Attribute layout = op->getAttr(kTmemRegLayout);
  std::string text = layout ? toText(layout) : "";
  if (!StringRef(text).starts_with("#ttg.linear<") &&
      !StringRef(text).starts_with("#ttg.blocked<")) {
    op->emitOpError("accesses tensor memory without a register layout: its '")
        << kTmemRegLayout << "' attribute must be a #ttg.linear or "
        << "#ttg.blocked layout (tlx_alias's local_load/local_store set it)";
    return {};
  }
  return RankedTensorType::get(tensorType.getShape(),
                               tensorType.getElementType(), layout);
}

LogicalResult convertLoad(LocalLoadOp load) {
  auto tensorType = cast<RankedTensorType>(load.getType());
  bool tmem = isTensorMemory(load.getSrc());
  // The layout the users ask for, else Triton's default; tensor memory
  // loads in its register layout (users get a convert_layout from it).
  RankedTensorType encodedType;
  if (tmem && !(encodedType = tmemRegisterType(load, tensorType)))
    return failure();
  for (Operation *user : load->getUsers())
    if (!tmem && isLayoutBridge(user) && isEncodedTensor(user->getResult(0).getType())) {
      encodedType = cast<RankedTensorType>(user->getResult(0).getType());
      break;
    }
  if (!encodedType) {
    Attribute encoding = parseAttributeText(
        load.getContext(),
        blockedLayout(tensorType.getShape(), numWarpsAt(load),
                      threadsPerWarpAt(load)),
        [&] { return load.emitOpError(); });
    if (!encoding)
      return failure();
    encodedType = RankedTensorType::get(tensorType.getShape(),
                                        tensorType.getElementType(), encoding);
  }
  OpBuilder builder(load);
  Value loaded =
      tmem ? createOp(builder, load.getLoc(), kTmemLoad, load.getSrc(), encodedType,
                      builder.getNamedAttr("resultSegmentSizes",
                                           builder.getDenseI32ArrayAttr({1, 0, 0})))
                 ->getResult(0)
           : createValue(builder, load.getLoc(), kLocalLoad, load.getSrc(), encodedType);
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
  if (isTensorMemory(store.getDst())) {
    RankedTensorType regType =
        tmemRegisterType(store, cast<RankedTensorType>(value.getType()));
    if (!regType)
      return failure();
    if (value.getType() != regType)
      value = createValue(builder, store.getLoc(), kConvertLayout, value, regType);
    Value pred = createOp(builder, store.getLoc(), "arith.constant", {},
                          builder.getI1Type(),
                          builder.getNamedAttr("value", builder.getBoolAttr(true)))
                     ->getResult(0);
    // Operands in ODS order: dst, (no dependency token), src, pred.
    createOp(builder, store.getLoc(), kTmemStore, {store.getDst(), value, pred}, {});
  } else {
    createOp(builder, store.getLoc(), kLocalStore, {value, store.getDst()}, {});
  }
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
  Attribute vectorized = parseAttributeText(
      load.getContext(),
      blockedLayout(srcType.getShape(), numWarpsAt(load), threadsPerWarpAt(load),
                    16 / elementBytes),
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
  // triton's defaults: no cache modifier, normal eviction (3.9: no
  // cachePolicy); the lowering vectorizes from its own axis analysis of the
  // pointers.
  SmallVector<NamedAttribute> attributes{
      builder.getNamedAttr("operandSegmentSizes",
                           builder.getDenseI32ArrayAttr({1, 1, mask ? 1 : 0, other ? 1 : 0})),
      builder.getNamedAttr("isVolatile", builder.getBoolAttr(false)),
      builder.getNamedAttr("contiguity", builder.getI32IntegerAttr(1))};
  if (!kCopyCachePolicyAttr) {
    attributes.push_back(builder.getNamedAttr("cache", builder.getI32IntegerAttr(1)));
    attributes.push_back(builder.getNamedAttr("evict", builder.getI32IntegerAttr(1)));
  }
  Operation *copy = createOp(builder, load.getLoc(), kAsyncCopy, operands,
                             load.getType(), attributes);
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
      if (failed(convertLoad(load)))
        return signalPassFailure();
    for (LocalStoreOp store : stores)
      if (failed(convertStore(store)))
        return signalPassFailure();
    for (AsyncLoadOp copy : copies)
      if (failed(convertAsyncLoad(copy)))
        return signalPassFailure();
    resolveLayoutBridges(module);
  }
};

} // namespace
} // namespace mlir::triton::tlx
