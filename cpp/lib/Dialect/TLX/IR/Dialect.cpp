#include "tlx_alias/Dialect/TLX/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::triton::tlx;

#include "tlx_alias/Dialect/TLX/IR/TLXDialect.cpp.inc"
#include "tlx_alias/Dialect/TLX/IR/TLXEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tlx_alias/Dialect/TLX/IR/TLXTypes.cpp.inc"

namespace {
// Triton inlines every @triton.jit helper into the kernel (make_ttir's
// inliner) and the TLX lowering sees only the kernel: the inliner keeps a
// call whose callee holds an op of a dialect without this interface.
struct TLXInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TLXDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tlx_alias/Dialect/TLX/IR/TLXTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tlx_alias/Dialect/TLX/IR/TLXOps.cpp.inc"
      >();
  addInterfaces<TLXInlinerInterface>();
}

LogicalResult
StorageAliasSpecType::verify(function_ref<InFlightDiagnostic()> emitError,
                             StorageKind storage,
                             std::optional<int64_t> bufferSizeBytes) {
  if (storage == StorageKind::smemCluster)
    return emitError()
           << "smemCluster storage is not supported for storage_alias_spec";
  if (bufferSizeBytes && *bufferSizeBytes <= 0)
    return emitError() << "buffer_size_bytes must be positive, got "
                       << *bufferSizeBytes;
  if (bufferSizeBytes && *bufferSizeBytes > kMaxAllocationBytes)
    return emitError() << "buffer_size_bytes " << *bufferSizeBytes
                       << " is beyond the largest allocation triton can express ("
                       << kMaxAllocationBytes << " bytes)";
  return success();
}
