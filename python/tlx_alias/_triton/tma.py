"""What triton's TMA reduce (`ttng.async_tma_reduce`, the op
`tensor_descriptor.atomic_add` and its siblings lower to) takes: its
reduction kinds, as triton's `DescriptorReduceKind` numbers them (read
from triton's bindings, the same in 3.7, 3.8 and 3.9), and the element
types triton's frontend lets each kind reduce (`descriptor_atomic_*` in
triton/language/semantic.py; the op's verifier itself takes any type, the
hardware does not); and whether a module's descriptors all have a block
layout (triton 3.7 spells the type `!tt.tensordesc<tensor<64x64xf16,
#shared>>`, 3.8 and 3.9 `!tt.tensordesc<64x64xf16, #shared>`)."""

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


def descriptors_have_layouts(module_text):
    """Whether every `!tt.tensordesc` type in the module's text names a
    block layout (an attribute, `#...`)."""
    start = module_text.find("!tt.tensordesc<")
    while start >= 0:
        depth, end = 0, start + len("!tt.tensordesc")
        for end in range(end, len(module_text)):
            depth += {"<": 1, ">": -1}.get(module_text[end], 0)
            if depth == 0:
                break
        if "#" not in module_text[start:end]:
            return False
        start = module_text.find("!tt.tensordesc<", end)
    return True
