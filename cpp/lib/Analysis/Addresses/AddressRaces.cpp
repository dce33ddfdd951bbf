// Cross-program writes: a tt.store that two different program ids provably
// may both execute on overlapping bytes. Only exact facts are used (an
// affine address with no loop-varying part, every enclosing loop and branch
// and the mask the same in every program): what cannot be proven is silent.

#include "PidAddressAnalysis.h"
#include "TritonByName/TritonOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <algorithm>

namespace mlir::triton::tlx::addresses {

// Whether every program reaches `op` alike: the loops and branches around it
// do not depend on the program id.
static bool reachedByEveryProgram(const AddressFacts &facts, Operation *op) {
  for (Operation *parent = op->getParentOp(); parent && !isa<FunctionOpInterface>(parent);
       parent = parent->getParentOp()) {
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
        if (facts.get(bound).mayVary)
          return false;
    } else if (auto branch = dyn_cast<scf::IfOp>(parent)) {
      if (facts.get(branch.getCondition()).mayVary)
        return false;
    } else if (!isOpNamed(parent, ttg_names::kWarpSpecialize) &&
               !isOpNamed(parent, ttg_names::kWarpSpecializePartitions)) {
      return false;
    }
  }
  return true;
}

// Byte offsets (from the program's first) of every element, sorted.
static std::optional<SmallVector<int64_t>> elementOffsets(const AddressFact &ptr) {
  constexpr int64_t kMaxElements = 1 << 16;
  int64_t count = 1;
  for (int64_t size : ptr.shape)
    if ((count *= std::max<int64_t>(size, 1)) > kMaxElements)
      return std::nullopt;
  SmallVector<int64_t> offsets(1, 0);
  for (auto [size, k] : llvm::zip(ptr.shape, ptr.coef)) {
    SmallVector<int64_t> next;
    for (int64_t base : offsets)
      for (int64_t i = 0; i < size; ++i)
        next.push_back(base + i * k.value);
    offsets = std::move(next);
  }
  llvm::sort(offsets);
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  return offsets;
}

// Whether some element at o + shift (elementBytes wide) overlaps one at o'.
static bool overlapsShifted(ArrayRef<int64_t> offsets, int64_t shift, int64_t elementBytes) {
  for (int64_t o : offsets) {
    int64_t start = o + shift;
    auto it = std::lower_bound(offsets.begin(), offsets.end(), start - elementBytes + 1);
    if (it != offsets.end() && *it < start + elementBytes)
      return true;
  }
  return false;
}

std::string findCrossProgramRace(const AddressFacts &facts, Operation *store,
                                 const AddressFact &ptr, int64_t elementBytes, Value mask) {
  if (!ptr.isExact() || !ptr.base || ptr.vlo != ptr.vhi || elementBytes <= 0 ||
      !reachedByEveryProgram(facts, store))
    return "";
  if (mask) {
    AddressFact maskFact = facts.get(mask);
    bool allTrue = maskFact.isConstant() && maskFact.c != 0;
    // A mask the same in every program keeps the same elements in each:
    // enough when every program writes the same bytes, not otherwise.
    if (!allTrue && (maskFact.mayVary || ptr.hasPid()))
      return "";
  }
  std::optional<SmallVector<int64_t>> offsets = elementOffsets(ptr);
  if (!offsets || offsets->empty())
    return "";
  SmallVector<int> axes;
  for (int a = 0; a < 3; ++a)
    if (ptr.pid[a])
      axes.push_back(a);
  // Program-id steps k (entries -2..2 per used axis, the first non-zero one
  // positive), fewest first: programs p and p + k write p's bytes shifted
  // by sum k_a * stride_a.
  SmallVector<SmallVector<int64_t>> steps;
  if (axes.empty()) {
    steps.push_back({1});
    axes.push_back(0);
  } else {
    int n = axes.size();
    int total = 1;
    for (int i = 0; i < n; ++i)
      total *= 5;
    for (int code = 0; code < total; ++code) {
      SmallVector<int64_t> k;
      for (int i = 0, rest = code; i < n; ++i, rest /= 5)
        k.push_back(rest % 5 - 2);
      auto first = llvm::find_if(k, [](int64_t x) { return x != 0; });
      if (first != k.end() && *first > 0)
        steps.push_back(k);
    }
    auto weight = [](ArrayRef<int64_t> k) {
      int64_t w = 0;
      for (int64_t v : k)
        w += std::abs(v);
      return w;
    };
    SmallVector<SmallVector<int64_t>> ordered;
    for (int64_t w = 1; w <= 2 * n; ++w)
      for (const SmallVector<int64_t> &k : steps)
        if (weight(k) == w)
          ordered.push_back(k);
    steps = std::move(ordered);
  }
  for (ArrayRef<int64_t> k : steps) {
    int64_t shift = 0;
    for (size_t i = 0; i < axes.size(); ++i)
      shift += k[i] * ptr.pid[axes[i]];
    if (!overlapsShifted(*offsets, shift, elementBytes))
      continue;
    auto describe = [&](bool second) {
      std::string who = "{", bytes;
      int64_t start = ptr.c + ptr.vlo;
      for (size_t i = 0; i < axes.size(); ++i) {
        int64_t p = std::max<int64_t>(0, -k[i]) + (second ? k[i] : 0);
        start += p * ptr.pid[axes[i]];
        who += (i ? ", pid" : "pid") + std::to_string(axes[i]) + "=" + std::to_string(p);
      }
      return who + "} bytes [" + std::to_string(start + offsets->front()) + ", " +
             std::to_string(start + offsets->back() + elementBytes - 1) + "]";
    };
    return "tlx-pid-address-analysis: two programs may store to the same bytes of " +
           baseName(ptr.base, true) + ": program " + describe(false) + " and program " +
           describe(true) + " overlap";
  }
  return "";
}

} // namespace mlir::triton::tlx::addresses
