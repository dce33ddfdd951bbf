// How a multi-buffered view is expressed over its storage (phase 6 of the
// design, generalized).
//
// ttg.memdesc_index steps by whole buffers, so buffer i of a view placed at
// `offset + i * stride` is reachable as index `scale * i + offsetSlots` of a
// view whose leading dimension counts slots:
//
//  * standard: the buffer size B divides offset and stride. The slot is the
//    buffer: the view keeps the user's type with a longer leading dimension,
//    the smallest that reaches the last buffer.
//  * slots: otherwise (e.g. a 24 KiB stride over 16 KiB buffers). The slot is
//    u = gcd(B, offset, stride) bytes, the view is `M x u x i8`, and each
//    indexed slot is reinterpreted to the buffer's type. Buffers start where
//    the layout engine put them, which is aligned for their layout, so the
//    reinterpreted view addresses exactly the same bytes.

#include "tlx_alias/Dialect/TLX/Transforms/StorageAliasLowering.h"
#include "tlx_alias/Dialect/TLX/Transforms/TritonOps.h"

#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace mlir::triton::tlx {

static MemDescInfo withShape(MemDescInfo info, ArrayRef<int64_t> shape) {
  info.shape.assign(shape.begin(), shape.end());
  info.allocShape.clear();
  return info;
}

FailureOr<ViewLayout> getViewLayout(Type originalType, BufferPlacement placement,
                                    function_ref<InFlightDiagnostic()> emitError) {
  std::optional<MemDescInfo> info = getMemDescInfo(originalType);
  if (!info || info->shape.size() < 2)
    return emitError() << "expected a multi-buffered memory descriptor, got "
                       << originalType;
  MLIRContext *context = originalType.getContext();
  ViewLayout layout;
  layout.originalType = originalType;
  layout.offset = placement.offset;
  layout.bytesBetweenBuffers = placement.bytesBetweenBuffers;
  int64_t num = info->numBuffers();
  int64_t bytes = info->bytesPerBuffer();
  if (bytes <= 0)
    return emitError() << "buffer of " << originalType << " has no size";

  int64_t stride = placement.bytesBetweenBuffers;
  int64_t offset = placement.offset;
  int64_t lastStart = offset + (num - 1) * stride;
  if (stride % bytes == 0 && offset % bytes == 0) {
    layout.scale = stride / bytes;
    layout.offsetSlots = offset / bytes;
    SmallVector<int64_t> shape(info->shape);
    shape.front() = lastStart / bytes + 1;
    if (shape.front() == num) {
      layout.viewType = originalType;
    } else {
      layout.viewType = buildMemDesc(context, withShape(*info, shape), emitError);
      if (!layout.viewType)
        return failure();
    }
    return layout;
  }

  // Slot view. Tensor memory has no byte-addressed view to do this with.
  int64_t slot = std::gcd(bytes, std::gcd(offset, stride));
  std::optional<StorageKind> storage = info->storageKind();
  if (storage != StorageKind::smem) {
    InFlightDiagnostic diag = emitError()
                              << "cannot lower a tensor-memory buffer of " << bytes
                              << " bytes at offset " << offset << " with " << stride
                              << " bytes between buffers: in tensor memory both must "
                                 "be multiples of the buffer size";
    if (stride % bytes)
      diag << "; a stride of " << llvm::alignTo(stride, bytes)
           << " bytes would work (buffer_size_bytes = "
           << llvm::alignTo(stride, bytes) * num << ")";
    if (offset % bytes)
      diag << "; pad the buffers placed before it in its distinct group to "
              "a multiple of "
           << bytes << " bytes, or place it first";
    return diag;
  }
  layout.slotBytes = slot;
  layout.scale = stride / slot;
  layout.offsetSlots = offset / slot;
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
