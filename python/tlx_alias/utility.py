"""Small kernel-side helpers of TLX's API."""
import triton.language as tl
from triton.language import core as tl_core

from .types import buffered_tensor


@tl_core.builtin
def dtype_of(v, _semantic=None):
    """The element type of a tensor (the pointee for pointers), a tensor
    descriptor or a buffer."""
    v = tl_core._unwrap_if_constexpr(v)
    if isinstance(v, tl.tensor):
        dtype = v.type.element_ty if v.type.is_block() else v.dtype
        return dtype.element_ty if dtype.is_ptr() else dtype
    if isinstance(v, tl_core.tensor_descriptor_base):
        return v.block_type.element_ty
    if isinstance(v, buffered_tensor):
        return v.dtype
    raise ValueError(f"dtype_of works on tensors, tensor descriptors and buffers, got {type(v).__name__}")


@tl_core.builtin
def size_of(dtype, _semantic=None):
    """Bytes of one element of `dtype`."""
    dtype = tl_core._unwrap_if_constexpr(dtype)
    if not isinstance(dtype, tl.dtype):
        raise TypeError(f"size_of expects a dtype, got {type(dtype).__name__}")
    return tl.constexpr(dtype.primitive_bitwidth // 8)


@tl_core.builtin
def cluster_cta_rank(_semantic=None):
    """This CTA's rank in its cluster: 0 (tlx_alias compiles 1-CTA clusters)."""
    num_ctas = getattr(getattr(_semantic.builder, "options", None), "num_ctas", 1)
    if num_ctas != 1:
        raise ValueError(f"cluster_cta_rank: CTA clusters (num_ctas={num_ctas}) are not supported yet")
    return _semantic.to_tensor(0)


@tl_core.builtin
def cluster_size_1d(_semantic=None):
    """CTAs per cluster: 1."""
    return tl.constexpr(1)


@tl_core.builtin
def clock64(_semantic=None):
    """The SM's 64-bit cycle counter (%clock64) as an int64, read where the
    call stands (never merged with another read): `end - start` of two
    reads is the cycles between them."""
    return tl_core.inline_asm_elementwise("mov.u64 $0, %clock64;", "=l", [], tl.int64, False, 1,
                                          _semantic=_semantic)


@tl_core.builtin
def thread_id(axis, _semantic=None):
    """This thread's index in its CTA along `axis` (0, 1 or 2: %tid.x, .y,
    .z). As in TLX it counts the whole CTA, inside an async_task too: a
    task's threads do not start at 0 unless it is the first task. The value
    differs from thread to thread, unlike other scalars."""
    axis = tl_core._unwrap_if_constexpr(axis)
    if axis not in (0, 1, 2) or isinstance(axis, bool):
        raise ValueError(f"thread_id: axis must be 0, 1 or 2, got {axis!r}")
    return tl_core.inline_asm_elementwise(f"mov.u32 $0, %tid.{'xyz'[axis]};", "=r", [], tl.int32, True, 1,
                                          _semantic=_semantic)
