"""Warp-level collectives of TLX's API."""
from triton.language import core as tl_core

from ._semantic import tlx


@tl_core.builtin
def vote_ballot_sync(mask, pred, _semantic=None):
    """vote.sync.ballot.b32 over the lanes in `mask` (a compile-time 32-bit
    lane mask, 0xFFFFFFFF for the whole warp): bit i of the result is set
    where lane i's predicate holds. `pred` may be a scalar (one ballot, an
    int32) or a tensor (one ballot per element a thread holds, in the order
    every thread holds them: an int32 tensor of its shape). Every lane in
    `mask` must reach the call with the same mask."""
    return tlx(_semantic).vote_ballot_sync(mask, pred)
