// tlx-check-hazards' control-flow replay (HazardReplay.h): each task in
// program order, loops unrolled with concrete counters where their start and
// step are constants (so ring slots like `k % STAGES` and parities like
// `(k / STAGES) & 1` become concrete), the tasks of a warp_specialize then
// ordered against each other phase by phase (HandOffs.cpp) and their
// accesses paired (Races.cpp).

#include "HazardReplay.h"
#include "TritonByName/TritonOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::triton::tlx::hazards {
namespace {

// Scalar kernel arguments (sizes) take sample values, one run each: 64 * 13
// - 3 (13 tiles of 64, 7 of 128, 4 of 256: coprime with ring sizes), and
// 64 * 3 - 1 (3, 2 and 1 tiles: loops too short for a later round to order
// an earlier one, as at small sizes).
constexpr int64_t kSampleArguments[] = {829, 191};
constexpr int64_t kFullTrips = 64;

/// A loop's states where it may end: the first one, then each merged in.
void addExit(State &exits, bool &anyExit, const State &state) {
  if (anyExit)
    mergeStates(exits, state);
  else
    exits = state;
  anyExit = true;
}

bool isHandOff(const TraceEntry &e) {
  return e.kind == TraceEntry::Acquire || e.kind == TraceEntry::Release;
}

bool sameHandOff(const TraceEntry &a, const TraceEntry &b) {
  return a.kind == b.kind && a.key.base == b.key.base && a.key.index == b.key.index &&
         a.phase == b.phase && a.parity == b.parity && a.count == b.count && a.bytes == b.bytes;
}

/// Whether trace[elseStart, end) is trace[thenStart, elseStart)'s barrier
/// events alone, in the same order: an arm that waits and arrives as the
/// other does but touches no memory (a consumer passing a tile by).
bool handsOffAlike(const std::vector<TraceEntry> &trace, size_t thenStart, size_t elseStart) {
  size_t j = elseStart;
  for (size_t i = thenStart; i < elseStart; ++i) {
    if (!isHandOff(trace[i]))
      continue;
    if (j == trace.size() || !sameHandOff(trace[i], trace[j]))
      return false;
    ++j;
  }
  return j == trace.size();
}

} // namespace

void ControlFlowReplay::run() {
  semantics.collectTritonFences(module);
  module.walk([&](Operation *op) {
    if (isa<FunctionOpInterface>(op) && op->getNumRegions() == 1 &&
        !op->getRegion(0).empty()) {
      // Program ids and loaded values stay unknown.
      for (int64_t sample : kSampleArguments) {
        ReplayTask task;
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

void ControlFlowReplay::runOp(Operation *op, State &state) {
  if (--budget < 0)
    return;
  if (semantics.run(op, *task, state))
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

std::optional<int64_t> ControlFlowReplay::eval(Value v) { return evaluate(v, task->env); }

void ControlFlowReplay::bind(Value v, std::optional<int64_t> value) {
  if (value)
    task->env[v] = *value;
  else
    task->env.erase(v);
}

void ControlFlowReplay::runBlock(Block &block, State &state) {
  for (Operation &op : block)
    runOp(&op, state);
}

int64_t ControlFlowReplay::iterations() const { return budget < 0 ? 1 : maxIterations; }

/// A known trip count runs in full (up to kFullTrips): barrier phases pair
/// round by round, so a consumer that peels its first round (1 + 12) must
/// meet its producer's 13. An unknown upper bound is taken as n steps from
/// zero, the same for every loop of that step, for the same reason.
int64_t ControlFlowReplay::iterations(std::optional<int64_t> lb, std::optional<int64_t> ub,
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

void ControlFlowReplay::runFor(scf::ForOp forOp, State &state) {
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
    if (!exact)
      addExit(exits, anyExit, state);
  }
  if (!exact)
    state = exits;
  // With an unknown trip count, what follows sees the loop as having run
  // the unrolled iterations (keeps ring counters concrete).
  for (auto [result, value] : llvm::zip(forOp.getResults(), values))
    bind(result, value);
}

void ControlFlowReplay::runWhile(scf::WhileOp whileOp, State &state) {
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
      addExit(exits, anyExit, state);
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
  if (!exact) {
    // As in runFor: what follows sees the loop as having run the unrolled
    // iterations, its results what the condition would forward next (a
    // persistent program's tile counter stays concrete for the hand-offs
    // after its loop). Values the before block computes from more than
    // arithmetic on its arguments stay unknown.
    for (auto [arg, value] : llvm::zip(before.getArguments(), values))
      bind(arg, value);
    auto condition = cast<scf::ConditionOp>(before.getTerminator());
    for (Value arg : condition.getArgs())
      exitValues.push_back(eval(arg));
  }
  for (auto [k, result] : llvm::enumerate(whileOp.getResults()))
    bind(result, k < exitValues.size() ? exitValues[k] : std::nullopt);
}

void ControlFlowReplay::runIf(scf::IfOp ifOp, State &state) {
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
  std::map<Key, int64_t> waitedBefore = task->waited;
  size_t thenStart = task->trace.size();
  runBlock(ifOp.getThenRegion().front(), state);
  SmallVector<std::optional<int64_t>> thenValues = yielded(ifOp.getThenRegion());
  if (!ifOp.getElseRegion().empty()) {
    // An else arm with the then arm's barrier events and no access of its
    // own adds nothing to the then arm's trace: the events happen once
    // either way (kept once, phases paired as one arm's), and only the then
    // arm's accesses can race. Any other arms follow each other as before.
    size_t elseStart = task->trace.size();
    std::map<Key, int64_t> waitedThen = task->waited;
    int64_t budgetBefore = budget;
    bool alike;
    {
      // A trial run: what it would report is dropped (a real run follows
      // unless the arm touches no memory, which reports nothing).
      Reported reportedBefore = reported;
      ScopedDiagnosticHandler quiet(ifOp->getContext(), [](Diagnostic &) { return success(); });
      State elseState = other;
      task->waited = waitedBefore;
      runBlock(ifOp.getElseRegion().front(), elseState);
      alike = handsOffAlike(task->trace, thenStart, elseStart);
      reported = std::move(reportedBefore);
    }
    task->trace.resize(elseStart);
    task->waited = waitedThen;
    if (!alike) {
      budget = budgetBefore;
      runBlock(ifOp.getElseRegion().front(), other);
    }
  }
  SmallVector<std::optional<int64_t>> elseValues = yielded(ifOp.getElseRegion());
  mergeStates(state, other);
  for (auto [k, result] : llvm::enumerate(ifOp.getResults())) {
    std::optional<int64_t> value;
    if (k < thenValues.size() && k < elseValues.size() && thenValues[k] == elseValues[k])
      value = thenValues[k];
    bind(result, value);
  }
}

void ControlFlowReplay::runTask(ReplayTask &t, DenseMap<Value, int64_t> env) {
  ReplayTask *saved = task;
  t.env = std::move(env);
  semantics.collectWaitedAllocs(t);
  task = &t;
  if (!t.region->empty())
    runBlock(t.region->front(), t.state);
  // A bulk copy must finish reading before the CTA exits.
  for (const Pending &p : t.state.pending)
    if (p.access.async == Async::TmaStore)
      reportPendingAtEnd(p, reported);
  task = saved;
}

void ControlFlowReplay::runWarpSpecialize(Operation *ws) {
  std::vector<std::unique_ptr<ReplayTask>> tasks;
  auto addTask = [&](Region &region, DenseMap<Value, int64_t> env, int64_t warps) {
    if (region.empty())
      return;
    auto t = std::make_unique<ReplayTask>();
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
  TaskOrder order = orderTasks(traces, semantics.arrivalCounts());
  if (reportUnchecked)
    for (auto [t, replayed] : llvm::enumerate(tasks))
      remarkUnchecked(replayed->trace, order.inStep[t]);
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

/// Where a task's trace fell out of step with the others' (HandOffs.cpp's
/// breakDeadlock) and how many of its accesses that left unchecked.
void ControlFlowReplay::remarkUnchecked(const std::vector<TraceEntry> &trace, size_t inStep) {
  auto isAccess = [](const TraceEntry &e) { return e.kind == TraceEntry::AccessEntry; };
  auto rest = llvm::drop_begin(trace, std::min(inStep, trace.size()));
  size_t unchecked = llvm::count_if(rest, isAccess);
  if (!unchecked)
    return;
  // At the wait it stopped at, else (a task that stopped elsewhere) its first unchecked access.
  Operation *at = trace[inStep].waitOp ? trace[inStep].waitOp : llvm::find_if(rest, isAccess)->access.op;
  if (!uncheckedRemarked.insert(at->getLoc().getAsOpaquePointer()).second)
    return;
  emitRemark(at->getLoc()) << "tlx-check-hazards: the tasks fall out of step here (no simulated arrival "
                              "completes this wait: a missing arrive, or loops whose shapes differ "
                              "between tasks); "
                           << unchecked << " of this task's " << llvm::count_if(trace, isAccess)
                           << " accesses (over the simulated rounds) from here on are not checked";
}

} // namespace mlir::triton::tlx::hazards
