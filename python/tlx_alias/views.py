"""Views of one shared-memory buffer: transposed, sliced, reinterpreted.

Each is a stock `ttg` memdesc op built in TTIR (a tensor-memory slice is a
`ttng.tmem_subslice`); the view keeps pointing at the same bytes (also inside
a storage_alias_spec, whose lowering rewrites the buffer index underneath).
"""
from triton.language import core as tl_core

from ._semantic import tlx


@tl_core.builtin
def local_trans(input, dims=(1, 0), _semantic=None):
    """The buffer with its dimensions permuted (no data moves): e.g. B^T as
    wgmma's B operand."""
    return tlx(_semantic).local_trans(input, dims)


@tl_core.builtin
def local_slice(buffer, offset, shape, _semantic=None):
    """The sub-tile of `shape` at `offset` of one buffer. In tensor memory
    (a `ttng.tmem_subslice`), a range of columns: all rows, `shape[1]` columns
    from `offset[1]`."""
    return tlx(_semantic).local_slice(buffer, offset, shape)


@tl_core.builtin
def local_reinterpret(src, dtype, shape=None, _semantic=None):
    """The same bytes as another dtype (and shape); the layout is kept."""
    return tlx(_semantic).local_reinterpret(src, tl_core._unwrap_if_constexpr(dtype), shape)
