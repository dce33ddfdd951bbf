// tlx-check-hazards' op semantics (HazardReplay.h): what each shared-memory
// access, completing wait, fence and barrier op does to the running task.

#include "HazardReplay.h"
#include "TritonByName/TritonOps.h"

namespace mlir::triton::tlx::hazards {
namespace {

using ttg_names::kArriveBarrier;
using ttg_names::kBarrierExpect;
using ttg_names::kInitBarrier;
using ttg_names::kWaitBarrier;
constexpr StringLiteral kCommitGroup = "ttg.async_commit_group";
constexpr StringLiteral kTmaStoreWait = "ttng.async_tma_store_wait";
constexpr StringLiteral kInlineAsm = "tt.elementwise_inline_asm";

} // namespace

bool OpSemantics::run(Operation *op, ReplayTask &t, State &state) {
  task = &t;
  if (tritonFences.contains(op))
    fence(state);
  return runMemoryOp(op, state) || runCompletionOp(op, state) || runBarrierOp(op, state);
}

void OpSemantics::collectTritonFences(ModuleOp module) { tritonFences = findTritonFences(module); }

void OpSemantics::fence(State &state) {
  state.unfenced.clear(); // generic writes now visible to the async proxy
  mark(TraceEntry::Fence, Key{}).completeAt = task->trace.size() - 1;
}

void OpSemantics::collectWaitedAllocs(ReplayTask &t) {
  t.region->walk([&](Operation *op) {
    if (isOpNamed(op, kWaitBarrier) && op->getNumOperands() >= 1)
      if (std::optional<Range> bar = bytes.resolveView(op->getOperand(0), nullptr))
        t.waitedAllocs.insert(bar->alloc);
  });
}

std::optional<Range> OpSemantics::resolve(Value v, bool useValues) {
  return bytes.resolveView(v, useValues ? &task->env : nullptr);
}

static Key keyOf(const Range &barrier) {
  return Key{barrier.alloc, barrier.known() ? barrier.start : kUnknown};
}

void OpSemantics::access(const Access &a, State &state) {
  checkInFlight(state, a, reported);
  TraceEntry entry{TraceEntry::AccessEntry, a, Key{}, SIZE_MAX, std::nullopt};
  if (a.async == Async::None)
    entry.completeAt = task->trace.size();
  task->trace.push_back(entry);
}

void OpSemantics::addPending(const Access &a, State &state, int64_t order,
                              Range barrier) {
  Pending p{a, order, barrier, task->trace.size() - 1};
  state.pending.push_back(p);
}

void OpSemantics::complete(State &state, function_ref<bool(const Pending &)> done) {
  completePending(state, task->trace, done);
}

TraceEntry &OpSemantics::mark(TraceEntry::Kind kind, Key key) {
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
void OpSemantics::waitedPhase(const Key &key, Value parity, TraceEntry &entry) {
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
bool OpSemantics::enabled(Operation *op, unsigned predOperand) {
  if (op->getNumOperands() <= predOperand)
    return true;
  std::optional<int64_t> pred = eval(op->getOperand(predOperand));
  return !pred || *pred;
}

std::optional<Access> OpSemantics::memAccess(Operation *op, Value v, bool write, Async async,
                                              State &state) {
  std::optional<Range> range = resolve(v);
  if (!range)
    return std::nullopt;
  Access a{op, *range, write, async};
  access(a, state);
  return a;
}
/// Accesses to shared memory, synchronous or not.
bool OpSemantics::runMemoryOp(Operation *op, State &state) {
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
  } else if (name == ttg_names::kTmaStore || name == ttg_names::kTmaReduce) {
    // A reduce reads its tile as a store does, until the store wait.
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

void OpSemantics::runTmaLoad(Operation *op, State &state) {
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
bool OpSemantics::runCompletionOp(Operation *op, State &state) {
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
    fence(state);
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
bool OpSemantics::runBarrierOp(Operation *op, State &state) {
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
    entry.waitOp = op;
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
      initCounts[keyOf(*bar)] = intAttr(op, "count", 1);
  } else if (name == kInlineAsm) {
    runNamedBarrier(op);
  } else {
    return false;
  }
  return true;
}

/// `bar.sync id, threads` / `bar.arrive id, threads` as inline asm.
void OpSemantics::runNamedBarrier(Operation *op) {
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
    mark(TraceEntry::Acquire, key).waitOp = op;
}

} // namespace mlir::triton::tlx::hazards
