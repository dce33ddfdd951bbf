// Exact views' other layout of an overlap tree: ring by ring.
//
// Under exact views (triton 3.8) a buffer of B units can only start at a
// multiple of B. The interleaved layout (StorageAliasOffsets.cpp: buffer
// index i of every allocation in one slice) then pads each slice to the
// largest buffer: distinct(A 16 KiB, B 32 KiB) takes 64 KiB per index
// instead of 48. Laying out whole rings needs no such padding:
//
//   leaf      its buffers side by side (stride: their alignment, B or more)
//   distinct  the children one after another, largest alignment first
//   shared    the children from the same start, or a child on the ring of
//             a sibling's leaf when that keeps the promise below
//
// The tree promises that buffers of different indices never overlap and that
// buffers of one index overlap only under a shared group. Rings keep that
// promise only for some trees (shared(distinct(A, B), C) with C as large as
// B: C[i] lands on B[i]), so the result is checked, buffer by buffer, and used
// only when it holds and is smaller than the interleaved layout.

#include "tlx_alias/Dialect/TLX/Transforms/StorageAliasLowering.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::triton::tlx {

namespace {

struct Leaf {
  Operation *op;
  int64_t count, units;
  SmallVector<ReuseGroupOp> path; // groups from the root down to the leaf
};

class RingLayout {
public:
  explicit RingLayout(SpecPlan &plan) : plan(plan) {}

  // The units the rings need, or failure when this tree cannot be laid out
  // so (group_size levels) or the promise would break.
  FailureOr<int64_t> run(Value root) {
    FailureOr<int64_t> end = place(root, 0, {});
    if (failed(end) || !keepsPromise())
      return failure();
    return *end;
  }

  const llvm::DenseMap<Operation *, BufferPlacement> &getPlacements() const {
    return placements;
  }

private:
  SpecPlan &plan;
  llvm::DenseMap<Operation *, BufferPlacement> placements;
  SmallVector<Leaf> leaves;

  // Places `element` at `start` or later; returns where it ends.
  FailureOr<int64_t> place(Value element, int64_t start,
                           SmallVector<ReuseGroupOp> path) {
    auto group = element.getDefiningOp<ReuseGroupOp>();
    if (!group) {
      const AllocInfo *alloc = plan.find(element.getDefiningOp());
      // Buffers as far apart as their alignment (at least their size under
      // exact views), as in the interleaved layout.
      int64_t begin = llvm::alignTo(start, alloc->alignment);
      int64_t count = alloc->type.numBuffers();
      placements[alloc->op] = {begin, alloc->alignment, {}};
      leaves.push_back({alloc->op, count, alloc->unitsPerBuffer, std::move(path)});
      return begin + (count - 1) * alloc->alignment + alloc->unitsPerBuffer;
    }
    if (group.getGroupSizeOrOne() > 1)
      return failure();
    path.push_back(group);
    SmallVector<Value> children(group.getElements());
    bool distinct = group.getGroupKind() == ReuseGroupKind::distinct;
    if (distinct) { // largest alignment first: no padding between children
      SmallVector<std::pair<int64_t, size_t>> order;
      for (auto [i, child] : llvm::enumerate(children))
        order.push_back({-getNodeSize(child, plan).alignment, i});
      llvm::sort(order);
      SmallVector<Value> sorted;
      for (auto [alignment, i] : order)
        sorted.push_back(children[i]);
      children = std::move(sorted);
    }
    int64_t end = start;
    size_t groupLeaves = leaves.size();
    for (Value child : children) {
      FailureOr<int64_t> childEnd =
          distinct ? place(child, end, path) : placeShared(child, start, groupLeaves, path);
      if (failed(childEnd))
        return failure();
      end = std::max(end, *childEnd);
    }
    return end;
  }

  // A shared group's child goes where it keeps the promise: at the group's
  // start, or on the ring of a sibling's leaf (C[i] on A[i] when C's ring
  // has A's stride).
  FailureOr<int64_t> placeShared(Value child, int64_t start, size_t siblingLeaves,
                                 ArrayRef<ReuseGroupOp> path) {
    SmallVector<int64_t> starts = {start};
    for (size_t l = siblingLeaves; l < leaves.size(); ++l)
      starts.push_back(placements.lookup(leaves[l].op).offset);
    for (int64_t candidate : starts) {
      size_t mark = leaves.size();
      FailureOr<int64_t> end = place(child, candidate, SmallVector<ReuseGroupOp>(path));
      if (succeeded(end) && keepsPromise())
        return end;
      for (size_t l = mark; l < leaves.size(); ++l)
        placements.erase(leaves[l].op);
      leaves.truncate(mark);
    }
    return failure();
  }

  static bool underShared(const Leaf &a, const Leaf &b) {
    size_t common = 0;
    while (common < a.path.size() && common < b.path.size() &&
           a.path[common] == b.path[common])
      ++common;
    if (common == 0)
      return false;
    ReuseGroupOp parent = a.path[common - 1];
    return parent.getGroupKind() == ReuseGroupKind::shared;
  }

  bool keepsPromise() const {
    for (size_t x = 0; x < leaves.size(); ++x)
      for (size_t y = x + 1; y < leaves.size(); ++y) {
        const Leaf &a = leaves[x], &b = leaves[y];
        BufferPlacement pa = placements.lookup(a.op), pb = placements.lookup(b.op);
        bool sameIndexMayOverlap = underShared(a, b);
        for (int64_t i = 0; i < a.count; ++i)
          for (int64_t j = 0; j < b.count; ++j) {
            int64_t startA = pa.startOf(i), startB = pb.startOf(j);
            bool overlap = startA < startB + b.units && startB < startA + a.units;
            if (overlap && (i != j || !sameIndexMayOverlap))
              return false;
          }
      }
    return true;
  }
};

} // namespace

std::optional<int64_t> layOutRings(SpecPlan &plan,
                                   llvm::DenseMap<Operation *, BufferPlacement> &placements) {
  RingLayout rings(plan);
  FailureOr<int64_t> units = rings.run(plan.overlap.getOverlapDef());
  if (failed(units))
    return std::nullopt;
  placements = rings.getPlacements();
  return *units;
}

} // namespace mlir::triton::tlx
