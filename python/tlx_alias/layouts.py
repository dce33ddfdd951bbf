"""Memory layouts of local buffers, as Triton encodings (MLIR attribute text)."""
import dataclasses

from triton.language.core import _unwrap_if_constexpr


class _layout:
    """Layout arguments may arrive as tl.constexpr when built in a kernel."""

    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = _unwrap_if_constexpr(getattr(self, field.name))
            if isinstance(value, (list, tuple)):
                value = tuple(_unwrap_if_constexpr(v) for v in value)
            object.__setattr__(self, field.name, value)


@dataclasses.dataclass(frozen=True)
class swizzled_shared_layout(_layout):
    """#ttg.swizzled_shared: software swizzling (vec, per_phase, max_phase)."""
    vec: int = 1
    per_phase: int = 1
    max_phase: int = 1
    order: tuple = None  # fastest dimension first; default: last dim fastest

    def to_mlir(self, shape, bits):
        order = self.order if self.order is not None else tuple(reversed(range(len(shape))))
        return (f"#ttg.swizzled_shared<{{vec = {self.vec}, perPhase = {self.per_phase}, "
                f"maxPhase = {self.max_phase}, order = [{', '.join(map(str, order))}]}}>")


@dataclasses.dataclass(frozen=True)
class nv_mma_shared_layout(_layout):
    """#ttg.nvmma_shared: the hardware-swizzled layout wgmma/tcgen05 and TMA read."""
    swizzle_byte_width: int = 128
    transposed: bool = False

    def to_mlir(self, shape, bits):
        return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {self.swizzle_byte_width}, "
                f"transposed = {str(self.transposed).lower()}, elementBitWidth = {bits}}}>")


@dataclasses.dataclass(frozen=True)
class tensor_memory_layout(_layout):
    """#ttng.tensor_memory_encoding for tensor-memory buffers."""
    block_m: int = None
    block_n: int = None
    col_stride: int = None

    def to_mlir(self, shape, bits):
        block_m = self.block_m or min(128, shape[-2])
        block_n = self.block_n or min(256, shape[-1])
        col_stride = self.col_stride or max(1, 32 // bits)
        return (f"#ttng.tensor_memory_encoding<blockM = {block_m}, blockN = {block_n}, "
                f"colStride = {col_stride}>")


@dataclasses.dataclass(frozen=True)
class encoding(_layout):
    """Any Triton encoding, spelled out (e.g. '#ttg.swizzled_shared<{...}>')."""
    text: str

    def to_mlir(self, shape, bits):
        return self.text


def _nvmma_swizzle(shape, bits):
    """Triton's NVMMASharedEncodingAttr::get for a row-major tile: the widest
    swizzle (128, 64, 32 bytes) its rows reach, 0 below 32 bytes."""
    row_bytes = shape[-1] * bits // 8
    for swizzle in (128, 64, 32):
        if row_bytes >= swizzle:
            return swizzle
    return 0


def default_shared_layout(shape, bits):
    """What TLX picks: NVMMA swizzling for 2-D tiles whose rows span at least
    32 bytes (wgmma and TMA read them as they are), else no swizzling. The
    swizzle is triton's own choice for the tile, so TMA descriptors agree."""
    if len(shape) == 2 and bits in (8, 16, 32) and _nvmma_swizzle(shape, bits):
        return nv_mma_shared_layout(_nvmma_swizzle(shape, bits))
    return swizzled_shared_layout()


def tma_layout(shape, bits):
    """The layout triton gives a TMA descriptor's block (its default NVMMA
    layout), as MLIR text."""
    return nv_mma_shared_layout(_nvmma_swizzle(shape, bits)).to_mlir(shape, bits)


def tma_layouts(shape, bits):
    """The layouts a TMA copy of this block may use, as MLIR text: triton's
    default, or an NVMMA swizzle of 32, 64 or 128 bytes that the rows span
    (triton splits the copy into boxes as wide as the swizzle)."""
    row_bytes = shape[-1] * bits // 8
    return {tma_layout(shape, bits)} | {nv_mma_shared_layout(swizzle).to_mlir(shape, bits)
                                        for swizzle in (32, 64, 128) if swizzle <= row_bytes}


def as_layout(layout):
    if layout is None or hasattr(layout, "to_mlir"):
        return layout
    if isinstance(layout, str):
        return encoding(layout)
    raise TypeError(f"layout must be a tlx_alias layout or an encoding string, got {type(layout).__name__}")
