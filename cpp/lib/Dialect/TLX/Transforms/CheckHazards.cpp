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
#include "tlx_alias/Dialect/TLX/Transforms/HazardModel.h"
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
#include <numeric>
#include <map>
#include <set>

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXCHECKHAZARDS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace hazards;

constexpr StringLiteral kCommitGroup = "ttg.async_commit_group";
constexpr StringLiteral kWaitBarrier = "ttng.wait_barrier";
constexpr StringLiteral kArriveBarrier = "ttng.arrive_barrier";
constexpr StringLiteral kTmaStoreWait = "ttng.async_tma_store_wait";
constexpr StringLiteral kInlineAsm = "tt.elementwise_inline_asm";
// 64 * 13 - 3: 13 tiles of 64, 7 of 128, 4 of 256 (coprime with ring sizes).
constexpr int64_t kSampleArgument = 829;

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

  std::optional<int64_t> eval(Value v) { return evaluate(v, task->env); }

  void bind(Value v, std::optional<int64_t> value) {
    if (value)
      task->env[v] = *value;
    else
      task->env.erase(v);
  }

  // --- memory -------------------------------------------------------------

  std::optional<Range> resolve(Value v, bool useValues = true) {
    return resolveView(v, useValues ? &task->env : nullptr);
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
      collectHandOffEdges(t->trace, handOffs.edges);
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

// Enough iterations to see every ring slot reused after a full phase cycle
// (2 x its buffers), and a whole number of those cycles for every ring: a loop
// of unknown trip count leaves its counters as after the unrolled iterations,
// so ending on a phase boundary of each ring keeps the next loop's slots and
// phases consistent with the waits they pair with. At least 12: fewer left a
// persistent GEMM's nested tile/K loops (ring depth 2 and 4) with a spurious
// finding; the cost is small (the loops are simulated, not analysed per path).
int64_t defaultIterations(ModuleOp module) {
  constexpr int64_t kMin = 12, kMax = 24;
  int64_t buffers = 1, period = 1;
  module.walk([&](Operation *op) {
    if (isOpNamed(op, ttg_names::kMemDescIndex) && op->getNumOperands() >= 1)
      if (std::optional<MemDescInfo> info = getMemDescInfo(op->getOperand(0).getType())) {
        buffers = std::max(buffers, info->numBuffers());
        period = std::min<int64_t>(std::lcm(period, 2 * info->numBuffers()), kMax + 1);
      }
  });
  int64_t least = std::clamp<int64_t>(2 * buffers + 2, kMin, kMax);
  int64_t aligned = llvm::alignTo(least, period);
  return aligned <= kMax ? aligned : least;
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
