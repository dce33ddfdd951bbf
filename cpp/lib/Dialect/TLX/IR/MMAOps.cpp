// Verifiers of the asynchronous MMA ops (wgmma) before layouts exist.

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"

using namespace mlir;
using namespace mlir::triton::tlx;

namespace {

struct Operand {
  SmallVector<int64_t> shape;
  Type elementType;
};

std::optional<Operand> describe(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return Operand{SmallVector<int64_t>(tensor.getShape()), tensor.getElementType()};
  if (std::optional<MemDescInfo> info = getMemDescInfo(type))
    return Operand{info->shape, info->elementType};
  return std::nullopt;
}

std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return text;
}

} // namespace

LogicalResult AsyncDotOp::verify() {
  std::optional<Operand> a = describe(getA().getType());
  std::optional<MemDescInfo> b = getMemDescInfo(getB().getType());
  auto c = cast<RankedTensorType>(getC().getType());
  if (!a)
    return emitOpError("A must be a tensor or a shared-memory buffer, got ")
           << getA().getType();
  if (auto info = getMemDescInfo(getA().getType()))
    if (info->storageKind() != StorageKind::smem)
      return emitOpError("A must be in shared memory or registers");
  if (b->storageKind() != StorageKind::smem)
    return emitOpError("B must be a shared-memory buffer, got ")
           << getB().getType();
  if (a->shape.size() != 2 || b->shape.size() != 2 || c.getRank() != 2)
    return emitOpError("expects 2-D operands, got A ")
           << shapeText(a->shape) << ", B " << shapeText(b->shape) << ", acc "
           << shapeText(c.getShape());
  if (a->shape[1] != b->shape[0])
    return emitOpError("A is ") << shapeText(a->shape) << " but B is "
                                << shapeText(b->shape)
                                << ": A's columns must equal B's rows";
  if (c.getShape()[0] != a->shape[0] || c.getShape()[1] != b->shape[1])
    return emitOpError("accumulator is ")
           << shapeText(c.getShape()) << " but A x B is " << a->shape[0] << "x"
           << b->shape[1];
  if (a->elementType != b->elementType)
    return emitOpError("A and B element types differ: ")
           << a->elementType << " vs " << b->elementType;
  if (getD().getType() != getC().getType())
    return emitOpError("result type must equal the accumulator type");
  return success();
}

LogicalResult AsyncDotWaitOp::verify() {
  if (getInputs().getTypes() != getOutputs().getTypes())
    return emitOpError("results must have the types of the inputs");
  return success();
}
