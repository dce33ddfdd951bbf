#ifndef TLX_ALIAS_TRITONBYNAME_TRITONOPS_H
#define TLX_ALIAS_TRITONBYNAME_TRITONOPS_H

// Triton ops the lowering reads and builds, by name (no Triton headers).

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

namespace mlir::triton::tlx {

namespace ttg_names {
inline constexpr StringLiteral kLocalAlloc = "ttg.local_alloc";
inline constexpr StringLiteral kTmemAlloc = "ttng.tmem_alloc";
inline constexpr StringLiteral kMemDescIndex = "ttg.memdesc_index";
inline constexpr StringLiteral kMemDescReinterpret = "ttg.memdesc_reinterpret";
inline constexpr StringLiteral kMemDescSubslice = "ttg.memdesc_subslice";
inline constexpr StringLiteral kMemDescSubview = "ttg.memdesc_subview"; // before subslice
inline constexpr StringLiteral kMemDescTrans = "ttg.memdesc_trans";
inline constexpr StringLiteral kMemDescReshape = "ttg.memdesc_reshape";
inline constexpr StringLiteral kLocalLoad = "ttg.local_load";
inline constexpr StringLiteral kLocalStore = "ttg.local_store";
inline constexpr StringLiteral kConvertLayout = "ttg.convert_layout";
inline constexpr StringLiteral kAsyncCopy = "ttg.async_copy_global_to_local";
inline constexpr StringLiteral kAsyncWait = "ttg.async_wait";
inline constexpr StringLiteral kWarpGroupDot = "ttng.warp_group_dot";
inline constexpr StringLiteral kTmaLoad = "ttng.async_tma_copy_global_to_local";
inline constexpr StringLiteral kTmaStore = "ttng.async_tma_copy_local_to_global";
/// A TMA store that reduces into global memory (`cp.reduce.async.bulk.tensor`):
/// operands as kTmaStore's, and `kind`, triton's DescriptorReduceKind (i32).
inline constexpr StringLiteral kTmaReduce = "ttng.async_tma_reduce";
inline constexpr StringLiteral kMakeTensorDescriptor = "tt.make_tensor_descriptor";
inline constexpr StringLiteral kWarpGroupDotWait = "ttng.warp_group_dot_wait";
inline constexpr StringLiteral kFenceAsyncShared = "ttng.fence_async_shared";
inline constexpr StringLiteral kUnrealizedCast = "builtin.unrealized_conversion_cast";
inline constexpr StringLiteral kWarpSpecialize = "ttg.warp_specialize";
inline constexpr StringLiteral kWarpSpecializePartitions =
    "ttg.warp_specialize.partitions";
inline constexpr StringLiteral kInitBarrier = "ttng.init_barrier";
inline constexpr StringLiteral kWaitBarrier = "ttng.wait_barrier";
inline constexpr StringLiteral kArriveBarrier = "ttng.arrive_barrier";
inline constexpr StringLiteral kBarrierExpect = "ttng.barrier_expect";
/// Inline asm in the LLVM dialect (triton's lowering of the ttng ops above).
inline constexpr StringLiteral kLLVMInlineAsm = "llvm.inline_asm";
} // namespace ttg_names

/// Whether `op` is one of triton's memdesc views (its MemDescViewTrait ops).
bool isMemDescView(Operation *op);

/// Whether the running triton's copies (TMA, cp.async) take their cache hints
/// as one optional `cachePolicy` attribute (`#tt.cache_policy<...>`, triton
/// 3.9; absent for the defaults) rather than the `cache` and `evict` integers
/// of triton 3.7/3.8 (set by CMake).
#ifndef TLX_COPY_CACHE_POLICY_ATTR
#define TLX_COPY_CACHE_POLICY_ATTR 0
#endif
inline constexpr bool kCopyCachePolicyAttr = TLX_COPY_CACHE_POLICY_ATTR;

/// The layout of plain byte storage (`N x i8`, and slot views over it).
inline constexpr StringLiteral kBytesEncoding =
    "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>";

inline bool isOpNamed(Operation *op, StringRef name) {
  return op && op->getName().getStringRef() == name;
}

/// The PTX text of an `llvm.inline_asm` (how triton lowers most NVIDIA ops),
/// or null for any other op.
inline StringAttr getInlineAsmText(Operation *op) {
  return isOpNamed(op, ttg_names::kLLVMInlineAsm)
             ? dyn_cast_or_null<StringAttr>(op->getAttr("asm_string"))
             : nullptr;
}

/// An `llvm.inline_asm`'s operand constraints ("" where it has none).
inline StringRef getInlineAsmConstraints(Operation *op) {
  auto constraints = dyn_cast_or_null<StringAttr>(op->getAttr("constraints"));
  return constraints ? constraints.getValue() : StringRef();
}

/// Replaces an `llvm.inline_asm`'s PTX text and operand constraints.
inline void setInlineAsm(Operation *op, StringRef text, StringRef constraints) {
  op->setAttr("asm_string", StringAttr::get(op->getContext(), text));
  op->setAttr("constraints", StringAttr::get(op->getContext(), constraints));
}

/// Creates op `name` (by name: no Triton headers) at the builder's insertion
/// point; inherent attributes become the op's properties.
Operation *createOp(OpBuilder &builder, Location loc, StringRef name,
                    ValueRange operands, TypeRange types,
                    ArrayRef<NamedAttribute> attributes = {});

/// `ttg.local_alloc {alignment} : () -> type` (no initial value).
Operation *createLocalAlloc(OpBuilder &builder, Location loc, Type type,
                            int64_t alignment);
/// `ttng.tmem_alloc : () -> type` (no initial value, no token).
Operation *createTmemAlloc(OpBuilder &builder, Location loc, Type type);
/// `ttg.memdesc_reinterpret %src : ... -> type`.
Value createMemDescReinterpret(OpBuilder &builder, Location loc, Value src,
                               Type type);

/// Alignment, in bytes, a shared-memory layout needs of its buffer's start
/// (Triton's SharedEncodingTrait::getAlignment: NVMMA 128 * maxPhase, i.e.
/// 1024 for a 128-byte swizzle; 16 otherwise).
int64_t getSharedEncodingAlignment(Attribute encoding);

/// The alignment attribute of a ttg.local_alloc, or its encoding's.
int64_t getLocalAllocAlignment(Operation *localAlloc);

/// For a ttg.warp_specialize.partitions op and one of its operands (an
/// explicit capture), the block arguments it becomes in each partition.
SmallVector<BlockArgument> getWarpSpecializeCaptureArgs(Operation *partitions,
                                                        unsigned operandIndex);

/// The inverse: the explicit capture that a partition's block argument
/// stands for, or null for any other block argument.
Value getWarpSpecializeCapture(BlockArgument arg);

/// `ttg.local_alloc {alignment} : () -> !ttg.memdesc<bytes x i8>`: plain
/// shared-memory storage for views. With `exactViews`, `bytes/G x G x i8`
/// (G the largest power of two dividing bytes): triton 3.8 cannot build the
/// linear layout of a 1-D descriptor whose size is not a power of two. Null
/// after reporting on failure.
Operation *createSharedStorage(OpBuilder &builder, Location loc, int64_t bytes,
                               int64_t alignment, bool exactViews,
                               function_ref<InFlightDiagnostic()> emitError);

/// `ttng.tmem_alloc : () -> !ttg.memdesc<128 x C x f32>` with C the columns
/// rounded up to what TMEM allocates. Null after reporting on failure.
Operation *createTensorStorage(OpBuilder &builder, Location loc, int64_t columns,
                               function_ref<InFlightDiagnostic()> emitError);

/// The smallest TMEM allocation of at least `columns` columns: a power of
/// two, at least 32 (what tcgen05.alloc hands out).
int64_t roundTmemColumns(int64_t columns);

/// Tensor-memory columns a `!ttg.memdesc` in tensor memory spans, counted as
/// Triton's TMEM allocator counts them (getTmemAllocSizes): a 2-D block of
/// M x N elements of b bits with `colStride` c takes ceil(M * N * b * c /
/// (32 * rows)) columns, where rows is 64 for a single `blockM = 64` block
/// (M <= 64, N <= blockN) and 128 otherwise; leading dimensions multiply.
/// So unpacked 16-bit data (colStride 2) and blockM 64 take twice the
/// columns their bytes suggest.
int64_t getTmemColumns(ArrayRef<int64_t> shape, int64_t elementBits,
                       Attribute encoding);

/// Elements of shared memory an allocation of `elements` elements takes
/// under `encoding`, as Triton's allocator counts them: the elements
/// themselves for most layouts; for `#ttg.padded_shared<[i:+p, ...]>`, plus
/// p after every i elements (none after the last).
int64_t getSharedElements(int64_t elements, Attribute encoding);

/// Elements from one buffer's start to the next in a multi-buffered padded
/// allocation of `elements`-element buffers (the padding after the buffer
/// included); `elements` for unpadded layouts.
int64_t getSharedBufferStride(int64_t elements, Attribute encoding);

/// Whether ttg.memdesc_index places the buffers of `elements` elements of a
/// padded layout getSharedBufferStride apart: it pads the flat element
/// offset, so buffer c starts at c*elements + sum(floor(c*elements/i)*p),
/// which is c * that stride only when every interval i divides `elements`.
/// True for unpadded layouts.
bool isPaddingPerBuffer(int64_t elements, Attribute encoding);

/// The value of `key = <int>` in an attribute's printed form, or `otherwise`.
int64_t getPrintedIntParameter(Attribute attr, StringRef key, int64_t otherwise);

/// The compute capability of a module's `ttg.target = "cuda:<N>"`, if any.
std::optional<int64_t> getCudaCapability(Operation *module);


} // namespace mlir::triton::tlx

#endif // TLX_ALIAS_TRITONBYNAME_TRITONOPS_H
