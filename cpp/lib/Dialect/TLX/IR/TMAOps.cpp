// Verifiers of the TMA copy ops before descriptors have layouts.

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"

using namespace mlir;
using namespace mlir::triton::tlx;

// Element types of a descriptor's block and a buffer that TMA copies
// between: equal, or integers of one width (triton's descriptors carry the
// signedness, `tensor<64x64xsi32>`, for the TMA reduce's min/max; buffers
// are signless, as triton's own TMA ops take them).
static bool sameTmaElement(Type block, Type buffer) {
  if (block == buffer)
    return true;
  auto a = dyn_cast<IntegerType>(block), b = dyn_cast<IntegerType>(buffer);
  return a && b && a.getWidth() == b.getWidth();
}

// The descriptor's block and the buffer agree; the coordinates name every
// dimension of the block.
static LogicalResult verifyTmaCopy(Operation *op, Type desc, size_t numCoords,
                                   Type buffer) {
  RankedTensorType block = getTensorDescBlockType(desc);
  if (!block)
    return op->emitOpError("expects a !tt.tensordesc, got ") << desc;
  std::optional<MemDescInfo> info = getMemDescInfo(buffer);
  if (!info || info->storageKind() != StorageKind::smem)
    return op->emitOpError("expects one shared-memory buffer, got ") << buffer;
  if (ArrayRef(info->shape) != block.getShape() ||
      !sameTmaElement(block.getElementType(), info->elementType))
    return op->emitOpError("buffer ")
           << buffer << " does not match the descriptor's block " << block;
  if (numCoords != static_cast<size_t>(block.getRank()))
    return op->emitOpError("expects ")
           << block.getRank() << " coordinates, got " << numCoords;
  return success();
}

static LogicalResult verifyBarrier(Operation *op, Type barrier) {
  std::optional<MemDescInfo> info = getMemDescInfo(barrier);
  if (!info || info->shape != SmallVector<int64_t>{1} ||
      !info->elementType.isInteger(64))
    return op->emitOpError("barrier must be one mbarrier (!ttg.memdesc<1xi64>), got ")
           << barrier;
  return success();
}

LogicalResult AsyncDescriptorLoadOp::verify() {
  if (failed(verifyTmaCopy(*this, getDesc().getType(), getCoord().size(),
                           getResult().getType())))
    return failure();
  if (!getMemDescInfo(getResult().getType())->isMutable)
    return emitOpError("cannot copy into an immutable buffer");
  if (getMulticastMask() < 0 || getMulticastMask() > 0xffff)
    return emitOpError("multicast_mask must be a 16-bit CTA mask, got ") << getMulticastMask();
  return verifyBarrier(*this, getBarrier().getType());
}

LogicalResult AsyncDescriptorStoreOp::verify() {
  std::optional<int32_t> kind = getReduceKind();
  if (kind && *kind <= 0)
    return emitOpError("reduce_kind must be a triton DescriptorReduceKind (> 0), got ")
           << *kind;
  return verifyTmaCopy(*this, getDesc().getType(), getCoord().size(),
                       getSrc().getType());
}
