"""What triton's TMA reduce (`ttng.async_tma_reduce`, the op
`tensor_descriptor.atomic_add` and its siblings lower to) takes: its
reduction kinds, as triton's `DescriptorReduceKind` numbers them (read
from triton's bindings, the same in 3.7, 3.8 and 3.9), and the element
types triton's frontend lets each kind reduce (`descriptor_atomic_*` in
triton/language/semantic.py; the op's verifier itself takes any type, the
hardware does not)."""

# TLX's spellings of `store_reduce` (its async_descriptor_store docstring).
REDUCE_KINDS = ("add", "min", "max", "and", "or", "xor")

_BITWISE = ("int32", "uint32", "int64", "uint64")
# Element types by kind, as triton's descriptor_atomic_add/min/max/and/or/xor
# assert them (tl.dtype names).
REDUCE_DTYPES = {
    "add": ("int32", "uint32", "uint64", "fp32", "fp16", "bf16"),
    "min": ("int32", "uint32", "int64", "uint64", "fp16", "bf16"),
    "max": ("int32", "uint32", "int64", "uint64", "fp16", "bf16"),
    "and": _BITWISE,
    "or": _BITWISE,
    "xor": _BITWISE,
}


def reduce_kind_value(kind):
    """triton's DescriptorReduceKind value of `kind` ("add" -> 1): the
    `kind` attribute of ttng.async_tma_reduce."""
    from triton._C.libtriton import ir
    return ir.DESCRIPTOR_REDUCE_KIND.__members__[kind.upper()].value
