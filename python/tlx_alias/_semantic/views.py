"""Views of one buffer (no data moves): transposed, sliced, reinterpreted.
Each is a stock `ttg` memdesc op built in TTIR (a tensor-memory slice is a
`ttng.tmem_subslice`); the view keeps pointing at the same bytes (also inside
a storage_alias_spec, whose lowering rewrites the buffer index underneath)."""
import math
import re

import triton.language as tl
from triton.language import core as tl_core

from .._triton import ir
from .._triton.tmem import slice_layout, subslice_attributes
from ..types import buffered_tensor, memdesc_text, storage_kind
from .checks import single_buffer


def _ints(values, what):
    values = tl_core._unwrap_if_constexpr(values)
    if not isinstance(values, (list, tuple, tl.tuple)):
        raise TypeError(f"{what} must be a list of compile-time integers, got {values!r}")
    out = tuple(tl_core._unwrap_if_constexpr(v) for v in values)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in out):
        raise ValueError(f"{what} must be compile-time integers, got {out}")
    return out


def _transposed_layout(layout_text, dims):
    if layout_text.startswith("#ttg.nvmma_shared"):
        if dims != (1, 0):
            raise ValueError(f"local_trans: NVMMA buffers transpose with dims (1, 0), got {dims}")
        flipped = "true" if "transposed = false" in layout_text else "false"
        return re.sub(r"transposed = (true|false)", f"transposed = {flipped}", layout_text)
    match = re.search(r"order = \[([0-9, ]*)\]", layout_text)
    if layout_text.startswith("#ttg.swizzled_shared") and match:
        order = [int(v) for v in match.group(1).split(",")]
        inverse = [dims.index(d) for d in order]
        return layout_text.replace(match.group(0), f"order = [{', '.join(map(str, inverse))}]")
    raise ValueError(f"local_trans: cannot transpose a buffer of layout {layout_text}")


def _view(semantic, op, buf, operands, attributes=None, shape=None, layout_text=None, dtype=None,
          alloc_shape=None):
    """Builds `op` producing a view of `buf` with the given changes."""
    dtype, shape = dtype or buf.dtype, shape or buf.shape
    layout_text = layout_text or buf.layout_text
    text = memdesc_text(dtype, shape, None, buf.storage, layout_text, alloc_shape)
    (handle, ) = ir.create_op(semantic.builder, op, operands, [text], attributes)
    return buffered_tensor(handle, dtype, shape, None, buf.storage, layout_text, buf.spec, alloc_shape)


def _tmem_slice(semantic, buf, offset, shape):
    if offset[0] != 0 or shape[0] != buf.shape[0]:
        raise ValueError(f"local_slice: tensor-memory buffers are sliced by columns only (all {buf.shape[0]} "
                         f"rows), got rows [{offset[0]}, {offset[0] + shape[0]})")
    if shape[1] & (shape[1] - 1):
        raise ValueError(f"local_slice: a tensor-memory slice is a power of two columns wide, got {shape[1]}")
    layout = slice_layout(buf.layout_text, shape[1])  # as Gluon's tensor_memory_descriptor.slice
    return _view(semantic, "ttng.tmem_subslice", buf, [buf.handle], subslice_attributes(offset[1]), shape, layout,
                 alloc_shape=buf.alloc_shape or buf.shape)


class ViewSemantic:

    def local_trans(self, input, dims):
        buf = single_buffer(input, "local_trans")
        dims = _ints(dims, "dims")
        if sorted(dims) != list(range(len(buf.shape))):
            raise ValueError(f"local_trans: dims {dims} is not a permutation of the buffer's "
                             f"{len(buf.shape)} dimensions")
        shape = tuple(buf.shape[d] for d in dims)
        layout = _transposed_layout(buf.layout_text, dims)
        alloc_shape = tuple(buf.alloc_shape[d] for d in dims) if buf.alloc_shape else None  # a slice's
        return _view(self.triton, "ttg.memdesc_trans", buf, [buf.handle],
                     {"order": f"array<i32: {', '.join(map(str, dims))}>"}, shape, layout, alloc_shape=alloc_shape)

    def local_slice(self, buffer, offset, shape):
        buf = single_buffer(buffer, "local_slice", storage=None)
        offset, shape = _ints(offset, "offset"), _ints(shape, "shape")
        if len(offset) != len(buf.shape) or len(shape) != len(buf.shape):
            raise ValueError(f"local_slice: offset {offset} and shape {shape} need {len(buf.shape)} entries")
        for o, s, full in zip(offset, shape, buf.shape):
            if o < 0 or s <= 0 or o + s > full:
                raise ValueError(f"local_slice: [{o}, {o + s}) is outside a dimension of {full}")
        if buf.storage == storage_kind.tmem:
            return _tmem_slice(self.triton, buf, offset, shape)
        if any(s & (s - 1) for s in shape):  # triton's memdesc rule
            raise ValueError(f"local_slice: a shared-memory slice is a power of two in every dimension, got {shape}")
        return _view(self.triton, "ttg.memdesc_subslice", buf, [buf.handle],
                     {"offsets": f"array<i32: {', '.join(map(str, offset))}>"}, shape,
                     alloc_shape=buf.alloc_shape or buf.shape)

    def local_reinterpret(self, src, dtype, shape):
        buf = single_buffer(src, "local_reinterpret", storage=None)
        dtype = tl_core._unwrap_if_constexpr(dtype)
        if not isinstance(dtype, tl.dtype):
            raise TypeError(f"local_reinterpret: dtype must be a triton dtype, got {type(dtype).__name__}")
        shape = buf.shape if tl_core._unwrap_if_constexpr(shape) is None else _ints(shape, "shape")
        bits = 64 if dtype.is_ptr() else dtype.primitive_bitwidth
        layout = re.sub(r"elementBitWidth = \d+", f"elementBitWidth = {bits}", buf.layout_text)
        nbytes = math.ceil(math.prod(shape) * bits / 8)
        if nbytes > buf.buffer_bytes and buf.storage == storage_kind.smem:
            raise ValueError(f"local_reinterpret: {nbytes} bytes of {dtype} {shape} do not fit in "
                             f"the {buf.buffer_bytes}-byte buffer")
        return _view(self.triton, "ttg.memdesc_reinterpret", buf, [buf.handle], None, shape, layout, dtype)
