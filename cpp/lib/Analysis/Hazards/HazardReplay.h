//===- HazardReplay.h - tlx-check-hazards' two halves -------*- C++ -*-===//
//
// The checker replays each task (the function body, and each region of a
// ttg.warp_specialize) in program order, in two halves:
//   ControlFlowReplay  walks the control flow: scf.for/while unrolled with
//                      concrete counters, both arms of an unknown scf.if
//                      merged (one after the other, or once where the else
//                      arm only repeats the then arm's barrier events),
//                      warp_specialize's tasks replayed and then
//                      ordered against each other (HandOffs.cpp, Races.cpp);
//   OpSemantics        what one op does: shared-memory accesses, the waits
//                      that complete asynchronous ones, fences, and barrier
//                      events on the task's trace.
//
//===----------------------------------------------------------------------===//

#ifndef TLX_ALIAS_ANALYSIS_HAZARDS_HAZARDREPLAY_H
#define TLX_ALIAS_ANALYSIS_HAZARDS_HAZARDREPLAY_H

#include "HazardModel.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::triton::tlx::hazards {

/// One task being replayed: its values, its in-flight accesses and its trace.
struct ReplayTask {
  Region *region = nullptr;
  DenseMap<Value, int64_t> env;
  State state;
  std::vector<TraceEntry> trace;
  llvm::DenseSet<Operation *> waitedAllocs;
  std::map<Key, int64_t> waited; // the last phase waited for, per barrier
  int64_t threads = 128;
  bool alone = false; // a kernel without warp_specialize
};

/// What each memory, completion and barrier op does to the task running it.
class OpSemantics {
public:
  OpSemantics(ByteModel &bytes, Reported &reported) : bytes(bytes), reported(reported) {}

  /// Runs `op` on `t` if it is a memory, completion or barrier op; false
  /// for any other op (control flow is the replay's).
  bool run(Operation *op, ReplayTask &t, State &state);
  /// The barrier allocations `t`'s waits name (a TMA load on one of them
  /// stays in flight in `t` until the wait).
  void collectWaitedAllocs(ReplayTask &t);
  /// ttng.init_barrier counts seen so far.
  const std::map<Key, int64_t> &arrivalCounts() const { return initCounts; }
  /// Notes where triton's own proxy-fence insertion will put a fence in
  /// `module` (TritonFences.cpp); replaying such an op runs that fence first.
  void collectTritonFences(ModuleOp module);

private:
  std::optional<int64_t> eval(Value v) { return evaluate(v, task->env); }
  std::optional<Range> resolve(Value v, bool useValues = true);
  void access(const Access &a, State &state);
  void addPending(const Access &a, State &state, int64_t order, Range barrier = Range());
  void complete(State &state, function_ref<bool(const Pending &)> done);
  TraceEntry &mark(TraceEntry::Kind kind, Key key);
  void waitedPhase(const Key &key, Value parity, TraceEntry &entry);
  bool enabled(Operation *op, unsigned predOperand);
  std::optional<Access> memAccess(Operation *op, Value v, bool write, Async async, State &state);
  bool runMemoryOp(Operation *op, State &state);
  void runTmaLoad(Operation *op, State &state);
  bool runCompletionOp(Operation *op, State &state);
  bool runBarrierOp(Operation *op, State &state);
  void runNamedBarrier(Operation *op);
  void fence(State &state);

  ByteModel &bytes;
  Reported &reported;
  ReplayTask *task = nullptr; // the task running the op
  std::map<Key, int64_t> initCounts;
  llvm::DenseSet<Operation *> tritonFences; // ops triton puts a fence before
};

/// The ops before which triton's proxy-fence insertion (FenceInsertion, in
/// make_llir on 3.7/3.8, after this analysis) puts a fence_async_shared.
llvm::DenseSet<Operation *> findTritonFences(ModuleOp module);

/// Replays every function of a module (once per sample of its scalar
/// arguments) and reports what its tasks race on.
class ControlFlowReplay {
public:
  ControlFlowReplay(ModuleOp module, int maxIterations, bool reportUnchecked = false)
      : module(module), maxIterations(maxIterations), reportUnchecked(reportUnchecked),
        semantics(bytes, reported) {}

  void run();

private:
  std::optional<int64_t> eval(Value v);
  void bind(Value v, std::optional<int64_t> value);
  void runOp(Operation *op, State &state);
  void runBlock(Block &block, State &state);
  int64_t iterations() const;
  int64_t iterations(std::optional<int64_t> lb, std::optional<int64_t> ub,
                     std::optional<int64_t> step) const;
  void runFor(scf::ForOp forOp, State &state);
  void runWhile(scf::WhileOp whileOp, State &state);
  void runIf(scf::IfOp ifOp, State &state);
  void runTask(ReplayTask &t, DenseMap<Value, int64_t> env);
  void runWarpSpecialize(Operation *ws);
  void remarkUnchecked(const std::vector<TraceEntry> &trace, size_t inStep);

  ModuleOp module;
  int maxIterations;
  bool reportUnchecked;
  // Once per source location: over the sample runs and replicated partitions.
  llvm::DenseSet<const void *> uncheckedRemarked;
  ReplayTask *task = nullptr;
  int64_t budget = 4000000; // simulated ops, over the whole module
  Reported reported;
  ByteModel bytes; // for this run: types and ops die with the module
  OpSemantics semantics;
};

} // namespace mlir::triton::tlx::hazards

#endif // TLX_ALIAS_ANALYSIS_HAZARDS_HAZARDREPLAY_H
