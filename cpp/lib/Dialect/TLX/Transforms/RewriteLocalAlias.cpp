// tlx-rewrite-local-alias: every tlx.local_alias becomes a
// ttg.memdesc_reinterpret of one base allocation.
//
// Views are grouped by the allocation at the root of their alias chain. When
// the root is not already large and aligned enough for all its views, it is
// replaced by a byte allocation that is (ttg.local_alloc) or by a wider
// ttng.tmem_alloc, and the root's own uses get a reinterpret to its type.
// Triton's allocator, membar analysis and LLVM lowering then see one buffer
// and plain views of it.

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "tlx_alias/Dialect/TLX/Transforms/StorageAliasLowering.h"
#include "tlx_alias/Dialect/TLX/Transforms/TritonOps.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::triton::tlx {

#define GEN_PASS_DEF_TLXREWRITELOCALALIAS
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h.inc"

namespace {


// Bytes of shared memory a descriptor spans, its layout's padding included.
int64_t totalBytes(const MemDescInfo &info) {
  int64_t elements = 1;
  for (int64_t dim : info.shape)
    elements *= dim;
  return llvm::divideCeil(getSharedElements(elements, info.encoding) * info.elementBits(), 8);
}

// Columns a tensor-memory descriptor spans, as Triton's TMEM allocator
// counts them (unpacked 16-bit data and blockM = 64 take more than their
// bytes suggest).
int64_t tmemColumns(const MemDescInfo &info) {
  return getTmemColumns(info.shape, info.elementBits(), info.encoding);
}

struct RootViews {
  Operation *root;
  SmallVector<LocalAliasOp> views;
};

LogicalResult rewriteRoot(RootViews &group) {
  Operation *root = group.root;
  Value rootValue = root->getResult(0);
  MemDescInfo rootInfo = *getMemDescInfo(rootValue.getType());
  bool isShared = isOpNamed(root, ttg_names::kLocalAlloc);
  auto emitError = [&] { return root->emitOpError(); };

  // What the base must hold.
  int64_t bytes = totalBytes(rootInfo), columns = tmemColumns(rootInfo);
  int64_t alignment = isShared ? getLocalAllocAlignment(root) : 0;
  for (LocalAliasOp view : group.views) {
    MemDescInfo info = *getMemDescInfo(view.getType());
    bytes = std::max(bytes, totalBytes(info));
    columns = std::max(columns, tmemColumns(info));
    if (isShared)
      alignment = std::max(alignment, getSharedEncodingAlignment(info.encoding));
  }

  Value base = rootValue;
  bool fits = isShared ? (totalBytes(rootInfo) >= bytes &&
                          getLocalAllocAlignment(root) >= alignment)
                       : tmemColumns(rootInfo) >= columns;
  if (!fits) {
    OpBuilder builder(root);
    Operation *newBase =
        isShared ? createSharedStorage(builder, root->getLoc(), bytes, alignment, emitError)
                 : createTensorStorage(builder, root->getLoc(), columns, emitError);
    if (!newBase)
      return failure();
    base = newBase->getResult(0);
    Value asRoot =
        createMemDescReinterpret(builder, root->getLoc(), base, rootValue.getType());
    rootValue.replaceAllUsesWith(asRoot);
    root->erase();
  }

  for (LocalAliasOp view : group.views) {
    OpBuilder builder(view);
    Value reinterpret = view.getType() == base.getType()
                            ? base
                            : createMemDescReinterpret(builder, view.getLoc(),
                                                       base, view.getType());
    view.getResult().replaceAllUsesWith(reinterpret);
  }
  // Erase users before the views they use (chains of aliases).
  for (LocalAliasOp view : llvm::reverse(group.views))
    view.erase();
  return success();
}

struct TLXRewriteLocalAliasPass
    : impl::TLXRewriteLocalAliasBase<TLXRewriteLocalAliasPass> {
  void runOnOperation() override {
    llvm::MapVector<Operation *, RootViews> groups;
    WalkResult result = getOperation().walk([&](LocalAliasOp view) {
      Value source = view.getSrc();
      while (auto inner = source.getDefiningOp<LocalAliasOp>())
        source = inner.getSrc();
      Operation *root = source.getDefiningOp();
      bool isAlloc = root && (isOpNamed(root, ttg_names::kLocalAlloc) ||
                              isOpNamed(root, ttg_names::kTmemAlloc));
      if (!isAlloc || root->getNumOperands() != 0) {
        view.emitOpError("must view an allocation without an initial value "
                         "(ttg.local_alloc or ttng.tmem_alloc, or another "
                         "tlx.local_alias of one)");
        return WalkResult::interrupt();
      }
      auto &group = groups[root];
      group.root = root;
      group.views.push_back(view);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    for (auto &entry : groups)
      if (failed(rewriteRoot(entry.second)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::triton::tlx
