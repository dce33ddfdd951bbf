// The targets' memory limits: one table for the plugin's lowering
// (StorageAliasSizes.cpp) and the Python frontend's refusals (tlx_alias._C,
// read by tlx_alias/_semantic/checks.py).
#ifndef TLX_ALIAS_TRITONBYNAME_TARGETLIMITS_H
#define TLX_ALIAS_TRITONBYNAME_TARGETLIMITS_H

#include <cstdint>
#include <optional>

namespace mlir::triton::tlx {

/// Shared memory one CTA may use (CUDA's opt-in maximum per block, bytes) on
/// a compute capability; std::nullopt for one not in the table (then
/// nothing is checked). Triton asks the device only when it loads a kernel;
/// a compile knows its target's capability alone.
inline std::optional<int64_t> getMaxSharedMemoryBytes(int64_t capability) {
  switch (capability) {
  case 70: case 72: return 98304;
  case 75: return 65536;
  case 80: case 87: return 166912;
  case 86: case 89: case 120: case 121: return 101376;
  case 90: case 100: case 103: case 110: return 232448;
  default: return std::nullopt;
  }
}

/// The capabilities getMaxSharedMemoryBytes knows.
inline constexpr int64_t kKnownCapabilities[] = {70, 72, 75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};

} // namespace mlir::triton::tlx

#endif // TLX_ALIAS_TRITONBYNAME_TARGETLIMITS_H
