#include "TritonByName/PointerAccess.h"
#include "TritonByName/MemDesc.h"
#include "TritonByName/TritonOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::triton::tlx {

bool isTritonPointer(Type type) {
  return type && type.getAbstractType().getName() == "tt.ptr";
}

int64_t getPointeeBytes(Type type) {
  if (auto tensor = dyn_cast_or_null<RankedTensorType>(type))
    type = tensor.getElementType();
  if (!isTritonPointer(type))
    return 0;
  Type pointee;
  type.walkImmediateSubElements([](Attribute) {},
                                [&](Type sub) {
                                  if (!pointee)
                                    pointee = sub;
                                });
  if (isTritonPointer(pointee))
    return 8;
  if (pointee && pointee.isIntOrFloat())
    return std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
  return 0;
}

std::optional<int> getProgramIdAxis(Operation *op) {
  if (!isOpNamed(op, tt_names::kGetProgramId))
    return std::nullopt;
  return getGridQueryAxis(op);
}

std::optional<int> getGridQueryAxis(Operation *op) {
  if (!isOpNamed(op, tt_names::kGetProgramId) && !isOpNamed(op, tt_names::kGetNumPrograms))
    return std::nullopt;
  Attribute axis = op->getAttr("axis");
  if (auto integer = dyn_cast_or_null<IntegerAttr>(axis))
    return int(integer.getInt());
  if (!axis)
    return std::nullopt;
  // An enum attribute printed as `#tt<program_dim x>` (or `x`, `y`, `z`).
  std::string text = toText(axis);
  StringRef letters = StringRef(text).rtrim(">");
  if (letters.ends_with("x"))
    return 0;
  if (letters.ends_with("y"))
    return 1;
  if (letters.ends_with("z"))
    return 2;
  return std::nullopt;
}

static std::optional<int64_t> intAttr(Operation *op, StringRef name) {
  if (auto attr = dyn_cast_or_null<IntegerAttr>(op->getAttr(name)))
    return attr.getInt();
  return std::nullopt;
}

std::optional<std::pair<int64_t, int64_t>> getMakeRangeBounds(Operation *op) {
  if (!isOpNamed(op, tt_names::kMakeRange))
    return std::nullopt;
  std::optional<int64_t> start = intAttr(op, "start"), end = intAttr(op, "end");
  if (!start || !end)
    return std::nullopt;
  return std::make_pair(*start, *end);
}

std::optional<int> getExpandDimsAxis(Operation *op) {
  if (!isOpNamed(op, tt_names::kExpandDims))
    return std::nullopt;
  if (std::optional<int64_t> axis = intAttr(op, "axis"))
    return int(*axis);
  return std::nullopt;
}

int64_t getArgumentDivisibility(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || !arg.getOwner()->isEntryBlock())
    return 1;
  auto func = dyn_cast_or_null<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func)
    return 1;
  if (auto attr = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                     tt_names::kDivisibility))
    return std::max<int64_t>(1, attr.getInt());
  return 1;
}

// The integers of `key = [a, b, ...]` in a printed attribute.
static std::optional<SmallVector<int64_t>> printedList(StringRef text, StringRef key) {
  std::string needle = (key + " = [").str();
  size_t pos = text.find(needle);
  if (pos == StringRef::npos)
    return std::nullopt;
  StringRef body = text.substr(pos + needle.size()).take_until([](char c) { return c == ']'; });
  SmallVector<StringRef> parts;
  body.split(parts, ',', -1, false);
  SmallVector<int64_t> values;
  for (StringRef part : parts) {
    int64_t v;
    if (part.trim().getAsInteger(10, v))
      return std::nullopt;
    values.push_back(v);
  }
  return values;
}

std::optional<BlockedLayoutInfo> getBlockedLayout(Type type) {
  auto tensor = dyn_cast_or_null<RankedTensorType>(type);
  if (!tensor || !tensor.getEncoding())
    return std::nullopt;
  std::string text = toText(tensor.getEncoding());
  StringRef view(text);
  std::optional<int64_t> sliceDim;
  if (view.starts_with("#ttg.slice<")) {
    int64_t dim = getPrintedIntParameter(tensor.getEncoding(), "dim", -1);
    size_t parent = view.find("parent = ");
    if (dim < 0 || parent == StringRef::npos)
      return std::nullopt;
    view = view.substr(parent + strlen("parent = "));
    sliceDim = dim;
  }
  if (!view.starts_with("#ttg.blocked<"))
    return std::nullopt;
  std::optional<SmallVector<int64_t>> perThread = printedList(view, "sizePerThread");
  std::optional<SmallVector<int64_t>> order = printedList(view, " order");
  if (!perThread || !order || perThread->size() != order->size())
    return std::nullopt;
  BlockedLayoutInfo info{*perThread, {}};
  if (sliceDim) {
    if (*sliceDim >= int64_t(perThread->size()))
      return std::nullopt;
    info.sizePerThread.erase(info.sizePerThread.begin() + *sliceDim);
    for (int64_t dim : *order)
      if (dim != *sliceDim)
        info.order.push_back(dim > *sliceDim ? dim - 1 : dim);
  } else {
    info.order = *order;
  }
  if (int64_t(info.sizePerThread.size()) != tensor.getRank())
    return std::nullopt;
  return info;
}

bool hasEncoding(Type type) {
  auto tensor = dyn_cast_or_null<RankedTensorType>(type);
  return tensor && tensor.getEncoding();
}

int64_t getNumThreadsAt(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto warpsAttr = module ? module->getAttrOfType<IntegerAttr>("ttg.num-warps") : nullptr;
  auto threadsAttr = module ? module->getAttrOfType<IntegerAttr>("ttg.threads-per-warp") : nullptr;
  if (!warpsAttr)
    return 0;
  int64_t warps = warpsAttr.getInt();
  for (Operation *current = op; current; current = current->getParentOp()) {
    Operation *parent = current->getParentOp();
    if (parent && isOpNamed(parent, ttg_names::kWarpSpecializePartitions)) {
      unsigned region = current->getParentRegion()->getRegionNumber();
      if (auto counts = dyn_cast_or_null<DenseI32ArrayAttr>(
              parent->getParentOp()->getAttr("partitionNumWarps")))
        if (region < counts.size())
          warps = counts[region];
      break;
    }
  }
  return warps * (threadsAttr ? threadsAttr.getInt() : 32);
}

static Value maskOperand(Operation *op, unsigned index) {
  if (op->getNumOperands() <= index)
    return {};
  Value mask = op->getOperand(index);
  Type element = getElementTypeOrSelf(mask.getType());
  return element.isInteger(1) ? mask : Value();
}

std::optional<GlobalAccess> getGlobalAccess(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (op->getNumOperands() == 0)
    return std::nullopt;
  Value first = op->getOperand(0);
  if (name == tt_names::kLoad || name == tt_names::kStore ||
      name == tt_names::kAtomicRMW || name == tt_names::kAtomicCAS ||
      name == ttg_names::kAsyncCopy) {
    if (!getPointeeBytes(first.getType()))
      return std::nullopt; // a block pointer (tt.make_tensor_ptr): not modelled
    GlobalAccess access{name == tt_names::kLoad || name == ttg_names::kAsyncCopy ? "load"
                        : name == tt_names::kStore                            ? "store"
                                                                              : "atomic",
                        first, {}, {}};
    if (name == tt_names::kLoad)
      access.mask = maskOperand(op, 1);
    else if (name != tt_names::kAtomicCAS)
      access.mask = maskOperand(op, 2);
    return access;
  }
  if (!isTensorDesc(first.getType()))
    return std::nullopt;
  if (name == tt_names::kDescriptorLoad || name == ttg_names::kTmaLoad ||
      name == "tt.descriptor_gather" || name == "ttng.async_tma_gather")
    return GlobalAccess{"load", {}, {}, first};
  if (name == tt_names::kDescriptorStore || name == ttg_names::kTmaStore ||
      name == "tt.descriptor_scatter" || name == "ttng.async_tma_scatter")
    return GlobalAccess{"store", {}, {}, first};
  if (name == "tt.descriptor_reduce" || name == "ttng.async_tma_reduce")
    return GlobalAccess{"atomic", {}, {}, first};
  return std::nullopt;
}

} // namespace mlir::triton::tlx
