//===- HazardModel.h - what tlx-check-hazards reasons about ----*- C++ -*-===//
//
// The model of the reuse-hazard analysis (tlx-check-hazards): the bytes of an
// allocation a view covers, accesses (asynchronous or not) and the waits that
// complete them, barriers as synchronization keys, and each task's trace.
// Shared by the checker (CheckHazards.cpp), the byte and value model
// (HazardModel.cpp, HazardValues.cpp) and the barrier hand-offs
// (HazardHandOffs.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TLX_ALIAS_DIALECT_TLX_TRANSFORMS_HAZARDMODEL_H
#define TLX_ALIAS_DIALECT_TLX_TRANSFORMS_HAZARDMODEL_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace mlir::triton::tlx::hazards {

constexpr int64_t kUnknown = -1;

/// Bytes [lo, hi) of a view, relative to the value it views.
struct Interval {
  int64_t lo = 0, hi = 0;
};
using Intervals = SmallVector<Interval, 2>;

/// The bytes of an allocation a view covers: `pieces` (sorted, disjoint),
/// all inside [start, start + size); start kUnknown: anywhere.
struct Range {
  Operation *alloc = nullptr;
  int64_t start = kUnknown;
  int64_t size = 0;
  int64_t allocSize = 0;
  Intervals pieces;   // absolute, when known
  std::string buffer; // the view's name, with its slot when known

  bool known() const { return start != kUnknown; }
  int64_t lo() const { return known() ? start : 0; }
  int64_t hi() const { return known() ? start + size : allocSize; }
  Intervals bytes() const {
    if (!known())
      return {Interval{0, allocSize}};
    return pieces.empty() ? Intervals{Interval{start, start + size}} : pieces;
  }
};

/// The bytes both ranges cover (empty when disjoint or in different
/// allocations).
Intervals commonBytes(const Range &a, const Range &b);
bool overlaps(const Range &a, const Range &b);

/// A barrier (or a named barrier) as synchronization key.
struct Key {
  const void *base = nullptr; // barrier allocation, or null for named ones
  int64_t index = kUnknown;   // byte offset / named barrier id
  bool operator<(const Key &o) const {
    return std::tie(base, index) < std::tie(o.base, o.index);
  }
  bool matches(const Key &o) const {
    return base == o.base &&
           (index == o.index || ((index == kUnknown || o.index == kUnknown) && base));
  }
};

enum class Async { None, CpAsync, TmaLoad, Wgmma, TmaStore };

struct Access {
  Operation *op = nullptr;
  Range range;
  bool write = false;
  Async async = Async::None;
};

struct Pending {
  Access access;
  int64_t order = 0;  // cp.async group (-1 uncommitted) / wgmma / store seq.
  Range barrier;      // TMA loads
  size_t traceIndex = 0;
};

struct State {
  std::vector<Pending> pending;
  int64_t committedGroups = 0, wgmmas = 0, tmaStores = 0;
};

struct TraceEntry {
  enum Kind { AccessEntry, Acquire, Release } kind;
  Access access;               // AccessEntry
  Key key;                     // Acquire / Release
  size_t completeAt = SIZE_MAX; // AccessEntry: where it completed
  std::optional<Key> ownRelease; // TMA loads: the barrier they signal
};

struct Summary {
  Access access;
  std::set<Key> acquired, released;
  bool inLoop = false;
};

// --- bytes and values -------------------------------------------------------

/// Bytes of one memdesc (all its buffers); 0 for other types.
int64_t bytesOf(Type type);
bool isSharedMemDesc(Type type);
int64_t intAttr(Operation *op, StringRef name, int64_t otherwise);

/// The bytes of its source a ttg.memdesc_subslice covers, relative to the
/// source; nullopt when not provably less than the whole source.
std::optional<Intervals> subsliceBytes(Operation *slice);

/// The value of an integer SSA value from constants, `env` and integer
/// arithmetic; nullopt when not computable.
std::optional<int64_t> evaluate(Value v, const DenseMap<Value, int64_t> &env, int depth = 0);

/// The allocation and bytes a memdesc value views; nullopt when it cannot
/// be followed to a ttg.local_alloc. Buffer indices are evaluated in `env`
/// (null: every index unknown).
std::optional<Range> resolveView(Value v, const DenseMap<Value, int64_t> *env);

// --- diagnostics text -------------------------------------------------------

std::string describeAccess(const Access &a);
std::string describeWait(const Pending &p);
std::string describeBytes(const Range &a, const Range &b);

// --- barrier hand-offs across tasks -----------------------------------------

using HandOffEdges = std::set<std::pair<Key, Key>>;

/// Edges `acquired -> released` of one task's trace.
void collectHandOffEdges(const std::vector<TraceEntry> &trace, HandOffEdges &edges);

/// The hand-off edges of all tasks, with the closure of each released key.
struct HandOffs {
  HandOffEdges edges;
  std::map<Key, std::vector<Key>> closures;

  const std::vector<Key> &closure(const Key &key);
};

/// Whether `first` completes before `second` through barrier hand-offs.
bool ordered(const Summary &first, const Summary &second, HandOffs &handOffs);

} // namespace mlir::triton::tlx::hazards

#endif // TLX_ALIAS_DIALECT_TLX_TRANSFORMS_HAZARDMODEL_H
