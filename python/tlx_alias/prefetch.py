"""Cache prefetch hints of TLX's API (pointer-based; no data comes back and
nothing waits for them)."""
import triton.language as tl
from triton.language import core as tl_core

from ._semantic_checks import predicate_i32

LEVELS = ("L1", "L2")


@tl_core.builtin
def prefetch(pointer, level="L2", mask=None, tensormap=False, _semantic=None):
    """Hints the cache hierarchy to fetch the line of each address in
    `pointer` (a pointer or a tensor of pointers): prefetch.global.L2, or
    .L1 (into L1 and L2); `mask` (a bool or a tensor broadcast to the
    pointers' shape) leaves out the addresses where it is false.
    tensormap=True instead prefetches the TMA descriptor (a tensormap in
    global memory, e.g. one a kernel built) that `pointer` points to
    (prefetch.tensormap), ahead of the TMA copies that will read it."""
    level = tl_core._unwrap_if_constexpr(level)
    tensormap = tl_core._unwrap_if_constexpr(tensormap)
    ptr = _semantic.to_tensor(tl_core._unwrap_if_constexpr(pointer))
    if not ptr.dtype.is_ptr():
        raise TypeError(f"prefetch expects a pointer or a tensor of pointers, got {ptr.dtype}")
    if tensormap:
        if mask is not None:
            raise ValueError("prefetch: tensormap=True takes no mask (it prefetches one descriptor)")
        if ptr.type.is_block():
            raise ValueError(f"prefetch: tensormap=True expects a scalar pointer to one descriptor, got {ptr.type}")
        return tl_core.inline_asm_elementwise("prefetch.tensormap [$1];\n\tmov.u32 $0, 0;", "=r,l", [ptr],
                                              tl.int32, False, 1, _semantic=_semantic)
    if level not in LEVELS:
        raise ValueError(f"prefetch: level must be 'L1' or 'L2', got {level!r}")
    instruction = f"prefetch.global.{level} [$1];"
    if mask is None:
        return tl_core.inline_asm_elementwise(f"{instruction}\n\tmov.u32 $0, 0;", "=r,l", [ptr], tl.int32, False,
                                              1, _semantic=_semantic)
    keep = predicate_i32(mask, "prefetch's mask", _semantic)
    ptr, keep = _semantic.broadcast_impl_value(ptr, keep)
    asm = ("{\n\t.reg .pred keep;\n\tsetp.ne.b32 keep, $2, 0;\n"
           f"\t@keep {instruction}\n\t}}\n\tmov.u32 $0, 0;")
    return tl_core.inline_asm_elementwise(asm, "=r,l,r", [ptr, keep], tl.int32, False, 1, _semantic=_semantic)
