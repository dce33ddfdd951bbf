// Step 3 of tlx-storage-alias-lowering: each spec becomes one allocation and
// each of its allocations a tlx.local_alias view of it.
//
//   smem: ttg.local_alloc {alignment} : () -> !ttg.memdesc<N x i8, ...>
//   tmem: ttng.tmem_alloc : () -> !ttg.memdesc<128 x C x f32, ...> (C columns)

#include "StorageAliasLowering.h"
#include "TritonByName/TritonOps.h"
#include "tlx_alias/Support/Location.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::triton::tlx {

static Operation *createStorage(OpBuilder &builder, const SpecPlan &plan) {
  StorageAliasSpecOp spec = plan.spec;
  auto emitError = [&] { return spec.emitOpError(); };
  if (plan.storage == StorageKind::smem)
    return createSharedStorage(builder, spec.getLoc(), plan.sizeUnits,
                               plan.alignment, plan.exactViews, emitError);
  int64_t columns = plan.sizeUnits;
  if (columns > kTmemColumns) {
    InFlightDiagnostic diag = spec.emitOpError("storage_alias_spec needs ")
                              << columns << " tensor-memory columns (" << columns * kTmemBytesPerColumn
                              << " bytes); tensor memory has " << kTmemColumns;
    if (plan.ringUnits)
      diag << "; laid out ring by ring it would need " << *plan.ringUnits;
    return nullptr;
  }
  return createTensorStorage(builder, spec.getLoc(), columns, emitError);
}

static std::string jsonString(StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

static std::string locationText(Location loc) {
  return tlx_alias::describeLocation(loc);
}

static std::string functionName(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp())
    if (auto name = parent->getAttrOfType<StringAttr>("sym_name"))
      return name.str();
  return "";
}

// One JSON object per spec, from the numbers the layout engine used, in
// bytes (a tensor-memory column counts 512): "size" is what the spec's
// buffers need, "allocated_size" what its one allocation takes.
static void writeMemoryMapEntry(llvm::raw_ostream &os, SpecPlan &plan,
                                ArrayRef<std::pair<const AllocInfo *, ViewLayout>> views) {
  int64_t unit = plan.unitBytes();
  os << "{\"function\": " << jsonString(functionName(plan.spec))
     << ", \"name\": " << jsonString(tlx_alias::locationName(plan.spec.getLoc()))
     << ", \"location\": " << jsonString(locationText(plan.spec.getLoc()))
     << ", \"storage\": " << jsonString(stringifyEnum(plan.storage))
     << ", \"size\": " << plan.sizeUnits * unit
     // tcgen05.alloc hands out powers of two of at least 32 columns.
     << ", \"allocated_size\": " << plan.allocatedUnits() * unit << ", \"alignment\": " << plan.alignment * unit
     << ", \"unit_bytes\": " << unit << ", \"explicit_size\": " << (plan.spec.getBufferSizeBytes() ? "true" : "false")
     // Ring by ring only where the interleaved layout, whose size is given,
     // does not fit the target (StorageAliasSizes.cpp).
     << ", \"layout\": " << (plan.ringLayout ? "\"rings\"" : "\"interleaved\"")
     << ", \"interleaved_size\": " << plan.interleavedUnits * unit
     << ", \"views\": [";
  for (auto [i, entry] : llvm::enumerate(views)) {
    const auto &[alloc, layout] = entry;
    auto viewInfo = getMemDescInfo(layout.viewType);
    Location allocLoc = const_cast<StorageAliasLocalAllocOp &>(alloc->op).getLoc();
    os << (i ? ", " : "") << "{\"name\": " << jsonString(tlx_alias::locationName(allocLoc))
       << ", \"location\": " << jsonString(locationText(allocLoc))
       << ", \"type\": " << jsonString(toText(layout.originalType))
       << ", \"num_buffers\": " << getBufferCount(alloc->type)
       << ", \"offset\": " << layout.offset * unit
       << ", \"bytes_between_buffers\": " << layout.unitsBetweenBuffers * unit
       << ", \"buffer_bytes\": " << alloc->unitsPerBuffer * unit
       << ", \"alignment\": " << alloc->alignment * unit
       << ", \"subtiles\": [";
    llvm::interleave(
        layout.placement.subtiles, os,
        [&](const Subtile &level) {
          os << "[" << level.groupSize << ", " << level.unitsBetween * unit << "]";
        },
        ", ");
    os << "]"
       << ", \"scale\": " << layout.scale << ", \"offset_slots\": " << layout.offsetSlots
       << ", \"slot_bytes\": " << layout.slotBytes << ", \"expanded_shape\": [";
    llvm::interleave(viewInfo->shape, os, ", ");
    os << "]}";
  }
  os << "]}\n";
}

LogicalResult materializeStorageAliases(MutableArrayRef<SpecPlan> plans,
                                        SmallVectorImpl<PaddedView> &views,
                                        llvm::raw_ostream *memoryMap) {
  for (SpecPlan &plan : plans) {
    SmallVector<std::pair<const AllocInfo *, ViewLayout>> planned;
    OpBuilder builder(plan.spec);
    Operation *storage = createStorage(builder, plan);
    if (!storage)
      return failure();
    Value base = storage->getResult(0);
    for (AllocInfo &alloc : plan.allocs) {
      BufferPlacement placement = plan.placements.lookup(alloc.op);
      FailureOr<ViewLayout> layout =
          getViewLayout(alloc.op.getType(), placement,
                        plan.exactViews ? plan.allocatedUnits() : 0,
                        [&] { return alloc.op.emitOpError(); });
      if (failed(layout))
        return failure();
      planned.push_back({&alloc, *layout});
      builder.setInsertionPoint(alloc.op);
      auto alias = LocalAliasOp::create(builder, alloc.op.getLoc(),
                                                layout->viewType, base);
      // Until step 4 retypes them, users of a padded view still expect the
      // user's type; nothing verifies in between.
      alloc.op.getResult().replaceAllUsesWith(alias.getResult());
      if (!layout->isIdentity())
        views.push_back({alias.getResult(), *layout});
    }
    if (memoryMap)
      writeMemoryMapEntry(*memoryMap, plan, planned);
    for (AllocInfo &alloc : plan.allocs)
      alloc.op.erase();
    plan.allocs.clear();
    plan.spec.erase();
  }
  return success();
}

} // namespace mlir::triton::tlx
