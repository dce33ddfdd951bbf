"""mbarriers, named barriers and fences (Hopper's synchronization toolbox).

Barriers are `ttng` ops built directly in TTIR: they carry no tensor layout,
so triton's TTIR->TTGIR conversion passes them through untouched.
"""
from triton.language import core as tl_core

from . import _ir
from ._semantic_checks import constexpr_int, scalar_i1, scalar_i32
from .types import mbarrier, memdesc_text, storage_kind

import triton.language as tl


def _barrier(bar, what):
    bar = tl_core._unwrap_if_constexpr(bar)
    if not isinstance(bar, mbarrier):
        raise TypeError(f"{what} expects an mbarrier (one of alloc_barriers' barriers), "
                        f"got {type(bar).__name__}")
    if bar.num is not None:
        raise ValueError(f"{what} needs one barrier: index the allocation first (bars[i])")
    return bar


def _with_optional_pred(operands, pred, semantic):
    """Appends the i1 of an optional predicate operand (None: no operand)."""
    pred = tl_core._unwrap_if_constexpr(pred)
    if pred is not None:
        operands.append(scalar_i1(pred, "pred", semantic).handle)
    return operands


def _alloc(num_barriers, arrive_count, is_warp_barrier, semantic):
    text = memdesc_text(tl.int64, (1, ), num_barriers, storage_kind.smem, mbarrier.BARRIER_LAYOUT)
    (handle, ) = _ir.create_op(semantic.builder, "ttg.local_alloc", [], [text])
    bars = mbarrier(handle, num=num_barriers, is_warp_barrier=is_warp_barrier)
    for i in range(num_barriers):
        index = semantic.to_tensor(i)
        (one, ) = _ir.create_op(semantic.builder, "ttg.memdesc_index", [handle, index.handle],
                                [bars.memdesc_text()])
        _ir.create_op(semantic.builder, "ttng.init_barrier", [one], [], {"count": f"{arrive_count} : i32"})
    return bars


@tl_core.builtin
def alloc_barriers(num_barriers, arrive_count=tl.constexpr(1), _semantic=None):
    """Allocates `num_barriers` mbarriers in shared memory, each initialized
    to complete a phase after `arrive_count` arrivals (barrier_arrive calls,
    one per task) and the bytes announced by barrier_expect_bytes."""
    num_barriers = constexpr_int(num_barriers, "num_barriers", minimum=1)
    arrive_count = constexpr_int(arrive_count, "arrive_count", minimum=1)
    return _alloc(num_barriers, arrive_count, False, _semantic)


@tl_core.builtin
def alloc_warp_barrier(num_barriers, num_warps=tl.constexpr(1), num_arrivals=tl.constexpr(1), _semantic=None):
    """Allocates mbarriers that every thread of `num_warps` warps arrives on
    (`num_arrivals` barrier_arrive calls per phase): arrive count
    num_warps * 32 * num_arrivals."""
    num_barriers = constexpr_int(num_barriers, "num_barriers", minimum=1)
    num_warps = constexpr_int(num_warps, "num_warps", minimum=1)
    num_arrivals = constexpr_int(num_arrivals, "num_arrivals", minimum=1)
    return _alloc(num_barriers, num_warps * 32 * num_arrivals, True, _semantic)


@tl_core.builtin
def barrier_expect_bytes(bar, size, pred=None, _semantic=None):
    """Announces that `size` bytes (TMA copies) will land on `bar` in its
    current phase (mbarrier.arrive.expect_tx)."""
    bar = _barrier(bar, "barrier_expect_bytes")
    size = constexpr_int(size, "barrier_expect_bytes size", minimum=0)
    pred = scalar_i1(pred, "pred", _semantic)
    _ir.create_op(_semantic.builder, "ttng.barrier_expect", [bar.handle, pred.handle], [],
                  {"size": f"{size} : i32"})


@tl_core.builtin
def barrier_wait(bar, phase, pred=None, _semantic=None):
    """Waits until `bar` has completed the phase with parity `phase`."""
    bar = _barrier(bar, "barrier_wait")
    phase = scalar_i32(phase, "phase", _semantic)
    operands = _with_optional_pred([bar.handle, phase.handle], pred, _semantic)
    _ir.create_op(_semantic.builder, "ttng.wait_barrier", operands, [],
                  {"operandSegmentSizes": f"array<i32: 1, 1, {len(operands) - 2}, 0>"})


@tl_core.builtin
def barrier_arrive(bar, arrive_count=tl.constexpr(1), remote_cta_rank=None, pred=None, _semantic=None):
    """Arrives on `bar` (`arrive_count` arrivals) once for the task that runs
    it; for a warp barrier, once for each of its threads."""
    bar = _barrier(bar, "barrier_arrive")
    arrive_count = constexpr_int(arrive_count, "arrive_count", minimum=1)
    if tl_core._unwrap_if_constexpr(remote_cta_rank) is not None:
        raise ValueError("barrier_arrive: remote_cta_rank needs CTA clusters, which tlx_alias "
                         "does not support yet (num_ctas=1)")
    if bar.is_warp_barrier:
        from .warp_specialize import current_num_warps
        arrive_count *= 32 * current_num_warps(_semantic)
    operands = _with_optional_pred([bar.handle], pred, _semantic)
    _ir.create_op(_semantic.builder, "ttng.arrive_barrier", operands, [], {"count": f"{arrive_count} : i32"})


def _named_barrier(instruction, bar, arrive_count, what, semantic):
    bar_value = tl_core._unwrap_if_constexpr(bar)
    if isinstance(bar_value, int) and not 0 <= bar_value < 16:
        raise ValueError(f"{what}: barrier id must be in [0, 16), got {bar_value}")
    count = tl_core._unwrap_if_constexpr(arrive_count)
    if isinstance(count, int) and (count <= 0 or count % 32):
        raise ValueError(f"{what}: arrive_count must be a positive multiple of 32 (threads), got {count}")
    bar_id = scalar_i32(bar, "barrier id", semantic)
    threads = scalar_i32(arrive_count, "arrive_count", semantic)
    # bar.sync/bar.arrive run on every thread of the warps that reach it;
    # triton's inline asm does exactly that for scalar operands.
    tl_core.inline_asm_elementwise(f"{instruction} $1, $2;\n\tmov.u32 $0, 0;", "=r,r,r", [bar_id, threads],
                                   tl.int32, False, 1, _semantic=semantic)


@tl_core.builtin
def named_barrier_wait(bar, arrive_count, _semantic=None):
    """Waits on hardware named barrier `bar` until `arrive_count` threads
    have arrived (bar.sync)."""
    _named_barrier("bar.sync", bar, arrive_count, "named_barrier_wait", _semantic)


@tl_core.builtin
def named_barrier_arrive(bar, arrive_count, _semantic=None):
    """Arrives on hardware named barrier `bar`, expecting `arrive_count`
    threads in all, without waiting (bar.arrive)."""
    _named_barrier("bar.arrive", bar, arrive_count, "named_barrier_arrive", _semantic)


@tl_core.builtin
def fence_async_shared(_semantic=None):
    """Orders this thread's shared-memory writes before later async-proxy
    reads (TMA stores, wgmma): fence.proxy.async.shared::cta."""
    _ir.create_op(_semantic.builder, "ttng.fence_async_shared", [], [], {"bCluster": "false"})


@tl_core.builtin
def fence(scope, _semantic=None):
    """Memory fence: "async_shared" (fence_async_shared), "gpu"
    (fence.acq_rel.gpu) or "sys" (fence.acq_rel.sys)."""
    scope = tl_core._unwrap_if_constexpr(scope)
    if scope == "async_shared":
        return fence_async_shared(_semantic=_semantic)
    if scope not in ("gpu", "sys"):
        raise ValueError(f"fence scope must be 'async_shared', 'gpu' or 'sys', got {scope!r}")
    tl_core.inline_asm_elementwise(f"fence.acq_rel.{scope};\n\tmov.u32 $0, 0;", "=r", [], tl.int32, False, 1,
                                   _semantic=_semantic)
