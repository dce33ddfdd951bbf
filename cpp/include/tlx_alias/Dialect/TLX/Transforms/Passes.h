#ifndef TLX_ALIAS_DIALECT_TLX_TRANSFORMS_PASSES_H
#define TLX_ALIAS_DIALECT_TLX_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::triton::tlx {

/// Whether the triton the plugin is built for verifies packed views (views
/// of one allocation at any offset, reinterprets of any size): triton 3.7
/// does, 3.8 does not. Views are exact (3.8's rules) by default on both, so
/// both give one layout; packed views serve what exact ones cannot express
/// (padded layouts in a spec) where they verify.
#ifndef TLX_PACKED_VIEWS_VERIFY
#define TLX_PACKED_VIEWS_VERIFY 1
#endif
inline constexpr bool kPackedViewsVerify = TLX_PACKED_VIEWS_VERIFY;

/// `exact-views=false` where packed views do not verify is an error about
/// the option (no location): triton would reject every view it makes.
inline LogicalResult checkViewsOption(MLIRContext *context, bool exactViews) {
  if (exactViews || kPackedViewsVerify)
    return success();
  return emitError(UnknownLoc::get(context),
                   "exact-views=false asks for packed views, which only triton 3.7 "
                   "verifies; this plugin is built for triton " TLX_TRITON_VERSION);
}

#define GEN_PASS_DECL
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

} // namespace mlir::triton::tlx

#endif // TLX_ALIAS_DIALECT_TLX_TRANSFORMS_PASSES_H
