"""TMA copies between global memory (through tensor descriptors) and
shared-memory buffers. The buffer's layout is triton's default NVMMA layout
for the block, or another NVMMA swizzle its rows span; the descriptor gets
the buffer's layout (tlx-convert-tma; _triton/pipeline.py leaves triton's
optimize-descriptor-encoding out, which would reset it)."""
import triton.language as tl
from triton.language import core as tl_core

from .._triton import ir
from .._triton.tma import REDUCE_DTYPES, REDUCE_KINDS, reduce_kind_value
from ..layouts import tma_layout, tma_layouts
from .checks import require_clusters, scalar_i1, scalar_i32, single_buffer
from .copies import pendings_count
from .sync import one_barrier

# triton's EvictionPolicy enum values: a TMA load's one cache hint, its L2
# eviction priority (tlx-lower-marked-ops writes it into the PTX).
_EVICT = {"": 1, "evict_normal": 1, "evict_first": 2, "evict_last": 3}


def _eviction(what, policy):
    """A TMA copy's eviction_policy as triton's EvictionPolicy value."""
    policy = tl_core._unwrap_if_constexpr(policy)
    if policy not in _EVICT:
        raise ValueError(f"{what}: eviction_policy must be 'evict_normal', 'evict_first' or 'evict_last' "
                         f"(or ''), got {policy!r}")
    return _EVICT[policy]


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
    if buf.layout_text not in tma_layouts(shape, buf.bits):
        raise ValueError(f"{what}: TMA cannot copy a buffer of layout {buf.layout_text}: it takes "
                         f"{tma_layout(shape, buf.bits)} (layout=None) or a narrower "
                         f"tlx.nv_mma_shared_layout swizzle (32, 64 or 128 bytes, not transposed) that the "
                         f"{shape[-1] * buf.bits // 8}-byte rows span")


def _offsets(what, offsets, rank, semantic):
    offsets = tl_core._unwrap_if_constexpr(offsets)
    offsets = list(offsets) if isinstance(offsets, (list, tuple, tl.tuple)) else [offsets]
    if len(offsets) != rank:
        raise ValueError(f"{what}: {len(offsets)} offsets for a {rank}-D descriptor")
    return [scalar_i32(o, "offset", semantic).handle for o in offsets]


def _multicast_mask(what, targets, semantic):
    """The CTA mask of `multicast_targets` (constexpr ranks), 0 for none."""
    targets = tl_core._unwrap_if_constexpr(targets)
    targets = [tl_core._unwrap_if_constexpr(t) for t in (targets or [])]
    if not targets:
        return 0
    num_ctas = require_clusters(f"{what}: multicast_targets", semantic)
    mask = 0
    for rank in targets:
        if not isinstance(rank, int) or isinstance(rank, bool) or not 0 <= rank < num_ctas:
            raise ValueError(f"{what}: multicast_targets must be constexpr CTA ranks in [0, {num_ctas}), "
                             f"got {rank!r}")
        mask |= 1 << rank
    return mask


def _reduce_attributes(what, store_reduce, dtype):
    """The store's `reduce_kind` (triton's number for the kind; the
    conversion makes it a ttng.async_tma_reduce), none for a plain store."""
    kind = tl_core._unwrap_if_constexpr(store_reduce)
    if kind in ("", None):
        return {}
    if kind not in REDUCE_KINDS:
        raise ValueError(f"{what}: store_reduce must be one of {', '.join(map(repr, REDUCE_KINDS))} (or \"\" for "
                         f"a plain store), got {kind!r}")
    if dtype.name not in REDUCE_DTYPES[kind]:
        raise ValueError(f"{what}: a TMA reduce {kind!r} does not take {dtype.name} tiles; it takes "
                         f"{', '.join(REDUCE_DTYPES[kind])}")
    return {"reduce_kind": f"{reduce_kind_value(kind)} : i32"}


class TMASemantic:

    def async_descriptor_load(self, desc, result, offsets, barrier, pred, cache_modifier, eviction_policy,
                              multicast_targets, two_ctas):
        what = "async_descriptor_load"
        desc = _descriptor(desc, what)
        buf = single_buffer(result, what)
        bar = one_barrier(barrier, what)
        _check_buffer(what, desc, buf)
        if tl_core._unwrap_if_constexpr(two_ctas):
            raise ValueError(f"{what}: two_ctas is Blackwell's cta_group::2; tlx_alias compiles Hopper "
                             "clusters (multicast_targets)")
        mask = _multicast_mask(what, multicast_targets, self.triton)
        cache_modifier = tl_core._unwrap_if_constexpr(cache_modifier)
        if cache_modifier:
            raise ValueError(f"{what}: a TMA load takes no cache_modifier (got {cache_modifier!r}); its one "
                             "cache hint is eviction_policy")
        evict = _eviction(what, eviction_policy)
        coords = _offsets(what, offsets, len(buf.shape), self.triton)
        pred = scalar_i1(pred, "pred", self.triton)
        ir.create_op(self.builder, "tlx.async_descriptor_load", [desc.handle, *coords, buf.handle, bar.handle,
                                                                 pred.handle], [],
                     {"evict": f"{evict} : i32", "multicast_mask": f"{mask} : i32"})

    def async_descriptor_store(self, desc, source, offsets, eviction_policy, store_reduce):
        what = "async_descriptor_store"
        desc = _descriptor(desc, what)
        buf = single_buffer(source, what)
        _check_buffer(what, desc, buf)
        attributes = _reduce_attributes(what, store_reduce, buf.dtype)
        attributes["evict"] = f"{_eviction(what, eviction_policy)} : i32"
        coords = _offsets(what, offsets, len(buf.shape), self.triton)
        ir.create_op(self.builder, "tlx.async_descriptor_store", [desc.handle, *coords, buf.handle], [], attributes)

    def async_descriptor_store_wait(self, pendings):
        pendings = pendings_count(pendings)
        ir.create_op(self.builder, "ttng.async_tma_store_wait", [], [], {"pendings": f"{pendings} : i32"})
