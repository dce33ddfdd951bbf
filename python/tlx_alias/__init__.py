"""tlx-alias: TLX's storage_alias_spec buffer sharing for stock triton 3.7.0,
3.7.1, 3.8.0 and 3.9.0.

Importing this package checks the installed triton (the one the plugin was
built for, or another of its ABI family), loads the C++ plugin (the `tlx`
dialect and its passes) into libtriton, and puts
the lowering into triton's compilation pipeline. Kernels then use the TLX
API:

    import tlx_alias as tlx

    @triton.jit
    def kernel(...):
        spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
        a = tlx.local_alloc((64, 64), tl.float32, 2, reuse=spec)
        b = tlx.local_alloc((64, 64), tl.bfloat16, 2, reuse=spec)
        spec.set_buffer_overlap(tlx.reuse_group(a, b, group_type=tlx.reuse_group_type.shared))
        tlx.local_store(a[0], x)
        y = tlx.local_load(a[0])

The package, by layer (each imports only the ones below it; no circle):

  public builtins   mem_ops, views, barriers, tma, mma, utility, prefetch,
                    warp_ops, warp_specialize (async_tasks), warp_spec,
                    layouts, memory_map, memory_map_svg, address_report,
                    opt (tlx-opt), launch (host: max_active_clusters):
                    TLX-named, they unwrap their arguments and delegate to
  _semantic/        the semantic layer: each op's checks and IR building
                    (TLXSemantic, in Gluon's shape)
  types             the values kernels hold (buffered_tensor, mbarrier,
                    storage_alias_spec, reuse_group, async_token)
  _compile_state    what the compile in this thread is tracing (the warps
                    running the code, the async_task replica)
  _hazards          tlx-check-hazards on a kernel's TTGIR, as warnings
  _addresses        tlx-pid-address-analysis on a kernel's TTGIR: cross-
                    program writes as warnings, the rows of address_report
  _triton/          everything that touches triton's internals: plugin
                    loading, pass managers and stage hooks, the code
                    generator's `with` visitor, IR building, tensor-memory
                    details by version; `_triton.install()` patches triton
                    through one wrapper (_triton/patching.py)
  _triton_version   the proven tritons (stdlib only: read by path by the
                    build and the start-up hook), _version
  _C, _opt          the compiled shim and the tlx-opt driver
"""
from ._triton.plugin import PluginLoadError, TritonVersionError, plugin_path, register_plugin, report_in_one_line
from ._triton_version import SERVED_TRITON, SUPPORTED_TRITON
from ._version import __version__

try:
    register_plugin()
except PluginLoadError:
    report_in_one_line()
    raise

# Everything below needs the plugin registered.
from . import _triton  # noqa: E402
from ._hazards import AliasHazardWarning  # noqa: E402
from ._addresses import AddressRaceWarning  # noqa: E402
from .address_report import address_report, print_address_report  # noqa: E402
from .layouts import (encoding, nv_mma_shared_layout, swizzled_shared_layout,  # noqa: E402
                      tensor_memory_layout)
from .mem_ops import (TLXDeprecationWarning, async_load, async_load_commit_group, async_load_wait_group, async_token,  # noqa: E402
                      local_alloc, local_load, local_store, local_view, set_buffer_overlap)
from .memory_map import memory_map, print_memory_map  # noqa: E402
from .memory_map_svg import save_memory_map  # noqa: E402
from .types import (buffered_tensor, mbarrier, reuse_group, reuse_group_type, storage_alias_spec,  # noqa: E402
                    storage_kind)
from .barriers import (alloc_barriers, alloc_warp_barrier, barrier_arrive, barrier_expect_bytes,  # noqa: E402
                       barrier_wait, cluster_barrier, fence, fence_async_shared, fence_mbarrier_init_cluster,
                       named_barrier_arrive, named_barrier_wait)
from .mma import async_dot, async_dot_wait  # noqa: E402
from .tma import async_descriptor_load, async_descriptor_store, async_descriptor_store_wait  # noqa: E402
from .prefetch import prefetch  # noqa: E402
from .launch import max_active_clusters  # noqa: E402
from .utility import clock64, cluster_cta_rank, cluster_size_1d, dtype_of, size_of, thread_id  # noqa: E402
from .views import local_reinterpret, local_slice, local_trans  # noqa: E402
from .warp_ops import vote_ballot_sync  # noqa: E402
from .warp_specialize import async_task, async_task_replica_id, async_tasks, visit_async_tasks  # noqa: E402
from . import warp_spec  # noqa: E402

_stages_hook = _triton.install(with_visitors=[(async_tasks, visit_async_tasks)])

__all__ = [
    "AddressRaceWarning", "AliasHazardWarning", "address_report", "print_address_report",
    "SERVED_TRITON", "SUPPORTED_TRITON", "PluginLoadError", "TLXDeprecationWarning", "TritonVersionError", "__version__", "alloc_barriers", "alloc_warp_barrier",
    "async_descriptor_load", "async_descriptor_store", "async_descriptor_store_wait", "async_dot",
    "async_dot_wait", "async_task", "async_task_replica_id", "async_tasks", "barrier_arrive",
    "barrier_expect_bytes", "barrier_wait", "clock64", "cluster_barrier", "cluster_cta_rank", "cluster_size_1d", "dtype_of", "fence",
    "fence_async_shared", "fence_mbarrier_init_cluster", "local_reinterpret", "local_slice", "local_trans", "mbarrier",
    "named_barrier_arrive", "named_barrier_wait", "size_of", "warp_spec", "async_load", "async_load_commit_group",
    "async_load_wait_group", "async_token", "buffered_tensor", "encoding",
    "local_alloc", "local_load", "local_store", "local_view", "max_active_clusters", "memory_map", "nv_mma_shared_layout",
    "plugin_path", "prefetch", "print_memory_map", "reuse_group", "reuse_group_type", "save_memory_map", "set_buffer_overlap",
    "storage_alias_spec", "storage_kind", "swizzled_shared_layout", "tensor_memory_layout", "thread_id",
    "vote_ballot_sync",
]
