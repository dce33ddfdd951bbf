"""Helpers for warp-specialized pipelines (TLX's `warp_spec` module)."""
import triton
import triton.language as tl


@triton.jit
def get_bufidx_phase(accum_cnt, NUM_BUFFERS: tl.constexpr):
    """For the accum_cnt-th use of a ring of NUM_BUFFERS slots: the slot,
    and the parity of the times the ring has wrapped (the mbarrier phase)."""
    return accum_cnt % NUM_BUFFERS, (accum_cnt // NUM_BUFFERS) & 1
