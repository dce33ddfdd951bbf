#ifndef TLX_ALIAS_DIALECT_TLX_TRANSFORMS_PASSES_H
#define TLX_ALIAS_DIALECT_TLX_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::triton::tlx {

/// Whether views follow triton 3.8's memdesc rules unless a pass option says
/// otherwise: on when the plugin is built for a triton that enforces them.
#ifndef TLX_EXACT_VIEWS_DEFAULT
#define TLX_EXACT_VIEWS_DEFAULT 0
#endif
inline constexpr bool kExactViewsByDefault = TLX_EXACT_VIEWS_DEFAULT;

#define GEN_PASS_DECL
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

} // namespace mlir::triton::tlx

#endif // TLX_ALIAS_DIALECT_TLX_TRANSFORMS_PASSES_H
