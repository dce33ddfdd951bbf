"""The frontend's values: mirrors of the tlx dialect's types.

`storage_alias_spec` and `reuse_group` are classes that kernels construct
directly (they are triton builtins, so the constructor receives the
compiler's `_semantic`); `buffered_tensor` comes from `local_alloc`.

The semantic layer (tlx_alias._semantic) checks and builds these values and
imports this module; their few kernel-facing methods reach it back through
`_semantic_layer`, which it sets when imported (Gluon's values reach
GluonSemantic through the `_semantic` argument; here that is triton's own).
"""
import enum
import inspect
import math

import triton.language as tl
from triton.language import core as tl_core

_semantic_layer = None  # tlx_alias._semantic.TLXSemantic


def use_semantic_layer(layer):
    global _semantic_layer
    _semantic_layer = layer


class storage_kind(enum.Enum):
    smem = "smem"
    tmem = "tmem"
    smemCluster = "smemCluster"

    @property
    def memory_space(self):
        return {"smem": "#ttg.shared_memory", "tmem": "#ttng.tensor_memory",
                "smemCluster": "#ttg.shared_cluster_memory"}[self.value]


class reuse_group_type(enum.Enum):
    """shared: elements overlap (used at different times); distinct: elements
    never overlap (may be used at the same time)."""
    shared = "shared"
    distinct = "distinct"


def _builtin_class(cls):
    """Lets a kernel call `cls(...)` like a builtin: the code generator then
    passes `_semantic` to the constructor."""
    setattr(cls, tl_core.TRITON_BUILTIN, True)
    signature = inspect.signature(cls.__init__)
    cls.signature = signature.replace(parameters=list(signature.parameters.values())[1:])
    return cls


class _no_ir_type(tl_core.base_type):
    """Type of a frontend-only value: carries no IR through control flow."""

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return type(self) is type(other) and self.value is other.value

    def __hash__(self):
        return id(self.value)

    def mangle(self):
        return f"TLX{type(self.value).__name__}{id(self.value)}"

    def _flatten_ir_types(self, builder, out):
        return

    def _unflatten_ir(self, handles, cursor):
        return self.value, cursor


class _handle_type(tl_core.base_type):
    """Type of a value held by one IR handle; carried through control flow."""

    def __init__(self, value):
        self.value = value
        self.ir_type = value.handle.get_type()

    def __eq__(self, other):
        return type(self) is type(other) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def key(self):
        return self.value._type_key()

    def mangle(self):
        return "TLX" + "".join(c if c.isalnum() else "_" for c in str(self.key()))

    def _flatten_ir_types(self, builder, out):
        out.append(self.ir_type)

    def _unflatten_ir(self, handles, cursor):
        return self.value._with_handle(handles[cursor]), cursor + 1


class handle_value(tl_core.base_value):
    """A frontend value of one IR handle."""

    def _flatten_ir(self, handles):
        handles.append(self.handle)

    def _set_name(self, builder, name):
        # triton 3.8 names the values a loop carries after their variables.
        self.handle.set_loc(builder.create_name_loc(name, self.handle.get_loc()))


class buffered_tensor(handle_value):
    """Local-memory buffers: `num` buffers of `shape` (multi-buffered, from
    local_alloc) or one buffer (`buf[i]`, `num is None`)."""

    def __init__(self, handle, dtype, shape, num, storage, layout_text, spec=None, alloc_shape=None):
        self.handle = handle
        self.dtype = dtype
        self.shape = tuple(shape)
        self.num = num
        self.storage = storage
        self.layout_text = layout_text
        self.spec = spec  # the storage_alias_spec it was allocated from
        # The buffer a slice was cut from (None: the view is the whole buffer).
        self.alloc_shape = tuple(alloc_shape) if alloc_shape is not None else None
        self.type = _handle_type(self)

    def _type_key(self):
        return (type(self).__name__, str(self.dtype), self.shape, self.num, self.storage.value,
                self.layout_text, self.alloc_shape)

    def _with_handle(self, handle):
        return type(self)(handle, self.dtype, self.shape, self.num, self.storage,
                          self.layout_text, self.spec, self.alloc_shape)

    @property
    def bits(self):
        return self.dtype.primitive_bitwidth if not self.dtype.is_ptr() else 64

    @property
    def buffer_bytes(self):
        return math.ceil(math.prod(self.shape) * self.bits / 8)

    def memdesc_text(self, num=None):
        return memdesc_text(self.dtype, self.shape, num, self.storage, self.layout_text,
                            self.alloc_shape if num is None else None)

    @tl_core.builtin
    def __getitem__(self, index, _semantic=None):
        return _semantic_layer(_semantic).local_view(self, index)

    def __repr__(self):
        count = f"{self.num} x " if self.num is not None else ""
        return f"buffered_tensor({count}{list(self.shape)} {self.dtype}, {self.storage.value})"


def memdesc_text(dtype, shape, num, storage, layout_text, alloc_shape=None):
    """`!ttg.memdesc<[num x] shape x dtype, layout, space, mutable[, alloc shape]>`"""
    dims = ((num,) if num is not None else ()) + tuple(shape)
    alloc = f", {'x'.join(map(str, alloc_shape))}" if alloc_shape is not None else ""
    return (f"!ttg.memdesc<{'x'.join(map(str, dims))}x{_element_text(dtype)}, {layout_text}, "
            f"{storage.memory_space}, mutable{alloc}>")


class mbarrier(buffered_tensor):
    """mbarriers in shared memory (from alloc_barriers): `num` barriers, or
    one (`bars[i]`). `is_warp_barrier`: every thread arrives (alloc_warp_barrier)."""

    BARRIER_LAYOUT = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>"

    def __init__(self, handle, dtype=None, shape=(1, ), num=None, storage=None, layout_text=None,
                 spec=None, alloc_shape=None, is_warp_barrier=False):
        super().__init__(handle, tl.int64, (1, ), num, storage_kind.smem, self.BARRIER_LAYOUT)
        self.is_warp_barrier = is_warp_barrier

    def _type_key(self):
        return ("mbarrier", self.num, self.is_warp_barrier)

    def _with_handle(self, handle):
        return mbarrier(handle, num=self.num, is_warp_barrier=self.is_warp_barrier)

    def __repr__(self):
        count = f"{self.num} x " if self.num is not None else ""
        return f"mbarrier({count}{'warp ' if self.is_warp_barrier else ''}barrier)"


def tensor_text(dtype, shape):
    """`tensor<shape x dtype>`"""
    return f"tensor<{'x'.join(map(str, shape))}x{_element_text(dtype)}>"


def _element_text(dtype):
    if dtype.is_ptr():
        return f"!tt.ptr<{_element_text(dtype.element_ty)}>"
    return {"fp32": "f32", "fp16": "f16", "bf16": "bf16", "fp64": "f64", "fp8e4nv": "f8E4M3FN",
            "fp8e5": "f8E5M2", "fp8e4b15": "f8E4M3B11FNUZ", "int1": "i1", "int8": "i8", "uint8": "i8",
            "int16": "i16", "uint16": "i16", "int32": "i32", "uint32": "i32", "int64": "i64",
            "uint64": "i64"}[dtype.name]


@_builtin_class
class storage_alias_spec(handle_value):
    """One region of local memory that several allocations may alias.

    Unsized (default), the compiler sizes it for its largest user (or for
    its overlap tree); sized, it checks that everything fits (a larger size
    is padding). Properties are read-only.
    """

    def __init__(self, storage=storage_kind.smem, buffer_size_bytes=None, _semantic=None,
                 _handle=None):
        storage, buffer_size_bytes = _semantic_layer.storage_alias_spec_arguments(
            tl.core._unwrap_if_constexpr(storage), buffer_size_bytes)
        self._storage = storage
        self._buffer_size_bytes = buffer_size_bytes
        self._overlap_set = False
        if _handle is None:
            if _semantic is None:
                raise ValueError("storage_alias_spec must be created inside a @triton.jit kernel")
            _handle = _semantic_layer(_semantic).storage_alias_spec(storage, buffer_size_bytes)
        self.handle = _handle
        self.type = _handle_type(self)

    @property
    def storage(self):
        """The storage kind (read-only)."""
        return self._storage

    @property
    def buffer_size_bytes(self):
        """The explicit size in bytes, or None (read-only)."""
        return self._buffer_size_bytes

    def _type_key(self):
        return ("storage_alias_spec", self._storage.value, self._buffer_size_bytes)

    def _with_handle(self, handle):
        return storage_alias_spec(self._storage, self._buffer_size_bytes, _handle=handle)

    @tl_core.builtin
    def set_buffer_overlap(self, overlap_def, _semantic=None):
        """Lays out this spec's allocations by a reuse_group tree."""
        return _semantic_layer(_semantic).set_buffer_overlap(self, tl_core._unwrap_if_constexpr(overlap_def))

    def __repr__(self):
        size = f", size={self._buffer_size_bytes}" if self._buffer_size_bytes else ""
        return f"storage_alias_spec(storage={self._storage.value}{size})"


@_builtin_class
class reuse_group(tl_core.base_value):
    """A node of a buffer overlap tree: buffered_tensors and nested groups
    that are `shared` (overlap) or `distinct` (never overlap). Nested groups
    alternate kinds, except subtiling groups. No IR until set_buffer_overlap.

    `group_size=k` (TLX's subtiling) makes k consecutive buffers of each
    element one buffer index of the parent: in
    `reuse_group(qk, reuse_group(p, group_size=2))`, p's buffers 2i and 2i+1
    sit side by side in qk's buffer i (p has twice qk's buffers). The group
    takes k times its elements' space per buffer index. Leaves may have
    different buffer counts: buffer i of each lives in the spec's buffer
    index i (i // k under group_size k), and the spec has as many indices as
    the most any leaf needs."""

    def __init__(self, *args, group_type=reuse_group_type.shared, group_size=1, _semantic=None):
        args = tuple(tl.core._unwrap_if_constexpr(a) for a in args)
        group_type = tl.core._unwrap_if_constexpr(group_type)
        group_size = tl.core._unwrap_if_constexpr(group_size)
        owner, args = _semantic_layer.reuse_group_arguments(args, group_type, group_size)
        self._args = args
        self._group_type = group_type
        self._group_size = group_size
        self._owner = owner
        self.type = _no_ir_type(self)

    @property
    def args(self):
        """The elements (read-only)."""
        return self._args

    @property
    def group_type(self):
        """shared or distinct (read-only)."""
        return self._group_type

    @property
    def group_size(self):
        """Buffers of each element per buffer index of the parent (read-only)."""
        return self._group_size

    def _flatten_ir(self, handles):
        return

    def leaves(self):
        for arg in self._args:
            if isinstance(arg, reuse_group):
                yield from arg.leaves()
            else:
                yield arg

    def __repr__(self):
        size = f", group_size={self._group_size}" if self._group_size != 1 else ""
        return f"reuse_group({', '.join(map(repr, self._args))}, group_type={self._group_type.value}{size})"


class async_token(handle_value):
    """Completion token of asynchronous copies (`!ttg.async.token`)."""

    def __init__(self, handle):
        self.handle = handle
        self.type = _handle_type(self)

    def _type_key(self):
        return ("async_token", )

    def _with_handle(self, handle):
        return async_token(handle)
