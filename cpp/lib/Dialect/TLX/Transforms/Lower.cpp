#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"

namespace mlir::triton::tlx {
#define GEN_PASS_DEF_TLXLOWER
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"
namespace {
struct TLXLowerPass : impl::TLXLowerBase<TLXLowerPass> {
  void runOnOperation() override {}
};
} // namespace
} // namespace mlir::triton::tlx
