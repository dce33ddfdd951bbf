// triton's TritonOpBuilder (python/src/ir.h), which triton's Python
// `ir.builder` holds: _C builds tlx ops at its insertion point and location.
// The layout gate compares it with libtriton's own DWARF (layout_gate.py:
// MIRRORS), member names included: the same on triton 3.7.0 to 3.9.0.
#ifndef TLX_ALIAS_TRITONBYNAME_TRITONOPBUILDER_H
#define TLX_ALIAS_TRITONBYNAME_TRITONOPBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"

#include <memory>

namespace tlx_alias::mirror {

class TritonOpBuilder {
public:
  std::unique_ptr<mlir::OpBuilder> builder;
  std::unique_ptr<mlir::Location> lastLoc;
  bool lineInfoEnabled;
};

} // namespace tlx_alias::mirror

#endif // TLX_ALIAS_TRITONBYNAME_TRITONOPBUILDER_H
