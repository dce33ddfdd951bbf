// Races between access instances, for tlx-check-hazards: two accesses to
// overlapping bytes (one writing) of which neither completes before the
// other starts in the tasks' happens-before order (HandOffs.cpp).
// Instances, not ops: the same two ops may be ordered in one round and not
// in the next.

#include "HazardModel.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::triton::tlx::hazards {

namespace {

/// An access instance with its byte bounds, for a quick disjointness test.
struct Item {
  size_t entry;
  const Access *access;
  int64_t lo, hi;
  bool handedOffLoad; // a TMA load its own task does not wait for
};

std::vector<Item> itemsOf(const TaskTrace &task, size_t t, const TaskOrder &order) {
  std::vector<Item> items;
  for (auto [i, e] : llvm::enumerate(*task.trace)) {
    if (i >= order.inStep[t])
      break;
    if (e.kind != TraceEntry::AccessEntry)
      continue;
    // A TMA load whose barrier slot is unknown has no phase to be ordered
    // by: left out rather than reported against everything.
    if (e.access.async == Async::TmaLoad && order.loadPhase[t][i] == kUnknown &&
        !e.pendingInTask)
      continue;
    bool handedOff = e.access.async == Async::TmaLoad && !e.pendingInTask;
    items.push_back({i, &e.access, e.access.range.lo(), e.access.range.hi(), handedOff});
  }
  return items;
}

bool mayConflict(const Item &x, const Item &y) {
  return (x.access->write || y.access->write) && x.access->range.alloc == y.access->range.alloc &&
         x.lo < y.hi && y.lo < x.hi && overlaps(x.access->range, y.access->range);
}

} // namespace

std::vector<Race> findRaces(const std::vector<TaskTrace> &tasks, const TaskOrder &order) {
  std::vector<std::vector<Item>> items;
  for (auto [t, task] : llvm::enumerate(tasks))
    items.push_back(itemsOf(task, t, order));
  std::vector<Race> races;
  llvm::DenseSet<std::pair<Operation *, Operation *>> found;
  std::vector<std::vector<size_t>> fences = collectFences(tasks);
  // Ordered across tasks, a generic write before an async-proxy access still
  // needs a proxy fence on the way (ProxyFences.cpp).
  auto checkFence = [&](size_t a, const Item &x, size_t b, const Item &y) {
    if (a == b || !needsProxyFence(*x.access, *y.access) ||
        fencedBetween(a, x.entry, b, y.entry, tasks, order, fences))
      return;
    found.insert({x.access->op, y.access->op});
    found.insert({y.access->op, x.access->op});
    races.push_back({a, x.entry, b, y.entry, /*unfenced=*/true});
  };
  auto consider = [&](size_t a, const Item &x, size_t b, const Item &y) {
    if (!mayConflict(x, y) || found.contains({x.access->op, y.access->op}))
      return;
    if (order.completesBefore(a, x.entry, b, y.entry, tasks)) {
      checkFence(a, x, b, y);
      return;
    }
    // Within a task only the handed-off load can be late (the rest is the
    // in-task check's, or membar's).
    if (a != b && order.completesBefore(b, y.entry, a, x.entry, tasks)) {
      checkFence(b, y, a, x);
      return;
    }
    found.insert({x.access->op, y.access->op});
    races.push_back({a, x.entry, b, y.entry});
  };
  for (size_t b = 0; b < tasks.size(); ++b)
    for (const Item &y : items[b]) {
      for (size_t a = 0; a < b; ++a)
        for (const Item &x : items[a])
          consider(a, x, b, y);
      for (const Item &x : items[b]) {
        if (x.entry >= y.entry)
          break;
        if (x.handedOffLoad)
          consider(b, x, b, y);
      }
    }
  return races;
}

} // namespace mlir::triton::tlx::hazards
