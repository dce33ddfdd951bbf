//===- HazardModel.h - what tlx-check-hazards reasons about ----*- C++ -*-===//
//
// The model of the reuse-hazard analysis (tlx-check-hazards): the bytes of an
// allocation a view covers, accesses (asynchronous or not) and the waits that
// complete them, barriers as synchronization keys, and each task's trace.
// Shared by the checker (HazardReplay.h, CheckHazards.cpp), the byte and value model
// (HazardModel.cpp, Values.cpp), the findings (Reports.cpp), the
// phase-by-phase order across tasks (HandOffs.cpp) and the pairing of
// access instances (Races.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TLX_ALIAS_ANALYSIS_HAZARDS_HAZARDMODEL_H
#define TLX_ALIAS_ANALYSIS_HAZARDS_HAZARDMODEL_H

#include "TritonByName/MemDesc.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace mlir::triton::tlx::hazards {

constexpr int64_t kUnknown = -1;

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
Intervals commonBytes(const Range &a, const Range &b);
bool overlaps(const Range &a, const Range &b);

/// A barrier (or a named barrier) as synchronization key.
struct Key {
  const void *base = nullptr; // barrier allocation, or null for named ones
  int64_t index = kUnknown;   // byte offset / named barrier id
  bool operator<(const Key &o) const {
    return std::tie(base, index) < std::tie(o.base, o.index);
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

/// What a task has in flight at a point of its simulation.
struct State {
  std::vector<Pending> pending;
  std::vector<Access> unfenced; // generic-proxy writes since the last fence
  int64_t committedGroups = 0, wgmmas = 0, tmaStores = 0;
};

/// One event of a task's trace. Acquire: an mbarrier wait for `phase`
/// (-1: the phase a fresh barrier counts as complete), or a named-barrier
/// sync waiting for the generation its own arrival joined. Release: `count`
/// arrivals on an mbarrier (`bytes` of transactions expected, for
/// barrier_expect), or a named-barrier arrival where `count` is the
/// barrier's thread count (kUnknown: every task using it). Fence: a
/// fence_async_shared (completeAt: itself), for proxy fences across tasks.
struct TraceEntry {
  enum Kind { AccessEntry, Acquire, Release, Fence } kind;
  Access access;               // AccessEntry
  Key key;                     // Acquire / Release
  size_t completeAt = SIZE_MAX; // AccessEntry: where it completed in-task
  std::optional<Key> ownRelease; // TMA loads: the barrier they signal
  int64_t phase = kUnknown;    // Acquire on an mbarrier
  // Acquire whose phase only its parity names (no round counter): 0 or 1,
  // resolved again against what the task knows when it runs (a task that
  // skips rounds other tasks waited for); kUnknown otherwise.
  int64_t parity = kUnknown;
  int64_t count = 1;           // Release
  int64_t bytes = 0;           // Release (expected) / TMA load (delivered)
  bool pendingInTask = false;  // TMA loads its own task waits for
  Operation *waitOp = nullptr; // Acquire: the waiting op (for report-unchecked)
};

// --- bytes and values -------------------------------------------------------

int64_t intAttr(Operation *op, StringRef name, int64_t otherwise);

/// The byte model (HazardModel.cpp): which bytes of an allocation a view
/// covers. Keeps what it reads of types and subslices for its lifetime (a
/// pass run): reading a memdesc type prints it, which at every access was
/// most of the analysis' time.
class ByteModel {
public:
  /// A memdesc type's shape, element and layout (getMemDescInfo).
  const std::optional<MemDescInfo> &info(Type type) { return facts(type).info; }
  /// Bytes of one memdesc (all its buffers); 0 for other types.
  int64_t bytesOf(Type type) { return facts(type).bytes; }
  bool isShared(Type type) { return facts(type).shared; }
  /// The bytes of its source a ttg.memdesc_subslice covers, relative to the
  /// source; nullopt when not provably less than the whole source.
  const std::optional<Intervals> &subsliceBytes(Operation *slice);
  /// The allocation and bytes a memdesc value views; nullopt when it cannot
  /// be followed to a ttg.local_alloc. Buffer indices are evaluated in `env`
  /// (null: every index unknown).
  std::optional<Range> resolveView(Value v, const DenseMap<Value, int64_t> *env);

private:
  struct TypeFacts {
    std::optional<MemDescInfo> info;
    int64_t bytes = 0;
    bool shared = false;
  };
  const TypeFacts &facts(Type type);
  std::optional<Intervals> computeSubsliceBytes(Operation *slice);
  /// An initialized local_alloc (triton's): one allocation per task.
  Range stagingRange(Operation *alloc, const std::string &name);

  DenseMap<Type, TypeFacts> types;
  DenseMap<Operation *, std::optional<Intervals>> subslices;
  DenseMap<Region *, Operation *> stagingRoots; // task region -> its first
};

/// The value of an integer SSA value from constants, `env` and integer
/// arithmetic; nullopt when not computable.
std::optional<int64_t> evaluate(Value v, const DenseMap<Value, int64_t> &env, int depth = 0);

// --- findings (Reports.cpp) ------------------------------------------

std::string describeAccess(const Access &a);
std::string describeWait(const Pending &p);
std::string describeBytes(const Range &a, const Range &b);

/// Pairs of ops already reported (each pair once).
using Reported = std::set<std::pair<Operation *, Operation *>>;

/// The async-proxy access `a` touches bytes the generic-proxy write `w` of
/// its task wrote with no fence_async_shared since.
void reportUnfenced(const Access &w, const Access &a, Reported &reported);
/// `a` touches bytes that the still pending `p` of its own task accesses.
void reportInFlight(const Pending &p, const Access &a, Reported &reported);
/// Accesses `a` and `b` of two partitions that no hand-off orders.
void reportAcrossTasks(const Access &a, const Access &b, Reported &reported);
/// A TMA store still reading shared memory when its task ends.
void reportPendingAtEnd(const Pending &p, Reported &reported);
/// The async-proxy access `a` of one partition touches bytes that the
/// generic-proxy write `w` of another wrote, ordered before it by a hand-off
/// with no fence_async_shared on the way.
void reportUnfencedAcrossTasks(const Access &w, const Access &a, Reported &reported);
/// A later access `a` of the task that issued a TMA load it never waits for
/// (it hands the load to another task) that nothing orders after the load.
void reportUnwaitedLoad(const Access &load, const Access &a, Reported &reported);

// --- what a task has in flight (InFlight.cpp) --------------------------

/// Reads and writes through the async proxy: TMA copies and wgmma operands.
bool isAsyncProxy(const Access &a);
/// Reports `a` against its task's pending accesses (one of the two writing)
/// and, through the async proxy, against its unfenced generic writes; notes
/// `a` if it is one of those.
void checkInFlight(State &state, const Access &a, Reported &reported);
/// Completes the pending accesses `done` selects; their trace entries (in
/// `trace`) note where.
void completePending(State &state, std::vector<TraceEntry> &trace,
                     function_ref<bool(const Pending &)> done);
/// `into` as either `into` or `other` (the paths of a branch or a loop exit).
void mergeStates(State &into, const State &other);

// --- barrier phases ---------------------------------------------------------

/// The round (phase counter) a wait's parity operand is taken from, when it
/// is `X & 1` or `(X & 1) ^ 1`: X, and the phase it then waits for (X, or
/// X - 1 for the flipped form). Lets a task that skips a round of waits
/// still name the right phase.
std::optional<std::pair<int64_t, int64_t>>
phaseRound(Value parity, const DenseMap<Value, int64_t> &env);

// --- happens-before across tasks (barrier phases) ---------------------------

/// One task of a warp_specialize, for the cross-task order.
struct TaskTrace {
  const std::vector<TraceEntry> *trace = nullptr;
  int64_t threads = 128; // for named barriers
};

/// What is known to have happened at a point of one task: per task the last
/// trace index ordered before it (-1: none), then per mbarrier key the last
/// phase known complete.
using Knowledge = SmallVector<int64_t, 16>;

/// The happens-before order of a warp_specialize's tasks: the traces run
/// against each other with mbarrier phases (arrival counts and transaction
/// bytes), named-barrier generations and blocking waits.
struct TaskOrder {
  std::vector<Knowledge> snapshots;
  std::vector<std::vector<uint32_t>> snapshotAt; // [task][entry]: at its start
  std::vector<std::vector<int64_t>> loadPhase;   // [task][entry]: TMA loads
  std::map<Key, size_t> keySlots;                // mbarrier key -> Knowledge index
  std::vector<size_t> inStep; // [task]: entries before a forced wait, checked

  /// Whether entry `x` of task `a` has completed before entry `y` of task
  /// `b` starts.
  bool completesBefore(size_t a, size_t x, size_t b, size_t y,
                       const std::vector<TaskTrace> &tasks) const;
};

/// Runs the tasks' traces against each other; `arrivals` holds each
/// barrier's init count (missing: one per task that arrives on it).
TaskOrder orderTasks(const std::vector<TaskTrace> &tasks,
                     const std::map<Key, int64_t> &arrivals);

/// A pair of accesses to overlapping bytes (one writing), of different
/// tasks, or a TMA load its own task does not wait for and a later access of
/// that task, that the order leaves unordered: the first instance per pair
/// of ops.
struct Race {
  size_t taskA, entryA, taskB, entryB;
  bool unfenced = false; // ordered, but A's generic write is not fenced for B
};
std::vector<Race> findRaces(const std::vector<TaskTrace> &tasks, const TaskOrder &order);

// --- proxy fences across tasks (ProxyFences.cpp) ----------------------

/// Whether `w` is a generic-proxy write (a store from registers, or a
/// cp.async copy) and `a` an async-proxy access (TMA copy, wgmma operand).
bool needsProxyFence(const Access &w, const Access &a);
/// The fence_async_shared entries of each task, in trace order.
std::vector<std::vector<size_t>> collectFences(const std::vector<TaskTrace> &tasks);
/// Whether some task's fence follows entry `x` of task `a` (complete) and
/// precedes entry `y` of task `b` in the happens-before order.
bool fencedBetween(size_t a, size_t x, size_t b, size_t y, const std::vector<TaskTrace> &tasks,
                   const TaskOrder &order, const std::vector<std::vector<size_t>> &fences);

} // namespace mlir::triton::tlx::hazards

#endif // TLX_ALIAS_ANALYSIS_HAZARDS_HAZARDMODEL_H
