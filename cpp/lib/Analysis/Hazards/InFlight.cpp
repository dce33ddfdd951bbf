// What one task of tlx-check-hazards has in flight: asynchronous accesses
// until the wait that completes them, and generic-proxy writes until a
// fence_async_shared makes them visible to the async proxy (TMA, wgmma).

#include "HazardModel.h"
#include "TritonByName/TritonOps.h"

namespace mlir::triton::tlx::hazards {

// Shared-memory operands of a synchronous wgmma too.
bool isAsyncProxy(const Access &a) {
  return a.async == Async::TmaLoad || a.async == Async::TmaStore || a.async == Async::Wgmma ||
         (!a.write && isOpNamed(a.op, ttg_names::kWarpGroupDot));
}

namespace {

/// Writes through the generic proxy: stores from registers.
bool isGenericWrite(const Access &a) { return a.write && a.async == Async::None; }

bool sameInstance(const Access &a, const Access &b) {
  return a.op == b.op && a.range.start == b.range.start;
}

} // namespace

void checkInFlight(State &state, const Access &a, Reported &reported) {
  for (const Pending &p : state.pending)
    if ((p.access.write || a.write) && overlaps(p.access.range, a.range))
      reportInFlight(p, a, reported);
  if (isAsyncProxy(a))
    for (const Access &w : state.unfenced)
      if (overlaps(w.range, a.range))
        reportUnfenced(w, a, reported);
  if (isGenericWrite(a) &&
      llvm::none_of(state.unfenced, [&](const Access &w) { return sameInstance(w, a); }))
    state.unfenced.push_back(a);
}

void completePending(State &state, std::vector<TraceEntry> &trace,
                     function_ref<bool(const Pending &)> done) {
  std::vector<Pending> left;
  for (Pending &p : state.pending) {
    if (done(p)) {
      TraceEntry &entry = trace[p.traceIndex];
      entry.completeAt = std::min(entry.completeAt, trace.size());
    } else {
      left.push_back(p);
    }
  }
  state.pending = std::move(left);
}

void mergeStates(State &into, const State &other) {
  for (const Pending &p : other.pending) {
    bool present = llvm::any_of(into.pending, [&](const Pending &q) {
      return sameInstance(q.access, p.access) && q.order == p.order;
    });
    if (!present)
      into.pending.push_back(p);
  }
  for (const Access &w : other.unfenced)
    if (llvm::none_of(into.unfenced, [&](const Access &v) { return sameInstance(v, w); }))
      into.unfenced.push_back(w);
  into.committedGroups = std::max(into.committedGroups, other.committedGroups);
  into.wgmmas = std::max(into.wgmmas, other.wgmmas);
  into.tmaStores = std::max(into.tmaStores, other.tmaStores);
}

} // namespace mlir::triton::tlx::hazards
