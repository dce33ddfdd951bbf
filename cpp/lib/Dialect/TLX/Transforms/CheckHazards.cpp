// tlx-check-hazards: races on shared local memory that no completing wait or
// barrier hand-off orders (see Passes.td).
//
// Each task (the function body, and each region of a ttg.warp_specialize) is
// simulated in program order. Loops are unrolled with concrete values for
// counters whose start and step are constants, so ring-slot indices like
// `k % STAGES` and `(k + STAGES - 1) % STAGES` become concrete slots and wait
// parities like `(k / STAGES) & 1` concrete phases; anything not computable
// is unknown and may overlap every slot of its allocation. The tasks of a
// warp_specialize are then ordered against each other phase by phase
// (HazardHandOffs.cpp) and their accesses paired (HazardRaces.cpp).

#include "tlx_alias/Dialect/TLX/IR/MemDesc.h"
#include "tlx_alias/Dialect/TLX/Transforms/HazardModel.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "tlx_alias/Dialect/TLX/Transforms/TritonOps.h"
#include "tlx_alias/Support/Location.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseSet.h"

#include <numeric>

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXCHECKHAZARDS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {

using namespace hazards;

constexpr StringLiteral kCommitGroup = "ttg.async_commit_group";
constexpr StringLiteral kWaitBarrier = "ttng.wait_barrier";
constexpr StringLiteral kArriveBarrier = "ttng.arrive_barrier";
constexpr StringLiteral kInitBarrier = "ttng.init_barrier";
constexpr StringLiteral kBarrierExpect = "ttng.barrier_expect";
constexpr StringLiteral kTmaStoreWait = "ttng.async_tma_store_wait";
constexpr StringLiteral kInlineAsm = "tt.elementwise_inline_asm";
// Scalar kernel arguments (sizes) take sample values, one run each: 64 * 13
// - 3 (13 tiles of 64, 7 of 128, 4 of 256: coprime with ring sizes), and
// 64 * 3 - 1 (3, 2 and 1 tiles: loops too short for a later round to order
// an earlier one, as at small sizes).
constexpr int64_t kSampleArguments[] = {829, 191};
constexpr int64_t kFullTrips = 64;

class Checker {
public:
  Checker(ModuleOp module, int maxIterations)
      : module(module), maxIterations(maxIterations) {}

  void run() {
    module.walk([&](Operation *op) {
      if (isa<FunctionOpInterface>(op) && op->getNumRegions() == 1 &&
          !op->getRegion(0).empty()) {
        // Program ids and loaded values stay unknown.
        for (int64_t sample : kSampleArguments) {
          Task task;
          task.region = &op->getRegion(0);
          task.alone = !op->walk([](Operation *inner) {
                            return isOpNamed(inner, ttg_names::kWarpSpecialize)
                                       ? WalkResult::interrupt()
                                       : WalkResult::advance();
                          }).wasInterrupted();
          DenseMap<Value, int64_t> env;
          for (BlockArgument arg : op->getRegion(0).getArguments())
            if (arg.getType().isInteger(32) || arg.getType().isInteger(64))
              env[arg] = sample;
          runTask(task, std::move(env));
        }
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
    std::map<Key, int64_t> waited; // the last phase waited for, per barrier
    int64_t threads = 128;
    bool alone = false; // a kernel without warp_specialize
  };

  ModuleOp module;
  int maxIterations;
  Task *task = nullptr;
  int64_t budget = 4000000; // simulated ops, over the whole module
  Reported reported;
  ByteModel bytes; // for this run: types and ops die with the module
  std::map<Key, int64_t> arrivalCounts; // ttng.init_barrier counts

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
    return bytes.resolveView(v, useValues ? &task->env : nullptr);
  }

  Key keyOf(const Range &barrier) {
    return Key{barrier.alloc, barrier.known() ? barrier.start : kUnknown};
  }

  // --- simulation ---------------------------------------------------------

  void access(const Access &a, State &state) {
    checkInFlight(state, a, reported);
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
    completePending(state, task->trace, done);
  }

  TraceEntry &mark(TraceEntry::Kind kind, Key key) {
    task->trace.push_back(TraceEntry{kind, Access(), key});
    return task->trace.back();
  }

  /// The phase a wait on `key` waits for (in `entry`). A task waits for a
  /// barrier's phases in order: parity p after phase c is c again or c + 1
  /// (after none, c = -1: a fresh barrier's complete phase); such a wait
  /// keeps its parity, for the cross-task order to resolve it again against
  /// the phases the task knows complete then. A parity taken from a round
  /// counter (`(k / STAGES) & 1`) names its phase even when the task skipped
  /// a round.
  void waitedPhase(const Key &key, Value parity, TraceEntry &entry) {
    std::optional<int64_t> p = eval(parity);
    auto round = phaseRound(parity, task->env);
    auto [it, first] = task->waited.try_emplace(key, -1);
    int64_t last = it->second, phase;
    if (round && (first || round->second >= last)) {
      phase = round->second;
    } else if (!p) {
      phase = last + 1;
    } else {
      phase = (last & 1) == (*p & 1) ? last : last + 1;
      entry.parity = *p & 1;
    }
    it->second = phase;
    entry.phase = phase;
  }

  /// False when `pred` is a constant false (the op does nothing).
  bool enabled(Operation *op, unsigned predOperand) {
    if (op->getNumOperands() <= predOperand)
      return true;
    std::optional<int64_t> pred = eval(op->getOperand(predOperand));
    return !pred || *pred;
  }

  std::optional<Access> memAccess(Operation *op, Value v, bool write, Async async,
                                  State &state) {
    std::optional<Range> range = resolve(v);
    if (!range)
      return std::nullopt;
    Access a{op, *range, write, async};
    access(a, state);
    return a;
  }

  void runOp(Operation *op, State &state) {
    if (--budget < 0)
      return;
    if (runMemoryOp(op, state) || runCompletionOp(op, state) || runBarrierOp(op, state))
      return;
    if (auto forOp = dyn_cast<scf::ForOp>(op))
      runFor(forOp, state);
    else if (auto whileOp = dyn_cast<scf::WhileOp>(op))
      runWhile(whileOp, state);
    else if (auto ifOp = dyn_cast<scf::IfOp>(op))
      runIf(ifOp, state);
    else if (isOpNamed(op, ttg_names::kWarpSpecialize))
      runWarpSpecialize(op);
  }

  /// Accesses to shared memory, synchronous or not.
  bool runMemoryOp(Operation *op, State &state) {
    StringRef name = op->getName().getStringRef();
    if (name == ttg_names::kLocalAlloc && op->getNumOperands() >= 1) {
      // Initialized from registers: a generic-proxy write (triton's buffers).
      memAccess(op, op->getResult(0), true, Async::None, state);
    } else if (name == ttg_names::kLocalLoad && op->getNumOperands() >= 1) {
      memAccess(op, op->getOperand(0), false, Async::None, state);
    } else if (name == ttg_names::kLocalStore && op->getNumOperands() >= 2) {
      memAccess(op, op->getOperand(1), true, Async::None, state);
    } else if (name == ttg_names::kAsyncCopy && op->getNumOperands() >= 2) {
      if (auto a = memAccess(op, op->getOperand(1), true, Async::CpAsync, state))
        addPending(*a, state, -1);
    } else if (name == ttg_names::kTmaLoad) {
      runTmaLoad(op, state);
    } else if (name == ttg_names::kTmaStore) {
      for (Value operand : op->getOperands())
        if (isMemDesc(operand.getType())) {
          if (auto a = memAccess(op, operand, false, Async::TmaStore, state))
            addPending(*a, state, ++state.tmaStores);
          break;
        }
    } else if (name == ttg_names::kWarpGroupDot) {
      bool isAsync = false;
      if (auto attr = dyn_cast_or_null<BoolAttr>(op->getAttr("isAsync")))
        isAsync = attr.getValue();
      int64_t order = isAsync ? ++state.wgmmas : 0;
      for (unsigned i = 0; i < 2 && i < op->getNumOperands(); ++i)
        if (auto a = memAccess(op, op->getOperand(i), false,
                               isAsync ? Async::Wgmma : Async::None, state))
          if (isAsync)
            addPending(*a, state, order);
    } else {
      return false;
    }
    return true;
  }

  void runTmaLoad(Operation *op, State &state) {
    // Operands: descriptor, coordinates, barrier, result, predicate; the
    // barrier is the one-element i64 memdesc.
    Value barrierValue, result;
    for (Value operand : op->getOperands()) {
      const std::optional<MemDescInfo> &info = bytes.info(operand.getType());
      if (!info)
        continue;
      bool isBarrier = info->shape == SmallVector<int64_t>{1} && info->elementType &&
                       info->elementType.isInteger(64);
      (isBarrier && !barrierValue ? barrierValue : result) = operand;
    }
    if (!barrierValue || !result)
      return;
    std::optional<Range> barrier = resolve(barrierValue);
    std::optional<Access> a = memAccess(op, result, true, Async::TmaLoad, state);
    if (!a)
      return;
    TraceEntry &entry = task->trace.back();
    entry.bytes = bytes.bytesOf(result.getType()); // what completes its barrier's phase
    if (barrier)
      entry.ownRelease = keyOf(*barrier);
    // A load whose barrier this task never waits on is handed to another
    // task: ordered through barrier phases, not here (unless there is none:
    // then it is in flight until the end).
    if (barrier && (task->waitedAllocs.contains(barrier->alloc) || task->alone)) {
      entry.pendingInTask = true;
      addPending(*a, state, 0, *barrier);
    }
  }

  /// Waits that complete a task's own asynchronous accesses by count, and
  /// fences.
  bool runCompletionOp(Operation *op, State &state) {
    StringRef name = op->getName().getStringRef();
    if (name == kCommitGroup) {
      for (Pending &p : state.pending)
        if (p.access.async == Async::CpAsync && p.order < 0)
          p.order = state.committedGroups;
      ++state.committedGroups;
    } else if (name == ttg_names::kAsyncWait) {
      // Leaves the `num` most recent commit groups in flight.
      int64_t limit = state.committedGroups - intAttr(op, "num", 0);
      complete(state, [&](const Pending &p) {
        return p.access.async == Async::CpAsync && p.order >= 0 && p.order < limit;
      });
    } else if (name == kTmaStoreWait) {
      int64_t limit = state.tmaStores - intAttr(op, "pendings", 0);
      complete(state, [&](const Pending &p) {
        return p.access.async == Async::TmaStore && p.order <= limit;
      });
    } else if (name == ttg_names::kFenceAsyncShared) {
      state.unfenced.clear(); // generic writes now visible to the async proxy
      mark(TraceEntry::Fence, Key{}).completeAt = task->trace.size() - 1;
    } else if (name == ttg_names::kWarpGroupDotWait) {
      int64_t limit = state.wgmmas - intAttr(op, "pendings", 0);
      complete(state, [&](const Pending &p) {
        return p.access.async == Async::Wgmma && p.order <= limit;
      });
    } else {
      return false;
    }
    return true;
  }

  /// mbarrier and named-barrier ops: trace events for the cross-task order.
  bool runBarrierOp(Operation *op, State &state) {
    StringRef name = op->getName().getStringRef();
    std::optional<Range> bar;
    if (name != kInlineAsm && op->getNumOperands() >= 1)
      bar = resolve(op->getOperand(0));
    if (name == kWaitBarrier) {
      if (!bar)
        return true;
      complete(state, [&](const Pending &p) {
        return p.access.async == Async::TmaLoad && p.barrier.alloc == bar->alloc &&
               (!p.barrier.known() || !bar->known() || p.barrier.start == bar->start);
      });
      Key key = keyOf(*bar);
      TraceEntry &entry = mark(TraceEntry::Acquire, key);
      entry.phase = 0;
      if (op->getNumOperands() >= 2)
        waitedPhase(key, op->getOperand(1), entry);
    } else if (name == kArriveBarrier) {
      if (bar && enabled(op, 1))
        mark(TraceEntry::Release, keyOf(*bar)).count = intAttr(op, "count", 1);
    } else if (name == kBarrierExpect) {
      // mbarrier.arrive.expect_tx: one arrival, and the bytes to wait for.
      if (bar && enabled(op, 1))
        mark(TraceEntry::Release, keyOf(*bar)).bytes = intAttr(op, "size", 0);
    } else if (name == kInitBarrier) {
      if (bar)
        arrivalCounts[keyOf(*bar)] = intAttr(op, "count", 1);
    } else if (name == kInlineAsm) {
      runNamedBarrier(op);
    } else {
      return false;
    }
    return true;
  }

  /// `bar.sync id, threads` / `bar.arrive id, threads` as inline asm.
  void runNamedBarrier(Operation *op) {
    auto text = dyn_cast_or_null<StringAttr>(op->getAttr("asm_string"));
    if (!text || op->getNumOperands() < 1)
      return;
    bool sync = text.getValue().starts_with("bar.sync");
    if (!sync && !text.getValue().starts_with("bar.arrive"))
      return;
    std::optional<int64_t> id = eval(op->getOperand(0));
    // A named barrier id that is not a constant matches no other id.
    Key key{nullptr, id ? *id : -2 - (int64_t)(uintptr_t)op % 1000000};
    std::optional<int64_t> threads =
        op->getNumOperands() >= 2 ? eval(op->getOperand(1)) : std::nullopt;
    mark(TraceEntry::Release, key).count = threads ? *threads : kUnknown;
    if (sync) // waits for the generation its own arrival joined
      mark(TraceEntry::Acquire, key);
  }

  void runBlock(Block &block, State &state) {
    for (Operation &op : block)
      runOp(&op, state);
  }

  int64_t iterations() const { return budget < 0 ? 1 : maxIterations; }

  /// A known trip count runs in full (up to kFullTrips): barrier phases pair
  /// round by round, so a consumer that peels its first round (1 + 12) must
  /// meet its producer's 13. An unknown upper bound is taken as n steps from
  /// zero, the same for every loop of that step, for the same reason.
  int64_t iterations(std::optional<int64_t> lb, std::optional<int64_t> ub,
                     std::optional<int64_t> step) const {
    int64_t n = iterations();
    if (budget < 0 || !lb || !step || *step <= 0)
      return n;
    if (ub)
      return std::min<int64_t>(*ub > *lb ? (*ub - *lb + *step - 1) / *step : 0,
                               std::max<int64_t>(n, kFullTrips));
    if (*lb < 0 || *lb >= n * *step)
      return n;
    return (n * *step - *lb + *step - 1) / *step;
  }

  void runFor(scf::ForOp forOp, State &state) {
    std::optional<int64_t> lb = eval(forOp.getLowerBound());
    std::optional<int64_t> ub = eval(forOp.getUpperBound());
    std::optional<int64_t> step = eval(forOp.getStep());
    int64_t n = iterations(lb, ub, step);
    bool exact = lb && ub && step && *step > 0 && *lb + n * *step >= *ub;
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
          mergeStates(exits, state);
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
          mergeStates(exits, state);
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
    mergeStates(state, other);
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

  void runTask(Task &t, DenseMap<Value, int64_t> env) {
    Task *saved = task;
    t.env = std::move(env);
    collectWaitedAllocs(t);
    task = &t;
    if (!t.region->empty())
      runBlock(t.region->front(), t.state);
    // A bulk copy must finish reading before the CTA exits.
    for (const Pending &p : t.state.pending)
      if (p.access.async == Async::TmaStore)
        reportPendingAtEnd(p, reported);
    task = saved;
  }

  void runWarpSpecialize(Operation *ws) {
    std::vector<std::unique_ptr<Task>> tasks;
    auto addTask = [&](Region &region, DenseMap<Value, int64_t> env, int64_t warps) {
      if (region.empty())
        return;
      auto t = std::make_unique<Task>();
      t->region = &region;
      t->threads = warps * intAttr(module, "ttg.threads-per-warp", 32);
      runTask(*t, std::move(env));
      tasks.push_back(std::move(t));
    };
    addTask(ws->getRegion(0), task->env, intAttr(module, "ttg.num-warps", 4));
    auto warps = dyn_cast_or_null<DenseI32ArrayAttr>(ws->getAttr("partitionNumWarps"));
    if (ws->getNumRegions() > 1 && !ws->getRegion(1).empty())
      for (Operation &holder : ws->getRegion(1).front())
        if (isOpNamed(&holder, ttg_names::kWarpSpecializePartitions))
          for (auto [p, region] : llvm::enumerate(holder.getRegions())) {
            DenseMap<Value, int64_t> env;
            for (auto [k, arg] : llvm::enumerate(region.getArguments()))
              if (k < holder.getNumOperands())
                if (std::optional<int64_t> value = eval(holder.getOperand(k)))
                  env[arg] = *value;
            int64_t w = warps && p < size_t(warps.size()) ? warps[p] : 4;
            addTask(region, std::move(env), w);
          }
    std::vector<TaskTrace> traces;
    for (auto &t : tasks)
      traces.push_back({&t->trace, t->threads});
    TaskOrder order = orderTasks(traces, arrivalCounts);
    for (const Race &race : findRaces(traces, order)) {
      const Access &a = tasks[race.taskA]->trace[race.entryA].access;
      const Access &b = tasks[race.taskB]->trace[race.entryB].access;
      if (race.unfenced)
        reportUnfencedAcrossTasks(a, b, reported);
      else if (race.taskA == race.taskB)
        reportUnwaitedLoad(a, b, reported);
      else
        reportAcrossTasks(a, b, reported);
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
