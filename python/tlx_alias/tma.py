"""TMA: tile copies between global memory (through tensor descriptors) and
shared-memory buffers, completed through mbarriers (loads) or store waits.

Descriptors come from the host (`triton.tools.tensor_descriptor
.TensorDescriptor`) or from `tl.make_tensor_descriptor`. The buffer's layout
must be the one triton gives the descriptor (its default NVMMA layout for the
block): that is what `local_alloc(layout=None)` picks for such tiles.
"""
import triton.language as tl
from triton.language import core as tl_core

from . import _ir
from ._semantic_checks import scalar_i1, scalar_i32, single_buffer
from .barriers import _barrier
from .layouts import tma_layout

# triton's CacheModifier / EvictionPolicy enum values.
_CACHE = {"": 1, ".ca": 2, ".cg": 3, ".wb": 4, ".cs": 5, ".wt": 6, ".cv": 7}
_EVICT = {"": 1, "evict_normal": 1, "evict_first": 2, "evict_last": 3}


def _descriptor(desc, what):
    desc = tl_core._unwrap_if_constexpr(desc)
    if not isinstance(desc, tl_core.tensor_descriptor_base):
        raise TypeError(f"{what} expects a tensor descriptor, got {type(desc).__name__}")
    return desc


def _check_buffer(what, desc, buf):
    block = desc.block_type
    shape = tuple(tl_core._unwrap_if_constexpr(d) for d in block.shape)
    if shape != buf.shape:
        raise ValueError(f"{what}: buffer shape {buf.shape} != descriptor block shape {shape}")
    if block.element_ty != buf.dtype:
        raise ValueError(f"{what}: buffer dtype {buf.dtype} != descriptor dtype {block.element_ty}")
    expected = tma_layout(shape, buf.bits)
    if buf.layout_text != expected:
        raise ValueError(f"{what}: the buffer's layout {buf.layout_text} is not the one TMA gives this "
                         f"descriptor ({expected}); allocate it with layout=None, which picks that layout "
                         f"for tiles whose rows span 32 bytes or more")


def _offsets(what, offsets, rank, semantic):
    offsets = tl_core._unwrap_if_constexpr(offsets)
    offsets = list(offsets) if isinstance(offsets, (list, tuple, tl.tuple)) else [offsets]
    if len(offsets) != rank:
        raise ValueError(f"{what}: {len(offsets)} offsets for a {rank}-D descriptor")
    return [scalar_i32(o, "offset", semantic).handle for o in offsets]


@tl_core.builtin
def async_descriptor_load(desc, result, offsets, barrier, pred=None, cache_modifier="", eviction_policy="",
                          multicast_targets=[], two_ctas=False, _semantic=None):
    """Copies the tile of `desc` at `offsets` into buffer `result` with TMA;
    the bytes land on mbarrier `barrier` (announce them with
    barrier_expect_bytes, then barrier_wait)."""
    what = "async_descriptor_load"
    desc = _descriptor(desc, what)
    buf = single_buffer(result, what)
    bar = _barrier(barrier, what)
    _check_buffer(what, desc, buf)
    if tl_core._unwrap_if_constexpr(multicast_targets) or tl_core._unwrap_if_constexpr(two_ctas):
        raise ValueError(f"{what}: multicast and two_ctas need CTA clusters, which tlx_alias does not "
                         "support yet (num_ctas=1)")
    cache = _CACHE.get(tl_core._unwrap_if_constexpr(cache_modifier))
    evict = _EVICT.get(tl_core._unwrap_if_constexpr(eviction_policy))
    if cache is None or evict is None:
        raise ValueError(f"{what}: unknown cache_modifier {cache_modifier!r} or eviction_policy "
                         f"{eviction_policy!r}")
    coords = _offsets(what, offsets, len(buf.shape), _semantic)
    pred = scalar_i1(pred, "pred", _semantic)
    _ir.create_op(_semantic.builder, "tlx.async_descriptor_load",
                  [desc.handle, *coords, buf.handle, bar.handle, pred.handle], [],
                  {"cache": f"{cache} : i32", "evict": f"{evict} : i32"})


@tl_core.builtin
def async_descriptor_store(desc, source, offsets, eviction_policy="", store_reduce="", _semantic=None):
    """Copies buffer `source` to the tile of `desc` at `offsets` with TMA.
    Wait with async_descriptor_store_wait before writing `source` again
    (and fence_async_shared after writing it with ordinary stores)."""
    what = "async_descriptor_store"
    desc = _descriptor(desc, what)
    buf = single_buffer(source, what)
    _check_buffer(what, desc, buf)
    if tl_core._unwrap_if_constexpr(store_reduce):
        raise ValueError(f"{what}: store_reduce is not supported yet")
    coords = _offsets(what, offsets, len(buf.shape), _semantic)
    _ir.create_op(_semantic.builder, "tlx.async_descriptor_store", [desc.handle, *coords, buf.handle])


@tl_core.builtin
def async_descriptor_store_wait(pendings, _semantic=None):
    """Waits until at most `pendings` TMA stores are in flight."""
    pendings = tl_core._unwrap_if_constexpr(pendings)
    if not isinstance(pendings, int) or pendings < 0:
        raise ValueError(f"pendings must be a non-negative compile-time integer, got {pendings!r}")
    _ir.create_op(_semantic.builder, "ttng.async_tma_store_wait", [], [], {"pendings": f"{pendings} : i32"})
