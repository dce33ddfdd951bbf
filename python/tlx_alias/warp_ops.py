"""Warp-level collectives of TLX's API."""
import triton.language as tl
from triton.language import core as tl_core

from ._semantic_checks import constexpr_int


def _int32_predicate(pred, what, semantic):
    """`pred` (a bool, scalar or tensor) as int32 0/1: inline asm takes no
    i1 operands, so the predicate is rebuilt inside it with setp."""
    tensor = semantic.to_tensor(tl_core._unwrap_if_constexpr(pred))
    if tensor.dtype.is_ptr() or tensor.dtype.is_floating():
        raise TypeError(f"{what}: the predicate must be a boolean or an integer, got {tensor.dtype}")
    if tensor.dtype != tl_core.int1:
        tensor = semantic.not_equal(tensor, semantic.to_tensor(0))
    return semantic.cast(tensor, tl_core.int32)


@tl_core.builtin
def vote_ballot_sync(mask, pred, _semantic=None):
    """vote.sync.ballot.b32 over the lanes in `mask` (a compile-time 32-bit
    lane mask, 0xFFFFFFFF for the whole warp): bit i of the result is set
    where lane i's predicate holds. `pred` may be a scalar (one ballot, an
    int32) or a tensor (one ballot per element a thread holds, in the order
    every thread holds them: an int32 tensor of its shape). Every lane in
    `mask` must reach the call with the same mask."""
    mask = constexpr_int(mask, "vote_ballot_sync's mask", minimum=1)
    if mask > 0xFFFFFFFF:
        raise ValueError(f"vote_ballot_sync's mask is a 32-bit lane mask, got {mask:#x}")
    value = _int32_predicate(pred, "vote_ballot_sync", _semantic)
    asm = ("{\n\t.reg .pred voted;\n\tsetp.ne.b32 voted, $1, 0;\n"
           f"\tvote.sync.ballot.b32 $0, voted, {mask:#x};\n\t}}")
    return tl_core.inline_asm_elementwise(asm, "=r,r", [value], tl.int32, False, 1, _semantic=_semantic)
