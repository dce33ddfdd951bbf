// Step 1 of tlx-storage-alias-lowering: collect every storage_alias_spec with
// its allocations and overlap tree, and size it.
//
//   no overlap tree:  max over allocations of num * bytes-per-buffer
//   overlap tree:     num * size(tree), where size(shared) = max(children)
//                     and size(distinct) = sum of the children, each aligned
//
// An explicit size smaller than needed is an error; a larger one is padding.

#include "tlx_alias/Dialect/TLX/Transforms/StorageAliasLowering.h"
#include "tlx_alias/Dialect/TLX/Transforms/TritonOps.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::triton::tlx {

const AllocInfo *SpecPlan::find(Operation *op) const {
  for (const AllocInfo &alloc : allocs)
    if (const_cast<StorageAliasLocalAllocOp &>(alloc.op).getOperation() == op)
      return &alloc;
  return nullptr;
}

int64_t getBufferAlignment(const MemDescInfo &info, StorageKind storage) {
  if (storage == StorageKind::tmem)
    return kTmemBytesPerColumn;
  return std::max<int64_t>(128, getSharedEncodingAlignment(info.encoding));
}

NodeSize getNodeSize(Value element, const SpecPlan &plan) {
  if (auto group = element.getDefiningOp<ReuseGroupOp>()) {
    NodeSize size;
    for (Value child : group.getElements()) {
      NodeSize childSize = getNodeSize(child, plan);
      size.alignment = std::max(size.alignment, childSize.alignment);
      if (group.getGroupKind() == ReuseGroupKind::shared)
        size.bytes = std::max(size.bytes, childSize.bytes);
      else
        size.bytes = llvm::alignTo(size.bytes, childSize.alignment) + childSize.bytes;
    }
    return size;
  }
  const AllocInfo *alloc = plan.find(element.getDefiningOp());
  assert(alloc && "leaves were checked to be allocations of this spec");
  return {alloc->bytesPerBuffer, alloc->alignment};
}

static InFlightDiagnostic emitTooSmall(StorageAliasSpecOp spec, int64_t size,
                                       int64_t required) {
  return spec.emitOpError("storage_alias_spec size ")
         << size << " is too small, requires at least " << required << " bytes";
}

// Collects the allocations and overlap definitions of one spec; anything
// else using the spec is an error.
static LogicalResult collectUsers(SpecPlan &plan,
                                  const DenseMap<Operation *, unsigned> &order) {
  for (Operation *user : plan.spec->getUsers()) {
    if (auto alloc = dyn_cast<StorageAliasLocalAllocOp>(user)) {
      std::optional<MemDescInfo> info = getMemDescInfo(alloc.getType());
      assert(info && "verified by StorageAliasLocalAllocOp");
      plan.allocs.push_back(
          {alloc, *info, info->bytesPerBuffer(), getBufferAlignment(*info, plan.storage)});
    } else if (auto overlap = dyn_cast<SetBufferOverlapOp>(user)) {
      plan.extraOverlaps.push_back(overlap);
    } else {
      return user->emitOpError("uses a storage_alias_spec; only "
                               "tlx.storage_alias_local_alloc and "
                               "tlx.set_buffer_overlap may use one");
    }
  }
  // Use lists are newest-first: restore program order, in which the first
  // overlap definition is the one, and any later one a duplicate.
  llvm::sort(plan.allocs, [&](const AllocInfo &a, const AllocInfo &b) {
    return order.lookup(a.op) < order.lookup(b.op);
  });
  llvm::sort(plan.extraOverlaps, [&](SetBufferOverlapOp a, SetBufferOverlapOp b) {
    return order.lookup(a) < order.lookup(b);
  });
  if (!plan.extraOverlaps.empty())
    plan.overlap = plan.extraOverlaps.front();
  plan.extraOverlaps.erase(plan.extraOverlaps.begin(),
                           plan.extraOverlaps.begin() + std::min<size_t>(1, plan.extraOverlaps.size()));
  return success();
}

static LogicalResult sizeWithoutOverlap(SpecPlan &plan) {
  int64_t required = 0;
  for (const AllocInfo &alloc : plan.allocs) {
    required = std::max(required, alloc.type.numBuffers() * alloc.bytesPerBuffer);
    plan.alignment = std::max(plan.alignment, alloc.alignment);
  }
  std::optional<int64_t> explicitSize = plan.spec.getBufferSizeBytes();
  if (explicitSize && *explicitSize < required)
    return emitTooSmall(plan.spec, *explicitSize, required);
  plan.sizeBytes = explicitSize.value_or(required);
  // Every allocation starts at the base and keeps its natural stride.
  for (const AllocInfo &alloc : plan.allocs)
    plan.placements[alloc.op] = {0, alloc.bytesPerBuffer};
  return success();
}

static LogicalResult sizeWithOverlap(SpecPlan &plan) {
  SmallVector<Value> leaves;
  cast<ReuseGroupOp>(plan.overlap.getOverlapDef().getDefiningOp()).collectLeaves(leaves);
  llvm::SmallPtrSet<Operation *, 8> inTree;
  for (Value leaf : leaves)
    inTree.insert(leaf.getDefiningOp());
  for (AllocInfo &alloc : plan.allocs)
    if (!inTree.contains(alloc.op))
      return alloc.op.emitOpError(
          "is not in the set_buffer_overlap tree of its storage_alias_spec; "
          "a spec with an overlap definition must place all its allocations");

  plan.numBuffers = plan.allocs.front().type.numBuffers();
  NodeSize tree = getNodeSize(plan.overlap.getOverlapDef(), plan);
  plan.alignment = tree.alignment;
  int64_t neededStride = llvm::alignTo(tree.bytes, tree.alignment);
  int64_t required = plan.numBuffers * neededStride;
  std::optional<int64_t> explicitSize = plan.spec.getBufferSizeBytes();
  if (!explicitSize) {
    plan.sizeBytes = required;
    plan.bytesBetweenBuffers = neededStride;
    return success();
  }
  // The user's size fixes the stride. A buffer that cannot fit alone is a
  // size error here; a distinct group that does not fit is reported at that
  // group when offsets are assigned.
  plan.sizeBytes = *explicitSize;
  plan.bytesBetweenBuffers =
      llvm::alignDown(*explicitSize / plan.numBuffers, tree.alignment);
  for (const AllocInfo &alloc : plan.allocs)
    if (alloc.bytesPerBuffer > plan.bytesBetweenBuffers)
      return emitTooSmall(plan.spec, *explicitSize, required);
  return success();
}

LogicalResult computeStorageAliasSizes(ModuleOp module,
                                       std::vector<SpecPlan> &plans) {
  SmallVector<StorageAliasSpecOp> specs;
  DenseMap<Operation *, unsigned> order; // program order, for sorting users
  module.walk([&](Operation *op) {
    order[op] = order.size();
    if (auto spec = dyn_cast<StorageAliasSpecOp>(op))
      specs.push_back(spec);
  });
  for (StorageAliasSpecOp spec : specs) {
    SpecPlan plan;
    plan.spec = spec;
    plan.storage = spec.getStorage();
    if (failed(collectUsers(plan, order)))
      return failure();
    if (plan.allocs.empty()) {
      spec.emitWarning("storage_alias_spec has no tlx.storage_alias_local_alloc "
                       "users; it is removed");
      // Only overlap definitions can remain, and they need leaves.
      assert(!plan.overlap && "an overlap tree has at least one leaf");
      spec.erase();
      continue;
    }
    if (failed(plan.overlap ? sizeWithOverlap(plan) : sizeWithoutOverlap(plan)))
      return failure();
    plans.push_back(std::move(plan));
  }
  return success();
}

} // namespace mlir::triton::tlx
