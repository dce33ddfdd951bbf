"""mbarriers, named barriers and fences. Barriers are `ttng` ops built
directly in TTIR: they carry no tensor layout, so triton's TTIR->TTGIR
conversion passes them through untouched."""
import threading

import triton.language as tl
from triton.language import core as tl_core

from .._compile_state import current_num_warps
from .._triton import ir
from ..types import mbarrier, memdesc_text, storage_kind
from .checks import constexpr_int, require_clusters, scalar_i1, scalar_i32


def one_barrier(bar, what):
    bar = tl_core._unwrap_if_constexpr(bar)
    if not isinstance(bar, mbarrier):
        raise TypeError(f"{what} expects an mbarrier (one of alloc_barriers' barriers), "
                        f"got {type(bar).__name__}")
    if bar.num is not None:
        raise ValueError(f"{what} needs one barrier: index the allocation first (bars[i])")
    return bar


# A remote arrive's number pairs it with its rank's asm op; numbers restart
# with each compile (the callee functions' builders share its options), so a
# kernel's TTGIR is the same in every process.
_pairings = threading.local()


def _next_pairing(builder):
    options = ir.compile_options(builder)
    if getattr(_pairings, "options", None) is not options:
        _pairings.options, _pairings.next = options, 0
    _pairings.next += 1
    return _pairings.next - 1


def cta_rank(rank, what, semantic):
    """A CTA rank of the kernel's clusters as an i32 (a constexpr is checked)."""
    num_ctas = require_clusters(what, semantic)
    rank = tl_core._unwrap_if_constexpr(rank)
    if isinstance(rank, int) and not 0 <= rank < num_ctas:
        raise ValueError(f"{what} must be a CTA rank in [0, {num_ctas}), got {rank}")
    return scalar_i32(rank, what, semantic)


def _cluster_asm(instruction, what, semantic):
    require_clusters(what, semantic)
    tl_core.inline_asm_elementwise(f"{instruction}\n\tmov.u32 $0, 0;", "=r", [], tl.int32, False, 1,
                                   _semantic=semantic)


def _with_optional_pred(operands, pred, semantic):
    """Appends the i1 of an optional predicate operand (None: no operand)."""
    pred = tl_core._unwrap_if_constexpr(pred)
    if pred is not None:
        operands.append(scalar_i1(pred, "pred", semantic).handle)
    return operands


class SyncSemantic:

    def alloc_barriers(self, num_barriers, arrive_count):
        num_barriers = constexpr_int(num_barriers, "num_barriers", minimum=1)
        arrive_count = constexpr_int(arrive_count, "arrive_count", minimum=1)
        return self._alloc_barriers(num_barriers, arrive_count, False)

    def alloc_warp_barrier(self, num_barriers, num_warps, num_arrivals):
        num_barriers = constexpr_int(num_barriers, "num_barriers", minimum=1)
        num_warps = constexpr_int(num_warps, "num_warps", minimum=1)
        num_arrivals = constexpr_int(num_arrivals, "num_arrivals", minimum=1)
        return self._alloc_barriers(num_barriers, num_warps * 32 * num_arrivals, True)

    def _alloc_barriers(self, num_barriers, arrive_count, is_warp_barrier):
        text = memdesc_text(tl.int64, (1, ), num_barriers, storage_kind.smem, mbarrier.BARRIER_LAYOUT)
        (handle, ) = ir.create_op(self.builder, "ttg.local_alloc", [], [text])
        bars = mbarrier(handle, num=num_barriers, is_warp_barrier=is_warp_barrier)
        for i in range(num_barriers):
            index = self.triton.to_tensor(i)
            (one, ) = ir.create_op(self.builder, "ttg.memdesc_index", [handle, index.handle], [bars.memdesc_text()])
            ir.create_op(self.builder, "ttng.init_barrier", [one], [], {"count": f"{arrive_count} : i32"})
        return bars

    def barrier_expect_bytes(self, bar, size, pred):
        bar = one_barrier(bar, "barrier_expect_bytes")
        size = constexpr_int(size, "barrier_expect_bytes size", minimum=0)
        pred = scalar_i1(pred, "pred", self.triton)
        ir.create_op(self.builder, "ttng.barrier_expect", [bar.handle, pred.handle], [], {"size": f"{size} : i32"})

    def barrier_wait(self, bar, phase, pred):
        bar = one_barrier(bar, "barrier_wait")
        phase = scalar_i32(phase, "phase", self.triton)
        operands = _with_optional_pred([bar.handle, phase.handle], pred, self.triton)
        ir.create_op(self.builder, "ttng.wait_barrier", operands, [],
                     {"operandSegmentSizes": f"array<i32: 1, 1, {len(operands) - 2}, 0>"})

    def barrier_arrive(self, bar, arrive_count, remote_cta_rank, pred):
        bar = one_barrier(bar, "barrier_arrive")
        arrive_count = constexpr_int(arrive_count, "arrive_count", minimum=1)
        attributes = {}
        if remote_cta_rank is not None:
            # The rank reaches tlx-lower-marked-ops through an asm op paired
            # with the arrive by a number (triton's arrive has no operand for it).
            rank = cta_rank(remote_cta_rank, "barrier_arrive: remote_cta_rank", self.triton)
            pairing = _next_pairing(self.builder)
            ir.create_op(self.builder, "tt.elementwise_inline_asm", [rank.handle], ["i32"],
                         {"asm_string": '"mov.u32 $0, $1;"', "constraints": '"=r,r"', "pure": "false",
                          "packed_element": "1 : i32", "tlx.remote_rank": f"{pairing} : i32"})
            attributes["tlx.remote_arrive"] = f"{pairing} : i32"
        if bar.is_warp_barrier:
            # Every thread arrives, each for its own accesses: no warp-group
            # sync (tlx-thread-arrives-as-expects). `count` stays the task's
            # arrivals in all, as the hazard analysis counts them.
            attributes["tlx.arrive_per_thread"] = f"{arrive_count} : i32"
            arrive_count *= 32 * current_num_warps(self.triton)
        attributes["count"] = f"{arrive_count} : i32"
        operands = _with_optional_pred([bar.handle], pred, self.triton)
        ir.create_op(self.builder, "ttng.arrive_barrier", operands, [], attributes)

    def named_barrier(self, instruction, bar, arrive_count, what):
        """bar.sync or bar.arrive on hardware named barrier `bar`."""
        bar_value = tl_core._unwrap_if_constexpr(bar)
        if isinstance(bar_value, int) and not 0 <= bar_value < 16:
            raise ValueError(f"{what}: barrier id must be in [0, 16), got {bar_value}")
        count = tl_core._unwrap_if_constexpr(arrive_count)
        if isinstance(count, int) and (count <= 0 or count % 32):
            raise ValueError(f"{what}: arrive_count must be a positive multiple of 32 (threads), got {count}")
        bar_id = scalar_i32(bar, "barrier id", self.triton)
        threads = scalar_i32(arrive_count, "arrive_count", self.triton)
        # bar.sync/bar.arrive run on every thread of the warps that reach it;
        # triton's inline asm does exactly that for scalar operands.
        tl_core.inline_asm_elementwise(f"{instruction} $1, $2;\n\tmov.u32 $0, 0;", "=r,r,r", [bar_id, threads],
                                       tl.int32, False, 1, _semantic=self.triton)

    def cluster_barrier(self):
        _cluster_asm("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;", "cluster_barrier",
                     self.triton)

    def fence_mbarrier_init_cluster(self):
        _cluster_asm("fence.mbarrier_init.release.cluster;", "fence_mbarrier_init_cluster", self.triton)

    def fence_async_shared(self):
        ir.create_op(self.builder, "ttng.fence_async_shared", [], [], {"bCluster": "false"})

    def fence(self, scope):
        if scope == "async_shared":
            return self.fence_async_shared()
        if scope not in ("gpu", "sys"):
            raise ValueError(f"fence scope must be 'async_shared', 'gpu' or 'sys', got {scope!r}")
        tl_core.inline_asm_elementwise(f"fence.acq_rel.{scope};\n\tmov.u32 $0, 0;", "=r", [], tl.int32, False, 1,
                                       _semantic=self.triton)
