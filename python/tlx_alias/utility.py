"""Small kernel-side helpers of TLX's API."""
import triton.language as tl
from triton.language import core as tl_core

from ._compile_state import module_num_ctas
from ._semantic import tlx
from ._semantic.misc import MiscSemantic

_unwrap = tl_core._unwrap_if_constexpr


@tl_core.builtin
def dtype_of(v, _semantic=None):
    """The element type of a tensor (the pointee for pointers), a tensor
    descriptor or a buffer."""
    return MiscSemantic.dtype_of(_unwrap(v))


@tl_core.builtin
def size_of(dtype, _semantic=None):
    """Bytes of one element of `dtype`."""
    return MiscSemantic.size_of(_unwrap(dtype))


@tl_core.builtin
def cluster_cta_rank(_semantic=None):
    """This CTA's rank in its cluster (0 to num_ctas - 1; 0 without clusters).
    A kernel launched with num_ctas > 1 runs that many CTAs per program, each
    a whole program of its own tiles and buffers: tl.program_id(0) is the
    cluster's, and this rank tells its CTAs apart."""
    return tlx(_semantic).cluster_cta_rank()


@tl_core.builtin
def cluster_size_1d(_semantic=None):
    """CTAs per cluster: the kernel's num_ctas."""
    return tl.constexpr(module_num_ctas(_semantic))


@tl_core.builtin
def clock64(_semantic=None):
    """The SM's 64-bit cycle counter (%clock64) as an int64, read where the
    call stands (never merged with another read): `end - start` of two
    reads is the cycles between them."""
    return tlx(_semantic).clock64()


@tl_core.builtin
def thread_id(axis, _semantic=None):
    """This thread's index in its CTA along `axis` (0, 1 or 2: %tid.x, .y,
    .z). As in TLX it counts the whole CTA, inside an async_task too: a
    task's threads do not start at 0 unless it is the first task. The value
    differs from thread to thread, unlike other scalars."""
    return tlx(_semantic).thread_id(_unwrap(axis))
