"""Warp-level collectives of TLX's API."""
import triton.language as tl
from triton.language import core as tl_core

from ._semantic_checks import constexpr_int, predicate_i32


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
    value = predicate_i32(pred, "vote_ballot_sync", _semantic)
    asm = ("{\n\t.reg .pred voted;\n\tsetp.ne.b32 voted, $1, 0;\n"
           f"\tvote.sync.ballot.b32 $0, voted, {mask:#x};\n\t}}")
    return tl_core.inline_asm_elementwise(asm, "=r,r", [value], tl.int32, False, 1, _semantic=_semantic)
