#ifndef TLX_ALIAS_DIALECT_TLX_TRANSFORMS_PASSES_H
#define TLX_ALIAS_DIALECT_TLX_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DECL
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

} // namespace mlir::triton::tlx

#endif // TLX_ALIAS_DIALECT_TLX_TRANSFORMS_PASSES_H
