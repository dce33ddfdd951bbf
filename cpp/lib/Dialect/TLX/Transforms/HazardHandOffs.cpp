// Barrier hand-offs across warp-specialize partitions, for tlx-check-hazards.
//
// Happens-before across tasks: an access that completes before its task
// releases K1 is ordered before an access that its task performs after
// acquiring Kn, if K1 = Kn (the direct hand-off) or a chain of tasks
// passes it on: a task that acquires Ki and then, in program order,
// releases Ki+1 (e.g. a producer that waits until both consumers released
// a ring slot, then lends it to one of them by arriving on its `full`).

#include "tlx_alias/Dialect/TLX/Transforms/HazardModel.h"

namespace mlir::triton::tlx::hazards {

/// Edges `acquired -> released` of one task's trace: a release follows the
/// acquires made since this task's previous release of the same barrier
/// (a release passes on only what was acquired for it; this is what tells
/// a lent slot's wait apart from the same slot's wait a round earlier).
/// A TMA load releases its barrier when it completes, after its issue.
void collectHandOffEdges(const std::vector<TraceEntry> &trace, HandOffEdges &edges) {
  std::vector<std::pair<size_t, Key>> acquires;
  std::map<Key, size_t> acquiresAtLastRelease;
  for (const TraceEntry &entry : trace) {
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

const std::vector<Key> &HandOffs::closure(const Key &key) {
  auto it = closures.find(key);
  if (it == closures.end())
    it = closures.emplace(key, handOffClosure(key, edges)).first;
  return it->second;
}

bool ordered(const Summary &first, const Summary &second, HandOffs &handOffs) {
  for (const Key &r : first.released)
    for (const Key &k : handOffs.closure(r))
      for (const Key &a : second.acquired)
        if (k.matches(a))
          return true;
  return false;
}

} // namespace mlir::triton::tlx::hazards
