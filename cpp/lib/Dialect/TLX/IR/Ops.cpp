#include "tlx_alias/Dialect/TLX/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::triton::tlx;

#define GET_OP_CLASSES
#include "tlx_alias/Dialect/TLX/IR/TLXOps.cpp.inc"

//===----------------------------------------------------------------------===//
// StorageAliasSpecOp
//===----------------------------------------------------------------------===//

LogicalResult StorageAliasSpecOp::verify() {
  std::optional<int64_t> size = getBufferSizeBytes();
  if (size && *size <= 0)
    return emitOpError("buffer_size_bytes must be positive, got ") << *size;
  StorageKind storage = getStorage();
  if (storage == StorageKind::smemCluster)
    return emitOpError(
        "smemCluster storage is not supported for storage_alias_spec");
  if (storage != StorageKind::smem && storage != StorageKind::tmem)
    return emitOpError("unsupported storage kind for storage_alias_spec, "
                       "expected smem or tmem");
  StorageAliasSpecType type = getType();
  if (type.getStorage() != storage)
    return emitOpError("result type ")
           << type << " does not match storage = " << stringifyEnum(storage);
  if (type.getBufferSizeBytes() != size) {
    InFlightDiagnostic diag = emitOpError("result type ") << type;
    if (size)
      diag << " does not match size = " << *size;
    else
      diag << " has a size but the op has none";
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// StorageAliasLocalAllocOp
//===----------------------------------------------------------------------===//

LogicalResult StorageAliasLocalAllocOp::verify() {
  auto spec = getStorageAliasSpec().getType();
  std::optional<MemDescInfo> info = getMemDescInfo(getType());
  if (!info)
    return emitOpError("result must be a !ttg.memdesc, got ") << getType();
  std::optional<StorageKind> kind = info->storageKind();
  if (kind != spec.getStorage()) {
    InFlightDiagnostic diag = emitOpError("result memory space ");
    if (info->memorySpace)
      diag << info->memorySpace;
    else
      diag << "(none)";
    return diag << " does not match the storage_alias_spec's storage "
                << stringifyEnum(spec.getStorage()) << " (expected "
                << getMemorySpaceName(spec.getStorage()) << ")";
  }
  if (!info->isMutable)
    return emitOpError("result must be a mutable memory descriptor, got ")
           << getType();
  if (info->shape.size() < 2)
    return emitOpError("result must have a leading buffer dimension "
                       "(shape [num, ...], rank >= 2), got rank ")
           << info->shape.size();
  for (auto [i, dim] : llvm::enumerate(info->shape))
    if (dim <= 0)
      return emitOpError("result dimension ") << i << " must be positive, got "
                                              << dim;
  if (info->elementBits() == 0)
    return emitOpError("element type ")
           << info->elementType << " has no known size in memory";
  // All buffers together, with overflow checked: num x bytes per buffer
  // (kMaxAllocationBytes says why).
  int64_t elements = 1, bits = 0, bytes = 0;
  bool overflow = false;
  for (int64_t dim : llvm::drop_begin(info->shape))
    overflow |= llvm::MulOverflow(elements, dim, elements);
  overflow |= llvm::MulOverflow(elements, info->elementBits(), bits);
  if (!overflow)
    overflow |= llvm::MulOverflow<int64_t>(llvm::divideCeil(bits, 8), info->shape.front(), bytes);
  if (overflow || bytes > kMaxAllocationBytes) {
    InFlightDiagnostic diag = emitOpError("result ") << getType() << " needs ";
    if (overflow)
      diag << "more than 2^63 bytes";
    else
      diag << bytes << " bytes";
    return diag << ", beyond the largest allocation triton can express ("
                << kMaxAllocationBytes << " bytes)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LocalAliasOp
//===----------------------------------------------------------------------===//

LogicalResult LocalAliasOp::verify() {
  std::optional<MemDescInfo> src = getMemDescInfo(getSrc().getType());
  std::optional<MemDescInfo> dst = getMemDescInfo(getType());
  if (!src || !dst)
    return emitOpError("operand and result must be !ttg.memdesc");
  if (src->memorySpace != dst->memorySpace)
    return emitOpError("result memory space ")
           << dst->memorySpace << " differs from the source's "
           << src->memorySpace;
  return success();
}

//===----------------------------------------------------------------------===//
// ReuseGroupOp
//===----------------------------------------------------------------------===//

void ReuseGroupOp::collectLeaves(SmallVectorImpl<Value> &leaves) {
  for (Value element : getElements()) {
    if (auto nested = element.getDefiningOp<ReuseGroupOp>())
      nested.collectLeaves(leaves);
    else if (isMemDesc(element.getType()))
      leaves.push_back(element);
  }
}

LogicalResult ReuseGroupOp::verify() {
  if (getElements().empty())
    return emitOpError("must have at least one element");
  ReuseGroupKind kind = getGroupKind();
  if (std::optional<uint64_t> size = getGroupSize();
      size && static_cast<int64_t>(*size) < 1)
    return emitOpError("group_size must be a positive integer, got ")
           << static_cast<int64_t>(*size);
  if (getType().getGroupKind() != kind)
    return emitOpError("result type ")
           << getType() << " does not match group_kind = "
           << stringifyEnum(kind);
  for (auto [i, element] : llvm::enumerate(getElements())) {
    if (!isa<ReuseGroupType>(element.getType()))
      continue;
    auto nested = element.getDefiningOp<ReuseGroupOp>();
    if (!nested)
      return emitOpError("element ")
             << i << " is a reuse group not defined by tlx.reuse_group";
    if (nested.getGroupKind() == kind && nested.getGroupSizeOrOne() == 1)
      return emitOpError("element ")
             << i << " is a nested reuse_group with the same group_kind ("
             << stringifyEnum(kind)
             << ") as its parent; nested groups must alternate between "
                "shared and distinct (or subtile, with group_size > 1)";
  }

  SmallVector<Value> leaves;
  collectLeaves(leaves);
  std::optional<MemDescInfo> first;
  for (auto [i, leaf] : llvm::enumerate(leaves)) {
    std::optional<MemDescInfo> info = getMemDescInfo(leaf.getType());
    if (!info)
      return emitOpError("leaf ") << i << " is not a memory descriptor";
    if (!info->storageKind())
      return emitOpError("leaf ")
             << i << " (" << leaf.getType()
             << ") is neither in shared nor in tensor memory";
    if (!first) {
      first = info;
      continue;
    }
    if (info->storageKind() != first->storageKind())
      return emitOpError("all leaves must have the same storage kind: leaf 0 is ")
             << stringifyEnum(*first->storageKind()) << " but leaf " << i
             << " is " << stringifyEnum(*info->storageKind());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SetBufferOverlapOp
//===----------------------------------------------------------------------===//

LogicalResult SetBufferOverlapOp::verify() {
  auto root = getOverlapDef().getDefiningOp<ReuseGroupOp>();
  if (!root)
    return emitOpError("overlap definition must be defined by tlx.reuse_group");
  Value spec = getStorageAliasSpec();
  StorageKind storage = cast<StorageAliasSpecType>(spec.getType()).getStorage();

  SmallVector<Value> leaves;
  root.collectLeaves(leaves);
  llvm::DenseMap<Value, unsigned> seen;
  for (auto [i, leaf] : llvm::enumerate(leaves)) {
    auto alloc = leaf.getDefiningOp<StorageAliasLocalAllocOp>();
    if (!alloc)
      return emitOpError("leaf ")
             << i << " (" << leaf.getType()
             << ") is not a tlx.storage_alias_local_alloc; only allocations "
                "made with reuse=<storage_alias_spec> can be overlapped";
    if (alloc.getStorageAliasSpec() != spec)
      return emitOpError("leaf ")
             << i << " was allocated from a different storage_alias_spec";
    std::optional<MemDescInfo> info = getMemDescInfo(leaf.getType());
    if (!info || info->storageKind() != storage)
      return emitOpError("leaf ")
             << i << " storage does not match the storage_alias_spec's "
             << stringifyEnum(storage);
    auto [it, inserted] = seen.try_emplace(leaf, i);
    if (!inserted)
      return emitOpError("leaf ")
             << i << " appears more than once in the overlap tree (first as leaf "
             << it->second << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LocalLoadOp / LocalStoreOp
//===----------------------------------------------------------------------===//

// The tensor and one buffer agree on shape and element type.
static LogicalResult verifyBufferAccess(Operation *op, Type memdesc,
                                        RankedTensorType tensor) {
  std::optional<MemDescInfo> info = getMemDescInfo(memdesc);
  if (!info)
    return op->emitOpError("expects a !ttg.memdesc, got ") << memdesc;
  if (ArrayRef(info->shape) != tensor.getShape() ||
      info->elementType != tensor.getElementType())
    return op->emitOpError("tensor ")
           << tensor << " does not match the buffer " << memdesc
           << " (shape and element type must agree)";
  return success();
}

LogicalResult LocalLoadOp::verify() {
  return verifyBufferAccess(*this, getSrc().getType(),
                            cast<RankedTensorType>(getType()));
}

LogicalResult LocalStoreOp::verify() {
  if (failed(verifyBufferAccess(*this, getDst().getType(),
                                cast<RankedTensorType>(getValue().getType()))))
    return failure();
  if (!getMemDescInfo(getDst().getType())->isMutable)
    return emitOpError("cannot store into an immutable buffer ")
           << getDst().getType();
  return success();
}

LogicalResult AsyncLoadOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  std::optional<MemDescInfo> info = getMemDescInfo(getDst().getType());
  if (!info)
    return emitOpError("expects a !ttg.memdesc destination");
  if (ArrayRef(info->shape) != src.getShape())
    return emitOpError("pointer tensor ")
           << src << " does not match the buffer " << getDst().getType();
  if (!info->isMutable)
    return emitOpError("cannot copy into an immutable buffer");
  if (getMask() && cast<RankedTensorType>(getMask().getType()).getShape() != src.getShape())
    return emitOpError("mask shape does not match the pointer tensor");
  return success();
}

LogicalResult AsyncLoadWaitGroupOp::verify() {
  if (getPendings() < 0)
    return emitOpError("pendings must be non-negative, got ") << getPendings();
  return success();
}
