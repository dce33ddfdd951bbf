"""The kernel-side API: allocations, views, loads/stores and overlap trees."""
import re
import sys
import warnings

import triton.language as tl
from triton.language import core as tl_core

from . import _ir
from ._semantic_checks import single_buffer
from ._tmem import access_attributes
from .layouts import as_layout, default_shared_layout, tensor_memory_layout
from .types import (buffered_tensor, handle_value, mbarrier, memdesc_text, reuse_group,
                    reuse_group_type, storage_alias_spec, storage_kind)


class TLXDeprecationWarning(DeprecationWarning):
    """A deprecated TLX API used in a kernel. Shown by default (Python hides
    DeprecationWarning outside __main__, and a kernel's author is the one to
    act), unless warnings are configured (-W, PYTHONWARNINGS)."""


if not sys.warnoptions:
    warnings.filterwarnings("default", category=TLXDeprecationWarning)

_warned = {}  # the warnings registry of kernel lines (each warns once)


def _warn_at_kernel_line(message, category, _semantic):
    """Warns at the kernel's line being compiled (not at triton's code that
    calls the builtin)."""
    # e.g. loc("b"("/path/kernel.py":10:46)): a name location around the line's.
    match = re.search(r'"([^"]+)":(\d+):\d+', str(_semantic.builder.get_loc()))
    if match is None:
        warnings.warn(message, category, stacklevel=3)
        return
    filename, lineno = match.group(1), int(match.group(2))
    warnings.warn_explicit(message, category, filename, lineno, registry=_warned)


def _shape_tuple(shape):
    shape = tl_core._unwrap_if_constexpr(shape)
    if isinstance(shape, (tl.tuple, list, tuple)):
        shape = tuple(tl_core._unwrap_if_constexpr(d) for d in shape)
    else:
        shape = (shape, )
    if not shape or not all(isinstance(d, int) and d > 0 for d in shape):
        raise ValueError(f"shape must be a tuple of positive compile-time integers, got {shape}")
    return shape


@tl_core.builtin
def local_alloc(shape, dtype, num, storage=storage_kind.smem, reuse=None, layout=None, _semantic=None):
    """Allocates `num` buffers of `shape` x `dtype` in local memory.

    reuse: a storage_alias_spec (the buffers live in its region, laid out by
    its set_buffer_overlap), or (deprecated) a buffered_tensor whose memory
    the new buffers alias at offset 0.
    """
    shape = _shape_tuple(shape)
    dtype = tl_core._unwrap_if_constexpr(dtype)
    num = tl_core._unwrap_if_constexpr(num)
    storage = tl_core._unwrap_if_constexpr(storage)
    reuse = tl_core._unwrap_if_constexpr(reuse)
    if not isinstance(dtype, tl.dtype):
        raise TypeError(f"dtype must be a triton dtype, got {type(dtype).__name__}")
    if not isinstance(num, int) or isinstance(num, bool) or num <= 0:
        raise ValueError(f"num must be a positive compile-time integer, got {num!r}")
    if not isinstance(storage, storage_kind):
        raise ValueError(f"storage must be a tlx.storage_kind, got {type(storage).__name__}")
    if storage == storage_kind.smemCluster:
        raise ValueError("local_alloc does not support smemCluster storage")
    bits = 64 if dtype.is_ptr() else dtype.primitive_bitwidth
    chosen = as_layout(tl_core._unwrap_if_constexpr(layout))
    if chosen is None:
        chosen = tensor_memory_layout() if storage == storage_kind.tmem else default_shared_layout(shape, bits)
    if storage == storage_kind.tmem and len(shape) != 2:
        raise ValueError(f"tensor-memory buffers are 2-D, got shape {shape}")
    layout_text = chosen.to_mlir(shape, bits)
    memdesc = memdesc_text(dtype, shape, num, storage, layout_text)
    builder = _semantic.builder
    spec = None
    if reuse is None:
        op = "ttng.tmem_alloc" if storage == storage_kind.tmem else "ttg.local_alloc"
        (handle, ) = _ir.create_op(builder, op, result_types=[memdesc])
    elif isinstance(reuse, storage_alias_spec):
        if reuse.storage != storage:
            raise ValueError(f"storage_alias_spec storage ({reuse.storage.value}) doesn't match "
                             f"local_alloc storage ({storage.value})")
        (handle, ) = _ir.create_op(builder, "tlx.storage_alias_local_alloc", [reuse.handle], [memdesc])
        spec = reuse
    elif isinstance(reuse, buffered_tensor):
        _warn_at_kernel_line("local_alloc(reuse=buffered_tensor) is deprecated: share memory through a "
                             "tlx.storage_alias_spec instead", TLXDeprecationWarning, _semantic)
        if reuse.storage != storage:
            raise ValueError(f"reuse buffer storage ({reuse.storage.value}) doesn't match "
                             f"local_alloc storage ({storage.value})")
        if reuse.num is None:
            raise ValueError("reuse must be a whole allocation from local_alloc, not one buffer of it")
        if reuse.spec is not None:
            raise ValueError("reuse=buffered_tensor cannot alias an allocation of a storage_alias_spec; "
                             "pass reuse=<that spec> instead")
        (handle, ) = _ir.create_op(builder, "tlx.local_alias", [reuse.handle], [memdesc])
    else:
        raise ValueError(f"reuse must be a buffered_tensor or storage_alias_spec, got {type(reuse).__name__}")
    return buffered_tensor(handle, dtype, shape, num, storage, layout_text, spec)


@tl_core.builtin
def local_view(buf, index, _semantic=None):
    """Buffer `index` of a multi-buffered allocation (also `buf[index]`)."""
    buf = tl_core._unwrap_if_constexpr(buf)
    if not isinstance(buf, buffered_tensor):
        raise TypeError(f"local_view expects a buffered_tensor, got {type(buf).__name__}")
    if buf.num is None:
        raise ValueError(f"{buf!r} is a single buffer already; index the allocation instead")
    if isinstance(index, tl.constexpr) or isinstance(index, int):
        value = tl_core._unwrap_if_constexpr(index)
        if not 0 <= value < buf.num:
            raise ValueError(f"buffer index {value} out of range for {buf.num} buffers")
    index = _semantic.to_tensor(index)
    if not index.type.is_int() or index.type.is_block():
        raise TypeError(f"buffer index must be a scalar integer, got {index.type}")
    index = _semantic.cast(index, tl.int32)
    (handle, ) = _ir.create_op(_semantic.builder, "ttg.memdesc_index", [buf.handle, index.handle],
                               [buf.memdesc_text()])
    if isinstance(buf, mbarrier):
        return mbarrier(handle, is_warp_barrier=buf.is_warp_barrier)
    return buffered_tensor(handle, buf.dtype, buf.shape, None, buf.storage, buf.layout_text, buf.spec)


def _check_shape(what, tensor, view):
    shape = tuple(tl_core._unwrap_if_constexpr(d) for d in tensor.shape)
    if shape != view.shape:
        raise ValueError(f"{what} shape {shape} != buffer shape {view.shape}")


def _tensor_text(dtype, shape):
    from .types import _element_text
    return f"tensor<{'x'.join(map(str, shape))}x{_element_text(dtype)}>"


@tl_core.builtin
def local_load(view, _semantic=None):
    """Loads one buffer (shared or tensor memory) into a tensor."""
    view = single_buffer(view, "local_load", storage=None)
    (handle, ) = _ir.create_op(_semantic.builder, "tlx.local_load", [view.handle],
                               [_tensor_text(view.dtype, view.shape)],
                               access_attributes(view, "local_load", _semantic))
    return tl.tensor(handle, tl.block_type(view.dtype, list(view.shape)))


@tl_core.builtin
def local_store(view, value, _semantic=None):
    """Stores a tensor into one buffer (shared or tensor memory)."""
    view = single_buffer(view, "local_store", storage=None)
    attributes = access_attributes(view, "local_store", _semantic)
    value = _semantic.to_tensor(value)
    if value.type.is_block():
        _check_shape("local_store: value", value, view)
    else:
        value = _semantic.splat(value, list(view.shape))
    value = _semantic.cast(value, view.dtype)
    _ir.create_op(_semantic.builder, "tlx.local_store", [value.handle, view.handle], (), attributes)


def _lower_group(group, builder):
    operands, types = [], []
    for arg in group.args:
        if isinstance(arg, reuse_group):
            handle, type_text = _lower_group(arg, builder)
        else:
            handle, type_text = arg.handle, arg.memdesc_text(arg.num)
        operands.append(handle)
        types.append(type_text)
    kind = group.group_type.value
    result_type = f"!tlx.reuse_group<{kind}>"
    attributes = {"group_kind": _ir.enum_attr("ReuseGroupKind", kind)}
    if group.group_size != 1:
        attributes["group_size"] = f"{group.group_size} : i64"
    (handle, ) = _ir.create_op(builder, "tlx.reuse_group", operands, [result_type], attributes)
    return handle, result_type


@tl_core.builtin
def set_buffer_overlap(spec, overlap_def, _semantic=None):
    """Lays out the allocations of `spec` by the reuse_group tree `overlap_def`."""
    spec = tl_core._unwrap_if_constexpr(spec)
    overlap_def = tl_core._unwrap_if_constexpr(overlap_def)
    if not isinstance(spec, storage_alias_spec):
        raise TypeError(f"set_buffer_overlap expects a storage_alias_spec, got {type(spec).__name__}")
    if not isinstance(overlap_def, reuse_group):
        raise TypeError(f"overlap_def must be a reuse_group, got {type(overlap_def).__name__}")
    owners = {id(g._owner) for g in _groups(overlap_def) if g._owner is not None}
    if owners - {id(spec)}:
        raise ValueError("overlap_def names another storage_alias_spec")
    seen = set()
    for leaf in overlap_def.leaves():
        if leaf.spec is not spec and (leaf.spec is None or leaf.spec.handle is not spec.handle):
            raise ValueError(f"{leaf!r} was not allocated with reuse=this storage_alias_spec")
        if leaf.num is None:
            raise ValueError(f"{leaf!r} is one buffer; put whole allocations in a reuse_group")
        if id(leaf) in seen:
            raise ValueError(f"{leaf!r} appears more than once in the overlap definition")
        seen.add(id(leaf))
    if spec._overlap_set:
        raise ValueError("storage_alias_spec already has a set_buffer_overlap defined; each spec can "
                         "only have one overlap definition")
    root, root_type = _lower_group(overlap_def, _semantic.builder)
    _ir.create_op(_semantic.builder, "tlx.set_buffer_overlap", [spec.handle, root])
    spec._overlap_set = True


def _groups(group):
    yield group
    for arg in group.args:
        if isinstance(arg, reuse_group):
            yield from _groups(arg)


__all__ = ["local_alloc", "local_view", "local_load", "local_store", "set_buffer_overlap",
           "reuse_group_type"]


class async_token(handle_value):
    """Completion token of asynchronous copies (`!ttg.async.token`)."""

    def __init__(self, handle):
        self.handle = handle
        from .types import _handle_type
        self.type = _handle_type(self)

    def _type_key(self):
        return ("async_token", )

    def _with_handle(self, handle):
        return async_token(handle)


ASYNC_TOKEN = "!ttg.async.token"


@tl_core.builtin
def async_load(src, result, mask=None, other=None, _semantic=None):
    """Starts copying the tile at pointers `src` into one shared-memory buffer
    (cp.async). Commit with async_load_commit_group, wait with
    async_load_wait_group before reading the buffer."""
    view = single_buffer(result, "async_load")
    src = _semantic.to_tensor(src)
    if not src.type.is_block() or not src.dtype.is_ptr():
        raise TypeError(f"async_load expects a tensor of pointers, got {src.type}")
    _check_shape("async_load: pointer", src, view)
    if src.dtype.element_ty != view.dtype:
        raise ValueError(f"async_load: pointers to {src.dtype.element_ty} cannot fill a {view.dtype} buffer")
    operands, segments = [src.handle, view.handle], [1, 1, 0, 0]
    mask = tl_core._unwrap_if_constexpr(mask)
    if mask is not None:
        mask = _semantic.to_tensor(mask)
        if not mask.type.is_block():
            mask = _semantic.splat(mask, list(view.shape))
        src, mask = _semantic.broadcast_impl_value(src, mask)
        operands.append(mask.handle)
        segments[2] = 1
    other = tl_core._unwrap_if_constexpr(other)
    if other is not None:
        other = _semantic.to_tensor(other)
        if not other.type.is_block():
            other = _semantic.splat(other, list(view.shape))
        other = _semantic.cast(other, view.dtype)
        operands.append(other.handle)
        segments[3] = 1
    (token, ) = _ir.create_op(_semantic.builder, "tlx.async_load", operands, [ASYNC_TOKEN],
                              {"operandSegmentSizes": f"array<i32: {', '.join(map(str, segments))}>"})
    return async_token(token)


def _tokens(tokens):
    tokens = tl_core._unwrap_if_constexpr(tokens)
    if tokens is None:
        return []
    if isinstance(tokens, async_token):
        tokens = [tokens]
    return [tl_core._unwrap_if_constexpr(t).handle for t in tokens]


@tl_core.builtin
def async_load_commit_group(tokens=(), _semantic=None):
    """Closes the group of async_loads issued so far (cp.async.commit_group)."""
    (token, ) = _ir.create_op(_semantic.builder, "ttg.async_commit_group", _tokens(tokens), [ASYNC_TOKEN])
    return async_token(token)


@tl_core.builtin
def async_load_wait_group(pendings, tokens=(), _semantic=None):
    """Waits until at most `pendings` committed groups are still in flight.

    The count is kept as written (triton's pipeliner would recompute a
    tokenless ttg.async_wait to 0 and drain the pipeline)."""
    pendings = tl_core._unwrap_if_constexpr(pendings)
    if not isinstance(pendings, int) or pendings < 0:
        raise ValueError(f"pendings must be a non-negative compile-time integer, got {pendings!r}")
    handles = _tokens(tokens)
    (token, ) = _ir.create_op(_semantic.builder, "tlx.async_load_wait_group", handles, [ASYNC_TOKEN],
                              {"pendings": f"{pendings} : i32"})
    return async_token(token)
