"""mbarriers, named barriers and fences (Hopper's synchronization toolbox).

Barriers are `ttng` ops built directly in TTIR: they carry no tensor layout,
so triton's TTIR->TTGIR conversion passes them through untouched.
"""
import triton.language as tl
from triton.language import core as tl_core

from ._semantic import tlx

_unwrap = tl_core._unwrap_if_constexpr


@tl_core.builtin
def alloc_barriers(num_barriers, arrive_count=tl.constexpr(1), _semantic=None):
    """Allocates `num_barriers` mbarriers in shared memory, each initialized
    to complete a phase after `arrive_count` arrivals (barrier_arrive calls,
    one per task) and the bytes announced by barrier_expect_bytes."""
    return tlx(_semantic).alloc_barriers(_unwrap(num_barriers), _unwrap(arrive_count))


@tl_core.builtin
def alloc_warp_barrier(num_barriers, num_warps=tl.constexpr(1), num_arrivals=tl.constexpr(1), _semantic=None):
    """Allocates mbarriers that every thread of `num_warps` warps arrives on
    (`num_arrivals` barrier_arrive calls per phase): arrive count
    num_warps * 32 * num_arrivals."""
    return tlx(_semantic).alloc_warp_barrier(_unwrap(num_barriers), _unwrap(num_warps), _unwrap(num_arrivals))


@tl_core.builtin
def barrier_expect_bytes(bar, size, pred=None, _semantic=None):
    """Announces that `size` bytes (TMA copies) will land on `bar` in its
    current phase (mbarrier.arrive.expect_tx)."""
    return tlx(_semantic).barrier_expect_bytes(bar, _unwrap(size), pred)


@tl_core.builtin
def barrier_wait(bar, phase, pred=None, _semantic=None):
    """Waits until `bar` has completed the phase with parity `phase`."""
    return tlx(_semantic).barrier_wait(bar, phase, pred)


@tl_core.builtin
def barrier_arrive(bar, arrive_count=tl.constexpr(1), remote_cta_rank=None, pred=None, _semantic=None):
    """Arrives on `bar` (`arrive_count` arrivals) once for the task that runs
    it; for a warp barrier, once for each of its threads. With
    `remote_cta_rank` (num_ctas > 1) the arrive goes to the barrier at the
    same place in that CTA of the cluster (mapa + a cluster-scope release)."""
    return tlx(_semantic).barrier_arrive(bar, _unwrap(arrive_count), _unwrap(remote_cta_rank), pred)


@tl_core.builtin
def named_barrier_wait(bar, arrive_count, _semantic=None):
    """Waits on hardware named barrier `bar` until `arrive_count` threads
    have arrived (bar.sync)."""
    return tlx(_semantic).named_barrier("bar.sync", bar, arrive_count, "named_barrier_wait")


@tl_core.builtin
def named_barrier_arrive(bar, arrive_count, _semantic=None):
    """Arrives on hardware named barrier `bar`, expecting `arrive_count`
    threads in all, without waiting (bar.arrive)."""
    return tlx(_semantic).named_barrier("bar.arrive", bar, arrive_count, "named_barrier_arrive")


@tl_core.builtin
def cluster_barrier(_semantic=None):
    """Waits until every thread of every CTA in the cluster has arrived here
    (barrier.cluster.arrive + wait, release/acquire at cluster scope). Each
    task runs it for its own warps (code outside the tasks runs on the
    default task's warps only): after the barriers' init, before any CTA
    multicasts into or arrives on another; at the end, so that no CTA exits
    while another may still do so."""
    return tlx(_semantic).cluster_barrier()


@tl_core.builtin
def fence_mbarrier_init_cluster(_semantic=None):
    """Makes this thread's mbarrier inits visible to the cluster's other CTAs
    (fence.mbarrier_init.release.cluster), before a cluster_barrier."""
    return tlx(_semantic).fence_mbarrier_init_cluster()


@tl_core.builtin
def fence_async_shared(_semantic=None):
    """Orders this thread's shared-memory writes before later async-proxy
    reads (TMA stores, wgmma): fence.proxy.async.shared::cta."""
    return tlx(_semantic).fence_async_shared()


@tl_core.builtin
def fence(scope, _semantic=None):
    """Memory fence: "async_shared" (fence_async_shared), "gpu"
    (fence.acq_rel.gpu) or "sys" (fence.acq_rel.sys)."""
    return tlx(_semantic).fence(_unwrap(scope))
