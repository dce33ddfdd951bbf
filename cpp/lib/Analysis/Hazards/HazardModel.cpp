// The byte model of tlx-check-hazards: which bytes of an allocation a view
// covers (through indices, subslices, reinterprets and aliases).

#include "HazardModel.h"
#include "TritonByName/MemDesc.h"
#include "TritonByName/TritonOps.h"
#include "tlx_alias/Support/Location.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::triton::tlx::hazards {

namespace {

constexpr StringLiteral kLocalAliasOp = "tlx.local_alias";

/// The integer after `key = ` in an attribute's printed form.
std::optional<int64_t> encodingParameter(Attribute encoding, StringRef key) {
  std::string text = toText(encoding);
  size_t pos = text.find((key + " = ").str());
  if (pos == std::string::npos)
    return std::nullopt;
  int64_t value = 0;
  if (StringRef(text).substr(pos + key.size() + 3).take_while(isdigit).getAsInteger(10, value))
    return std::nullopt;
  return value;
}

/// The bytes of an NVMMA-swizzled [R, C] buffer that rows [row, row + rows)
/// occupy, if provable. Triton lays such a buffer out (nvmmaSharedToLinearLayout)
/// as C / (W / elementBytes) column blocks of R rows x W bytes (W the
/// swizzle width), one after the other; the swizzle permutes 16-byte chunks
/// within a row's W bytes, never across rows. So a row slice covers the same
/// W-byte rows of each column block. Exact only for untransposed 2-d buffers
/// of at most 256 rows (one TMA block of rows: no row-block order to guess)
/// and slices aligned to the 8-row swizzle atom.
std::optional<Intervals> nvmmaRowSliceBytes(const MemDescInfo &source, int64_t row,
                                            int64_t rows) {
  std::string text = toText(source.encoding);
  std::optional<int64_t> width = encodingParameter(source.encoding, "swizzlingByteWidth");
  int64_t bits = source.elementBits();
  if (!width || (*width != 32 && *width != 64 && *width != 128) || bits <= 0 ||
      source.shape.size() != 2 || text.find("transposed = true") != std::string::npos ||
      text.find("fp4Padded = true") != std::string::npos)
    return std::nullopt;
  constexpr int64_t kAtomRows = 8; // the swizzle pattern repeats every 8 rows
  int64_t numRows = source.shape[0], cols = source.shape[1];
  int64_t blockCols = *width * 8 / bits;
  if (numRows > 256 || blockCols <= 0 || cols % blockCols != 0 || row % kAtomRows != 0 ||
      rows % kAtomRows != 0)
    return std::nullopt;
  Intervals pieces;
  int64_t blockBytes = numRows * *width;
  for (int64_t block = 0; block < cols / blockCols; ++block)
    pieces.push_back({block * blockBytes + row * *width, block * blockBytes + (row + rows) * *width});
  return pieces;
}

} // namespace

const ByteModel::TypeFacts &ByteModel::facts(Type type) {
  auto [it, fresh] = types.try_emplace(type);
  if (!fresh)
    return it->second;
  TypeFacts &facts = it->second;
  facts.info = getMemDescInfo(type);
  if (!facts.info)
    return facts;
  int64_t elements = 1;
  for (int64_t dim : facts.info->shape)
    elements *= dim;
  facts.bytes = llvm::divideCeil(elements * facts.info->elementBits(), 8);
  facts.shared = !facts.info->memorySpace ||
                 toText(facts.info->memorySpace).find("shared_memory") != std::string::npos;
  return facts;
}

int64_t intAttr(Operation *op, StringRef name, int64_t otherwise) {
  if (auto attr = dyn_cast_or_null<IntegerAttr>(op->getAttr(name)))
    return attr.getInt();
  return otherwise;
}

/// The bytes both ranges cover (empty when disjoint or in different
/// allocations).
Intervals commonBytes(const Range &a, const Range &b) {
  Intervals common;
  if (a.alloc != b.alloc)
    return common;
  for (Interval x : a.bytes())
    for (Interval y : b.bytes()) {
      int64_t lo = std::max(x.lo, y.lo), hi = std::min(x.hi, y.hi);
      if (lo < hi)
        common.push_back({lo, hi});
    }
  llvm::sort(common, [](Interval x, Interval y) { return x.lo < y.lo; });
  return common;
}

bool overlaps(const Range &a, const Range &b) {
  // commonBytes without building the list: race detection asks this of
  // every pair of access instances on overlapping bounds.
  auto anyInterval = [](const Range &r, auto &&pred) {
    if (!r.known())
      return pred(Interval{0, r.allocSize});
    if (r.pieces.empty())
      return pred(Interval{r.start, r.start + r.size});
    return llvm::any_of(r.pieces, pred);
  };
  return a.alloc == b.alloc && anyInterval(a, [&](Interval x) {
           return anyInterval(b, [&](Interval y) { return std::max(x.lo, y.lo) < std::min(x.hi, y.hi); });
         });
}

const std::optional<Intervals> &ByteModel::subsliceBytes(Operation *slice) {
  auto [it, fresh] = subslices.try_emplace(slice);
  if (fresh)
    it->second = computeSubsliceBytes(slice);
  return it->second;
}

std::optional<Intervals> ByteModel::computeSubsliceBytes(Operation *slice) {
  const std::optional<MemDescInfo> &source = info(slice->getOperand(0).getType());
  const std::optional<MemDescInfo> &result = info(slice->getResult(0).getType());
  auto offsets = dyn_cast_or_null<DenseI32ArrayAttr>(slice->getAttr("offsets"));
  if (!source || !result || !offsets || offsets.empty() ||
      source->shape.size() != result->shape.size() || !source->encoding)
    return std::nullopt;
  // Rows only: whole trailing dimensions, sliced along the leading one.
  bool rowsOnly = llvm::all_of(offsets.asArrayRef().drop_front(), [](int32_t o) { return o == 0; }) &&
                  ArrayRef<int64_t>(source->shape).drop_front() ==
                      ArrayRef<int64_t>(result->shape).drop_front();
  if (!rowsOnly)
    return std::nullopt;
  int64_t row = offsets[0], rows = result->shape[0];
  if (toText(source->encoding).find("nvmma_shared") != std::string::npos)
    return nvmmaRowSliceBytes(*source, row, rows);
  // Row-major (swizzled_shared swizzles within a row): contiguous rows.
  int64_t rowBytes = source->bytesPerBuffer();
  return Intervals{Interval{row * rowBytes, (row + rows) * rowBytes}};
}

std::optional<Range> ByteModel::resolveView(Value v, const DenseMap<Value, int64_t> *env) {
  if (!isShared(v.getType()))
    return std::nullopt;
  // The bytes seen so far, relative to the view `v` now stands for.
  Intervals pieces{Interval{0, bytesOf(v.getType())}};
  auto shift = [&](int64_t by) {
    for (Interval &piece : pieces)
      piece.lo += by, piece.hi += by;
  };
  bool known = true;
  std::string name, slots;
  for (int steps = 0; steps < 256; ++steps) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (!owner)
        return std::nullopt;
      if (Value capture = getWarpSpecializeCapture(arg)) {
        v = capture;
        continue;
      }
      if (auto forOp = dyn_cast<scf::ForOp>(owner)) {
        if (arg.getArgNumber() == 0)
          return std::nullopt;
        v = forOp.getInitArgs()[arg.getArgNumber() - 1];
        known = false;
        continue;
      }
      return std::nullopt;
    }
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    StringRef opName = def->getName().getStringRef();
    if (opName == ttg_names::kLocalAlloc) {
      if (name.empty())
        name = tlx_alias::locationName(def->getLoc());
      if (def->getNumOperands() >= 1)
        return stagingRange(def, name);
      Range range;
      range.alloc = def;
      range.allocSize = bytesOf(v.getType());
      if (known) {
        range.start = pieces.front().lo;
        range.size = pieces.back().hi - pieces.front().lo;
        if (pieces.size() > 1)
          range.pieces = pieces;
      } else {
        range.size = pieces.back().hi - pieces.front().lo;
      }
      range.buffer = (name.empty() ? std::string("buffer") : name) + slots;
      return range;
    }
    if (opName == ttg_names::kMemDescIndex && def->getNumOperands() == 2) {
      std::optional<int64_t> index =
          env ? evaluate(def->getOperand(1), *env) : std::nullopt;
      int64_t stride = bytesOf(def->getResult(0).getType());
      if (index) {
        shift(*index * stride);
        if (name.empty())
          slots = "[" + std::to_string(*index) + "]" + slots;
      } else {
        known = false;
        if (name.empty())
          slots = "[?]" + slots;
      }
      v = def->getOperand(0);
      continue;
    }
    if (opName == ttg_names::kMemDescSubslice && def->getNumOperands() == 1) {
      Value src = def->getOperand(0);
      const std::optional<Intervals> &slice = subsliceBytes(def);
      if (!slice) // the whole source, conservatively
        pieces = {Interval{0, bytesOf(src.getType())}};
      else if (slice->size() == 1) // contiguous: what was seen, moved
        shift(slice->front().lo);
      else // what was seen lies somewhere in the slice's pieces
        pieces = *slice;
      v = src;
      continue;
    }
    if (opName == ttg_names::kMemDescReinterpret || opName == ttg_names::kMemDescTrans ||
        opName == kLocalAliasOp) {
      if (name.empty() && opName != ttg_names::kMemDescTrans)
        name = tlx_alias::locationName(def->getLoc());
      if (def->getNumOperands() < 1)
        return std::nullopt;
      v = def->getOperand(0);
      continue;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

/// The task region `op` runs in: a warp_specialize region or the function.
static Region *taskRegion(Operation *op) {
  Region *region = op->getParentRegion();
  while (region && region->getParentOp()) {
    Operation *parent = region->getParentOp();
    if (isa<FunctionOpInterface>(parent) || isOpNamed(parent, ttg_names::kWarpSpecialize) ||
        isOpNamed(parent, ttg_names::kWarpSpecializePartitions))
      break;
    region = parent->getParentRegion();
  }
  return region;
}

Range ByteModel::stagingRange(Operation *alloc, const std::string &name) {
  // An initialized local_alloc is triton's own buffer (a descriptor store's
  // staging copy, a dot operand). Triton places it after TTGIR, ending its
  // lifetime at its last use, not when an asynchronous read of it completes:
  // such buffers of one task may share bytes (a GEMM's two C halves do), so
  // they are one allocation here, at unknown offsets.
  Region *region = taskRegion(alloc);
  auto [it, fresh] = stagingRoots.try_emplace(region, alloc);
  Range range;
  range.alloc = it->second;
  range.allocSize = range.size = bytesOf(alloc->getResult(0).getType());
  range.buffer = (name.empty() ? std::string("buffer") : name) + " (triton's staging buffer)";
  return range;
}

} // namespace mlir::triton::tlx::hazards
