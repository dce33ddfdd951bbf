"""Argument checks that several of the semantic layer's ops share (each
op's own checks sit next to its building, as in Gluon's _semantic.py)."""
import math
import re

from triton.language import core as tl_core

from .. import _C
from .._compile_state import module_num_ctas, target_arch
from ..types import buffered_tensor, storage_kind


def constexpr_int(value, what, minimum=None):
    value = tl_core._unwrap_if_constexpr(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{what} must be a compile-time integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} must be at least {minimum}, got {value}")
    return value


# The most shared memory one CTA may use (CUDA's opt-in maximum per block),
# by compute capability: the plugin's own table (TritonByName/TargetLimits.h).
MAX_SHARED_MEMORY_BYTES = _C.max_shared_memory_bytes()
# Tensor memory (sm_100): 128 lanes of 512 32-bit columns; a column is 512 bytes.
TMEM_COLUMNS, TMEM_LANES, TMEM_COLUMN_BYTES = 512, 128, 512
INT32_MAX = 2**31 - 1


def target_capability(semantic):
    """The compute capability being compiled for (90 for sm_90a), or None."""
    match = re.fullmatch(r"sm_?(\d+)[af]?", target_arch(semantic) or "")
    return int(match.group(1)) if match else None


def tmem_buffer_columns(shape, bits, layout_text):
    """Tensor-memory columns one buffer takes, as triton's TMEM allocator
    counts them: elements of colStride x bits over 32-bit cells of 128 lanes
    (of 64 for a 64-row buffer, which takes twice the columns)."""
    params = dict(re.findall(r"(\w+) = (\w+)", layout_text))
    col_stride = int(params.get("colStride", 1))
    lanes_used = min(shape[-2], TMEM_LANES)
    cells = math.prod(shape) * bits * col_stride // 32
    return -(-cells // lanes_used)


def check_fits_the_target(semantic, shape, dtype, bits, num, storage, layout_text):
    """Refuses at once an allocation whose buffers alone exceed the target's
    memory (before the lowering, which would size and lay them out)."""
    what = f"{num} buffers of {'x'.join(map(str, shape))} {dtype}"
    if storage == storage_kind.tmem:
        each = tmem_buffer_columns(shape, bits, layout_text)
        if num * each > TMEM_COLUMNS:
            raise ValueError(f"local_alloc: {what} take {num * each} tensor-memory columns ({each} each), "
                             f"more than the {TMEM_COLUMNS} there are ({TMEM_LANES} lanes each)")
        return
    capability = target_capability(semantic)
    limit = MAX_SHARED_MEMORY_BYTES.get(capability)
    each = math.prod(shape) * bits // 8
    if limit is not None and num * each > limit:
        raise ValueError(f"local_alloc: {what} take {num * each} bytes ({each} each), more than the {limit} "
                         f"bytes ({limit // 1024} KiB) of shared memory of sm_{capability}")


def check_spec_fits_the_target(semantic, storage, buffer_size_bytes):
    """An explicit storage_alias_spec size beyond the target's memory."""
    if buffer_size_bytes is None:
        return
    if storage == storage_kind.tmem:
        columns = -(-buffer_size_bytes // TMEM_COLUMN_BYTES)
        if columns > TMEM_COLUMNS:
            raise ValueError(f"storage_alias_spec: buffer_size_bytes {buffer_size_bytes} is {columns} "
                             f"tensor-memory columns ({TMEM_COLUMN_BYTES} bytes each), more than the "
                             f"{TMEM_COLUMNS} there are")
        return
    capability = target_capability(semantic)
    limit = MAX_SHARED_MEMORY_BYTES.get(capability)
    if limit is not None and buffer_size_bytes > limit:
        raise ValueError(f"storage_alias_spec: buffer_size_bytes {buffer_size_bytes} is more than the {limit} "
                         f"bytes ({limit // 1024} KiB) of shared memory of sm_{capability}")


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


def require_clusters(what, semantic):
    """The kernel's CTAs per cluster, for an op that needs more than one."""
    num_ctas = module_num_ctas(semantic)
    if num_ctas == 1:
        raise ValueError(f"{what} needs CTA clusters: launch the kernel with num_ctas > 1")
    return num_ctas


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
