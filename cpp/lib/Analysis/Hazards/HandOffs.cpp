// Barrier hand-offs across warp-specialize partitions, phase by phase, for
// tlx-check-hazards.
//
// The tasks' traces run against each other as the hardware would: an
// mbarrier completes a phase when its arrivals (the init count) are in and
// the transaction bytes it expects have landed; a wait blocks until the
// phase it waits for completes and then knows what every arrival of that
// phase knew (and a TMA load of that phase has completed). A named barrier
// completes a generation when its thread count has arrived; a sync knows
// what that generation's arrivals knew. Knowledge is a vector clock over the
// tasks plus, per barrier, the last phase known complete, so a wait on slot
// s in round r orders round r's accesses only, not round r + 1's.

#include "HazardModel.h"

namespace mlir::triton::tlx::hazards {

namespace {

void join(Knowledge &into, const Knowledge &other) {
  for (size_t k = 0; k < into.size(); ++k)
    into[k] = std::max(into[k], other[k]);
}

/// An mbarrier, or a named barrier (count in threads, no bytes).
struct Barrier {
  int64_t count = 1;
  int64_t arrived = 0, tx = 0;
  Knowledge pending;           // this phase's arrivals, joined
  std::vector<Knowledge> done; // what each completed phase makes known
};

class Scheduler {
public:
  Scheduler(const std::vector<TaskTrace> &tasks, const std::map<Key, int64_t> &arrivals,
            TaskOrder &order)
      : tasks(tasks), order(order) {
    collectKeySlots();
    blank.assign(tasks.size() + order.keySlots.size(), -1);
    countArrivals(arrivals);
    current.assign(tasks.size(), blank);
    pc.assign(tasks.size(), 0);
    snapshot.assign(tasks.size(), -1);
    joinedGeneration.resize(tasks.size());
    lastKnown.resize(tasks.size());
    for (const TaskTrace &t : tasks) {
      order.inStep.push_back(t.trace->size());
      order.snapshotAt.emplace_back(t.trace->size(), UINT32_MAX);
      order.loadPhase.emplace_back(t.trace->size(), kUnknown);
    }
  }

  void run() {
    while (true) {
      bool progress = false, finished = true;
      for (size_t t = 0; t < tasks.size(); ++t) {
        while (pc[t] < tasks[t].trace->size() && step(t)) {
          ++pc[t];
          progress = true;
        }
        finished &= pc[t] == tasks[t].trace->size();
      }
      if (finished)
        return;
      if (!progress)
        breakDeadlock();
    }
  }

private:
  const std::vector<TaskTrace> &tasks;
  TaskOrder &order;
  Knowledge blank;
  std::map<Key, Barrier> barriers; // mbarriers (known slot) and named ones
  std::vector<Knowledge> current;
  std::vector<size_t> pc;
  std::vector<int64_t> snapshot; // current's index in order.snapshots, -1: stale
  std::vector<std::map<Key, size_t>> joinedGeneration; // named barriers
  // [task]: per mbarrier, the last phase its own waits and arrivals show complete
  std::vector<std::map<Key, int64_t>> lastKnown;

  static bool isNamed(const Key &key) { return key.base == nullptr; }

  /// Each mbarrier slot (known index) gets a Knowledge entry after the
  /// tasks' clocks: the last phase known complete.
  void collectKeySlots() {
    for (const TaskTrace &t : tasks)
      for (const TraceEntry &e : *t.trace) {
        std::optional<Key> key = e.kind == TraceEntry::AccessEntry ? e.ownRelease
                                                                   : std::optional<Key>(e.key);
        if (key && key->base && key->index != kUnknown && !order.keySlots.count(*key))
          order.keySlots.emplace(*key, tasks.size() + order.keySlots.size());
      }
  }

  Barrier &barrierFor(const Key &key) {
    auto [it, fresh] = barriers.try_emplace(key);
    if (fresh)
      it->second.pending = blank;
    return it->second;
  }

  /// Arrivals per phase: the init count, else one per task that arrives
  /// (threads for named barriers: the barrier's count, else every user's).
  void countArrivals(const std::map<Key, int64_t> &arrivals) {
    std::map<Key, std::set<size_t>> users;
    std::map<Key, int64_t> threads;
    for (auto [t, task] : llvm::enumerate(tasks))
      for (const TraceEntry &e : *task.trace)
        if (e.kind == TraceEntry::Release) {
          users[e.key].insert(t);
          if (isNamed(e.key) && e.count > 0)
            threads[e.key] = e.count;
        }
    for (auto &[key, slot] : order.keySlots)
      barrierFor(key); // TMA loads' barriers, even if nobody arrives
    for (auto &[key, who] : users) {
      Barrier &b = barrierFor(key);
      if (isNamed(key)) {
        b.count = 0;
        if (threads.count(key))
          b.count = threads[key];
        else
          for (size_t t : who)
            b.count += tasks[t].threads;
      } else {
        auto it = arrivals.find(key);
        b.count = it != arrivals.end() ? std::max<int64_t>(it->second, 1) : int64_t(who.size());
      }
    }
  }

  Knowledge knownBy(size_t t, size_t at) const {
    Knowledge k = current[t];
    k[t] = std::max<int64_t>(k[t], at);
    return k;
  }

  void learn(size_t t, const Knowledge &k) {
    join(current[t], k);
    snapshot[t] = -1;
  }

  void completePhase(const Key &key, Barrier &b) {
    Knowledge k = b.done.empty() ? blank : b.done.back();
    join(k, b.pending);
    if (auto it = order.keySlots.find(key); it != order.keySlots.end())
      k[it->second] = b.done.size();
    b.done.push_back(std::move(k));
    b.pending = blank;
    b.arrived = std::max<int64_t>(b.arrived - b.count, 0);
    b.tx = 0;
  }

  void maybeComplete(const Key &key, Barrier &b) {
    if (b.arrived >= b.count && b.tx <= 0)
      completePhase(key, b);
  }

  bool step(size_t t) {
    size_t i = pc[t];
    const TraceEntry &e = (*tasks[t].trace)[i];
    switch (e.kind) {
    case TraceEntry::AccessEntry:
      access(t, i, e);
      return true;
    case TraceEntry::Release:
      release(t, i, e);
      return true;
    case TraceEntry::Acquire:
      return acquire(t, e);
    case TraceEntry::Fence:
      noteSnapshot(t, i); // for proxy fences across tasks
      return true;
    }
    return true;
  }

  void noteSnapshot(size_t t, size_t i) {
    if (snapshot[t] < 0) {
      snapshot[t] = order.snapshots.size();
      order.snapshots.push_back(current[t]);
    }
    order.snapshotAt[t][i] = snapshot[t];
  }

  void access(size_t t, size_t i, const TraceEntry &e) {
    noteSnapshot(t, i);
    if (e.access.async != Async::TmaLoad || !e.ownRelease)
      return;
    auto it = barriers.find(*e.ownRelease);
    if (it == barriers.end() || !order.keySlots.count(it->first))
      return; // an unknown slot
    // The load belongs to the phase in progress and lands before it
    // completes; what its task knew at the issue is known then too.
    Barrier &b = it->second;
    order.loadPhase[t][i] = b.done.size();
    join(b.pending, knownBy(t, i));
    b.tx -= e.bytes;
    maybeComplete(it->first, b);
  }

  void release(size_t t, size_t i, const TraceEntry &e) {
    auto it = barriers.find(e.key);
    if (it == barriers.end() || (!isNamed(e.key) && e.key.index == kUnknown))
      return; // an arrival on an unknown slot pairs with nothing we can name
    Barrier &b = it->second;
    join(b.pending, knownBy(t, i));
    int64_t phase = b.done.size();
    if (isNamed(e.key)) {
      joinedGeneration[t][e.key] = phase;
      b.arrived += tasks[t].threads;
    } else {
      b.arrived += e.count;
      b.tx += e.bytes;
    }
    // An arrival that completes a phase alone (the init count, no bytes)
    // completes the one after the last its task knows complete (not the
    // phase it met in this schedule: nothing orders it after the others').
    bool alone = !isNamed(e.key) && e.count >= b.count && e.bytes == 0;
    int64_t before = alone ? lastComplete(t, e.key) : kUnknown;
    maybeComplete(it->first, b);
    if (alone && int64_t(b.done.size()) > phase)
      lastKnown[t][e.key] = before + 1;
  }

  /// The last phase of mbarrier `key` task `t` knows complete: from its own
  /// waits and arrivals, and the waits of others it learned of.
  int64_t lastComplete(size_t t, const Key &key) const {
    int64_t last = -1;
    if (auto slot = order.keySlots.find(key); slot != order.keySlots.end())
      last = current[t][slot->second];
    if (auto it = lastKnown[t].find(key); it != lastKnown[t].end())
      last = std::max(last, it->second);
    return last;
  }

  /// The phase (generation) an acquire waits for; -1: nothing to wait for.
  /// A wait named by its parity only gets the first phase of that parity
  /// from the last one its task knows complete (its own waits and arrivals,
  /// or another task's wait it learned of: a persistent consumer that skips
  /// the rounds the other consumer takes), as mbarrier.try_wait.parity
  /// would at the earliest.
  int64_t awaited(size_t t, const TraceEntry &e) const {
    if (!isNamed(e.key)) {
      if (e.parity == kUnknown || !order.keySlots.count(e.key))
        return e.phase;
      int64_t last = lastComplete(t, e.key);
      return (last & 1) == e.parity ? last : last + 1;
    }
    auto it = joinedGeneration[t].find(e.key);
    return it == joinedGeneration[t].end() ? -1 : int64_t(it->second);
  }

  /// Task `t` is past the acquire `e` of `phase`.
  void acquired(size_t t, const TraceEntry &e, int64_t phase) {
    if (!isNamed(e.key))
      lastKnown[t][e.key] = std::max(lastComplete(t, e.key), phase);
  }

  bool acquire(size_t t, const TraceEntry &e) {
    if (!isNamed(e.key) && e.key.index == kUnknown) {
      // Some slot of this barrier array: what its latest phases made known.
      for (auto &[key, b] : barriers)
        if (key.base == e.key.base && !b.done.empty())
          learn(t, b.done.back());
      return true;
    }
    int64_t phase = awaited(t, e);
    auto it = barriers.find(e.key);
    if (phase < 0 || it == barriers.end()) {
      if (phase < 0)
        acquired(t, e, phase);
      return phase < 0; // a barrier nobody arrives on never completes
    }
    if (int64_t(it->second.done.size()) <= phase)
      return false;
    learn(t, it->second.done[phase]);
    acquired(t, e, phase);
    return true;
  }

  /// Every task waits: one waits for a phase that these traces never
  /// complete (unrolled rounds that end unevenly, or a missing arrive: a
  /// hang, not a race). Complete it as if after everything run so far.
  void breakDeadlock() {
    // From here on the traces are out of step: what each task does next
    // is not checked.
    for (size_t t = 0; t < tasks.size(); ++t)
      order.inStep[t] = std::min(order.inStep[t], pc[t]);
    Knowledge all = blank;
    for (size_t t = 0; t < tasks.size(); ++t)
      join(all, knownBy(t, pc[t] ? pc[t] - 1 : 0));
    for (auto &[key, b] : barriers)
      if (!b.done.empty())
        join(all, b.done.back());
    for (size_t t = 0; t < tasks.size(); ++t) {
      if (pc[t] == tasks[t].trace->size())
        continue;
      const TraceEntry &e = (*tasks[t].trace)[pc[t]];
      auto it = barriers.find(e.key);
      if (it == barriers.end()) {
        learn(t, all);
        acquired(t, e, awaited(t, e));
        ++pc[t];
        return;
      }
      Barrier &b = it->second;
      // Far-off phases (a miscounted wait) are not materialized one by one.
      int64_t wanted = awaited(t, e);
      int64_t phase = std::min<int64_t>(wanted, b.done.size());
      while (int64_t(b.done.size()) <= phase) {
        join(b.pending, all);
        completePhase(it->first, b);
      }
      if (wanted > phase) {
        learn(t, all);
        acquired(t, e, wanted);
        ++pc[t];
      }
      return;
    }
  }
};

} // namespace

TaskOrder orderTasks(const std::vector<TaskTrace> &tasks, const std::map<Key, int64_t> &arrivals) {
  TaskOrder order;
  Scheduler(tasks, arrivals, order).run();
  return order;
}

bool TaskOrder::completesBefore(size_t a, size_t x, size_t b, size_t y,
                                const std::vector<TaskTrace> &tasks) const {
  const TraceEntry &first = (*tasks[a].trace)[x];
  if (snapshotAt[b][y] == UINT32_MAX)
    return false;
  const Knowledge &known = snapshots[snapshotAt[b][y]];
  if (first.access.async == Async::TmaLoad && loadPhase[a][x] != kUnknown)
    return known[keySlots.at(*first.ownRelease)] >= loadPhase[a][x];
  if (first.completeAt == SIZE_MAX)
    return false;
  if (a == b)
    return first.completeAt <= y;
  return known[a] >= int64_t(first.completeAt);
}

} // namespace mlir::triton::tlx::hazards
