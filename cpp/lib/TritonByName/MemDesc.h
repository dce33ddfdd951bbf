#ifndef TLX_ALIAS_TRITONBYNAME_MEMDESC_H
#define TLX_ALIAS_TRITONBYNAME_MEMDESC_H

// Triton's `!ttg.memdesc` seen without Triton headers: shape and element type
// through mlir::ShapedType, encoding and memory space through the type's
// sub-elements, and the rest (mutability, alloc shape) from its printed form.
// New memdesc types are built from text with mlir::parseType, which runs
// Triton's own type verifier.

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace mlir::triton::tlx {

enum class StorageKind : uint32_t;

/// The largest allocation triton can express: it sizes one in int32 (a
/// ttg.local_alloc of N x i8, a memdesc's buffer count). The tlx verifiers
/// refuse buffers and storage_alias_spec sizes beyond it, so no such size
/// reaches the lowering's per-buffer walks or triton's layout code, where it
/// overflows or takes minutes (issue 29). The target's own limits (227 KiB of
/// shared memory on sm_90, 512 tensor-memory columns) are the lowering's to
/// report, with the target named.
inline constexpr int64_t kMaxAllocationBytes = 2147483647;

/// True for `!ttg.memdesc<...>`.
bool isMemDesc(Type type);

/// `#ttg.shared_memory` -> smem, `#ttng.tensor_memory` -> tmem.
std::optional<StorageKind> getStorageKindOfMemorySpace(Attribute memorySpace);

/// The spelled-out memory space attribute of a storage kind.
StringRef getMemorySpaceName(StorageKind kind);

struct MemDescInfo {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute encoding;    // may be null
  Attribute memorySpace; // may be null
  bool isMutable = false;
  SmallVector<int64_t> allocShape; // empty when equal to shape

  std::optional<StorageKind> storageKind() const {
    return getStorageKindOfMemorySpace(memorySpace);
  }
  /// Number of buffers: the leading dimension.
  int64_t numBuffers() const { return shape.empty() ? 0 : shape.front(); }
  /// Bits of one element (pointers count 64); 0 if unknown.
  int64_t elementBits() const;
  /// Elements of one buffer: the product of all dims but the first.
  int64_t elementsPerBuffer() const;
  /// Bytes of one buffer (all dims but the first), sub-byte types rounded up.
  int64_t bytesPerBuffer() const;
};

/// True for `!tt.tensordesc<...>`.
bool isTensorDesc(Type type);

/// The block type of a `!tt.tensordesc<tensor<...>>`; null for other types.
RankedTensorType getTensorDescBlockType(Type type);

/// Decomposes a `!ttg.memdesc`; std::nullopt for any other type.
std::optional<MemDescInfo> getMemDescInfo(Type type);

/// Builds a `!ttg.memdesc` from its parts through Triton's parser (and so its
/// verifier). Returns a null type, after reporting through `emitError`, when
/// Triton rejects it.
Type buildMemDesc(MLIRContext *context, const MemDescInfo &info,
                  function_ref<InFlightDiagnostic()> emitError);

/// Parses an attribute from text; null (after reporting) on failure.
Attribute parseAttributeText(MLIRContext *context, StringRef text,
                             function_ref<InFlightDiagnostic()> emitError);

/// The printed form of a type or attribute.
std::string toText(Type type);
std::string toText(Attribute attr);

} // namespace mlir::triton::tlx

#endif // TLX_ALIAS_TRITONBYNAME_MEMDESC_H
