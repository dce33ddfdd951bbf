#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"

namespace mlir::triton::tlx {
#define GEN_PASS_DEF_TLXREWRITELOCALALIAS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"
namespace {
struct TLXRewriteLocalAliasPass
    : impl::TLXRewriteLocalAliasBase<TLXRewriteLocalAliasPass> {
  void runOnOperation() override {}
};
} // namespace
} // namespace mlir::triton::tlx
