// Races between access instances, for tlx-check-hazards: two accesses to
// overlapping bytes (one writing) of which neither completes before the
// other starts in the tasks' happens-before order (HandOffs.cpp).
// Instances, not ops: the same two ops may be ordered in one round and not
// in the next.

#include "HazardModel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <map>
#include <tuple>

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

/// An item by its task and its index in that task's items.
struct Ref {
  uint32_t task, index;
  bool operator<(const Ref &o) const { return std::tie(task, index) < std::tie(o.task, o.index); }
};

/// The items of one allocation with the same byte bounds (one view of one
/// ring slot, over the replay's rounds), each list in (task, index) order.
struct SameBounds {
  int64_t lo, hi;
  std::vector<Ref> all, writes, handedOffLoads;
};

/// The items findRaces pairs with each item: those of an earlier task, or a
/// handed-off load earlier in its own task, on overlapping bytes of its
/// allocation, one of the two writing. A persistent kernel's replayed rounds
/// make tens of thousands of items, most on a few ring slots: pairing every
/// item with every other took seconds; grouped by their bounds, an item
/// meets only the groups it overlaps.
class Partners {
public:
  explicit Partners(const std::vector<std::vector<Item>> &items) : items(items) {
    std::map<std::tuple<Operation *, int64_t, int64_t>, size_t> groupOf;
    for (auto [t, taskItems] : llvm::enumerate(items))
      for (auto [i, item] : llvm::enumerate(taskItems)) {
        Operation *alloc = item.access->range.alloc;
        auto [it, added] = groupOf.try_emplace({alloc, item.lo, item.hi}, 0);
        std::vector<SameBounds> &groups = byAlloc[alloc];
        if (added) {
          it->second = groups.size();
          groups.push_back({item.lo, item.hi, {}, {}, {}});
        }
        SameBounds &group = groups[it->second];
        Ref ref{uint32_t(t), uint32_t(i)};
        group.all.push_back(ref);
        if (item.access->write)
          group.writes.push_back(ref);
        if (item.handedOffLoad)
          group.handedOffLoads.push_back(ref);
      }
  }

  /// Item y's partners, in the order of a scan over tasks, then items.
  const std::vector<Ref> &of(uint32_t b, uint32_t y) {
    const Item &item = items[b][y];
    partners.clear();
    for (const SameBounds &group : byAlloc[item.access->range.alloc]) {
      if (!(group.lo < item.hi && item.lo < group.hi))
        continue;
      for (Ref x : item.access->write ? group.all : group.writes) {
        if (x.task >= b)
          break;
        partners.push_back(x);
      }
      auto first = llvm::lower_bound(group.handedOffLoads, Ref{b, 0});
      for (; first != group.handedOffLoads.end() && first->task == b && first->index < y; ++first)
        partners.push_back(*first);
    }
    llvm::sort(partners);
    return partners;
  }

private:
  const std::vector<std::vector<Item>> &items;
  DenseMap<Operation *, std::vector<SameBounds>> byAlloc;
  std::vector<Ref> partners;
};

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
    // Partners gives one allocation, overlapping bounds, one writing: left
    // is whether their pieces (padded or sliced views) share a byte.
    if (!overlaps(x.access->range, y.access->range) || found.contains({x.access->op, y.access->op}))
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
  Partners partners(items);
  for (uint32_t b = 0; b < tasks.size(); ++b)
    for (uint32_t y = 0; y < items[b].size(); ++y)
      for (Ref x : partners.of(b, y))
        consider(x.task, items[x.task][x.index], b, items[b][y]);
  return races;
}

} // namespace mlir::triton::tlx::hazards
