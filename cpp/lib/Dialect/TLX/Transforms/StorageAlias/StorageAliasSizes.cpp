// Step 1 of tlx-storage-alias-lowering: collect every storage_alias_spec with
// its allocations and overlap tree, and size it.
//
//   no overlap tree:  max over allocations of num * bytes-per-buffer
//   overlap tree:     num * size(tree), where size(shared) = max(children)
//                     and size(distinct) = sum of the children, each aligned
//
// An explicit size smaller than needed is an error; a larger one is padding.

#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "StorageAliasLowering.h"
#include "TritonByName/TargetLimits.h"
#include "TritonByName/TritonOps.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::triton::tlx {

const AllocInfo *SpecPlan::find(Operation *op) const {
  for (const AllocInfo &alloc : allocs)
    if (const_cast<StorageAliasLocalAllocOp &>(alloc.op).getOperation() == op)
      return &alloc;
  return nullptr;
}

int64_t SpecPlan::unitBytes() const {
  return storage == StorageKind::tmem ? kTmemBytesPerColumn : 1;
}

int64_t SpecPlan::allocatedUnits() const {
  return storage == StorageKind::tmem ? roundTmemColumns(sizeUnits) : sizeUnits;
}

bool isSingleTmemTile(const MemDescInfo &info) {
  return info.storageKind() == StorageKind::tmem && info.shape.size() == 2;
}

int64_t getBufferCount(const MemDescInfo &info) {
  return isSingleTmemTile(info) ? 1 : info.numBuffers();
}

int64_t getBufferUnits(const MemDescInfo &info) {
  if (isSingleTmemTile(info))
    return getTmemColumns(info.shape, info.elementBits(), info.encoding);
  if (info.storageKind() == StorageKind::tmem)
    return getTmemColumns(ArrayRef(info.shape).drop_front(), info.elementBits(),
                          info.encoding);
  // Padded layouts: the padding after each buffer belongs to it.
  int64_t elements = info.elementsPerBuffer();
  int64_t stride = getSharedBufferStride(elements, info.encoding);
  if (stride == elements)
    return info.bytesPerBuffer();
  return llvm::divideCeil(stride * info.elementBits(), 8);
}

int64_t getBufferAlignment(const MemDescInfo &info, StorageKind storage,
                           bool exactViews) {
  // Tensor memory is indexed in whole buffers (memdesc_index steps by a
  // buffer's columns), so, as TLX does, each buffer starts on a multiple of
  // its own column count: distinct children and the stride are aligned to
  // the largest leaf's columns. Exact views index shared memory the same
  // way (a buffer's view is a whole-storage reinterpret, then an index).
  if (storage == StorageKind::tmem)
    return std::max<int64_t>(1, getBufferUnits(info));
  int64_t alignment = std::max<int64_t>(128, getSharedEncodingAlignment(info.encoding));
  if (exactViews)
    alignment = std::max(alignment, getBufferUnits(info));
  return alignment;
}

// Where the storage itself must start: what its buffers' layouts need
// (exact views align buffers within it, not the storage).
static int64_t getStorageAlignment(const SpecPlan &plan) {
  int64_t alignment = 1;
  for (const AllocInfo &alloc : plan.allocs)
    alignment = std::max(alignment, getBufferAlignment(alloc.type, plan.storage,
                                                       /*exactViews=*/false));
  return alignment;
}

// Exact views span the whole storage in whole buffers: its size is a
// multiple of every buffer's (each a power of two, as their alignments).
static int64_t roundForExactViews(const SpecPlan &plan, int64_t units) {
  if (!plan.exactViews)
    return units;
  int64_t multiple = 1;
  for (const AllocInfo &alloc : plan.allocs)
    multiple = std::max(multiple, alloc.alignment);
  return llvm::alignTo(units, multiple);
}

int64_t BufferPlacement::startOf(int64_t i) const {
  int64_t start = offset;
  for (const Subtile &level : llvm::reverse(subtiles)) {
    start += (i % level.groupSize) * level.unitsBetween;
    i /= level.groupSize;
  }
  return start + i * unitsBetweenBuffers;
}

int64_t BufferPlacement::buffersPerIndex() const {
  int64_t product = 1;
  for (const Subtile &level : subtiles)
    product *= level.groupSize;
  return product;
}

NodeSize getNodeSize(Value element, const SpecPlan &plan) {
  if (auto group = element.getDefiningOp<ReuseGroupOp>()) {
    NodeSize size;
    for (Value child : group.getElements()) {
      NodeSize childSize = getNodeSize(child, plan);
      size.alignment = std::max(size.alignment, childSize.alignment);
      if (group.getGroupKind() == ReuseGroupKind::shared)
        size.units = std::max(size.units, childSize.units);
      else
        size.units = llvm::alignTo(size.units, childSize.alignment) + childSize.units;
    }
    // Subtiling: group_size copies side by side, each aligned.
    if (int64_t k = group.getGroupSizeOrOne(); k > 1)
      size.units = k * llvm::alignTo(size.units, size.alignment);
    return size;
  }
  const AllocInfo *alloc = plan.find(element.getDefiningOp());
  assert(alloc && "leaves were checked to be allocations of this spec");
  return {alloc->unitsPerBuffer, alloc->alignment};
}

static InFlightDiagnostic emitTooSmall(SpecPlan &plan, int64_t size,
                                       int64_t requiredUnits) {
  return plan.spec.emitOpError("storage_alias_spec size ")
         << size << " is too small, requires at least "
         << requiredUnits * plan.unitBytes() << " bytes";
}

// The user's size in the spec's units (whole tensor-memory columns).
static std::optional<int64_t> explicitUnits(SpecPlan &plan) {
  std::optional<int64_t> size = plan.spec.getBufferSizeBytes();
  if (size)
    return *size / plan.unitBytes();
  return std::nullopt;
}

// Collects the allocations and overlap definitions of one spec; anything
// else using the spec is an error.
static LogicalResult collectUsers(SpecPlan &plan,
                                  const DenseMap<Operation *, unsigned> &order) {
  for (Operation *user : plan.spec->getUsers()) {
    if (auto alloc = dyn_cast<StorageAliasLocalAllocOp>(user)) {
      std::optional<MemDescInfo> info = getMemDescInfo(alloc.getType());
      assert(info && "verified by StorageAliasLocalAllocOp");
      plan.allocs.push_back({alloc, *info, getBufferUnits(*info),
                             getBufferAlignment(*info, plan.storage, plan.exactViews)});
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
  for (const AllocInfo &alloc : plan.allocs)
    required = std::max(required, getBufferCount(alloc.type) * alloc.unitsPerBuffer);
  plan.alignment = getStorageAlignment(plan);
  plan.requiredUnits = required;
  plan.interleavedUnits = required;
  std::optional<int64_t> explicitSize = explicitUnits(plan);
  if (explicitSize && *explicitSize < required)
    return emitTooSmall(plan, *plan.spec.getBufferSizeBytes(), required);
  plan.sizeUnits = roundForExactViews(plan, explicitSize.value_or(required));
  // Every allocation starts at the base and keeps its natural stride.
  for (const AllocInfo &alloc : plan.allocs)
    plan.placements[alloc.op] = {0, alloc.unitsPerBuffer, {}};
  return success();
}

// The buffer indices of the tree each leaf needs: its buffer count over the
// product of the group sizes above it, rounded up; the tree has the most.
static int64_t countBufferIndices(Value element, int64_t buffersPerIndex) {
  if (auto group = element.getDefiningOp<ReuseGroupOp>()) {
    int64_t most = 0;
    for (Value child : group.getElements())
      most = std::max(most, countBufferIndices(child, buffersPerIndex *
                                                          group.getGroupSizeOrOne()));
    return most;
  }
  auto info = getMemDescInfo(element.getType());
  return llvm::divideCeil(getBufferCount(*info), buffersPerIndex);
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

  // Leaves may have different buffer counts: buffer index i of the tree
  // holds buffer i of every leaf that has one (with group_size k, buffers
  // ki .. ki + k - 1), so the tree has as many indices as the most any leaf
  // needs, each as large as the tree.
  plan.numBuffers = countBufferIndices(plan.overlap.getOverlapDef(), 1);
  NodeSize tree = getNodeSize(plan.overlap.getOverlapDef(), plan);
  plan.alignment = getStorageAlignment(plan);
  int64_t neededStride = llvm::alignTo(tree.units, tree.alignment);
  int64_t required = plan.numBuffers * neededStride;
  plan.requiredUnits = required;
  plan.interleavedUnits = required;
  std::optional<int64_t> explicitSize = explicitUnits(plan);
  // The design's layout (one stride for the whole tree) is the layout. Only
  // where it does not fit the target are the rings tried: they can be
  // smaller under exact views (no slice padded to its largest buffer), and
  // a tree that fits so is better than an error.
  if (plan.exactViews && plan.limitUnits && required > *plan.limitUnits) {
    llvm::DenseMap<Operation *, BufferPlacement> rings;
    std::optional<int64_t> ringUnits = layOutRings(plan, rings);
    if (ringUnits)
      plan.ringUnits = roundForExactViews(plan, *ringUnits);
    if (ringUnits && *plan.ringUnits <= *plan.limitUnits) {
      plan.ringLayout = true;
      plan.placements = std::move(rings);
      plan.requiredUnits = *ringUnits;
      if (explicitSize && *explicitSize < *ringUnits)
        return emitTooSmall(plan, *plan.spec.getBufferSizeBytes(), *ringUnits);
      plan.sizeUnits = roundForExactViews(plan, explicitSize.value_or(*ringUnits));
      return success();
    }
  }
  if (!explicitSize) {
    plan.sizeUnits = required;
    plan.unitsBetweenBuffers = neededStride;
    return success();
  }
  // The user's size fixes the stride. A buffer that cannot fit alone is a
  // size error here; a distinct group that does not fit is reported at that
  // group when offsets are assigned.
  plan.sizeUnits = roundForExactViews(plan, *explicitSize);
  plan.unitsBetweenBuffers =
      llvm::alignDown(*explicitSize / plan.numBuffers, tree.alignment);
  for (const AllocInfo &alloc : plan.allocs)
    if (alloc.unitsPerBuffer > plan.unitsBetweenBuffers)
      return emitTooSmall(plan, *plan.spec.getBufferSizeBytes(), required);
  return success();
}

bool needsPackedViews(const MemDescInfo &info) {
  return kPackedViewsVerify && info.storageKind() == StorageKind::smem &&
         getBufferUnits(info) != info.bytesPerBuffer();
}

static bool holdsPaddedLayouts(StorageAliasSpecOp spec) {
  return llvm::any_of(spec->getUsers(), [](Operation *user) {
    auto alloc = dyn_cast<StorageAliasLocalAllocOp>(user);
    std::optional<MemDescInfo> info = alloc ? getMemDescInfo(alloc.getType()) : std::nullopt;
    return info && needsPackedViews(*info);
  });
}

// A storage beyond the target's shared memory fails here, naming both sizes
// (triton's allocator would fail later, without the spec's line).
LogicalResult checkSharedMemoryLimit(ModuleOp module, SpecPlan &plan) {
  std::optional<int64_t> capability = getCudaCapability(module);
  std::optional<int64_t> limit = plan.limitUnits;
  if (plan.storage != StorageKind::smem || !limit || plan.sizeUnits <= *limit)
    return success();
  InFlightDiagnostic diag = plan.spec.emitOpError("storage_alias_spec needs ")
                            << plan.sizeUnits << " bytes of shared memory; sm_" << *capability << " has "
                            << *limit << " (" << *limit / 1024 << " KiB)";
  if (plan.ringUnits)
    diag << "; laid out ring by ring it would need " << *plan.ringUnits;
  return diag;
}

LogicalResult computeStorageAliasSizes(ModuleOp module, bool exactViews, bool checkTargetMemory,
                                       std::vector<SpecPlan> &plans) {
  std::optional<int64_t> capability = getCudaCapability(module);
  std::optional<int64_t> sharedLimit =
      capability && checkTargetMemory ? getMaxSharedMemoryBytes(*capability) : std::nullopt;
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
    plan.exactViews = exactViews && !holdsPaddedLayouts(spec);
    plan.limitUnits = plan.storage == StorageKind::smem ? sharedLimit
                                                        : std::optional<int64_t>(kTmemColumns);
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
