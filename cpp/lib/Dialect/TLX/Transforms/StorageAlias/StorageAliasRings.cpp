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
//   shared    the children (largest alignment first) from the same start,
//             or a child on the ring of a sibling's leaf (with its stride if
//             need be) when that keeps the promise below
//
// The tree promises that buffers of different indices never overlap and that
// buffers of one index overlap only under a shared group. Rings keep that
// promise only for some trees (shared(distinct(A, B), C) with C as large as
// B: C[i] lands on B[i]), so the result is checked, buffer by buffer. It is
// used only where the interleaved layout (the design's) is larger than the
// target's memory and the rings fit (StorageAliasSizes.cpp): the persistent
// GEMM's ring and epilogue tiles take 256 KiB interleaved, 192 KiB so.

#include "StorageAliasLowering.h"

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

  // Places `element` at `start` or later, its leaves' buffers `stride` apart
  // where that is a multiple of their alignment; returns where it ends.
  FailureOr<int64_t> place(Value element, int64_t start,
                           SmallVector<ReuseGroupOp> path, int64_t stride = 0) {
    auto group = element.getDefiningOp<ReuseGroupOp>();
    if (!group) {
      const AllocInfo *alloc = plan.find(element.getDefiningOp());
      // Buffers as far apart as their alignment (at least their size under
      // exact views), as in the interleaved layout, or as a sibling's.
      int64_t between = stride % alloc->alignment == 0
                            ? std::max(stride, alloc->alignment)
                            : alloc->alignment;
      int64_t begin = llvm::alignTo(start, alloc->alignment);
      int64_t count = getBufferCount(alloc->type);
      placements[alloc->op] = {begin, between, {}};
      leaves.push_back({alloc->op, count, alloc->unitsPerBuffer, std::move(path)});
      return begin + (count - 1) * between + alloc->unitsPerBuffer;
    }
    if (group.getGroupSizeOrOne() > 1)
      return failure();
    path.push_back(group);
    SmallVector<Value> children(group.getElements());
    bool distinct = group.getGroupKind() == ReuseGroupKind::distinct;
    // Largest alignment first: distinct children need no padding between
    // them, and a shared group's smaller children can take the ring (and
    // stride) of its largest.
    SmallVector<std::pair<int64_t, size_t>> order;
    for (auto [i, child] : llvm::enumerate(children))
      order.push_back({-getNodeSize(child, plan).alignment, i});
    llvm::sort(order);
    SmallVector<Value> sorted;
    for (auto [alignment, i] : order)
      sorted.push_back(children[i]);
    children = std::move(sorted);
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
  // start, or on the ring of a sibling's leaf, with its own stride or the
  // sibling's (C[i] on A[i]).
  FailureOr<int64_t> placeShared(Value child, int64_t start, size_t siblingLeaves,
                                 ArrayRef<ReuseGroupOp> path) {
    // (start, stride) pairs: the group's start with the child's own
    // strides, then every sibling leaf's ring.
    SmallVector<std::pair<int64_t, int64_t>> candidates = {{start, 0}};
    for (size_t l = siblingLeaves; l < leaves.size(); ++l) {
      BufferPlacement ring = placements.lookup(leaves[l].op);
      candidates.push_back({ring.offset, 0});
      candidates.push_back({ring.offset, ring.unitsBetweenBuffers});
    }
    for (auto [candidate, stride] : candidates) {
      size_t mark = leaves.size();
      FailureOr<int64_t> end = place(child, candidate, SmallVector<ReuseGroupOp>(path), stride);
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

  // A leaf's buffers lie in increasing order, equally far apart, so a sweep
  // pairs each buffer of one leaf with the buffers of the other it overlaps:
  // linear in the buffers (at most one overlap is allowed per buffer).
  bool keepsPromise() const {
    for (size_t x = 0; x < leaves.size(); ++x)
      for (size_t y = x + 1; y < leaves.size(); ++y) {
        const Leaf &a = leaves[x], &b = leaves[y];
        BufferPlacement pa = placements.lookup(a.op), pb = placements.lookup(b.op);
        bool sameIndexMayOverlap = underShared(a, b);
        int64_t first = 0; // b's first buffer not wholly before a's current one
        for (int64_t i = 0; i < a.count; ++i) {
          int64_t startA = pa.startOf(i), endA = startA + a.units;
          while (first < b.count && pb.startOf(first) + b.units <= startA)
            ++first;
          for (int64_t j = first; j < b.count && pb.startOf(j) < endA; ++j)
            if (i != j || !sameIndexMayOverlap)
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
