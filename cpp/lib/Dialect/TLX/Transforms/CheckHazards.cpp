// tlx-check-hazards: races on shared local memory that no completing wait or
// barrier hand-off orders (see Passes.td).
//
// Each task (the function body, and each region of a ttg.warp_specialize) is
// simulated in program order. Loops are unrolled a bounded number of
// iterations with concrete values for counters whose start and step are
// constants, so ring-slot indices like `k % STAGES` and `(k + STAGES - 1) %
// STAGES` become concrete slots; anything not computable is unknown and may
// overlap every slot of its allocation.

#include "tlx_alias/Dialect/TLX/IR/MemDesc.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "tlx_alias/Dialect/TLX/Transforms/TritonOps.h"
#include "tlx_alias/Support/Location.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <climits>
#include <map>
#include <set>

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXCHECKHAZARDS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

constexpr StringLiteral kMemDescSubslice = "ttg.memdesc_subslice";
constexpr StringLiteral kMemDescTrans = "ttg.memdesc_trans";
constexpr StringLiteral kLocalAliasOp = "tlx.local_alias";
constexpr StringLiteral kCommitGroup = "ttg.async_commit_group";
constexpr StringLiteral kWaitBarrier = "ttng.wait_barrier";
constexpr StringLiteral kArriveBarrier = "ttng.arrive_barrier";
constexpr StringLiteral kTmaStoreWait = "ttng.async_tma_store_wait";
constexpr StringLiteral kInlineAsm = "tt.elementwise_inline_asm";
constexpr int64_t kUnknown = -1;
// 64 * 13 - 3: 13 tiles of 64, 7 of 128, 4 of 256 (coprime with ring sizes).
constexpr int64_t kSampleArgument = 829;

int64_t bytesOf(Type type) {
  std::optional<MemDescInfo> info = getMemDescInfo(type);
  if (!info)
    return 0;
  int64_t elements = 1;
  for (int64_t dim : info->shape)
    elements *= dim;
  return llvm::divideCeil(elements * info->elementBits(), 8);
}

bool isSharedMemDesc(Type type) {
  std::optional<MemDescInfo> info = getMemDescInfo(type);
  return info && (!info->memorySpace ||
                  toText(info->memorySpace).find("shared_memory") != std::string::npos);
}

int64_t intAttr(Operation *op, StringRef name, int64_t otherwise) {
  if (auto attr = dyn_cast_or_null<IntegerAttr>(op->getAttr(name)))
    return attr.getInt();
  return otherwise;
}

/// Bytes [lo, hi) of a view, relative to the value it views.
struct Interval {
  int64_t lo = 0, hi = 0;
};
using Intervals = SmallVector<Interval, 2>;

/// The bytes of an allocation a view covers: `pieces` (sorted, disjoint),
/// all inside [start, start + size); start kUnknown: anywhere.
struct Range {
  Operation *alloc = nullptr;
  int64_t start = kUnknown;
  int64_t size = 0;
  int64_t allocSize = 0;
  Intervals pieces;   // absolute, when known
  std::string buffer; // the view's name, with its slot when known

  bool known() const { return start != kUnknown; }
  int64_t lo() const { return known() ? start : 0; }
  int64_t hi() const { return known() ? start + size : allocSize; }
  Intervals bytes() const {
    if (!known())
      return {Interval{0, allocSize}};
    return pieces.empty() ? Intervals{Interval{start, start + size}} : pieces;
  }
};

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

bool overlaps(const Range &a, const Range &b) { return !commonBytes(a, b).empty(); }

/// A barrier (or a named barrier) as synchronization key.
struct Key {
  const void *base = nullptr; // barrier allocation, or null for named ones
  int64_t index = kUnknown;   // byte offset / named barrier id
  bool operator<(const Key &o) const {
    return std::tie(base, index) < std::tie(o.base, o.index);
  }
  bool matches(const Key &o) const {
    return base == o.base &&
           (index == o.index || ((index == kUnknown || o.index == kUnknown) && base));
  }
};

enum class Async { None, CpAsync, TmaLoad, Wgmma, TmaStore };

struct Access {
  Operation *op = nullptr;
  Range range;
  bool write = false;
  Async async = Async::None;
};

struct Pending {
  Access access;
  int64_t order = 0;  // cp.async group (-1 uncommitted) / wgmma / store seq.
  Range barrier;      // TMA loads
  size_t traceIndex = 0;
};

struct State {
  std::vector<Pending> pending;
  int64_t committedGroups = 0, wgmmas = 0, tmaStores = 0;
};

struct TraceEntry {
  enum Kind { AccessEntry, Acquire, Release } kind;
  Access access;               // AccessEntry
  Key key;                     // Acquire / Release
  size_t completeAt = SIZE_MAX; // AccessEntry: where it completed
  std::optional<Key> ownRelease; // TMA loads: the barrier they signal
};

struct Summary {
  Access access;
  std::set<Key> acquired, released;
  bool inLoop = false;
};

std::string describeAccess(const Access &a) {
  StringRef name = a.op->getName().getStringRef();
  if (name == ttg_names::kLocalLoad)
    return "local_load";
  if (name == ttg_names::kLocalStore)
    return "local_store";
  if (name == ttg_names::kAsyncCopy)
    return "cp.async copy (async_load)";
  if (name == ttg_names::kTmaLoad)
    return "TMA load (async_descriptor_load)";
  if (name == ttg_names::kTmaStore)
    return "TMA store (async_descriptor_store)";
  if (name == ttg_names::kWarpGroupDot)
    return a.async == Async::Wgmma ? "async wgmma (async_dot)" : "wgmma (dot)";
  return name.str();
}

std::string describeWait(const Pending &p) {
  switch (p.access.async) {
  case Async::CpAsync:
    return "a ttg.async_wait (async_load_wait_group) covering its commit group";
  case Async::TmaLoad:
    return "a ttng.wait_barrier (barrier_wait) on " + p.barrier.buffer +
           ", the barrier the copy signals";
  case Async::Wgmma:
    return "a ttng.warp_group_dot_wait (async_dot_wait) retiring it";
  case Async::TmaStore:
    return "a ttng.async_tma_store_wait (async_descriptor_store_wait)";
  default:
    return "a completing wait";
  }
}

std::string describeBytes(const Range &a, const Range &b) {
  std::string allocName = tlx_alias::locationName(a.alloc->getLoc());
  if (allocName.empty())
    allocName = "allocation at " + tlx_alias::describeLocation(a.alloc->getLoc());
  std::string text = "bytes ";
  Intervals common = commonBytes(a, b);
  for (auto [k, piece] : llvm::enumerate(common)) {
    if (k == 4) {
      text += " and " + std::to_string(common.size() - 4) + " more ranges";
      break;
    }
    if (k)
      text += k + 1 == common.size() ? " and " : ", ";
    text += "[" + std::to_string(piece.lo) + ", " + std::to_string(piece.hi) + ")";
  }
  text += " of " + allocName;
  if (!a.known() || !b.known())
    text += " (slot index unknown: may overlap)";
  return text;
}

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

/// The bytes of its source a ttg.memdesc_subslice covers, relative to the
/// source; nullopt when not provably less than the whole source.
std::optional<Intervals> subsliceBytes(Operation *slice) {
  std::optional<MemDescInfo> source = getMemDescInfo(slice->getOperand(0).getType());
  std::optional<MemDescInfo> result = getMemDescInfo(slice->getResult(0).getType());
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

class Checker {
public:
  Checker(ModuleOp module, int maxIterations)
      : module(module), maxIterations(maxIterations) {}

  void run() {
    module.walk([&](Operation *op) {
      if (isa<FunctionOpInterface>(op) && op->getNumRegions() == 1 &&
          !op->getRegion(0).empty()) {
        // Scalar kernel arguments (sizes) take one sample value, so that
        // ring counters derived from them (tile * k_tiles % STAGES) are
        // concrete; program ids and loaded values stay unknown.
        Task task;
        task.region = &op->getRegion(0);
        DenseMap<Value, int64_t> env;
        for (BlockArgument arg : op->getRegion(0).getArguments())
          if (arg.getType().isInteger(32) || arg.getType().isInteger(64))
            env[arg] = kSampleArgument;
        runTask(task, std::move(env));
      }
    });
  }

private:
  struct Task {
    Region *region = nullptr;
    DenseMap<Value, int64_t> env;
    State state;
    std::vector<TraceEntry> trace;
    llvm::DenseSet<Operation *> waitedAllocs;
  };

  ModuleOp module;
  int maxIterations;
  Task *task = nullptr;
  int64_t budget = 4000000; // simulated ops, over the whole module
  std::set<std::pair<Operation *, Operation *>> reported;

  // --- values -------------------------------------------------------------

  std::optional<int64_t> eval(Value v, int depth = 0) {
    auto it = task->env.find(v);
    if (it != task->env.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    if (!def || depth > 64)
      return std::nullopt;
    if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
      if (auto attr = dyn_cast<IntegerAttr>(constant.getValue()))
        return attr.getValue().getSExtValue();
      return std::nullopt;
    }
    if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
            arith::IndexCastUIOp>(def))
      return eval(def->getOperand(0), depth + 1);
    if (auto select = dyn_cast<arith::SelectOp>(def)) {
      std::optional<int64_t> c = eval(select.getCondition(), depth + 1);
      if (!c)
        return std::nullopt;
      return eval(*c ? select.getTrueValue() : select.getFalseValue(), depth + 1);
    }
    if (def->getNumOperands() != 2 || def->getDialect() == nullptr ||
        def->getDialect()->getNamespace() != "arith")
      return std::nullopt;
    std::optional<int64_t> a = eval(def->getOperand(0), depth + 1);
    if (!a)
      return std::nullopt;
    std::optional<int64_t> b = eval(def->getOperand(1), depth + 1);
    if (!b)
      return std::nullopt;
    int64_t x = *a, y = *b;
    if (isa<arith::AddIOp>(def))
      return x + y;
    if (isa<arith::SubIOp>(def))
      return x - y;
    if (isa<arith::MulIOp>(def))
      return x * y;
    if (isa<arith::DivSIOp, arith::DivUIOp>(def))
      return y ? std::optional<int64_t>(x / y) : std::nullopt;
    if (isa<arith::RemSIOp, arith::RemUIOp>(def))
      return y ? std::optional<int64_t>(x % y) : std::nullopt;
    if (isa<arith::AndIOp>(def))
      return x & y;
    if (isa<arith::OrIOp>(def))
      return x | y;
    if (isa<arith::XOrIOp>(def))
      return x ^ y;
    if (isa<arith::ShLIOp>(def))
      return (y >= 0 && y < 62) ? std::optional<int64_t>(x << y) : std::nullopt;
    if (isa<arith::ShRSIOp, arith::ShRUIOp>(def))
      return (y >= 0 && y < 62) ? std::optional<int64_t>(x >> y) : std::nullopt;
    if (isa<arith::MinSIOp, arith::MinUIOp>(def))
      return std::min(x, y);
    if (isa<arith::MaxSIOp, arith::MaxUIOp>(def))
      return std::max(x, y);
    if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
      switch (cmp.getPredicate()) {
      case arith::CmpIPredicate::eq: return x == y;
      case arith::CmpIPredicate::ne: return x != y;
      case arith::CmpIPredicate::slt: case arith::CmpIPredicate::ult: return x < y;
      case arith::CmpIPredicate::sle: case arith::CmpIPredicate::ule: return x <= y;
      case arith::CmpIPredicate::sgt: case arith::CmpIPredicate::ugt: return x > y;
      case arith::CmpIPredicate::sge: case arith::CmpIPredicate::uge: return x >= y;
      }
    }
    return std::nullopt;
  }

  void bind(Value v, std::optional<int64_t> value) {
    if (value)
      task->env[v] = *value;
    else
      task->env.erase(v);
  }

  // --- memory -------------------------------------------------------------

  /// The allocation and bytes a memdesc value views; nullopt when it cannot
  /// be followed to a ttg.local_alloc.
  std::optional<Range> resolve(Value v, bool useValues = true) {
    if (!isSharedMemDesc(v.getType()))
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
        if (isOpNamed(owner, ttg_names::kWarpSpecializePartitions) &&
            arg.getArgNumber() < owner->getNumOperands()) {
          v = owner->getOperand(arg.getArgNumber());
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
            useValues ? eval(def->getOperand(1)) : std::nullopt;
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
      if (opName == kMemDescSubslice && def->getNumOperands() == 1) {
        Value src = def->getOperand(0);
        std::optional<Intervals> slice = subsliceBytes(def);
        if (!slice) // the whole source, conservatively
          pieces = {Interval{0, bytesOf(src.getType())}};
        else if (slice->size() == 1) // contiguous: what was seen, moved
          shift(slice->front().lo);
        else // what was seen lies somewhere in the slice's pieces
          pieces = *slice;
        v = src;
        continue;
      }
      if (opName == ttg_names::kMemDescReinterpret || opName == kMemDescTrans ||
          opName == kLocalAliasOp) {
        if (name.empty() && opName != kMemDescTrans)
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

  Key keyOf(const Range &barrier) {
    return Key{barrier.alloc, barrier.known() ? barrier.start : kUnknown};
  }

  // --- diagnostics --------------------------------------------------------

  void reportInFlight(const Pending &p, const Access &a) {
    if (!reported.insert({p.access.op, a.op}).second)
      return;
    InFlightDiagnostic diag = a.op->emitWarning();
    diag << "tlx-check-hazards: " << describeAccess(a) << " of " << a.range.buffer
         << (a.write ? " writes " : " reads ")
         << describeBytes(a.range, p.access.range) << " while the "
         << describeAccess(p.access) << " of " << p.access.range.buffer << " at "
         << tlx_alias::describeLocation(p.access.op->getLoc())
         << (p.access.write ? " (writing them)" : " (reading them)")
         << " may still be in flight; order them with " << describeWait(p)
         << " before this access";
    diag.attachNote(p.access.op->getLoc())
        << "the " << describeAccess(p.access) << " still in flight";
  }

  void reportAcrossTasks(const Summary &a, const Summary &b, bool oneWay) {
    if (!reported.insert({a.access.op, b.access.op}).second ||
        !reported.insert({b.access.op, a.access.op}).second)
      return;
    InFlightDiagnostic diag = b.access.op->emitWarning();
    diag << "tlx-check-hazards: " << describeAccess(b.access) << " of "
         << b.access.range.buffer << (b.access.write ? " writes " : " reads ")
         << describeBytes(b.access.range, a.access.range) << " which the "
         << describeAccess(a.access) << " of " << a.access.range.buffer
         << " in another warp_specialize partition at "
         << tlx_alias::describeLocation(a.access.op->getLoc())
         << (a.access.write ? " writes" : " reads") << ", with no "
         << (oneWay ? "barrier hand-off back (both repeat in loops)"
                    : "barrier hand-off between them")
         << "; order them with an mbarrier (barrier_arrive after the first "
            "access completes, barrier_wait before the second) or a named "
            "barrier, in both directions when both repeat";
    diag.attachNote(a.access.op->getLoc())
        << "the " << describeAccess(a.access) << " in the other partition";
  }

  // --- simulation ---------------------------------------------------------

  void access(const Access &a, State &state) {
    for (const Pending &p : state.pending) {
      if (!p.access.write && !a.write)
        continue;
      if (overlaps(p.access.range, a.range))
        reportInFlight(p, a);
    }
    TraceEntry entry{TraceEntry::AccessEntry, a, Key{}, SIZE_MAX, std::nullopt};
    if (a.async == Async::None)
      entry.completeAt = task->trace.size();
    task->trace.push_back(entry);
  }

  void addPending(const Access &a, State &state, int64_t order,
                  Range barrier = Range()) {
    Pending p{a, order, barrier, task->trace.size() - 1};
    state.pending.push_back(p);
  }

  void complete(State &state, function_ref<bool(const Pending &)> done) {
    std::vector<Pending> left;
    for (Pending &p : state.pending) {
      if (done(p)) {
        TraceEntry &entry = task->trace[p.traceIndex];
        entry.completeAt = std::min(entry.completeAt, task->trace.size());
      } else {
        left.push_back(p);
      }
    }
    state.pending = std::move(left);
  }

  void mark(TraceEntry::Kind kind, Key key) {
    task->trace.push_back(TraceEntry{kind, Access(), key, SIZE_MAX, std::nullopt});
  }

  void runOp(Operation *op, State &state) {
    if (--budget < 0)
      return;
    StringRef name = op->getName().getStringRef();
    auto memAccess = [&](Value v, bool write, Async async) -> std::optional<Access> {
      std::optional<Range> range = resolve(v);
      if (!range)
        return std::nullopt;
      Access a{op, *range, write, async};
      access(a, state);
      return a;
    };
    if (name == ttg_names::kLocalLoad && op->getNumOperands() >= 1) {
      memAccess(op->getOperand(0), false, Async::None);
    } else if (name == ttg_names::kLocalStore && op->getNumOperands() >= 2) {
      memAccess(op->getOperand(1), true, Async::None);
    } else if (name == ttg_names::kAsyncCopy && op->getNumOperands() >= 2) {
      if (auto a = memAccess(op->getOperand(1), true, Async::CpAsync))
        addPending(*a, state, -1);
    } else if (name == kCommitGroup) {
      for (Pending &p : state.pending)
        if (p.access.async == Async::CpAsync && p.order < 0)
          p.order = state.committedGroups;
      ++state.committedGroups;
    } else if (name == ttg_names::kAsyncWait) {
      int64_t keep = intAttr(op, "num", 0);
      int64_t limit = state.committedGroups - keep;
      complete(state, [&](const Pending &p) {
        return p.access.async == Async::CpAsync && p.order >= 0 && p.order < limit;
      });
    } else if (name == ttg_names::kTmaLoad) {
      // Operands: descriptor, coordinates, barrier, result, predicate; the
      // barrier is the one-element i64 memdesc.
      Value barrierValue, result;
      for (Value operand : op->getOperands()) {
        std::optional<MemDescInfo> info = getMemDescInfo(operand.getType());
        if (!info)
          continue;
        bool isBarrier = info->shape == SmallVector<int64_t>{1} &&
                         info->elementType && info->elementType.isInteger(64);
        (isBarrier && !barrierValue ? barrierValue : result) = operand;
      }
      if (barrierValue && result) {
        std::optional<Range> barrier = resolve(barrierValue);
        if (auto a = memAccess(result, true, Async::TmaLoad)) {
          TraceEntry &entry = task->trace.back();
          if (barrier)
            entry.ownRelease = keyOf(*barrier);
          // A load whose barrier this task never waits on is handed to
          // another task: ordered across tasks, not here.
          if (barrier && task->waitedAllocs.contains(barrier->alloc))
            addPending(*a, state, 0, *barrier);
        }
      }
    } else if (name == ttg_names::kTmaStore) {
      for (Value operand : op->getOperands())
        if (isMemDesc(operand.getType())) {
          if (auto a = memAccess(operand, false, Async::TmaStore))
            addPending(*a, state, ++state.tmaStores);
          break;
        }
    } else if (name == kTmaStoreWait) {
      int64_t limit = state.tmaStores - intAttr(op, "pendings", 0);
      complete(state, [&](const Pending &p) {
        return p.access.async == Async::TmaStore && p.order <= limit;
      });
    } else if (name == ttg_names::kWarpGroupDot) {
      bool isAsync = false;
      if (auto attr = dyn_cast_or_null<BoolAttr>(op->getAttr("isAsync")))
        isAsync = attr.getValue();
      int64_t order = isAsync ? ++state.wgmmas : 0;
      for (unsigned i = 0; i < 2 && i < op->getNumOperands(); ++i)
        if (auto a = memAccess(op->getOperand(i), false,
                               isAsync ? Async::Wgmma : Async::None))
          if (isAsync)
            addPending(*a, state, order);
    } else if (name == ttg_names::kWarpGroupDotWait) {
      int64_t limit = state.wgmmas - intAttr(op, "pendings", 0);
      complete(state, [&](const Pending &p) {
        return p.access.async == Async::Wgmma && p.order <= limit;
      });
    } else if (name == kWaitBarrier && op->getNumOperands() >= 1) {
      if (std::optional<Range> bar = resolve(op->getOperand(0))) {
        complete(state, [&](const Pending &p) {
          return p.access.async == Async::TmaLoad && p.barrier.alloc == bar->alloc &&
                 (!p.barrier.known() || !bar->known() || p.barrier.start == bar->start);
        });
        mark(TraceEntry::Acquire, keyOf(*bar));
      }
    } else if (name == kArriveBarrier && op->getNumOperands() >= 1) {
      if (std::optional<Range> bar = resolve(op->getOperand(0)))
        mark(TraceEntry::Release, keyOf(*bar));
    } else if (name == kInlineAsm) {
      auto text = dyn_cast_or_null<StringAttr>(op->getAttr("asm_string"));
      if (text && op->getNumOperands() >= 1) {
        bool sync = text.getValue().starts_with("bar.sync");
        bool arrive = text.getValue().starts_with("bar.arrive");
        if (sync || arrive) {
          std::optional<int64_t> id = eval(op->getOperand(0));
          // A named barrier id that is not a constant matches no other id.
          Key key{nullptr, id ? *id : -2 - (int64_t)(uintptr_t)op % 1000000};
          mark(TraceEntry::Release, key);
          if (sync)
            mark(TraceEntry::Acquire, key);
        }
      }
    } else if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      runFor(forOp, state);
    } else if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
      runWhile(whileOp, state);
    } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      runIf(ifOp, state);
    } else if (isOpNamed(op, ttg_names::kWarpSpecialize)) {
      runWarpSpecialize(op);
    }
  }

  void runBlock(Block &block, State &state) {
    for (Operation &op : block)
      runOp(&op, state);
  }

  static void merge(State &into, const State &other) {
    for (const Pending &p : other.pending) {
      bool present = llvm::any_of(into.pending, [&](const Pending &q) {
        return q.access.op == p.access.op && q.access.range.start == p.access.range.start &&
               q.order == p.order;
      });
      if (!present)
        into.pending.push_back(p);
    }
    into.committedGroups = std::max(into.committedGroups, other.committedGroups);
    into.wgmmas = std::max(into.wgmmas, other.wgmmas);
    into.tmaStores = std::max(into.tmaStores, other.tmaStores);
  }

  int64_t iterations() const { return budget < 0 ? 1 : maxIterations; }

  void runFor(scf::ForOp forOp, State &state) {
    std::optional<int64_t> lb = eval(forOp.getLowerBound());
    std::optional<int64_t> ub = eval(forOp.getUpperBound());
    std::optional<int64_t> step = eval(forOp.getStep());
    std::optional<int64_t> trip;
    if (lb && ub && step && *step > 0)
      trip = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
    int64_t n = trip ? std::min<int64_t>(*trip, iterations()) : iterations();
    bool exact = trip && *trip <= n;
    Block &body = *forOp.getBody();
    SmallVector<std::optional<int64_t>> values;
    for (Value init : forOp.getInitArgs())
      values.push_back(eval(init));
    State exits = state; // zero iterations
    bool anyExit = !exact || n == 0;
    for (int64_t i = 0; i < n; ++i) {
      bind(forOp.getInductionVar(),
           lb && step ? std::optional<int64_t>(*lb + i * *step) : std::nullopt);
      for (auto [arg, value] : llvm::zip(forOp.getRegionIterArgs(), values))
        bind(arg, value);
      runBlock(body, state);
      auto yield = cast<scf::YieldOp>(body.getTerminator());
      for (auto [k, operand] : llvm::enumerate(yield.getOperands()))
        values[k] = eval(operand);
      if (!exact) {
        if (anyExit)
          merge(exits, state);
        else
          exits = state;
        anyExit = true;
      }
    }
    if (!exact)
      state = exits;
    // With an unknown trip count, what follows sees the loop as having run
    // the unrolled iterations (keeps ring counters concrete).
    for (auto [result, value] : llvm::zip(forOp.getResults(), values))
      bind(result, value);
  }

  void runWhile(scf::WhileOp whileOp, State &state) {
    SmallVector<std::optional<int64_t>> values;
    for (Value init : whileOp.getInits())
      values.push_back(eval(init));
    Block &before = whileOp.getBefore().front(), &after = whileOp.getAfter().front();
    State exits;
    bool anyExit = false, exact = false;
    SmallVector<std::optional<int64_t>> exitValues;
    for (int64_t i = 0; i < iterations(); ++i) {
      for (auto [arg, value] : llvm::zip(before.getArguments(), values))
        bind(arg, value);
      runBlock(before, state);
      auto condition = cast<scf::ConditionOp>(before.getTerminator());
      std::optional<int64_t> c = eval(condition.getCondition());
      SmallVector<std::optional<int64_t>> forwarded;
      for (Value arg : condition.getArgs())
        forwarded.push_back(eval(arg));
      if (!c || !*c) {
        if (anyExit)
          merge(exits, state);
        else
          exits = state;
        anyExit = true;
        if (c) { // the loop ends here
          exact = true;
          exitValues = forwarded;
          break;
        }
      }
      for (auto [arg, value] : llvm::zip(after.getArguments(), forwarded))
        bind(arg, value);
      runBlock(after, state);
      auto yield = cast<scf::YieldOp>(after.getTerminator());
      for (auto [k, operand] : llvm::enumerate(yield.getOperands()))
        values[k] = eval(operand);
    }
    if (!anyExit)
      exits = state;
    state = exits;
    for (auto [k, result] : llvm::enumerate(whileOp.getResults()))
      bind(result, exact && k < exitValues.size() ? exitValues[k] : std::nullopt);
  }

  void runIf(scf::IfOp ifOp, State &state) {
    std::optional<int64_t> c = eval(ifOp.getCondition());
    auto yielded = [&](Region &region) {
      SmallVector<std::optional<int64_t>> values;
      if (region.empty())
        return values;
      for (Value v : region.front().getTerminator()->getOperands())
        values.push_back(eval(v));
      return values;
    };
    if (c) {
      Region &region = *c ? ifOp.getThenRegion() : ifOp.getElseRegion();
      if (!region.empty())
        runBlock(region.front(), state);
      SmallVector<std::optional<int64_t>> values = yielded(region);
      for (auto [k, result] : llvm::enumerate(ifOp.getResults()))
        bind(result, k < values.size() ? values[k] : std::nullopt);
      return;
    }
    State other = state;
    runBlock(ifOp.getThenRegion().front(), state);
    SmallVector<std::optional<int64_t>> thenValues = yielded(ifOp.getThenRegion());
    if (!ifOp.getElseRegion().empty())
      runBlock(ifOp.getElseRegion().front(), other);
    SmallVector<std::optional<int64_t>> elseValues = yielded(ifOp.getElseRegion());
    merge(state, other);
    for (auto [k, result] : llvm::enumerate(ifOp.getResults())) {
      std::optional<int64_t> value;
      if (k < thenValues.size() && k < elseValues.size() && thenValues[k] == elseValues[k])
        value = thenValues[k];
      bind(result, value);
    }
  }

  void collectWaitedAllocs(Task &t) {
    t.region->walk([&](Operation *op) {
      if (isOpNamed(op, kWaitBarrier) && op->getNumOperands() >= 1) {
        Task *saved = task;
        task = &t;
        if (std::optional<Range> bar = resolve(op->getOperand(0), false))
          t.waitedAllocs.insert(bar->alloc);
        task = saved;
      }
    });
  }

  void runTask(Task &t) { runTask(t, DenseMap<Value, int64_t>()); }

  void runTask(Task &t, DenseMap<Value, int64_t> env) {
    Task *saved = task;
    t.env = std::move(env);
    collectWaitedAllocs(t);
    task = &t;
    if (!t.region->empty())
      runBlock(t.region->front(), t.state);
    task = saved;
  }

  std::vector<Summary> summarize(Task &t) {
    std::map<std::tuple<Operation *, Operation *, int64_t>, Summary> byAccess;
    std::set<Key> acquired;
    std::vector<std::pair<size_t, Key>> releases;
    for (auto [i, entry] : llvm::enumerate(t.trace))
      if (entry.kind == TraceEntry::Release)
        releases.push_back({i, entry.key});
    for (auto [i, entry] : llvm::enumerate(t.trace)) {
      if (entry.kind == TraceEntry::Acquire) {
        acquired.insert(entry.key);
        continue;
      }
      if (entry.kind != TraceEntry::AccessEntry)
        continue;
      std::set<Key> released;
      if (entry.access.async == Async::TmaLoad) {
        if (entry.ownRelease)
          released.insert(*entry.ownRelease);
      } else {
        for (auto &[at, key] : releases)
          if (at >= entry.completeAt && entry.completeAt != SIZE_MAX)
            released.insert(key);
      }
      auto mapKey = std::make_tuple(entry.access.op, entry.access.range.alloc,
                                    entry.access.range.start);
      auto it = byAccess.find(mapKey);
      if (it == byAccess.end()) {
        Summary s;
        s.access = entry.access;
        s.acquired = acquired;
        s.released = std::move(released);
        s.inLoop = entry.access.op->getParentOfType<LoopLikeOpInterface>() &&
                   t.region->isAncestor(
                       entry.access.op->getParentOfType<LoopLikeOpInterface>()
                           ->getParentRegion());
        byAccess.emplace(mapKey, std::move(s));
        continue;
      }
      Summary &s = it->second;
      std::set<Key> a, r;
      std::set_intersection(s.acquired.begin(), s.acquired.end(), acquired.begin(),
                            acquired.end(), std::inserter(a, a.begin()));
      std::set_intersection(s.released.begin(), s.released.end(), released.begin(),
                            released.end(), std::inserter(r, r.begin()));
      s.acquired = std::move(a);
      s.released = std::move(r);
    }
    std::vector<Summary> result;
    for (auto &[k, s] : byAccess)
      result.push_back(std::move(s));
    return result;
  }

  // --- hand-offs ----------------------------------------------------------
  //
  // Happens-before across tasks: an access that completes before its task
  // releases K1 is ordered before an access that its task performs after
  // acquiring Kn, if K1 = Kn (the direct hand-off) or a chain of tasks
  // passes it on: a task that acquires Ki and then, in program order,
  // releases Ki+1 (e.g. a producer that waits until both consumers released
  // a ring slot, then lends it to one of them by arriving on its `full`).

  using HandOffEdges = std::set<std::pair<Key, Key>>;

  /// Edges `acquired -> released` of one task's trace: a release follows the
  /// acquires made since this task's previous release of the same barrier
  /// (a release passes on only what was acquired for it; this is what tells
  /// a lent slot's wait apart from the same slot's wait a round earlier).
  /// A TMA load releases its barrier when it completes, after its issue.
  static void collectHandOffEdges(const Task &t, HandOffEdges &edges) {
    std::vector<std::pair<size_t, Key>> acquires;
    std::map<Key, size_t> acquiresAtLastRelease;
    for (const TraceEntry &entry : t.trace) {
      if (entry.kind == TraceEntry::Acquire) {
        acquires.push_back({acquires.size(), entry.key});
        continue;
      }
      std::optional<Key> released;
      if (entry.kind == TraceEntry::Release)
        released = entry.key;
      else if (entry.access.async == Async::TmaLoad && entry.ownRelease)
        released = entry.ownRelease;
      if (!released)
        continue;
      size_t since = 0;
      if (auto it = acquiresAtLastRelease.find(*released); it != acquiresAtLastRelease.end())
        since = it->second;
      for (size_t k = since; k < acquires.size(); ++k)
        edges.insert({acquires[k].second, *released});
      acquiresAtLastRelease[*released] = acquires.size();
    }
  }

  /// The barriers a release of `key` is passed on to (itself included).
  static std::vector<Key> handOffClosure(const Key &key, const HandOffEdges &edges) {
    std::vector<Key> reached{key};
    std::set<Key> seen{key};
    for (size_t next = 0; next < reached.size(); ++next) {
      Key from = reached[next];
      for (const auto &[source, target] : edges)
        if (from.matches(source) && seen.insert(target).second)
          reached.push_back(target);
    }
    return reached;
  }

  struct HandOffs {
    HandOffEdges edges;
    std::map<Key, std::vector<Key>> closures;

    const std::vector<Key> &closure(const Key &key) {
      auto it = closures.find(key);
      if (it == closures.end())
        it = closures.emplace(key, handOffClosure(key, edges)).first;
      return it->second;
    }
  };

  static bool ordered(const Summary &first, const Summary &second, HandOffs &handOffs) {
    for (const Key &r : first.released)
      for (const Key &k : handOffs.closure(r))
        for (const Key &a : second.acquired)
          if (k.matches(a))
            return true;
    return false;
  }

  void runWarpSpecialize(Operation *ws) {
    std::vector<std::unique_ptr<Task>> tasks;
    auto addTask = [&](Region &region, DenseMap<Value, int64_t> env) {
      if (region.empty())
        return;
      auto t = std::make_unique<Task>();
      t->region = &region;
      runTask(*t, std::move(env));
      tasks.push_back(std::move(t));
    };
    addTask(ws->getRegion(0), task->env);
    if (ws->getNumRegions() > 1 && !ws->getRegion(1).empty())
      for (Operation &holder : ws->getRegion(1).front())
        if (isOpNamed(&holder, ttg_names::kWarpSpecializePartitions))
          for (Region &region : holder.getRegions()) {
            DenseMap<Value, int64_t> env;
            for (auto [k, arg] : llvm::enumerate(region.getArguments()))
              if (k < holder.getNumOperands())
                if (std::optional<int64_t> value = eval(holder.getOperand(k)))
                  env[arg] = *value;
            addTask(region, std::move(env));
          }
    std::vector<std::vector<Summary>> summaries;
    HandOffs handOffs;
    for (auto &t : tasks) {
      summaries.push_back(summarize(*t));
      collectHandOffEdges(*t, handOffs.edges);
    }
    for (size_t i = 0; i < summaries.size(); ++i)
      for (size_t j = i + 1; j < summaries.size(); ++j)
        for (const Summary &a : summaries[i])
          for (const Summary &b : summaries[j]) {
            if (!(a.access.write || b.access.write) ||
                !overlaps(a.access.range, b.access.range))
              continue;
            bool ab = ordered(a, b, handOffs), ba = ordered(b, a, handOffs);
            if (!ab && !ba)
              reportAcrossTasks(a, b, false);
            else if (a.inLoop && b.inLoop && !(ab && ba))
              reportAcrossTasks(a, b, true);
          }
  }
};

int64_t defaultIterations(ModuleOp module) {
  int64_t buffers = 1;
  module.walk([&](Operation *op) {
    if (isOpNamed(op, ttg_names::kMemDescIndex) && op->getNumOperands() >= 1)
      if (std::optional<MemDescInfo> info = getMemDescInfo(op->getOperand(0).getType()))
        buffers = std::max(buffers, info->numBuffers());
  });
  return std::clamp<int64_t>(2 * buffers + 2, 4, 24);
}

struct TLXCheckHazardsPass : impl::TLXCheckHazardsBase<TLXCheckHazardsPass> {
  using TLXCheckHazardsBase::TLXCheckHazardsBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    int iterations = maxIterations > 0 ? int(maxIterations) : int(defaultIterations(module));
    Checker(module, std::min(iterations, 64)).run();
  }
};

} // namespace
} // namespace mlir::triton::tlx
