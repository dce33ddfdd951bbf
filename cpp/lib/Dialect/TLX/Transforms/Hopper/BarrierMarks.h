// The names by which the frontend and tlx's barrier passes mark mbarrier ops
// for the lowering after triton's TTGIR->LLVM conversion
// (ThreadArrives.cpp, UnchainedWaits.cpp).

#ifndef TLX_ALIAS_TRANSFORMS_HOPPER_BARRIERMARKS_H
#define TLX_ALIAS_TRANSFORMS_HOPPER_BARRIERMARKS_H

#include "llvm/ADT/StringRef.h"

namespace mlir::triton::tlx {

// The frontend's attribute on a warp barrier's arrive (every thread arrives
// N times), kept in the location mark of the expect it becomes.
inline constexpr llvm::StringLiteral kPerThread = "tlx.arrive_per_thread";
// That arrive had a predicate of its own.
inline constexpr llvm::StringLiteral kPredicated = "tlx.predicated";
// A wait that tlx-unchained-waits-as-expects made an expect.
inline constexpr llvm::StringLiteral kUnchainedWait = "tlx.unchained_wait";

} // namespace mlir::triton::tlx

#endif
