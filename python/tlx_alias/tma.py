"""TMA: tile copies between global memory (through tensor descriptors) and
shared-memory buffers, completed through mbarriers (loads) or store waits.

Descriptors come from the host (`triton.tools.tensor_descriptor
.TensorDescriptor`) or from `tl.make_tensor_descriptor`. The buffer's layout
is triton's default NVMMA layout for the block (what `local_alloc(layout=None)`
picks for such tiles) or a narrower NVMMA swizzle that its rows span
(`layout=tlx.nv_mma_shared_layout(32)` or `(64)`): the descriptor takes the
buffer's layout, and triton copies the tile in boxes as wide as the swizzle.
A narrower swizzle can spare bank conflicts (the wgmma accumulator's 64-bit
stores into 64-column fp32 rows), at the cost of more, narrower boxes. All
buffers one descriptor copies share one layout, and a kernel that also uses
a descriptor through triton's own ops (`desc.load`) keeps the defaults.
"""
from triton.language import core as tl_core

from ._semantic import tlx


@tl_core.builtin
def async_descriptor_load(desc, result, offsets, barrier, pred=None, cache_modifier="", eviction_policy="",
                          multicast_targets=[], two_ctas=False, _semantic=None):
    """Copies the tile of `desc` at `offsets` into buffer `result` with TMA;
    the bytes land on mbarrier `barrier` (announce them with
    barrier_expect_bytes, then barrier_wait). `multicast_targets` (constexpr
    CTA ranks, num_ctas > 1): the tile lands in `result` of each of those
    CTAs and their barriers at `barrier`'s place get the bytes (each expects
    them); every target must have freed its buffer first. `eviction_policy`
    "evict_last" keeps the tile in L2 ahead of normal lines (a tile other
    programs read again), "evict_first" lets it go first (read once); TMA
    loads take no `cache_modifier`."""
    return tlx(_semantic).async_descriptor_load(desc, result, offsets, barrier, pred, cache_modifier,
                                                eviction_policy, multicast_targets, two_ctas)


@tl_core.builtin
def async_descriptor_store(desc, source, offsets, eviction_policy="", store_reduce="", _semantic=None):
    """Copies buffer `source` to the tile of `desc` at `offsets` with TMA.
    Wait with async_descriptor_store_wait before writing `source` again
    (and fence_async_shared after writing it with ordinary stores).

    store_reduce ("add", "min", "max", "and", "or", "xor") reduces the tile
    into global memory instead (`cp.reduce.async.bulk.tensor`, triton's
    `ttng.async_tma_reduce`), atomically per element; the element types
    are triton's: add takes fp32/fp16/bf16/int32/uint32/uint64, min and max
    fp16/bf16 and 32/64-bit integers, the bitwise kinds 32/64-bit integers.
    It reads `source` until the same store wait. `eviction_policy` as the
    load's: the written lines' L2 priority."""
    return tlx(_semantic).async_descriptor_store(desc, source, offsets, eviction_policy, store_reduce)


@tl_core.builtin
def async_descriptor_store_wait(pendings, _semantic=None):
    """Waits until at most `pendings` TMA stores are in flight."""
    return tlx(_semantic).async_descriptor_store_wait(tl_core._unwrap_if_constexpr(pendings))
