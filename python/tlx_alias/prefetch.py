"""Cache prefetch hints of TLX's API (pointer-based; no data comes back and
nothing waits for them)."""
from triton.language import core as tl_core

from ._semantic import tlx
from ._semantic.misc import PREFETCH_LEVELS as LEVELS  # noqa: F401 (kept public here)

_unwrap = tl_core._unwrap_if_constexpr


@tl_core.builtin
def prefetch(pointer, level="L2", mask=None, tensormap=False, _semantic=None):
    """Hints the cache hierarchy to fetch the line of each address in
    `pointer` (a pointer or a tensor of pointers): prefetch.global.L2, or
    .L1 (into L1 and L2); `mask` (a bool or a tensor broadcast to the
    pointers' shape) leaves out the addresses where it is false.
    tensormap=True instead prefetches the TMA descriptor (a tensormap in
    global memory, e.g. one a kernel built) that `pointer` points to
    (prefetch.tensormap), ahead of the TMA copies that will read it."""
    return tlx(_semantic).prefetch(_unwrap(pointer), _unwrap(level), mask, _unwrap(tensormap))
