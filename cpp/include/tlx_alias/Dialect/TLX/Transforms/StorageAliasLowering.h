#ifndef TLX_ALIAS_DIALECT_TLX_TRANSFORMS_STORAGEALIASLOWERING_H
#define TLX_ALIAS_DIALECT_TLX_TRANSFORMS_STORAGEALIASLOWERING_H

// The four steps of tlx-storage-alias-lowering and what they hand each other.
// Offsets stay here, in memory, never in IR attributes.

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace mlir::triton::tlx {

/// One tlx.storage_alias_local_alloc, as the layout engine sees it.
struct AllocInfo {
  StorageAliasLocalAllocOp op;
  MemDescInfo type;
  int64_t bytesPerBuffer = 0; // one buffer, unpadded
  int64_t alignment = 0;      // required alignment of each buffer's start
};

/// Where buffer i of an allocation lives: offset + i * bytesBetweenBuffers.
struct BufferPlacement {
  int64_t offset = 0;
  int64_t bytesBetweenBuffers = 0;
};

/// Everything known about one tlx.storage_alias_spec.
struct SpecPlan {
  StorageAliasSpecOp spec;
  StorageKind storage;
  SmallVector<AllocInfo> allocs;         // in program order
  SetBufferOverlapOp overlap;            // the tree, or null
  SmallVector<SetBufferOverlapOp> extraOverlaps; // duplicates (an error)
  int64_t numBuffers = 0;                // common buffer count of the tree
  int64_t sizeBytes = 0;                 // the storage to materialize
  int64_t alignment = 0;                 // of the storage's start
  int64_t bytesBetweenBuffers = 0;       // with an overlap tree
  llvm::DenseMap<Operation *, BufferPlacement> placements;

  const AllocInfo *find(Operation *op) const;
};

/// Bytes and alignment a reuse-group node needs per buffer index.
struct NodeSize {
  int64_t bytes = 0;
  int64_t alignment = 1;
};
NodeSize getNodeSize(Value element, const SpecPlan &plan);

/// Alignment of one buffer of `info` in its storage: 128 B at least in
/// shared memory (more for NVMMA swizzles), one TMEM column in tensor memory.
int64_t getBufferAlignment(const MemDescInfo &info, StorageKind storage);

/// Bytes of tensor memory one column holds (128 lanes x 32 bits).
inline constexpr int64_t kTmemBytesPerColumn = 128 * 4;

/// How a multi-buffered view [num, ...] is expressed over its storage:
/// buffer i is `ttg.memdesc_index %view[scale * i + offsetSlots]` of
/// `viewType`. When the placement is a multiple of the buffer size the view
/// keeps the user's type with a longer leading dimension; otherwise the view
/// is a row of `slotBytes`-byte slots and each indexed slot is reinterpreted
/// back to the buffer type.
struct ViewLayout {
  Type originalType; // [num, ...] as the user wrote it
  Type viewType;     // what the view becomes
  Type slotType;     // what memdesc_index of a slot view yields (slots only)
  int64_t offset = 0, bytesBetweenBuffers = 0;
  int64_t scale = 1, offsetSlots = 0;
  int64_t slotBytes = 0; // 0: standard view (slot == buffer)

  bool isIdentity() const {
    return viewType == originalType && scale == 1 && offsetSlots == 0 &&
           slotBytes == 0;
  }
  bool operator==(const ViewLayout &other) const {
    return viewType == other.viewType && originalType == other.originalType &&
           scale == other.scale && offsetSlots == other.offsetSlots &&
           slotBytes == other.slotBytes;
  }
};

/// The layout of `originalType` placed at `placement`; fails (reporting
/// through emitError) when Triton cannot express it.
FailureOr<ViewLayout> getViewLayout(Type originalType, BufferPlacement placement,
                                    function_ref<InFlightDiagnostic()> emitError);

/// A view that step 3 created and step 4 must rewrite the accesses of.
struct PaddedView {
  Value alias;
  ViewLayout layout;
};

// Step 1: collects the specs and sizes each one (or checks its explicit size).
LogicalResult computeStorageAliasSizes(ModuleOp module,
                                       std::vector<SpecPlan> &plans);
// Step 2: places every allocation of every spec; erases the overlap trees.
LogicalResult assignStorageAliasOffsets(ModuleOp module,
                                        MutableArrayRef<SpecPlan> plans);
// Step 3: one allocation per spec, one tlx.local_alias view per allocation.
// With a non-null `memoryMap`, appends one JSON line per spec to it.
LogicalResult materializeStorageAliases(MutableArrayRef<SpecPlan> plans,
                                        SmallVectorImpl<PaddedView> &views,
                                        llvm::raw_ostream *memoryMap = nullptr);
// Step 4: retypes the views along their uses and rewrites buffer indices.
LogicalResult rewritePaddedAccesses(ArrayRef<PaddedView> views);

} // namespace mlir::triton::tlx

#endif // TLX_ALIAS_DIALECT_TLX_TRANSFORMS_STORAGEALIASLOWERING_H
