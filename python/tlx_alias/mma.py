"""Asynchronous warp-group MMA (Hopper wgmma): async_dot / async_dot_wait."""
import triton.language as tl
from triton.language import core as tl_core

from ._semantic import tlx


@tl_core.builtin
def async_dot(A, B, acc=None, use_acc=None, pred=None, mBarriers=[], two_ctas=False, force_async=False,
              input_precision=None, out_dtype=tl.float32, _semantic=None):
    """Starts D = A @ B (+ acc) on the tensor cores (wgmma.mma_async) and
    returns D; read it only after async_dot_wait. A: a shared-memory buffer
    or a register tensor; B: a shared-memory buffer (local_trans views
    included); acc: the accumulator tensor (zeros when None)."""
    return tlx(_semantic).async_dot(A, B, acc, use_acc, mBarriers, two_ctas, input_precision, out_dtype)


@tl_core.builtin
def async_dot_wait(pendings, inp, _semantic=None):
    """Waits until at most `pendings` async_dots are in flight; returns
    `inp` (the result of an earlier async_dot), now safe to read."""
    return tlx(_semantic).async_dot_wait(tl_core._unwrap_if_constexpr(pendings), inp)
