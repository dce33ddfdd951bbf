"""The semantic layer: each TLX op's checks and its IR building, in the
shape of Gluon's `GluonSemantic` (triton/experimental/gluon/language/
_semantic.py). The public builtins (mem_ops.py, barriers.py, ...) only
unwrap their arguments and call `tlx(_semantic).<op>(...)`.

triton's code generator hands every builtin its own `TritonSemantic`;
`TLXSemantic` wraps it (`.triton`: tensors, casts, broadcasts; `.builder`).

  checks.py   argument checks several ops share
  memory.py   local_alloc, buffer indexing, local_load/store,
              storage_alias_spec, reuse_group, set_buffer_overlap
  copies.py   async_load (cp.async), its commit groups and waits
  views.py    local_trans, local_slice, local_reinterpret
  sync.py     mbarriers, named barriers, fences
  tma.py      TMA descriptor loads and stores
  mma.py      async_dot (wgmma) and its wait
  misc.py     dtype_of, size_of, thread_id, clock64, prefetch, vote_ballot_sync
  tmem.py     tensor-memory access layouts
  tasks.py    async_task arguments, async_tasks regions
"""
from .. import types
from .copies import CopySemantic
from .memory import MemorySemantic, TLXDeprecationWarning
from .misc import MiscSemantic
from .mma import MMASemantic
from .sync import SyncSemantic
from .tma import TMASemantic
from .views import ViewSemantic

__all__ = ["TLXDeprecationWarning", "TLXSemantic", "tlx"]


class TLXSemantic(MemorySemantic, CopySemantic, ViewSemantic, SyncSemantic, TMASemantic, MMASemantic,
                  MiscSemantic):
    """TLX's ops at the `TritonSemantic` a builtin received."""

    def __init__(self, semantic):
        self.triton = semantic
        self.builder = semantic.builder


def tlx(semantic):
    """The TLX semantic of a builtin's `_semantic`."""
    return TLXSemantic(semantic)


# The values' own kernel-facing methods (buf[i], spec.set_buffer_overlap,
# the storage_alias_spec and reuse_group constructors) reach this layer here.
types.use_semantic_layer(TLXSemantic)
