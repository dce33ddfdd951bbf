// tlx-rewrite-local-alias: every tlx.local_alias becomes a
// ttg.memdesc_reinterpret of one base allocation.
//
// Views are grouped by the allocation at the root of their alias chain. When
// the root is not already large and aligned enough for all its views, it is
// replaced by a byte allocation that is (ttg.local_alloc) or by a wider
// ttng.tmem_alloc, and the root's own uses get a reinterpret to its type.
// Triton's allocator, membar analysis and LLVM lowering then see one buffer
// and plain views of it. Under exact views (triton 3.8) every view spans the
// whole base, so views smaller than it are widened to more buffers.

#include "tlx_alias/Dialect/TLX/IR/Dialect.h"
#include "tlx_alias/Dialect/TLX/Transforms/Passes.h"
#include "StorageAliasLowering.h"
#include "TritonByName/TritonOps.h"

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

// Units of storage one view spans, and one of its buffers (exact views
// widen a view to the base in whole buffers).
int64_t viewUnits(const MemDescInfo &info, bool isShared) {
  return isShared ? totalBytes(info) : tmemColumns(info);
}
int64_t bufferUnits(const MemDescInfo &info, bool isShared) {
  return info.shape.size() < 2 ? viewUnits(info, isShared) : getBufferUnits(info);
}

// Exact views: `value` (of the type a view had) becomes a reinterpret of
// `base` that spans it whole, `base / buffer` buffers of that type, retyped
// along its uses by the storage-alias access rewriter.
LogicalResult widenView(Value value, int64_t baseUnits, bool isShared,
                        SmallVectorImpl<PaddedView> &widened,
                        function_ref<InFlightDiagnostic()> emitError) {
  MemDescInfo info = *getMemDescInfo(value.getType());
  int64_t buffer = bufferUnits(info, isShared);
  if (viewUnits(info, isShared) == baseUnits)
    return success();
  if (info.shape.size() < 2)
    return emitError() << "cannot view " << value.getType() << " in a storage of "
                       << baseUnits << (isShared ? " bytes" : " columns")
                       << " under triton 3.8, which reinterprets only views of "
                          "the whole storage: give it a buffer dimension";
  FailureOr<ViewLayout> layout =
      getViewLayout(value.getType(), BufferPlacement{0, buffer, {}}, baseUnits, emitError);
  if (failed(layout))
    return failure();
  widened.push_back({value, *layout});
  return success();
}

LogicalResult rewriteRoot(RootViews &group, bool exactViews) {
  Operation *root = group.root;
  Value rootValue = root->getResult(0);
  MemDescInfo rootInfo = *getMemDescInfo(rootValue.getType());
  bool isShared = isOpNamed(root, ttg_names::kLocalAlloc);
  auto emitError = [&] { return root->emitOpError(); };

  // What the base must hold: every view, and under exact views a whole
  // number of each one's buffers.
  int64_t units = viewUnits(rootInfo, isShared);
  int64_t multiple = bufferUnits(rootInfo, isShared);
  int64_t alignment = isShared ? getLocalAllocAlignment(root) : 0;
  bool allEqual = true;
  exactViews &= !needsPackedViews(rootInfo);
  for (LocalAliasOp view : group.views)
    exactViews &= !needsPackedViews(*getMemDescInfo(view.getType()));
  if (exactViews && isShared)
    for (LocalAliasOp view : group.views)
      if (failed(checkExactViewLayout(*getMemDescInfo(view.getType()),
                                      [&] { return view.emitOpError(); })))
        return failure();
  for (LocalAliasOp view : group.views) {
    MemDescInfo info = *getMemDescInfo(view.getType());
    units = std::max(units, viewUnits(info, isShared));
    multiple = std::max(multiple, bufferUnits(info, isShared));
    allEqual &= viewUnits(info, isShared) == viewUnits(rootInfo, isShared);
    if (isShared)
      alignment = std::max(alignment, getSharedEncodingAlignment(info.encoding));
  }
  if (exactViews)
    units = llvm::alignTo(units, multiple);
  // Tensor memory is allocated in powers of two of at least 32 columns.
  int64_t baseUnits = isShared ? units : roundTmemColumns(units);

  Value base = rootValue, asRoot;
  bool aligned = !isShared || getLocalAllocAlignment(root) >= alignment;
  bool fits = aligned && (exactViews ? allEqual : viewUnits(rootInfo, isShared) >= units);
  SmallVector<PaddedView> widened;
  if (!fits) {
    OpBuilder builder(root);
    Operation *newBase =
        isShared ? createSharedStorage(builder, root->getLoc(), units, alignment,
                                       exactViews, emitError)
                 : createTensorStorage(builder, root->getLoc(), units, emitError);
    if (!newBase)
      return failure();
    base = newBase->getResult(0);
    asRoot = createMemDescReinterpret(builder, root->getLoc(), base, rootValue.getType());
    rootValue.replaceAllUsesWith(asRoot);
    // Reported at the root, so erased after.
    LogicalResult rootWidened = exactViews ? widenView(asRoot, baseUnits, isShared, widened, emitError)
                                           : success();
    root->erase();
    if (failed(rootWidened))
      return failure();
  }

  for (LocalAliasOp view : group.views) {
    OpBuilder builder(view);
    Value reinterpret = view.getType() == base.getType()
                            ? base
                            : createMemDescReinterpret(builder, view.getLoc(),
                                                       base, view.getType());
    view.getResult().replaceAllUsesWith(reinterpret);
    if (exactViews && !fits &&
        failed(widenView(reinterpret, baseUnits, isShared, widened,
                         [&] { return view.emitOpError(); })))
      return failure();
  }
  // Erase users before the views they use (chains of aliases).
  for (LocalAliasOp view : llvm::reverse(group.views))
    view.erase();
  // The root's own type, when only the views used it, is not needed; under
  // triton 3.8 a reinterpret of the larger base to it would not verify.
  if (asRoot && asRoot.use_empty()) {
    llvm::erase_if(widened, [&](const PaddedView &view) { return view.alias == asRoot; });
    asRoot.getDefiningOp()->erase();
  }
  // Views are widened along their first dimension, taken as buffers; a use
  // of the whole (e.g. a rank-2 root loaded as one tile) cannot follow.
  return rewritePaddedAccesses(
      widened, "a tlx.local_alias view, or its root, that exact views widen to the whole storage",
      ": give it a leading buffer dimension (e.g. 1x64x64 for 64x64) and index it");
}

struct TLXRewriteLocalAliasPass
    : impl::TLXRewriteLocalAliasBase<TLXRewriteLocalAliasPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(checkViewsOption(&getContext(), exactViews)))
      return signalPassFailure();
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
      if (failed(rewriteRoot(entry.second, exactViews)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::triton::tlx
