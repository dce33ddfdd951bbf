#ifndef TLX_ALIAS_TRANSFORMS_HOPPER_LAYOUTUTILS_H
#define TLX_ALIAS_TRANSFORMS_HOPPER_LAYOUTUTILS_H

// What the conversions that run right after Triton's TTIR->TTGIR conversion
// share: reading the layouts the conversion chose, and bridging between
// layout-less (TTIR) and encoded (TTGIR) tensors.

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::triton::tlx {

bool isEncodedTensor(Type type);

/// A ttg.convert_layout or unrealized cast of one tensor into another.
bool isLayoutBridge(Operation *op);

/// The warps that run `op`: its warp_specialize partition's, else the
/// module's `ttg.num-warps` (Triton's lookupNumWarps).
int64_t numWarpsAt(Operation *op);
int64_t threadsPerWarpAt(Operation *op);

/// `#ttg.blocked` over `shape` with `vector` consecutive elements per thread
/// along the fastest dimension (1 gives Triton's default layout).
std::string blockedLayout(ArrayRef<int64_t> shape, int64_t numWarps,
                          int64_t threadsPerWarp, int64_t vector = 1);

/// The encoded form of a tensor operand: the value itself when it has a
/// layout, or the encoded value behind the unrealized cast the conversion
/// left; null when there is none.
Value encodedOperand(Value value);

/// `value` as a tensor of `type`: `value` itself, a ttg.convert_layout of
/// its encoded form, or (layout-less, not yet converted producers such as
/// tlx.local_load) an unrealized cast that their conversion resolves.
Value asEncoded(OpBuilder &builder, Location loc, Value value,
                RankedTensorType type);

/// Replaces the uses of `old` (layout-less) by an unrealized cast of
/// `encoded`: later conversions look through it, and resolveLayoutBridges
/// removes it.
void replaceWithEncoded(Value old, Value encoded);

/// Folds cast chains encoded -> layout-less -> encoded into
/// ttg.convert_layout (or nothing) and erases dead casts.
void resolveLayoutBridges(ModuleOp module);

Value createValue(OpBuilder &builder, Location loc, StringRef name,
                  ValueRange operands, Type type);

} // namespace mlir::triton::tlx

#endif // TLX_ALIAS_TRANSFORMS_HOPPER_LAYOUTUTILS_H
