// How a multi-buffered view is expressed over its storage (phase 6 of the
// design, generalized).
//
// ttg.memdesc_index steps by whole buffers, so buffer i of a view placed at
// `offset + i * stride` is reachable as index `scale * i + offsetSlots` of a
// view whose leading dimension counts slots:
//
//  * standard: the buffer size B divides offset and stride (and, for padded
//    layouts, memdesc_index steps by B: see isPaddingPerBuffer). The slot is
//    the buffer: the view keeps the user's type with a longer leading
//    dimension, the smallest that reaches the last buffer.
//  * slots: otherwise (e.g. a 24 KiB stride over 16 KiB buffers). The slot is
//    u bytes, the largest power of two dividing B, offset and stride (memory
//    descriptor dimensions are powers of two), the view is `M x u x i8`, and each
//    indexed slot is reinterpreted to the buffer's type. Buffers start where
//    the layout engine put them, which is aligned for their layout, so the
//    reinterpreted view addresses exactly the same bytes.
//
// Exact views (triton 3.8: a reinterpret keeps the logical size) span the
// whole storage: the standard view's leading dimension is storage / B, and a
// slot is only ever the whole buffer (u == B), which the layout engine
// ensures by aligning each buffer to its size.

#include "StorageAliasLowering.h"
#include "TritonByName/TritonOps.h"

#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace mlir::triton::tlx {

static MemDescInfo withShape(MemDescInfo info, ArrayRef<int64_t> shape) {
  info.shape.assign(shape.begin(), shape.end());
  info.allocShape.clear();
  return info;
}

LogicalResult checkExactViewLayout(const MemDescInfo &info,
                                   function_ref<InFlightDiagnostic()> emitError) {
  if (info.storageKind() == StorageKind::tmem)
    return success();
  if (getBufferUnits(info) != info.bytesPerBuffer())
    return emitError() << "cannot place a buffer of a padded shared layout ("
                       << info.encoding
                       << ") in a storage_alias_spec under triton 3.8, which "
                          "reinterprets only between views of one padding";
  // A view spans the storage in whole buffers: a buffer of part of a byte
  // would make its logical size differ from the storage's.
  if (int64_t bits = info.elementsPerBuffer() * info.elementBits(); bits % 8)
  {
    std::string buffer;
    llvm::raw_string_ostream os(buffer);
    for (int64_t dim : ArrayRef(info.shape).drop_front())
      os << dim << "x";
    os << info.elementType;
    return emitError() << "cannot place a buffer of " << bits << " bits (" << buffer
                       << ") under exact views: a buffer must be whole bytes";
  }
  return success();
}

// Under exact views, why a placement cannot be expressed (or nothing).
// Tensor-memory placements are checked below, as for every triton.
static LogicalResult checkExactPlacement(const MemDescInfo &info, int64_t bytes,
                                         int64_t slot, int64_t storageUnits,
                                         const BufferPlacement &placement,
                                         function_ref<InFlightDiagnostic()> emitError) {
  bool tmem = info.storageKind() == StorageKind::tmem;
  if (failed(checkExactViewLayout(info, emitError)))
    return failure();
  StringRef unit = tmem ? " columns" : " bytes";
  if ((!tmem && slot != bytes) || storageUnits % bytes)
    return emitError() << "cannot place a buffer of " << bytes << unit << " at offset "
                       << placement.offset << " with " << placement.unitsBetweenBuffers
                       << unit << " between buffers in a storage of " << storageUnits
                       << unit
                       << " under triton 3.8: the offsets, the stride and the "
                          "storage must be multiples of the buffer's size";
  return success();
}

FailureOr<ViewLayout> getViewLayout(Type originalType, BufferPlacement placement,
                                    int64_t storageUnits,
                                    function_ref<InFlightDiagnostic()> emitError) {
  std::optional<MemDescInfo> info = getMemDescInfo(originalType);
  if (!info || info->shape.size() < 2)
    return emitError() << "expected a multi-buffered memory descriptor, got "
                       << originalType;
  MLIRContext *context = originalType.getContext();
  ViewLayout layout;
  layout.originalType = originalType;
  layout.placement = placement;
  layout.offset = placement.offset;
  layout.unitsBetweenBuffers = placement.unitsBetweenBuffers;
  layout.storageUnits = storageUnits;
  int64_t num = getBufferCount(*info);
  // Bytes, or columns in tensor memory.
  int64_t bytes = getBufferUnits(*info);
  if (bytes <= 0)
    return emitError() << "buffer of " << originalType << " has no size";
  if (isSingleTmemTile(*info)) {
    // No buffer dimension to index: the tile is a view of its first columns.
    if (placement.offset != 0)
      return emitError() << "a tensor-memory tile without a buffer dimension (" << originalType
                         << ") must start at column 0 of its storage_alias_spec, but the overlap tree "
                            "places it at column "
                         << placement.offset << "; give it a buffer dimension (1x" << info->shape[0] << "x"
                         << info->shape[1] << ")";
    layout.viewType = originalType;
    return layout;
  }

  int64_t stride = placement.unitsBetweenBuffers;
  int64_t offset = placement.offset;
  int64_t lastStart = 0;
  for (int64_t i = 0; i < num; ++i)
    lastStart = std::max(lastStart, placement.startOf(i));
  int64_t slot = std::gcd(bytes, std::gcd(offset, stride));
  for (const Subtile &level : placement.subtiles)
    slot = std::gcd(slot, level.unitsBetween);
  // A padded layout whose buffers memdesc_index does not step by the
  // engine's buffer size (see isPaddingPerBuffer) is reached through slots.
  bool indexable = isPaddingPerBuffer(info->elementsPerBuffer(), info->encoding);
  if (storageUnits &&
      failed(checkExactPlacement(*info, bytes, slot, storageUnits, placement, emitError)))
    return failure();
  auto setIndexMap = [&](int64_t unit) {
    layout.scale = stride / unit;
    layout.offsetSlots = offset / unit;
    for (const Subtile &level : placement.subtiles)
      layout.subtileSlots.push_back({level.groupSize, level.unitsBetween / unit});
  };
  if (slot == bytes && indexable) {
    setIndexMap(bytes);
    SmallVector<int64_t> shape(info->shape);
    shape.front() = storageUnits ? storageUnits / bytes : lastStart / bytes + 1;
    if (shape.front() == num && layout.scale == 1 && layout.offsetSlots == 0 &&
        layout.subtileSlots.empty()) {
      layout.viewType = originalType;
    } else {
      layout.viewType = buildMemDesc(context, withShape(*info, shape), emitError);
      if (!layout.viewType)
        return failure();
    }
    return layout;
  }

  // Slot view. Tensor memory has no byte-addressed view to do this with.
  std::optional<StorageKind> storage = info->storageKind();
  if (storage != StorageKind::smem) {
    InFlightDiagnostic diag = emitError()
                              << "cannot lower a tensor-memory buffer of " << bytes
                              << " columns at column " << offset << " with " << stride
                              << " columns between buffers: in tensor memory both must "
                                 "be multiples of the buffer's columns";
    if (stride % bytes)
      diag << "; a stride of " << llvm::alignTo(stride, bytes)
           << " columns would work (buffer_size_bytes = "
           << llvm::alignTo(stride, bytes) * kTmemBytesPerColumn *
                  llvm::divideCeil(num, placement.buffersPerIndex())
           << ")";
    if (offset % bytes)
      diag << "; pad the buffers placed before it in its distinct group to "
              "a multiple of "
           << bytes << " columns, or place it first";
    return diag;
  }
  // Memory descriptor dimensions must be powers of two: the largest one
  // dividing the slot divides every start as well.
  slot &= -slot;
  setIndexMap(slot);
  layout.slotBytes = slot;
  MemDescInfo slotView = *info;
  slotView.shape = {lastStart / slot + 1, slot};
  slotView.allocShape.clear();
  slotView.elementType = IntegerType::get(context, 8);
  slotView.encoding = parseAttributeText(context, kBytesEncoding, emitError);
  if (!slotView.encoding)
    return failure();
  // Rank-1 encoding for the [M x u] view: Triton accepts one dimension less
  // than the shape (the leading, buffer one).
  layout.viewType = buildMemDesc(context, slotView, emitError);
  if (!layout.viewType)
    return failure();
  slotView.shape = {slot};
  layout.slotType = buildMemDesc(context, slotView, emitError);
  if (!layout.slotType)
    return failure();
  return layout;
}

} // namespace mlir::triton::tlx
