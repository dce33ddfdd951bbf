// tlx-convert-mma: tlx.async_dot / async_dot_wait -> ttng.warp_group_dot
// {isAsync} / ttng.warp_group_dot_wait, with Triton's Hopper MMA layouts.
//
// The accumulator gets `#ttg.nvidia_mma` version 3 as Triton's
// AccelerateMatmul would choose it (instruction shape and warps per CTA); a
// register A operand gets the matching `#ttg.dot_op`. Operands arrive
// through ttg.convert_layout from whatever layout the TTIR->TTGIR conversion
// gave them, and results go back through unrealized casts that
// resolveLayoutBridges folds, so Triton's RemoveLayoutConversions sees the
// same shape of IR as for a tt.dot.

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "LayoutUtils.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "TritonByName/TritonOps.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXCONVERTMMA
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace ttg_names;

int64_t elementBits(Type type) {
  return type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 0;
}

// Triton's mmaVersionToInstrShape for version 3: m = 16, k = 256 bits of
// input, the widest n (multiple of 8, at most 256) dividing N that the warps
// along N leave room for.
SmallVector<int64_t, 3> instrShape(ArrayRef<int64_t> shape, Type inputType,
                                   int64_t numWarps) {
  int64_t k = 256 / std::max<int64_t>(8, elementBits(inputType));
  int64_t mWarps = std::max<int64_t>(shape[0] / 16, 1);
  int64_t nWarps = std::max<int64_t>(numWarps / mWarps, 1);
  int64_t maxN = std::max<int64_t>(shape[1] / nWarps, 8);
  int64_t n = 8;
  bool isInt8 = inputType.isInteger(8);
  for (int64_t candidate = isInt8 ? 224 : 256; candidate >= 8; candidate -= isInt8 ? 16 : 8)
    if (shape[1] % candidate == 0 && candidate <= maxN) {
      n = candidate;
      break;
    }
  return {16, n, k};
}

// Triton's warpsPerTileV3: warp groups of 4 along M, doubling along M while
// rows remain, else along N.
SmallVector<int64_t, 2> warpsPerCTA(ArrayRef<int64_t> shape, int64_t numWarps,
                                    int64_t instrN) {
  SmallVector<int64_t, 2> warps = {4, 1};
  while (warps[0] * warps[1] < numWarps) {
    if (shape[0] > 16 * warps[0])
      warps[0] *= 2;
    else
      warps[1] *= 2;
  }
  return warps;
}

std::string mmaLayout(ArrayRef<int64_t> shape, Type inputType, int64_t numWarps) {
  SmallVector<int64_t, 3> instr = instrShape(shape, inputType, numWarps);
  SmallVector<int64_t, 2> warps = warpsPerCTA(shape, numWarps, instr[1]);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = ["
     << warps[0] << ", " << warps[1] << "], instrShape = [" << instr[0] << ", "
     << instr[1] << ", " << instr[2] << "]}>";
  return text;
}

RankedTensorType withEncoding(RankedTensorType type, Attribute encoding) {
  return RankedTensorType::get(type.getShape(), type.getElementType(), encoding);
}

LogicalResult convertDot(AsyncDotOp dot) {
  if (numWarpsAt(dot) % 4 != 0)
    return dot.emitOpError("needs whole warp groups (a multiple of 4 warps), "
                           "its code runs on ")
           << numWarpsAt(dot) << " warps";
  auto accType = cast<RankedTensorType>(dot.getC().getType());
  std::optional<MemDescInfo> b = getMemDescInfo(dot.getB().getType());
  MLIRContext *context = dot.getContext();
  auto emitError = [&] { return dot.emitOpError(); };
  Attribute mma = parseAttributeText(
      context, mmaLayout(accType.getShape(), b->elementType, numWarpsAt(dot)),
      emitError);
  if (!mma)
    return failure();
  OpBuilder builder(dot);
  Location loc = dot.getLoc();
  Value a = dot.getA();
  if (auto aTensor = dyn_cast<RankedTensorType>(a.getType())) {
    // wgmma reads A from registers in the dot-operand layout of its MMA.
    int64_t kWidth = 32 / std::max<int64_t>(8, elementBits(aTensor.getElementType()));
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "#ttg.dot_op<{opIdx = 0, parent = " << toText(mma)
       << ", kWidth = " << kWidth << "}>";
    Attribute operand = parseAttributeText(context, text, emitError);
    if (!operand)
      return failure();
    a = asEncoded(builder, loc, a, withEncoding(aTensor, operand));
  }
  RankedTensorType mmaType = withEncoding(accType, mma);
  Value c = asEncoded(builder, loc, dot.getC(), mmaType);
  SmallVector<Value> operands{a, dot.getB(), c};
  if (dot.getUseAcc())
    operands.push_back(dot.getUseAcc());
  Operation *wgmma = createOp(
      builder, loc, kWarpGroupDot, operands, mmaType,
      {builder.getNamedAttr("inputPrecision",
                            builder.getI32IntegerAttr(static_cast<int32_t>(dot.getInputPrecision()))),
       builder.getNamedAttr("maxNumImpreciseAcc",
                            builder.getI32IntegerAttr(dot.getMaxNumImpreciseAcc())),
       builder.getNamedAttr("isAsync", builder.getBoolAttr(true))});
  replaceWithEncoded(dot.getD(), wgmma->getResult(0));
  // The kernel waits for its async_dots itself. Triton's pipeliner would
  // otherwise make every wgmma of a loop it schedules wait for itself
  // (ttng.warp_group_dot_wait {pendings = 0} right after it), which drains
  // what async_dot_wait(1) keeps in flight: loops around a tlx MMA are not
  // software-pipelined by triton (as `tl.range(..., num_stages=0)`).
  for (Operation *parent = wgmma->getParentOp(); parent; parent = parent->getParentOp())
    if (parent->getName().getStringRef() == "scf.for" && !parent->hasAttr("tt.num_stages"))
      parent->setAttr("tt.num_stages", builder.getI32IntegerAttr(0));
  dot.erase();
  return success();
}

LogicalResult convertWait(AsyncDotWaitOp wait) {
  SmallVector<Value> inputs;
  SmallVector<Type> types;
  for (Value input : wait.getInputs()) {
    Value encoded = isa<RankedTensorType>(input.getType()) ? encodedOperand(input) : input;
    if (!encoded)
      return wait.emitOpError("waits on a tensor that has no layout after the "
                              "TTGIR conversion");
    inputs.push_back(encoded);
    types.push_back(encoded.getType());
  }
  OpBuilder builder(wait);
  Operation *stock = createOp(
      builder, wait.getLoc(), kWarpGroupDotWait, inputs, types,
      {builder.getNamedAttr("pendings", builder.getI32IntegerAttr(wait.getPendings()))});
  for (auto [old, encoded] : llvm::zip(wait.getResults(), stock->getResults())) {
    if (old.getType() == encoded.getType())
      old.replaceAllUsesWith(encoded);
    else
      replaceWithEncoded(old, encoded);
  }
  wait.erase();
  return success();
}

struct TLXConvertMMAPass : impl::TLXConvertMMABase<TLXConvertMMAPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<AsyncDotOp, AsyncDotWaitOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      LogicalResult converted = isa<AsyncDotOp>(op)
                                    ? convertDot(cast<AsyncDotOp>(op))
                                    : convertWait(cast<AsyncDotWaitOp>(op));
      if (failed(converted))
        return signalPassFailure();
    }
    resolveLayoutBridges(module);
  }
};

} // namespace
} // namespace mlir::triton::tlx
