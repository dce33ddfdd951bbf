// Step 2 of tlx-storage-alias-lowering: place every allocation of a spec with
// an overlap tree. Buffer index i of every allocation lives in the slice
// [i * bytes_between_buffers, (i + 1) * bytes_between_buffers); inside it,
// `shared` children start together and `distinct` children follow each
// other in order, each aligned to what its layout needs. (Exact views may
// lay the tree out ring by ring instead: StorageAliasRings.cpp.)

#include "StorageAliasLowering.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::triton::tlx {

static InFlightDiagnostic emitNoSpace(ReuseGroupOp group, SpecPlan &plan) {
  int64_t have = plan.spec.getBufferSizeBytes().value_or(plan.sizeUnits * plan.unitBytes());
  return group.emitOpError("not enough space for distinct allocations: need ")
         << plan.requiredUnits * plan.unitBytes() << " bytes, have " << have
         << " bytes (storage_alias_spec size, " << plan.numBuffers << " buffers)";
}

// Places `element` at `offset` with `available` units of its parent's buffer
// index; `subtiles` are the group_size levels above it.
static LogicalResult place(Value element, int64_t offset, int64_t available,
                           SmallVector<Subtile, 1> subtiles, SpecPlan &plan) {
  auto group = element.getDefiningOp<ReuseGroupOp>();
  if (!group) {
    plan.placements[element.getDefiningOp()] = {offset, plan.unitsBetweenBuffers,
                                                std::move(subtiles)};
    return success();
  }
  // A shared group fits when its children do (checked below them).
  NodeSize size = getNodeSize(element, plan);
  bool distinct = group.getGroupKind() == ReuseGroupKind::distinct;
  if ((distinct || group.getGroupSizeOrOne() > 1) && size.units > available)
    return emitNoSpace(group, plan);
  if (int64_t k = group.getGroupSizeOrOne(); k > 1) {
    // k sub-buffers side by side, each holding the group's elements.
    int64_t between = size.units / k;
    subtiles.push_back({k, between});
    available = between;
  }
  if (group.getGroupKind() == ReuseGroupKind::shared) {
    for (Value child : group.getElements())
      if (failed(place(child, offset, available, subtiles, plan)))
        return failure();
    return success();
  }
  // Offsets here are multiples of the group's alignment, so aligning the
  // cursor relative to the group aligns it absolutely too.
  int64_t cursor = 0;
  for (Value child : group.getElements()) {
    NodeSize childSize = getNodeSize(child, plan);
    cursor = llvm::alignTo(cursor, childSize.alignment);
    if (failed(place(child, offset + cursor, childSize.units, subtiles, plan)))
      return failure();
    cursor += childSize.units;
  }
  return success();
}

LogicalResult assignStorageAliasOffsets(ModuleOp module,
                                        MutableArrayRef<SpecPlan> plans) {
  for (SpecPlan &plan : plans) {
    if (!plan.extraOverlaps.empty())
      return plan.extraOverlaps.front().emitOpError(
          "storage_alias_spec already has a set_buffer_overlap defined; each "
          "spec can only have one overlap definition");
    if (!plan.overlap || plan.ringLayout) // rings are placed with their sizes
      continue;
    Value root = plan.overlap.getOverlapDef();
    if (failed(place(root, 0, plan.unitsBetweenBuffers, {}, plan)))
      return failure();
  }

  // Every overlap definition belongs to a spec processed above; one that is
  // left (its spec is not a tlx.storage_alias_spec op) cannot be honoured.
  SmallVector<Operation *> unprocessed;
  llvm::SmallPtrSet<Operation *, 8> processed;
  for (SpecPlan &plan : plans)
    if (plan.overlap)
      processed.insert(plan.overlap);
  module.walk([&](SetBufferOverlapOp op) {
    if (!processed.contains(op))
      unprocessed.push_back(op);
  });
  if (!unprocessed.empty())
    return unprocessed.front()->emitOpError(
        "set_buffer_overlap was not processed by tlx-storage-alias-lowering: "
        "its storage_alias_spec is not defined by a tlx.storage_alias_spec op "
        "in this function");

  // The trees have done their job. Erasing in reverse program order removes
  // each group after the groups that nest it.
  for (SpecPlan &plan : plans) {
    if (plan.overlap)
      plan.overlap.erase();
    plan.overlap = nullptr;
  }
  SmallVector<ReuseGroupOp> groups;
  module.walk([&](ReuseGroupOp group) { groups.push_back(group); });
  for (ReuseGroupOp group : llvm::reverse(groups)) {
    if (!group->use_empty())
      return group.emitOpError("is used by ")
             << *group->user_begin() << "; reuse groups only describe overlap";
    group.erase();
  }
  return success();
}

} // namespace mlir::triton::tlx
