"""The kernel-side API: allocations, views, loads/stores and overlap trees."""
from triton.language import core as tl_core

from ._semantic import TLXDeprecationWarning, tlx  # noqa: F401 (TLXDeprecationWarning: public here)
from .types import async_token, reuse_group_type, storage_kind  # noqa: F401 (async_token: public here)

_unwrap = tl_core._unwrap_if_constexpr


@tl_core.builtin
def local_alloc(shape, dtype, num, storage=storage_kind.smem, reuse=None, layout=None, _semantic=None):
    """Allocates `num` buffers of `shape` x `dtype` in local memory.

    reuse: a storage_alias_spec (the buffers live in its region, laid out by
    its set_buffer_overlap), or (deprecated) a buffered_tensor whose memory
    the new buffers alias at offset 0.
    """
    return tlx(_semantic).local_alloc(_unwrap(shape), _unwrap(dtype), _unwrap(num), _unwrap(storage), _unwrap(reuse),
                                      _unwrap(layout))


@tl_core.builtin
def local_view(buf, index, _semantic=None):
    """Buffer `index` of a multi-buffered allocation (also `buf[index]`)."""
    return tlx(_semantic).local_view(_unwrap(buf), index)


@tl_core.builtin
def local_load(view, _semantic=None):
    """Loads one buffer (shared or tensor memory) into a tensor."""
    return tlx(_semantic).local_load(view)


@tl_core.builtin
def local_store(view, value, _semantic=None):
    """Stores a tensor into one buffer (shared or tensor memory)."""
    return tlx(_semantic).local_store(view, value)


@tl_core.builtin
def set_buffer_overlap(spec, overlap_def, _semantic=None):
    """Lays out the allocations of `spec` by the reuse_group tree `overlap_def`."""
    return tlx(_semantic).set_buffer_overlap(_unwrap(spec), _unwrap(overlap_def))


__all__ = ["local_alloc", "local_view", "local_load", "local_store", "set_buffer_overlap",
           "reuse_group_type"]


@tl_core.builtin
def async_load(src, result, mask=None, other=None, _semantic=None):
    """Starts copying the tile at pointers `src` into one shared-memory buffer
    (cp.async). Commit with async_load_commit_group, wait with
    async_load_wait_group before reading the buffer."""
    return tlx(_semantic).async_load(src, result, _unwrap(mask), _unwrap(other))


@tl_core.builtin
def async_load_commit_group(tokens=(), _semantic=None):
    """Closes the group of async_loads issued so far (cp.async.commit_group)."""
    return tlx(_semantic).async_load_commit_group(tokens)


@tl_core.builtin
def async_load_wait_group(pendings, tokens=(), _semantic=None):
    """Waits until at most `pendings` committed groups are still in flight.

    The count is kept as written (triton's pipeliner would recompute a
    tokenless ttg.async_wait to 0 and drain the pipeline)."""
    return tlx(_semantic).async_load_wait_group(_unwrap(pendings), tokens)

