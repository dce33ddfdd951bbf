#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"

namespace mlir::triton::tlx {
#define GEN_PASS_DEF_TLXSTORAGEALIASLOWERING
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"
namespace {
struct TLXStorageAliasLoweringPass
    : impl::TLXStorageAliasLoweringBase<TLXStorageAliasLoweringPass> {
  void runOnOperation() override {}
};
} // namespace
} // namespace mlir::triton::tlx
