// tlx-convert-tma: tlx.async_descriptor_load/store ->
// ttng.async_tma_copy_global_to_local / async_tma_copy_local_to_global (or,
// for a store with a reduce kind, ttng.async_tma_reduce).
//
// Triton's TMA ops require the descriptor's block layout to be the buffer's.
// Descriptors leave the TTIR->TTGIR conversion without a layout, so each one
// a TMA copy uses gets the buffer's layout here, at its source: the kernel
// argument (and the function type), the tt.make_tensor_descriptor result,
// and every warp_specialize capture on the way. The frontend only builds
// copies into buffers whose layout is the one Triton's
// optimize-descriptor-encoding will give the descriptor anyway (its default
// NVMMA layout for the block), so that later pass changes nothing.

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "LayoutUtils.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "TritonByName/TritonOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXCONVERTTMA
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace ttg_names;

Type descriptorWithLayout(Type desc, Attribute encoding) {
  RankedTensorType block = getTensorDescBlockType(desc);
  auto encoded =
      RankedTensorType::get(block.getShape(), block.getElementType(), encoding);
  if (StringRef(toText(desc)).starts_with("!tt.tensordesc<tensor<"))
    return parseType("!tt.tensordesc<" + toText(encoded) + ">", desc.getContext());
  // Triton 3.8: `!tt.tensordesc<64x64xf16, #layout>`.
  std::string text = "!tt.tensordesc<";
  for (int64_t dim : block.getShape())
    text += std::to_string(dim) + "x";
  return parseType(text + toText(block.getElementType()) + ", " + toText(encoding) + ">",
                   desc.getContext());
}

void setFunctionArgumentType(Operation *func, unsigned index, Type type) {
  auto typeAttr = dyn_cast_or_null<TypeAttr>(func->getAttr("function_type"));
  if (!typeAttr)
    return;
  auto fnType = cast<FunctionType>(typeAttr.getValue());
  SmallVector<Type> inputs(fnType.getInputs());
  inputs[index] = type;
  func->setAttr("function_type",
                TypeAttr::get(FunctionType::get(func->getContext(), inputs,
                                                fnType.getResults())));
}

// Gives `desc` (and its sources) the block layout `encoding`.
LogicalResult setDescriptorLayout(Value desc, Attribute encoding, Operation *user) {
  RankedTensorType block = getTensorDescBlockType(desc.getType());
  if (Attribute current = block.getEncoding()) {
    if (current == encoding)
      return success();
    return user->emitOpError("copies with a descriptor already used with layout ")
           << current << " into a buffer of layout " << encoding
           << "; one descriptor serves buffers of one layout";
  }
  Type type = descriptorWithLayout(desc.getType(), encoding);
  if (!type)
    return user->emitOpError("cannot give the descriptor layout ") << encoding;
  if (auto arg = dyn_cast<BlockArgument>(desc)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isOpNamed(owner, kWarpSpecializePartitions)) {
      // A capture: the same argument of every partition, and the captured
      // value outside.
      unsigned index = arg.getArgNumber();
      for (Region &region : owner->getRegions())
        region.front().getArgument(index).setType(type);
      return setDescriptorLayout(owner->getOperand(index), encoding, user);
    }
    if (arg.getOwner()->isEntryBlock() && owner->getAttr("function_type")) {
      arg.setType(type);
      setFunctionArgumentType(owner, arg.getArgNumber(), type);
      return success();
    }
  } else if (Operation *def = desc.getDefiningOp();
             def && isOpNamed(def, kMakeTensorDescriptor)) {
    desc.setType(type);
    return success();
  }
  return user->emitOpError(
      "needs a descriptor that is a kernel argument or comes from "
      "tl.make_tensor_descriptor (TMA copies give it the buffer's layout)");
}

// triton's CacheModifier::NONE and EvictionPolicy::NORMAL/FIRST/LAST.
constexpr int32_t kNoCacheModifier = 1, kNormalEviction = 1, kEvictFirst = 2, kEvictLast = 3;

// A TMA copy's L2 eviction policy, as a mark for tlx-ops-as-marks (triton's
// op keeps the default).
LogicalResult appendL2Eviction(Operation *copy, int32_t evict,
                               SmallVectorImpl<NamedAttribute> &attributes) {
  if (evict != kNormalEviction && evict != kEvictFirst && evict != kEvictLast)
    return copy->emitOpError("unknown eviction policy ") << evict;
  if (evict != kNormalEviction)
    attributes.push_back(NamedAttribute(StringAttr::get(copy->getContext(), "tlx.l2_eviction"),
                                        IntegerAttr::get(IntegerType::get(copy->getContext(), 32), evict)));
  return success();
}

// The load's cache hints: triton's op gets the defaults as the running triton
// spells them (`cache`/`evict` integers in 3.7/3.8, no `cachePolicy` in
// 3.9): 3.7's and 3.8's TMA lowering refuses anything else; an L2 eviction
// policy goes to tlx-ops-as-marks, and tlx-lower-marked-ops writes it into
// the PTX, one path for every version.
LogicalResult appendTmaLoadCacheHints(AsyncDescriptorLoadOp load,
                                      SmallVectorImpl<NamedAttribute> &attributes) {
  Builder builder(load.getContext());
  int32_t cache = load.getCache(), evict = load.getEvict();
  if (cache != kNoCacheModifier)
    return load.emitOpError("a TMA load takes no cache modifier, only an L2 eviction policy");
  if (!kCopyCachePolicyAttr) {
    attributes.push_back(builder.getNamedAttr("cache", builder.getI32IntegerAttr(kNoCacheModifier)));
    attributes.push_back(builder.getNamedAttr("evict", builder.getI32IntegerAttr(kNormalEviction)));
  }
  return appendL2Eviction(load, evict, attributes);
}

LogicalResult convertLoad(AsyncDescriptorLoadOp load) {
  Attribute encoding = getMemDescInfo(load.getResult().getType())->encoding;
  if (failed(setDescriptorLayout(load.getDesc(), encoding, load)))
    return failure();
  OpBuilder builder(load);
  SmallVector<Value> operands{load.getDesc()};
  llvm::append_range(operands, load.getCoord());
  operands.append({load.getBarrier(), load.getResult(), load.getPred()});
  int32_t coords = load.getCoord().size();
  SmallVector<NamedAttribute> attributes{
      builder.getNamedAttr("operandSegmentSizes",
                           builder.getDenseI32ArrayAttr({1, coords, 0, 1, 1, 1})),
      builder.getNamedAttr("isVolatile", builder.getBoolAttr(false))};
  if (failed(appendTmaLoadCacheHints(load, attributes)))
    return failure();
  // Carried to tlx-ops-as-marks (triton's op knows one-CTA copies).
  if (int32_t mask = load.getMulticastMask())
    attributes.push_back(builder.getNamedAttr("tlx.multicast_mask", builder.getI32IntegerAttr(mask)));
  createOp(builder, load.getLoc(), kTmaLoad, operands, {}, attributes);
  load.erase();
  return success();
}

LogicalResult convertStore(AsyncDescriptorStoreOp store) {
  Attribute encoding = getMemDescInfo(store.getSrc().getType())->encoding;
  if (failed(setDescriptorLayout(store.getDesc(), encoding, store)))
    return failure();
  OpBuilder builder(store);
  SmallVector<Value> operands{store.getDesc()};
  llvm::append_range(operands, store.getCoord());
  operands.push_back(store.getSrc());
  SmallVector<NamedAttribute> attributes;
  if (failed(appendL2Eviction(store, store.getEvict(), attributes)))
    return failure();
  if (std::optional<int32_t> kind = store.getReduceKind()) {
    attributes.push_back(builder.getNamedAttr("kind", builder.getI32IntegerAttr(*kind)));
    createOp(builder, store.getLoc(), kTmaReduce, operands, {}, attributes);
  } else {
    createOp(builder, store.getLoc(), kTmaStore, operands, {}, attributes);
  }
  store.erase();
  return success();
}

struct TLXConvertTMAPass : impl::TLXConvertTMABase<TLXConvertTMAPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<AsyncDescriptorLoadOp, AsyncDescriptorStoreOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      LogicalResult converted =
          isa<AsyncDescriptorLoadOp>(op)
              ? convertLoad(cast<AsyncDescriptorLoadOp>(op))
              : convertStore(cast<AsyncDescriptorStoreOp>(op));
      if (failed(converted))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace mlir::triton::tlx
