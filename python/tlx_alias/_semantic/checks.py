"""Argument checks that several of the semantic layer's ops share (each
op's own checks sit next to its building, as in Gluon's _semantic.py)."""
import re

from triton.language import core as tl_core

from .._compile_state import target_arch
from ..types import buffered_tensor, storage_kind


def constexpr_int(value, what, minimum=None):
    value = tl_core._unwrap_if_constexpr(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{what} must be a compile-time integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} must be at least {minimum}, got {value}")
    return value


def single_buffer(view, what, storage=storage_kind.smem):
    view = tl_core._unwrap_if_constexpr(view)
    if not isinstance(view, buffered_tensor):
        raise TypeError(f"{what} expects a buffered_tensor, got {type(view).__name__}")
    if view.num is not None:
        raise ValueError(f"{what} needs one buffer: index the allocation first (buf[i])")
    if storage is not None and view.storage != storage:
        kind = "shared-memory" if storage == storage_kind.smem else storage.value
        raise ValueError(f"{what} supports {kind} buffers only, got {view.storage.value}")
    return view


def require_tensor_memory(what, semantic):
    """Tensor memory (tcgen05) exists on sm_100-family GPUs only (sm_100 to
    sm_11x; not sm_90, not the sm_120 family)."""
    arch = target_arch(semantic)
    if arch is None:
        return
    match = re.fullmatch(r"sm_?(\d+)[af]?", arch)
    if match and 100 <= int(match.group(1)) < 120:
        return
    name = f"sm_{match.group(1)}" if match else arch
    raise ValueError(f"tensor memory needs sm_100 (Blackwell): {what} of a tensor-memory buffer "
                     f"cannot compile for {name}")


def scalar_i1(value, what, semantic):
    """A predicate: None (true), a Python/constexpr bool, or a scalar tensor."""
    value = tl_core._unwrap_if_constexpr(value)
    if value is None:
        value = True
    tensor = semantic.to_tensor(value)
    if tensor.type.is_block():
        raise TypeError(f"{what} must be a scalar, got {tensor.type}")
    return semantic.cast(tensor, tl_core.int1) if tensor.dtype != tl_core.int1 else tensor


def scalar_i32(value, what, semantic):
    tensor = semantic.to_tensor(tl_core._unwrap_if_constexpr(value))
    if tensor.type.is_block() or not tensor.dtype.is_int():
        raise TypeError(f"{what} must be a scalar integer, got {tensor.type}")
    return semantic.cast(tensor, tl_core.int32)


def predicate_i32(value, what, semantic):
    """A predicate (a bool, or a scalar or tensor of booleans or integers)
    as int32 0/1, for inline asm, which takes no i1 operands (the asm
    rebuilds the predicate with setp)."""
    tensor = semantic.to_tensor(tl_core._unwrap_if_constexpr(value))
    if tensor.dtype.is_ptr() or tensor.dtype.is_floating():
        raise TypeError(f"{what}: the predicate must be a boolean or an integer, got {tensor.dtype}")
    if tensor.dtype != tl_core.int1:
        tensor = semantic.not_equal(tensor, semantic.to_tensor(0))
    return semantic.cast(tensor, tl_core.int32)
