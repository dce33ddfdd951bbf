// The findings of tlx-check-hazards: how they name accesses, waits and
// bytes, and the warnings themselves (each pair of ops once).

#include "HazardModel.h"
#include "TritonByName/TritonOps.h"
#include "tlx_alias/Support/Location.h"

#include "mlir/IR/Diagnostics.h"

namespace mlir::triton::tlx::hazards {

std::string describeAccess(const Access &a) {
  StringRef name = a.op->getName().getStringRef();
  if (name == ttg_names::kLocalLoad)
    return "local_load";
  if (name == ttg_names::kLocalStore)
    return "local_store";
  if (name == ttg_names::kLocalAlloc)
    return "local_alloc (a tensor copied into shared memory)";
  if (name == ttg_names::kAsyncCopy)
    return "cp.async copy (async_load)";
  if (name == ttg_names::kTmaLoad)
    return "TMA load (async_descriptor_load)";
  if (name == ttg_names::kTmaStore)
    return "TMA store (async_descriptor_store)";
  if (name == ttg_names::kTmaReduce)
    return "TMA reduce (async_descriptor_store with store_reduce)";
  if (name == ttg_names::kWarpGroupDot)
    return a.async == Async::Wgmma ? "async wgmma (async_dot)" : "wgmma (dot)";
  return name.str();
}

std::string describeWait(const Pending &p) {
  switch (p.access.async) {
  case Async::CpAsync:
    return "a ttg.async_wait (async_load_wait_group) covering its commit group";
  case Async::TmaLoad:
    return "a ttng.wait_barrier (barrier_wait) on " + p.barrier.buffer +
           ", the barrier the copy signals";
  case Async::Wgmma:
    return "a ttng.warp_group_dot_wait (async_dot_wait) retiring it";
  case Async::TmaStore:
    return "a ttng.async_tma_store_wait (async_descriptor_store_wait)";
  default:
    return "a completing wait";
  }
}

std::string describeBytes(const Range &a, const Range &b) {
  std::string allocName = tlx_alias::locationName(a.alloc->getLoc());
  if (a.alloc->getNumOperands() >= 1) // ByteModel::stagingRange
    allocName = "triton's staging buffers of this task (placed after TTGIR; they may share bytes)";
  else if (allocName.empty())
    allocName = "allocation at " + tlx_alias::describeLocation(a.alloc->getLoc());
  std::string text = "bytes ";
  Intervals common = commonBytes(a, b);
  for (auto [k, piece] : llvm::enumerate(common)) {
    if (k == 4) {
      text += " and " + std::to_string(common.size() - 4) + " more ranges";
      break;
    }
    if (k)
      text += k + 1 == common.size() ? " and " : ", ";
    text += "[" + std::to_string(piece.lo) + ", " + std::to_string(piece.hi) + ")";
  }
  text += " of " + allocName;
  if (!a.known() || !b.known())
    text += " (slot index unknown: may overlap)";
  return text;
}

// A finding's head, at `a`: which access of which buffer touches which of
// the bytes `other` touches.
static InFlightDiagnostic emitFinding(const Access &a, const Access &other) {
  InFlightDiagnostic diag = a.op->emitWarning();
  diag << "tlx-check-hazards: " << describeAccess(a) << " of " << a.range.buffer
       << (a.write ? " writes " : " reads ") << describeBytes(a.range, other.range);
  return diag;
}

void reportInFlight(const Pending &p, const Access &a, Reported &reported) {
  if (!reported.insert({p.access.op, a.op}).second)
    return;
  InFlightDiagnostic diag = emitFinding(a, p.access);
  diag << " while the " << describeAccess(p.access) << " of " << p.access.range.buffer
       << " at " << tlx_alias::describeLocation(p.access.op->getLoc())
       << (p.access.write ? " (writing them)" : " (reading them)")
       << " may still be in flight; order them with " << describeWait(p)
       << " before this access";
  diag.attachNote(p.access.op->getLoc()) << "the " << describeAccess(p.access) << " still in flight";
}

void reportUnfenced(const Access &w, const Access &a, Reported &reported) {
  if (!reported.insert({w.op, a.op}).second)
    return;
  InFlightDiagnostic diag = emitFinding(a, w);
  diag << " through the async proxy, which the " << describeAccess(w) << " of "
       << w.range.buffer << " at " << tlx_alias::describeLocation(w.op->getLoc())
       << " wrote through the generic proxy with no fence between them; add a "
          "ttng.fence_async_shared (fence_async_shared) after the write";
  diag.attachNote(w.op->getLoc()) << "the " << describeAccess(w) << " not fenced";
}

void reportAcrossTasks(const Access &a, const Access &b, Reported &reported) {
  if (!reported.insert({a.op, b.op}).second || !reported.insert({b.op, a.op}).second)
    return;
  InFlightDiagnostic diag = emitFinding(b, a);
  diag << " which the "
       << describeAccess(a) << " of " << a.range.buffer
       << " in another warp_specialize partition at "
       << tlx_alias::describeLocation(a.op->getLoc()) << (a.write ? " writes" : " reads")
       << ", with no barrier hand-off between them in that round (neither waits for a "
          "barrier phase that follows the other); order them with an mbarrier "
          "(barrier_arrive after the first access completes, barrier_wait for that "
          "phase before the second) or a named barrier";
  diag.attachNote(a.op->getLoc()) << "the " << describeAccess(a) << " in the other partition";
}

void reportUnfencedAcrossTasks(const Access &w, const Access &a, Reported &reported) {
  if (!reported.insert({w.op, a.op}).second)
    return;
  InFlightDiagnostic diag = emitFinding(a, w);
  diag << " through the async proxy, which the " << describeAccess(w) << " of " << w.range.buffer
       << " in another warp_specialize partition at "
       << tlx_alias::describeLocation(w.op->getLoc())
       << " wrote through the generic proxy; the hand-off orders them, but no "
          "ttng.fence_async_shared (fence_async_shared) lies between them: add one after the "
          "write (before the arrive) in the writing partition, or after the wait in this one";
  diag.attachNote(w.op->getLoc()) << "the " << describeAccess(w) << " not fenced";
}

void reportUnwaitedLoad(const Access &load, const Access &a, Reported &reported) {
  if (!reported.insert({load.op, a.op}).second)
    return;
  InFlightDiagnostic diag = emitFinding(a, load);
  diag << " while the " << describeAccess(load) << " of " << load.range.buffer << " at "
       << tlx_alias::describeLocation(load.op->getLoc())
       << " (writing them) may still be in flight: nothing here follows its barrier's "
          "phase; order them with a ttng.wait_barrier (barrier_wait) for that phase, "
          "here or in a task that hands the slot back";
  diag.attachNote(load.op->getLoc()) << "the " << describeAccess(load) << " still in flight";
}

void reportPendingAtEnd(const Pending &p, Reported &reported) {
  if (!reported.insert({p.access.op, nullptr}).second)
    return;
  InFlightDiagnostic diag = p.access.op->emitWarning();
  diag << "tlx-check-hazards: " << describeAccess(p.access) << " of " << p.access.range.buffer
       << " may still read it when its task ends and the CTA's shared memory is freed (a "
          "new CTA's data may land there first); wait for it with "
       << describeWait(p) << " before the end";
}

} // namespace mlir::triton::tlx::hazards
