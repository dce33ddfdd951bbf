#ifndef TLX_ALIAS_TRITONBYNAME_POINTERACCESS_H
#define TLX_ALIAS_TRITONBYNAME_POINTERACCESS_H

// What the program-id address analysis (cpp/lib/Analysis/Addresses) reads of
// triton's IR, by name: the ops that compute and use global addresses, the
// pointer type, the tt.divisibility of kernel arguments and the blocked
// layouts the coalescing pass gives pointer tensors.

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::triton::tlx {

namespace tt_names {
inline constexpr StringLiteral kGetProgramId = "tt.get_program_id";
inline constexpr StringLiteral kGetNumPrograms = "tt.get_num_programs";
inline constexpr StringLiteral kMakeRange = "tt.make_range";
inline constexpr StringLiteral kSplat = "tt.splat";
inline constexpr StringLiteral kBroadcast = "tt.broadcast";
inline constexpr StringLiteral kExpandDims = "tt.expand_dims";
inline constexpr StringLiteral kAddPtr = "tt.addptr";
inline constexpr StringLiteral kLoad = "tt.load";
inline constexpr StringLiteral kStore = "tt.store";
inline constexpr StringLiteral kAtomicRMW = "tt.atomic_rmw";
inline constexpr StringLiteral kAtomicCAS = "tt.atomic_cas";
inline constexpr StringLiteral kDescriptorLoad = "tt.descriptor_load";
inline constexpr StringLiteral kDescriptorStore = "tt.descriptor_store";
inline constexpr StringLiteral kDivisibility = "tt.divisibility";
} // namespace tt_names

/// True for `!tt.ptr<...>`.
bool isTritonPointer(Type type);

/// Bytes of the element a `!tt.ptr<T>` (or a tensor of them) points to; 8
/// for a pointer to pointers, 0 for anything else.
int64_t getPointeeBytes(Type type);

/// The axis (0, 1, 2) of a `tt.get_program_id`.
std::optional<int> getProgramIdAxis(Operation *op);

/// The axis (0, 1, 2) of a `tt.get_program_id` or `tt.get_num_programs`.
std::optional<int> getGridQueryAxis(Operation *op);

/// [start, end) of a `tt.make_range`.
std::optional<std::pair<int64_t, int64_t>> getMakeRangeBounds(Operation *op);

/// The `axis` of a `tt.expand_dims`.
std::optional<int> getExpandDimsAxis(Operation *op);

/// A kernel argument's `tt.divisibility` (what triton specialized), 1 when
/// it has none (as triton's AxisInfo takes it) or is no function argument.
int64_t getArgumentDivisibility(Value value);

/// `sizePerThread` and `order` of a tensor's `#ttg.blocked` layout, or of
/// the blocked parent of a `#ttg.slice` (its dimension removed).
struct BlockedLayoutInfo {
  SmallVector<int64_t> sizePerThread;
  SmallVector<int64_t> order;
};
std::optional<BlockedLayoutInfo> getBlockedLayout(Type type);

/// Whether a tensor type carries a layout (TTGIR).
bool hasEncoding(Type type);

/// Threads that run `op`: its warp_specialize partition's warps (else the
/// module's `ttg.num-warps`) times `ttg.threads-per-warp`; 0 without them
/// (TTIR).
int64_t getNumThreadsAt(Operation *op);

/// A global memory access: through a tensor of pointers (`ptr`, with its
/// `mask` if any) or a TMA descriptor (`descriptor`, whose block is the box).
struct GlobalAccess {
  StringRef kind; // "load", "store", "atomic"
  Value ptr;
  Value mask;
  Value descriptor;
};
std::optional<GlobalAccess> getGlobalAccess(Operation *op);

} // namespace mlir::triton::tlx

#endif // TLX_ALIAS_TRITONBYNAME_POINTERACCESS_H
