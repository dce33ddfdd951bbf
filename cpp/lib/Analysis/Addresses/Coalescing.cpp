// The coalescing rules of tlx-pid-address-analysis, after triton's
// buildCoalescedEncoding (the coalescing reference (coalescing_reference_amd.md)):
// the contiguous dimension and the divisibility of an access give the widest
// vector a thread may load (at most 16 bytes, at most its share of the
// tile); on TTGIR the layout triton chose is compared with it.

#include "PidAddressAnalysis.h"
#include "TritonByName/PointerAccess.h"
#include "TritonByName/TritonOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::triton::tlx::addresses {

static std::string listText(ArrayRef<int64_t> values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

int64_t maskRun(const AddressFacts &facts, Value mask, int dim, int depth) {
  if (!mask)
    return kMaxDivisor;
  SmallVector<int64_t> shape = shapeOf(mask.getType());
  if (dim < 0 || dim >= int(shape.size()))
    return kMaxDivisor; // a scalar mask
  int64_t size = shape[dim];
  AddressFact fact = facts.get(mask);
  if (fact.elemKnown && fact.coef.size() == shape.size() && fact.coef[dim].isZero())
    return size;
  Operation *def = mask.getDefiningOp();
  if (!def || depth > 16)
    return 1;
  StringRef name = def->getName().getStringRef();
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(def))
    return std::min(maskRun(facts, def->getOperand(0), dim, depth + 1),
                    maskRun(facts, def->getOperand(1), dim, depth + 1));
  if (name == ttg_names::kConvertLayout)
    return maskRun(facts, def->getOperand(0), dim, depth + 1);
  if (name == tt_names::kSplat)
    return size;
  if (name == tt_names::kBroadcast) {
    SmallVector<int64_t> source = shapeOf(def->getOperand(0).getType());
    if (dim < int(source.size()) && source[dim] == 1)
      return size;
    return maskRun(facts, def->getOperand(0), dim, depth + 1);
  }
  if (std::optional<int> axis = getExpandDimsAxis(def)) {
    if (*axis == dim)
      return size;
    return maskRun(facts, def->getOperand(0), dim > *axis ? dim - 1 : dim, depth + 1);
  }
  if (isa<arith::CmpIOp>(def)) {
    // a < b: constant over runs where a - b steps by one from a multiple of
    // the divisor of its uniform part (triton's AxisInfo, cmpi).
    AddressFact a = facts.get(def->getOperand(0)), b = facts.get(def->getOperand(1));
    if (!a.elemKnown || !b.elemKnown || a.coef.size() != shape.size() ||
        b.coef.size() != shape.size())
      return 1;
    AddressFact diff = add(a, negate(b), shape);
    if (!diff.elemKnown || !diff.coef[dim].known)
      return 1;
    if (diff.coef[dim].value == 0)
      return size;
    if (std::abs(diff.coef[dim].value) != 1)
      return 1;
    int64_t divisor = diff.uniformDivisor;
    for (size_t d = 0; d < shape.size(); ++d)
      if (int(d) != dim && shape[d] > 1)
        divisor = std::min(divisor, diff.coef[d].divisor);
    return std::min(size, divisor);
  }
  return 1;
}

// Elements in a row along `dim` that are consecutive in memory.
static int64_t contiguity(const AddressFact &ptr, int dim, int64_t elementBytes) {
  const Coef &k = ptr.coef[dim];
  if (k.known)
    return k.value == elementBytes ? ptr.shape[dim] : 1;
  return k.step == elementBytes ? std::min(k.contig, ptr.shape[dim]) : 1;
}

// The dimension whose elements are consecutive in memory (the longest run;
// the last among equals, as triton's getOrderFromContiguity), or -1.
static int contiguousDimension(const AddressFact &ptr, int64_t elementBytes) {
  int best = -1;
  for (int d = 0; d < int(ptr.shape.size()); ++d)
    if (ptr.shape[d] > 1 && contiguity(ptr, d, elementBytes) > 1 &&
        (best < 0 || contiguity(ptr, d, elementBytes) >= contiguity(ptr, best, elementBytes)))
      best = d;
  return best;
}

static std::string stridesText(const AddressFact &ptr, int64_t elementBytes) {
  std::string text = "[";
  for (size_t d = 0; d < ptr.coef.size(); ++d) {
    const Coef &k = ptr.coef[d];
    text += d ? ", " : "";
    text += k.known && k.value % elementBytes == 0 ? std::to_string(k.value / elementBytes) : "?";
  }
  return text + "]";
}

Coalescing analyzeCoalescing(const AddressFacts &facts, const AddressFact &ptr,
                             int64_t elementBytes, Type type, Value mask, int64_t threads) {
  Coalescing result;
  result.bestVectorBytes = elementBytes;
  std::optional<BlockedLayoutInfo> layout = getBlockedLayout(type);
  if (layout)
    result.vectorBytes = elementBytes;
  if (!ptr.initialized || !ptr.elemKnown || ptr.coef.size() != ptr.shape.size()) {
    result.coalesced = false;
    result.reason = "the addresses are not affine in the element index (e.g. loaded indices)";
    return result;
  }
  if (ptr.isUniformAcrossElements())
    return result; // one address (or a scalar): nothing to coalesce
  int dim = contiguousDimension(ptr, elementBytes);
  result.contiguousDim = dim;
  if (dim < 0) {
    result.coalesced = false;
    result.reason = "no dimension is contiguous: element strides " + stridesText(ptr, elementBytes);
    return result;
  }
  // Runs start at the uniform part plus the other dimensions' terms (and,
  // for a remainder's runs, at multiples of their own divisor).
  int64_t divisor = std::min(ptr.baseDivisor, ptr.uniformDivisor);
  if (!ptr.coef[dim].known)
    divisor = std::min(divisor, ptr.coef[dim].divisor);
  for (int d = 0; d < int(ptr.shape.size()); ++d)
    if (d != dim && ptr.shape[d] > 1)
      divisor = std::min(divisor, ptr.coef[d].allValuesDivisor());
  int64_t cap = std::max<int64_t>(1, 16 / elementBytes);
  int64_t byDivisor = std::max<int64_t>(1, divisor / elementBytes);
  int64_t byContiguity = contiguity(ptr, dim, elementBytes);
  int64_t byMask = maskRun(facts, mask, dim);
  int64_t alignment = std::min({byDivisor, byContiguity, byMask});
  int64_t perThread = std::min(alignment, cap);
  int64_t elements = 1;
  for (int64_t size : ptr.shape)
    elements *= size;
  int64_t share = threads > 0 ? std::max<int64_t>(1, elements / threads) : cap;
  perThread = std::min(perThread, share);
  result.bestVectorBytes = perThread * elementBytes;
  if (layout) {
    if (layout->order.empty() || layout->order[0] != dim) {
      result.coalesced = false;
      result.reason = "contiguous dim is " + std::to_string(dim) + " but the layout's order is " +
                      listText(layout->order);
      return result;
    }
    result.vectorBytes =
        std::min({layout->sizePerThread[dim], alignment, cap}) * elementBytes;
    if (result.vectorBytes < result.bestVectorBytes) {
      result.reason = "the layout's sizePerThread " + listText(layout->sizePerThread) +
                      " gives " + std::to_string(result.vectorBytes) +
                      " bytes per thread where the alignment allows " +
                      std::to_string(result.bestVectorBytes);
      return result;
    }
  }
  if (alignment < cap && alignment <= share) {
    std::string bytes = std::to_string(alignment * elementBytes);
    if (byDivisor == alignment)
      result.reason = "divisibility " + std::to_string(divisor) + " bytes limits vectors to " +
                      bytes + " bytes";
    else if (byMask == alignment)
      result.reason = "the mask is constant over runs of " + std::to_string(byMask) +
                      " elements: vectors of " + bytes + " bytes";
    else
      result.reason = std::to_string(byContiguity) + " contiguous elements limit vectors to " +
                      bytes + " bytes";
  }
  return result;
}

} // namespace mlir::triton::tlx::addresses
