#ifndef TLX_ALIAS_TRANSFORMS_STORAGEALIAS_STORAGEALIASLOWERING_H
#define TLX_ALIAS_TRANSFORMS_STORAGEALIAS_STORAGEALIASLOWERING_H

// The four steps of tlx-storage-alias-lowering and what they hand each other.
// Offsets stay here, in memory, never in IR attributes.
//
// Sizes, offsets and strides are counted in the storage's units: bytes in
// shared memory, columns in tensor memory (where the bytes of a buffer do not
// tell its footprint: unpacked 16-bit data and blockM = 64 take twice the
// columns; see getTmemColumns).

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
  int64_t unitsPerBuffer = 0; // one buffer: bytes, or TMEM columns
  int64_t alignment = 0;      // required alignment of each buffer's start (units)
};

/// One `group_size = k` level between the tree's root and a leaf: k
/// consecutive buffers share one buffer index of the level above, side by
/// side, `unitsBetween` apart.
struct Subtile {
  int64_t groupSize = 1;
  int64_t unitsBetween = 0;
  bool operator==(const Subtile &other) const {
    return groupSize == other.groupSize && unitsBetween == other.unitsBetween;
  }
};

/// Where buffer i of an allocation lives. Without subtiles: offset + i *
/// unitsBetweenBuffers. With subtiles (outermost first) of sizes k1 .. kn,
/// i is split into digits, innermost last: i = ((q * k1 + r1) * k2 + r2) ...,
/// and buffer i starts at offset + q * unitsBetweenBuffers + sum r_l *
/// unitsBetween_l.
struct BufferPlacement {
  int64_t offset = 0;
  int64_t unitsBetweenBuffers = 0;
  SmallVector<Subtile, 1> subtiles;

  int64_t startOf(int64_t i) const;
  /// Buffers per index of the spec: the product of the group sizes.
  int64_t buffersPerIndex() const;
};

/// Everything known about one tlx.storage_alias_spec.
struct SpecPlan {
  StorageAliasSpecOp spec;
  StorageKind storage;
  bool exactViews = false;               // triton 3.8's view rules (see Passes.td)
  bool ringLayout = false;               // placed ring by ring (exact views only)
  std::optional<int64_t> limitUnits;     // the memory the target has, when known
  SmallVector<AllocInfo> allocs;         // in program order
  SetBufferOverlapOp overlap;            // the tree, or null
  SmallVector<SetBufferOverlapOp> extraOverlaps; // duplicates (an error)
  int64_t numBuffers = 0;                // buffer indices of the tree (the most any leaf needs)
  int64_t sizeUnits = 0;                 // the storage to materialize
  int64_t alignment = 0;                 // of the storage's start
  int64_t unitsBetweenBuffers = 0;       // with an overlap tree, interleaved
  int64_t requiredUnits = 0;             // the least size that fits
  int64_t interleavedUnits = 0;          // what the design's layout needs
  std::optional<int64_t> ringUnits;      // what rings needed, where tried and too large
  llvm::DenseMap<Operation *, BufferPlacement> placements;

  const AllocInfo *find(Operation *op) const;
  /// Bytes per unit: 1 in shared memory, a column (512) in tensor memory.
  int64_t unitBytes() const;
  /// Units of the allocation made for the spec: tensor memory is allocated
  /// in powers of two of at least 32 columns.
  int64_t allocatedUnits() const;
};

/// Units and alignment a reuse-group node needs per buffer index of its
/// parent (group_size included).
struct NodeSize {
  int64_t units = 0;
  int64_t alignment = 1;
};
NodeSize getNodeSize(Value element, const SpecPlan &plan);

/// Alignment of one buffer of `info` in its storage, in units: 128 B at least
/// in shared memory (more for NVMMA swizzles), its own column count in
/// tensor memory; with exact views, its own size in shared memory too.
int64_t getBufferAlignment(const MemDescInfo &info, StorageKind storage,
                           bool exactViews);

/// The units one buffer of a multi-buffered `info` takes in its storage:
/// bytes in shared memory, Triton's TMEM column count in tensor memory.
int64_t getBufferUnits(const MemDescInfo &info);

/// The buffers of `info` in its storage: its leading dimension, but 1 for a
/// rank-2 tensor-memory buffer (rows are TMEM lanes: such a tile has no
/// buffer dimension, and triton allocates it whole).
int64_t getBufferCount(const MemDescInfo &info);

/// Whether `info` is a rank-2 tensor-memory tile (getBufferCount).
bool isSingleTmemTile(const MemDescInfo &info);

/// Whether views of `info` must be packed: exact views cannot express a
/// padded shared layout beside others (triton 3.8 reinterprets only between
/// views of one padding), so where packed views verify (triton 3.7) views of
/// one allocation holding such a layout stay packed.
bool needsPackedViews(const MemDescInfo &info);

/// Bytes of tensor memory one column holds (128 lanes x 32 bits).
inline constexpr int64_t kTmemBytesPerColumn = 128 * 4;
/// Tensor-memory columns of one CTA (sm_100).
inline constexpr int64_t kTmemColumns = 512;

/// How a multi-buffered view [num, ...] is expressed over its storage:
/// buffer i is `ttg.memdesc_index %view[scale * i + offsetSlots]` of
/// `viewType`. When the placement is a multiple of the buffer size the view
/// keeps the user's type with a longer leading dimension; otherwise the view
/// is a row of `slotBytes`-byte slots and each indexed slot is reinterpreted
/// back to the buffer type. With exact views (storageUnits != 0) the view
/// spans the whole storage, as triton 3.8's reinterpret requires.
struct ViewLayout {
  Type originalType; // [num, ...] as the user wrote it
  Type viewType;     // what the view becomes
  Type slotType;     // what memdesc_index of a slot view yields (slots only)
  BufferPlacement placement;
  int64_t offset = 0, unitsBetweenBuffers = 0;
  int64_t scale = 1, offsetSlots = 0;
  // With subtiles: (group size, slots between its buffers), outermost first;
  // index i becomes scale * q + offsetSlots + sum r_l * slots_l.
  SmallVector<std::pair<int64_t, int64_t>, 1> subtileSlots;
  int64_t slotBytes = 0; // 0: standard view (slot == buffer)
  int64_t storageUnits = 0; // exact views: units of the storage viewed

  bool isIdentity() const {
    return viewType == originalType && scale == 1 && offsetSlots == 0 &&
           slotBytes == 0 && subtileSlots.empty();
  }
  bool operator==(const ViewLayout &other) const {
    return viewType == other.viewType && originalType == other.originalType &&
           scale == other.scale && offsetSlots == other.offsetSlots &&
           slotBytes == other.slotBytes && subtileSlots == other.subtileSlots;
  }
};

/// Why views of `info` cannot be exact (a padded shared layout, a buffer of
/// part of a byte), or success.
LogicalResult checkExactViewLayout(const MemDescInfo &info,
                                   function_ref<InFlightDiagnostic()> emitError);

/// The layout of `originalType` placed at `placement` in a storage of
/// `storageUnits` (0: no exact views, the view reaches its last buffer);
/// fails (reporting through emitError) when Triton cannot express it.
FailureOr<ViewLayout> getViewLayout(Type originalType, BufferPlacement placement,
                                    int64_t storageUnits,
                                    function_ref<InFlightDiagnostic()> emitError);

/// A view that step 3 created and step 4 must rewrite the accesses of.
struct PaddedView {
  Value alias;
  ViewLayout layout;
};

/// Exact views: the overlap tree laid out ring by ring (StorageAliasRings.cpp)
/// when that keeps the tree's promise; the units it needs, and `placements`.
/// Used only where the design's layout does not fit the target and this does.
std::optional<int64_t> layOutRings(SpecPlan &plan,
                                   llvm::DenseMap<Operation *, BufferPlacement> &placements);

// Step 1: collects the specs and sizes each one (or checks its explicit size).
/// Fails, naming both sizes, when `plan`'s shared-memory storage is larger
/// than the module's target holds (ttg.target; no check for an unknown one).
LogicalResult checkSharedMemoryLimit(ModuleOp module, SpecPlan &plan);

/// `checkTargetMemory`: the target's shared memory is known to the sizing
/// (ttg.target), so a tree too large for it may be laid out ring by ring.
LogicalResult computeStorageAliasSizes(ModuleOp module, bool exactViews, bool checkTargetMemory,
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
// Errors name the views `what` and end with `hint`.
LogicalResult rewritePaddedAccesses(
    ArrayRef<PaddedView> views,
    StringRef what = "a storage alias view whose buffers were placed by set_buffer_overlap",
    StringRef hint = "");

} // namespace mlir::triton::tlx

#endif // TLX_ALIAS_TRANSFORMS_STORAGEALIAS_STORAGEALIASLOWERING_H
