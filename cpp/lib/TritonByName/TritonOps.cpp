#include "TritonByName/TritonOps.h"
#include "TritonByName/MemDesc.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::triton::tlx {

Operation *createOp(OpBuilder &builder, Location loc, StringRef name,
                    ValueRange operands, TypeRange types,
                    ArrayRef<NamedAttribute> attributes) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(types);
  state.addAttributes(attributes);
  return builder.create(state);
}

Operation *createLocalAlloc(OpBuilder &builder, Location loc, Type type,
                            int64_t alignment) {
  return createOp(builder, loc, ttg_names::kLocalAlloc, {}, type,
                  builder.getNamedAttr("alignment", builder.getI32IntegerAttr(alignment)));
}

Operation *createTmemAlloc(OpBuilder &builder, Location loc, Type type) {
  return createOp(builder, loc, ttg_names::kTmemAlloc, {}, type);
}

Value createMemDescReinterpret(OpBuilder &builder, Location loc, Value src,
                               Type type) {
  return createOp(builder, loc, ttg_names::kMemDescReinterpret, src, type)->getResult(0);
}

int64_t getSharedEncodingAlignment(Attribute encoding) {
  if (!encoding)
    return 16;
  // ODS registers the attribute under its C++-side name.
  if (encoding.getAbstractAttribute().getName() != "triton.gpu.nvmma_shared_encoding")
    return 16;
  // #ttg.nvmma_shared<{swizzlingByteWidth = 128, ...}>
  std::string text = toText(encoding);
  StringRef rest = StringRef(text);
  size_t pos = rest.find("swizzlingByteWidth = ");
  int64_t swizzle = 0;
  if (pos != StringRef::npos)
    rest.substr(pos + strlen("swizzlingByteWidth = "))
        .take_while([](char c) { return isdigit(c); })
        .getAsInteger(10, swizzle);
  int64_t maxPhase = swizzle == 0 ? 1 : swizzle / 16;
  return 128 * maxPhase;
}

int64_t getLocalAllocAlignment(Operation *localAlloc) {
  if (auto attr = localAlloc->getAttrOfType<IntegerAttr>("alignment"))
    return attr.getInt();
  std::optional<MemDescInfo> info =
      getMemDescInfo(localAlloc->getResult(0).getType());
  return info ? getSharedEncodingAlignment(info->encoding) : 16;
}

SmallVector<BlockArgument> getWarpSpecializeCaptureArgs(Operation *partitions,
                                                        unsigned operandIndex) {
  // ttg.warp_specialize holds, in its second region, a
  // ttg.warp_specialize.partitions op: its operands are the explicit
  // captures, and each of its regions takes them as block arguments.
  SmallVector<BlockArgument> args;
  for (Region &region : partitions->getRegions())
    if (!region.empty() && operandIndex < region.getNumArguments())
      args.push_back(region.getArgument(operandIndex));
  return args;
}

Value getWarpSpecializeCapture(BlockArgument arg) {
  Operation *partitions = arg.getOwner()->getParentOp();
  if (!partitions || !isOpNamed(partitions, ttg_names::kWarpSpecializePartitions) ||
      arg.getArgNumber() >= partitions->getNumOperands())
    return Value();
  return partitions->getOperand(arg.getArgNumber());
}

Operation *createSharedStorage(OpBuilder &builder, Location loc, int64_t bytes,
                               int64_t alignment, bool exactViews,
                               function_ref<InFlightDiagnostic()> emitError) {
  MLIRContext *context = builder.getContext();
  MemDescInfo storage;
  storage.isMutable = true;
  storage.shape = {bytes};
  if (exactViews) {
    int64_t row = bytes & -bytes;
    storage.shape = {bytes / row, row};
  }
  storage.elementType = IntegerType::get(context, 8);
  storage.encoding = parseAttributeText(context, kBytesEncoding, emitError);
  storage.memorySpace = parseAttributeText(context, "#ttg.shared_memory", emitError);
  if (!storage.encoding || !storage.memorySpace)
    return nullptr;
  Type type = buildMemDesc(context, storage, emitError);
  return type ? createLocalAlloc(builder, loc, type, alignment) : nullptr;
}

Operation *createTensorStorage(OpBuilder &builder, Location loc, int64_t columns,
                               function_ref<InFlightDiagnostic()> emitError) {
  MLIRContext *context = builder.getContext();
  columns = roundTmemColumns(columns);
  MemDescInfo storage;
  storage.isMutable = true;
  storage.shape = {128, columns};
  storage.elementType = Float32Type::get(context);
  storage.encoding = parseAttributeText(
      context,
      ("#ttng.tensor_memory_encoding<blockM = 128, blockN = " + Twine(columns) +
       ", colStride = 1>")
          .str(),
      emitError);
  storage.memorySpace = parseAttributeText(context, "#ttng.tensor_memory", emitError);
  if (!storage.encoding || !storage.memorySpace)
    return nullptr;
  Type type = buildMemDesc(context, storage, emitError);
  return type ? createTmemAlloc(builder, loc, type) : nullptr;
}

int64_t getPrintedIntParameter(Attribute attr, StringRef key, int64_t otherwise) {
  if (!attr)
    return otherwise;
  std::string text = toText(attr);
  std::string needle = (key + " = ").str();
  size_t pos = StringRef(text).find(needle);
  int64_t value = 0;
  if (pos == StringRef::npos ||
      StringRef(text).substr(pos + needle.size())
          .take_while([](char c) { return isdigit(c); })
          .getAsInteger(10, value))
    return otherwise;
  return value;
}

// The [interval:+padding, ...] of a #ttg.padded_shared encoding.
static SmallVector<std::pair<int64_t, int64_t>> getPaddings(Attribute encoding) {
  SmallVector<std::pair<int64_t, int64_t>> paddings;
  if (!encoding)
    return paddings;
  std::string text = toText(encoding);
  StringRef rest(text);
  if (!rest.consume_front("#ttg.padded_shared<["))
    return paddings;
  rest = rest.take_until([](char c) { return c == ']'; });
  SmallVector<StringRef> pairs;
  rest.split(pairs, ',');
  for (StringRef pair : pairs) {
    auto [interval, padding] = pair.trim().split(":");
    StringRef amount = padding.trim();
    int64_t i = 0, p = 0;
    if (interval.trim().getAsInteger(10, i) || !amount.consume_front("+") ||
        amount.getAsInteger(10, p) || i <= 0)
      continue;
    paddings.push_back({i, p});
  }
  return paddings;
}

int64_t getSharedElements(int64_t elements, Attribute encoding) {
  int64_t total = elements;
  for (auto [interval, padding] : getPaddings(encoding)) {
    total += elements / interval * padding;
    if (elements % interval == 0) // nothing after the last element
      total -= padding;
  }
  return total;
}

int64_t getSharedBufferStride(int64_t elements, Attribute encoding) {
  int64_t total = elements;
  for (auto [interval, padding] : getPaddings(encoding))
    total += llvm::divideCeil(elements, interval) * padding;
  return total;
}

bool isPaddingPerBuffer(int64_t elements, Attribute encoding) {
  return llvm::all_of(getPaddings(encoding), [&](std::pair<int64_t, int64_t> pad) {
    return elements % pad.first == 0;
  });
}

int64_t getTmemColumns(ArrayRef<int64_t> shape, int64_t elementBits,
                       Attribute encoding) {
  if (shape.empty())
    return 0;
  int64_t m = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  int64_t n = shape.back();
  int64_t leading = 1;
  for (int64_t dim : shape.drop_back(std::min<size_t>(2, shape.size())))
    leading *= dim;
  bool isTmemEncoding =
      encoding && StringRef(toText(encoding)).starts_with("#ttng.tensor_memory_encoding<");
  if (!isTmemEncoding) // e.g. scales: 32-bit cells, 128 rows
    return leading * llvm::divideCeil(m * n * elementBits, 32 * 128);
  int64_t blockM = getPrintedIntParameter(encoding, "blockM", 128);
  int64_t blockN = getPrintedIntParameter(encoding, "blockN", n);
  int64_t colStride = getPrintedIntParameter(encoding, "colStride", 1);
  int64_t rows = (blockM == 64 && m <= 64 && n <= blockN) ? 64 : 128;
  return leading * llvm::divideCeil(m * n * elementBits * colStride, 32 * rows);
}

int64_t roundTmemColumns(int64_t columns) {
  return std::max<int64_t>(32, llvm::PowerOf2Ceil(columns));
}

bool isMemDescView(Operation *op) {
  static constexpr StringLiteral kViews[] = {
      ttg_names::kMemDescIndex, ttg_names::kMemDescSubslice, ttg_names::kMemDescSubview,
      ttg_names::kMemDescTrans, ttg_names::kMemDescReshape,  ttg_names::kMemDescReinterpret};
  return llvm::is_contained(kViews, op->getName().getStringRef());
}

std::optional<int64_t> getCudaCapability(Operation *module) {
  auto target = module ? dyn_cast_or_null<StringAttr>(module->getAttr("ttg.target")) : nullptr;
  StringRef text = target ? target.getValue() : StringRef();
  int64_t capability = 0;
  if (!text.consume_front("cuda:") || text.getAsInteger(10, capability))
    return std::nullopt;
  return capability;
}

} // namespace mlir::triton::tlx
