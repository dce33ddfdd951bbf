"""Local memory: allocations, storage_alias_spec and its overlap tree, buffer
indexing, loads and stores."""
import sys
import warnings

import triton.language as tl
from triton.language import core as tl_core

from .._triton import ir
from ..layouts import as_layout, default_shared_layout, tensor_memory_layout
from ..types import (buffered_tensor, mbarrier, memdesc_text, reuse_group, reuse_group_type, storage_alias_spec,
                     storage_kind, tensor_text)
from .checks import INT32_MAX, check_fits_the_target, check_spec_fits_the_target, single_buffer
from .tmem import access_attributes


class TLXDeprecationWarning(DeprecationWarning):
    """A deprecated TLX API used in a kernel. Shown by default (Python hides
    DeprecationWarning outside __main__, and a kernel's author is the one to
    act), unless warnings are configured (-W, PYTHONWARNINGS)."""


if not sys.warnoptions:
    warnings.filterwarnings("default", category=TLXDeprecationWarning)

_warned = {}  # the warnings registry of kernel lines (each warns once)


def _warn_at_kernel_line(message, category, semantic, stacklevel):
    """Warns at the kernel's line being compiled (not at triton's code that
    calls the builtin)."""
    where = ir.kernel_line(semantic.builder)
    if where is None:
        warnings.warn(message, category, stacklevel=stacklevel + 1)
        return
    warnings.warn_explicit(message, category, where[0], where[1], registry=_warned)


def _shape_tuple(shape):
    shape = tl_core._unwrap_if_constexpr(shape)
    if isinstance(shape, (tl.tuple, list, tuple)):
        shape = tuple(tl_core._unwrap_if_constexpr(d) for d in shape)
    else:
        shape = (shape, )
    if not shape or not all(isinstance(d, int) and d > 0 for d in shape):
        raise ValueError(f"shape must be a tuple of positive compile-time integers, got {shape}")
    return shape


def check_shape(what, tensor, view):
    shape = tuple(tl_core._unwrap_if_constexpr(d) for d in tensor.shape)
    if shape != view.shape:
        raise ValueError(f"{what} shape {shape} != buffer shape {view.shape}")


def _groups(group):
    yield group
    for arg in group.args:
        if isinstance(arg, reuse_group):
            yield from _groups(arg)


class MemorySemantic:

    def local_alloc(self, shape, dtype, num, storage, reuse, layout):
        shape = _shape_tuple(shape)
        if not isinstance(dtype, tl.dtype):
            raise TypeError(f"dtype must be a triton dtype, got {type(dtype).__name__}")
        if not isinstance(num, int) or isinstance(num, bool) or num <= 0:
            raise ValueError(f"num must be a positive compile-time integer, got {num!r}")
        if num > INT32_MAX:  # buffer indices are i32
            raise ValueError(f"num must be a positive int32 (at most {INT32_MAX}), got {num}")
        if not isinstance(storage, storage_kind):
            raise ValueError(f"storage must be a tlx.storage_kind, got {type(storage).__name__}")
        if storage == storage_kind.smemCluster:
            raise ValueError("local_alloc does not support smemCluster storage")
        bits = 64 if dtype.is_ptr() else dtype.primitive_bitwidth
        chosen = as_layout(layout)
        if chosen is None:
            chosen = tensor_memory_layout() if storage == storage_kind.tmem else default_shared_layout(shape, bits)
        if storage == storage_kind.tmem and len(shape) != 2:
            raise ValueError(f"tensor-memory buffers are 2-D, got shape {shape}")
        layout_text = chosen.to_mlir(shape, bits)
        check_fits_the_target(self.triton, shape, dtype, bits, num, storage, layout_text)
        handle = self._alloc(memdesc_text(dtype, shape, num, storage, layout_text), storage, reuse)
        spec = reuse if isinstance(reuse, storage_alias_spec) else None
        return buffered_tensor(handle, dtype, shape, num, storage, layout_text, spec)

    def _alloc(self, memdesc, storage, reuse):
        """The allocation's handle: its own memory, a storage_alias_spec's
        region, or (deprecated) another allocation's memory."""
        if reuse is None:
            op = "ttng.tmem_alloc" if storage == storage_kind.tmem else "ttg.local_alloc"
            (handle, ) = ir.create_op(self.builder, op, result_types=[memdesc])
            return handle
        if isinstance(reuse, storage_alias_spec):
            if reuse.storage != storage:
                raise ValueError(f"storage_alias_spec storage ({reuse.storage.value}) doesn't match "
                                 f"local_alloc storage ({storage.value})")
            (handle, ) = ir.create_op(self.builder, "tlx.storage_alias_local_alloc", [reuse.handle], [memdesc])
            return handle
        if isinstance(reuse, buffered_tensor):
            # Frames up to the kernel's call: here, local_alloc, the builtin, triton's wrapper.
            _warn_at_kernel_line("local_alloc(reuse=buffered_tensor) is deprecated: share memory through a "
                                 "tlx.storage_alias_spec instead", TLXDeprecationWarning, self.triton, 4)
            if reuse.storage != storage:
                raise ValueError(f"reuse buffer storage ({reuse.storage.value}) doesn't match "
                                 f"local_alloc storage ({storage.value})")
            if reuse.num is None:
                raise ValueError("reuse must be a whole allocation from local_alloc, not one buffer of it")
            if reuse.spec is not None:
                raise ValueError("reuse=buffered_tensor cannot alias an allocation of a storage_alias_spec; "
                                 "pass reuse=<that spec> instead")
            (handle, ) = ir.create_op(self.builder, "tlx.local_alias", [reuse.handle], [memdesc])
            return handle
        raise ValueError(f"reuse must be a buffered_tensor or storage_alias_spec, got {type(reuse).__name__}")

    def local_view(self, buf, index):
        buf = tl_core._unwrap_if_constexpr(buf)
        if not isinstance(buf, buffered_tensor):
            raise TypeError(f"local_view expects a buffered_tensor, got {type(buf).__name__}")
        if buf.num is None:
            raise ValueError(f"{buf!r} is a single buffer already; index the allocation instead")
        if isinstance(index, tl.constexpr) or isinstance(index, int):
            value = tl_core._unwrap_if_constexpr(index)
            if not 0 <= value < buf.num:
                raise ValueError(f"buffer index {value} out of range for {buf.num} buffers")
        index = self.triton.to_tensor(index)
        if not index.type.is_int() or index.type.is_block():
            raise TypeError(f"buffer index must be a scalar integer, got {index.type}")
        index = self.triton.cast(index, tl.int32)
        (handle, ) = ir.create_op(self.builder, "ttg.memdesc_index", [buf.handle, index.handle],
                                  [buf.memdesc_text()])
        if isinstance(buf, mbarrier):
            return mbarrier(handle, is_warp_barrier=buf.is_warp_barrier)
        return buffered_tensor(handle, buf.dtype, buf.shape, None, buf.storage, buf.layout_text, buf.spec)

    def local_load(self, view):
        view = single_buffer(view, "local_load", storage=None)
        (handle, ) = ir.create_op(self.builder, "tlx.local_load", [view.handle], [tensor_text(view.dtype, view.shape)],
                                  access_attributes(view, "local_load", self.triton))
        return tl.tensor(handle, tl.block_type(view.dtype, list(view.shape)))

    def local_store(self, view, value):
        view = single_buffer(view, "local_store", storage=None)
        attributes = access_attributes(view, "local_store", self.triton)
        value = self.triton.to_tensor(value)
        if value.type.is_block():
            check_shape("local_store: value", value, view)
        else:
            value = self.triton.splat(value, list(view.shape))
        value = self.triton.cast(value, view.dtype)
        ir.create_op(self.builder, "tlx.local_store", [value.handle, view.handle], (), attributes)

    @staticmethod
    def storage_alias_spec_arguments(storage, buffer_size_bytes):
        """Checks a storage_alias_spec's arguments (also outside a kernel);
        returns them as plain values."""
        if not isinstance(storage, storage_kind):
            raise ValueError(f"storage must be a tlx.storage_kind, got {type(storage).__name__}")
        if storage == storage_kind.smemCluster:
            raise ValueError("smemCluster storage is not supported for storage_alias_spec")
        if buffer_size_bytes is not None:
            if isinstance(buffer_size_bytes, tl.constexpr):
                buffer_size_bytes = buffer_size_bytes.value
            elif not isinstance(buffer_size_bytes, int):
                raise ValueError("buffer_size_bytes must be a compile-time constant")
            if not isinstance(buffer_size_bytes, int) or isinstance(buffer_size_bytes, bool):
                raise ValueError(f"buffer_size_bytes must be an integer, got {buffer_size_bytes!r}")
            if buffer_size_bytes <= 0:
                raise ValueError(f"buffer_size_bytes must be positive, got {buffer_size_bytes}")
        return storage, buffer_size_bytes

    def storage_alias_spec(self, storage, buffer_size_bytes):
        """The handle of a new `tlx.storage_alias_spec` (arguments checked)."""
        check_spec_fits_the_target(self.triton, storage, buffer_size_bytes)
        type_size = f", {buffer_size_bytes}" if buffer_size_bytes is not None else ""
        attrs = {"storage": ir.enum_attr("StorageKind", storage.value)}
        if buffer_size_bytes is not None:
            attrs["buffer_size_bytes"] = f"{buffer_size_bytes} : i64"
        (handle, ) = ir.create_op(self.builder, "tlx.storage_alias_spec",
                                  result_types=[f"!tlx.storage_alias_spec<{storage.value}{type_size}>"],
                                  attributes=attrs)
        return handle

    @staticmethod
    def reuse_group_arguments(args, group_type, group_size):
        """Checks a reuse_group's (unwrapped) arguments; returns the spec named
        first in TLX's older spelling (or None) and the elements."""
        if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1:
            raise ValueError(f"group_size must be a positive integer, got {group_size!r}")
        # Accept TLX's older spelling with the spec as the first element.
        owner = None
        if args and isinstance(args[0], storage_alias_spec):
            owner, args = args[0], args[1:]
        if not isinstance(group_type, reuse_group_type):
            raise TypeError(f"group_type must be a tlx.reuse_group_type, got {type(group_type).__name__}")
        if not args:
            raise ValueError("reuse_group needs at least one element")
        for i, arg in enumerate(args):
            if isinstance(arg, reuse_group):
                if arg.group_type == group_type and arg.group_size == 1:
                    raise ValueError(f"nested reuse_group (element {i}) has the same group_type "
                                     f"({group_type.value}) as its parent; nested groups must "
                                     f"alternate between shared and distinct (or subtile, with "
                                     f"group_size > 1)")
            elif not isinstance(arg, buffered_tensor):
                raise TypeError(f"reuse_group elements must be buffered_tensor or reuse_group, "
                                f"got {type(arg).__name__} (element {i})")
        return owner, args

    def set_buffer_overlap(self, spec, overlap_def):
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
        root, root_type = self._reuse_group(overlap_def)
        ir.create_op(self.builder, "tlx.set_buffer_overlap", [spec.handle, root])
        spec._overlap_set = True

    def _reuse_group(self, group):
        """Builds the `tlx.reuse_group` ops of a tree; returns the root's handle and type."""
        operands, types = [], []
        for arg in group.args:
            if isinstance(arg, reuse_group):
                handle, type_text = self._reuse_group(arg)
            else:
                handle, type_text = arg.handle, arg.memdesc_text(arg.num)
            operands.append(handle)
            types.append(type_text)
        kind = group.group_type.value
        result_type = f"!tlx.reuse_group<{kind}>"
        attributes = {"group_kind": ir.enum_attr("ReuseGroupKind", kind)}
        if group.group_size != 1:
            attributes["group_size"] = f"{group.group_size} : i64"
        (handle, ) = ir.create_op(self.builder, "tlx.reuse_group", operands, [result_type], attributes)
        return handle, result_type
