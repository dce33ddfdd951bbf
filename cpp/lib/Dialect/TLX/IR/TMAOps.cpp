// Verifiers of the TMA copy ops before descriptors have layouts.

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"

using namespace mlir;
using namespace mlir::triton::tlx;

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
      info->elementType != block.getElementType())
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
  return verifyBarrier(*this, getBarrier().getType());
}

LogicalResult AsyncDescriptorStoreOp::verify() {
  return verifyTmaCopy(*this, getDesc().getType(), getCoord().size(),
                       getSrc().getType());
}
