// Proxy fences across warp-specialize partitions, for tlx-check-hazards.
//
// The rule (PTX ISA, memory consistency model: proxies and the
// proxy-preserved causality order): a write through the generic proxy and a
// later access to the same bytes through the async proxy are ordered only if
// a proxy fence (fence.proxy.async, ttng.fence_async_shared) lies on the
// causality path between them: in the writer after the write and before its
// release (mbarrier arrive, named barrier), in the reader after its acquire
// and before the access, or in a task the hand-off passes through. The async
// proxy: TMA copies (cp.async.bulk) and wgmma's shared-memory operands. The
// generic proxy: stores from registers (local_store, an initialized
// local_alloc) and cp.async (the non-bulk copy, which writes through the
// generic proxy: triton fences it before a wgmma too, see below).
//
// Within one task triton 3.7.1's proxy-fence insertion (make_llir, after
// this pass) adds a missing fence itself, cp.async included; it follows one
// task's program order only, so a hand-off between partitions is where a
// missing fence survives to the binary.
//
// Not checked: the other direction. A TMA load's bytes are visible to the
// generic reads of a task that waits for its barrier phase (complete_tx),
// and an async-proxy read (wgmma, TMA store) is over once its wait retires
// it: no fence is needed before a generic access reuses the bytes.

#include "HazardModel.h"

#include <algorithm>

namespace mlir::triton::tlx::hazards {

bool needsProxyFence(const Access &w, const Access &a) {
  return w.write && (w.async == Async::None || w.async == Async::CpAsync) && isAsyncProxy(a);
}

std::vector<std::vector<size_t>> collectFences(const std::vector<TaskTrace> &tasks) {
  std::vector<std::vector<size_t>> fences(tasks.size());
  for (auto [t, task] : llvm::enumerate(tasks))
    for (auto [i, e] : llvm::enumerate(*task.trace))
      if (e.kind == TraceEntry::Fence)
        fences[t].push_back(i);
  return fences;
}

bool fencedBetween(size_t a, size_t x, size_t b, size_t y, const std::vector<TaskTrace> &tasks,
                   const TaskOrder &order, const std::vector<std::vector<size_t>> &fences) {
  for (size_t c = 0; c < tasks.size(); ++c) {
    // Fences the schedule reached (in step). What a task knows only grows
    // along its trace, so the fences the write completes before are a suffix
    // of them, and if any of those precedes the access, the first one does.
    auto begin = fences[c].begin();
    auto end = std::lower_bound(begin, fences[c].end(), order.inStep[c]);
    auto first = std::partition_point(
        begin, end, [&](size_t f) { return !order.completesBefore(a, x, c, f, tasks); });
    if (first != end && order.completesBefore(c, *first, b, y, tasks))
      return true;
  }
  return false;
}

} // namespace mlir::triton::tlx::hazards
