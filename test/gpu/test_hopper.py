"""Each Hopper primitive on a real GPU, with the kernels of
test/hopper_kernels.py: TMA into an aliased slot, mbarrier phase flips
between a producer and a consumer task, async_dot waits (with and without a
transposed B), a TMA store. Run on an H100/H200 (see README: GPU tests)."""
import os
import sys

import pytest
import torch
import triton
from triton.tools.tensor_descriptor import TensorDescriptor

import tlx_alias  # noqa: F401

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import hopper_kernels as hk  # noqa: E402


def descriptor(t, block):
    return TensorDescriptor(t, list(t.shape), list(t.stride()), block)


@pytest.mark.parametrize("evict", ["", "evict_last", "evict_first"])
def test_tma_into_aliased_slot(evict):
    """The tile lands whole, with or without an L2 eviction policy."""
    x = torch.randn((256, 64), device="cuda", dtype=torch.float16)
    out = torch.empty((64, 64), device="cuda", dtype=torch.float16)
    hk.tma_into_aliased_slot[(1, )](descriptor(x, [64, 64]), out, ROW=128, B=64, EVICT=evict)
    torch.testing.assert_close(out, x[128:192], rtol=0, atol=0)


@pytest.mark.parametrize("empty", ["leader", "threads", "threads_pred"])
@pytest.mark.parametrize("stages", [2, 3])
def test_producer_consumer_barrier_phases(stages, empty):
    """The consumer hands slots back by a leader arrive, or (warp barriers)
    by every thread's own, once or twice (the second on a predicate)."""
    tiles = 7  # more tiles than slots: every barrier goes through several phases
    x = torch.randn((tiles * 64, 64), device="cuda", dtype=torch.float16)
    out = torch.empty((64, 64), device="cuda", dtype=torch.float32)
    hk.producer_consumer_sum[(1, )](descriptor(x, [64, 64]), out, NUM_TILES=tiles, B=64, STAGES=stages, EMPTY=empty)
    expected = x.float().reshape(tiles, 64, 64).sum(0)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("evict", ["", "evict_last"])
def test_cluster_multicast_copy(evict):
    """num_ctas=2: rank 0's TMA load (with or without an L2 eviction policy)
    lands in both CTAs' buffers and signals both barriers; program ids and
    counts are the clusters'."""
    clusters = 3
    x = torch.randn((clusters * 64, 64), device="cuda", dtype=torch.float16)
    out = torch.zeros((2 * clusters, 64, 64), device="cuda", dtype=torch.float16)
    ranks = torch.full((2 * clusters, 3), -1, device="cuda", dtype=torch.int32)
    hk.cluster_multicast_copy[(clusters, )](descriptor(x, [64, 64]), out, ranks, B=64, num_ctas=2, EVICT=evict)
    for c in range(clusters):
        for rank in range(2):
            torch.testing.assert_close(out[2 * c + rank], x[64 * c:64 * (c + 1)], rtol=0, atol=0)
            assert ranks[2 * c + rank].tolist() == [rank, c, clusters]


def test_max_active_clusters_runs_a_persistent_grid():
    """tlx_alias.max_active_clusters: the clusters of two resident at once
    (this small kernel: several CTAs an SM, at most Hopper's 32); a grid of
    that many runs the copy correctly."""
    def args(clusters):
        x = torch.randn((clusters * 64, 64), device="cuda", dtype=torch.float16)
        out = torch.zeros((2 * clusters, 64, 64), device="cuda", dtype=torch.float16)
        return x, out, torch.full((2 * clusters, 3), -1, device="cuda", dtype=torch.int32)

    x, out, ranks = args(1)
    compiled = hk.cluster_multicast_copy.warmup(descriptor(x, [64, 64]), out, ranks, B=64, num_ctas=2, grid=(1, ))
    clusters = tlx_alias.max_active_clusters(compiled)
    assert torch.cuda.get_device_properties(0).multi_processor_count // 2 < clusters
    assert clusters <= torch.cuda.get_device_properties(0).multi_processor_count * 32 // 2
    x, out, ranks = args(clusters)
    hk.cluster_multicast_copy[(clusters, )](descriptor(x, [64, 64]), out, ranks, B=64, num_ctas=2)
    torch.testing.assert_close(out, x.reshape(clusters, 1, 64, 64).expand(-1, 2, -1, -1).reshape(-1, 64, 64),
                               rtol=0, atol=0)


@pytest.mark.parametrize("empty", ["leader", "threads"])
def test_cluster_remote_arrives(empty):
    """Tokens handed between the two CTAs of each cluster by remote arrives,
    one way on a leader's arrive, back on a leader's or every thread's."""
    clusters, rounds = 4, 9
    out = torch.full((2 * clusters, ), -1, device="cuda", dtype=torch.int32)
    hk.cluster_remote_arrive[(clusters, )](out, ROUNDS=rounds, EMPTY=empty, num_ctas=2)
    assert out.tolist() == [rounds, 0] * clusters


@pytest.mark.parametrize("trans_b", [False, True])
def test_async_dot_wait(trans_b):
    a = torch.randn((64, 64), device="cuda", dtype=torch.float16)
    b = torch.randn((64, 128), device="cuda", dtype=torch.float16)
    b_in = b.t().contiguous() if trans_b else b
    out = torch.empty((64, 128), device="cuda", dtype=torch.float32)
    hk.async_dot_tile[(1, )](descriptor(a, [64, 64]), descriptor(b_in, list(b_in.shape)), out, M=64, N=128, K=64,
                             TRANS_B=trans_b)
    torch.testing.assert_close(out, a.float() @ b.float(), rtol=1e-3, atol=1e-2)


def test_async_dot_split_between_registers_and_shared_memory():
    a = torch.randn((64, 128), device="cuda", dtype=torch.float16)
    b = torch.randn((64, 128), device="cuda", dtype=torch.float16)
    out = torch.empty((64, 64), device="cuda", dtype=torch.float32)
    hk.async_dot_split_operand[(1, )](descriptor(a, [64, 128]), descriptor(b, [64, 128]), out, M=64, N=64, K=128,
                                      K_REGS=64)
    torch.testing.assert_close(out, a.float() @ b.float().t(), rtol=1e-3, atol=1e-2)


@pytest.mark.parametrize("evict", ["", "evict_first"])
def test_tma_store(evict):
    x = torch.randn((64, 64), device="cuda", dtype=torch.float16)
    out = torch.zeros_like(x)
    hk.tma_store_tile[(1, )](descriptor(x, [64, 64]), descriptor(out, [64, 64]), B=64, EVICT=evict)
    torch.testing.assert_close(out, x * 2, rtol=0, atol=0)


@pytest.mark.parametrize("kernel_warps, worker_warps", [(8, 4), (4, 8), (4, 4)])
def test_partitions_of_other_warp_counts(kernel_warps, worker_warps):
    x = (torch.randn((64, 64), device="cuda") / 8).to(torch.float16)
    out = torch.zeros((64 * 64 + 1, ), device="cuda", dtype=torch.float32)
    hk.partition_warps_round_trip[(1, )](x, out, B=64, WORKER_WARPS=worker_warps, num_warps=kernel_warps)
    torch.testing.assert_close(out[:64 * 64].reshape(64, 64), x.float() @ x.float(), rtol=1e-3, atol=1e-3)
    assert out[64 * 64].item() == sum(range(64))


sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "examples"))
import hopper_persistent_gemm as ws_gemm  # noqa: E402


@pytest.mark.parametrize("alias, stages, c_split", [(True, 4, 2), (True, 4, 1), (True, 2, 2), (False, 3, 1)])
@pytest.mark.parametrize("m, n, k, num_sms", [(512, 768, 1024, 3), (1000, 520, 456, 5), (256, 256, 64, 132)])
def test_aliased_persistent_ws_gemm(alias, stages, c_split, m, n, k, num_sms):
    """Few CTAs for many tiles: each CTA goes round the ring several times,
    lending slots to the epilogue tile after tile; ragged shapes exercise the
    TMA bounds (zero-filled loads, clipped stores)."""
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    torch.manual_seed(0)
    a = torch.randn((m, k), device="cuda", dtype=torch.float16)
    b = torch.randn((k, n), device="cuda", dtype=torch.float16)
    c = ws_gemm.matmul(a, b, STAGES=stages, ALIAS=alias, C_SPLIT=c_split, num_sms=num_sms)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=1e-2, atol=5e-2)


def test_vote_ballot_sync():
    x = torch.randn(128, device="cuda")
    out = torch.empty(128, device="cuda", dtype=torch.int32)
    uniform = torch.empty(2, device="cuda", dtype=torch.int32)
    hk.ballot_of_signs[(2, )](x, out, uniform, N=128, num_warps=4)
    bits = (x > 0).cpu().reshape(4, 32).long() << torch.arange(32)  # element i is lane i % 32 of warp i // 32
    expected = bits.sum(1).repeat_interleave(32)
    expected = torch.where(expected >= 2**31, expected - 2**32, expected).int()  # the ballot as an int32
    assert torch.equal(out.cpu(), expected)
    assert uniform.cpu().tolist() == [-1, 0]  # program 0: every lane's bit (0xFFFFFFFF); program 1: none


def test_clock64_counts_cycles():
    x = torch.randn(1 << 16, device="cuda")
    out = torch.empty_like(x)
    cycles = torch.zeros(4, device="cuda", dtype=torch.int64)
    hk.clock_around_loads[(4, )](x, out, cycles, N=1 << 14, num_warps=4)
    torch.testing.assert_close(out[:1 << 14], x[:1 << 14] + 1.0, rtol=0, atol=0)
    assert (cycles > 0).all() and (cycles < 10**9).all(), cycles


@pytest.mark.parametrize("level", ["L1", "L2"])
def test_prefetch_changes_no_values(level):
    n = 1000  # the last block's tail is masked off
    x = torch.randn(1024, device="cuda")
    out = torch.zeros_like(x)
    hk.prefetched_copy[(4, )](x, out, n, N=256, LEVEL=level)
    torch.testing.assert_close(out[:n], x[:n], rtol=0, atol=0)
    assert (out[n:] == 0).all()


def test_thread_id_counts_the_whole_cta():
    out = torch.full((256, ), -1, device="cuda", dtype=torch.int32)
    hk.thread_ids_by_task[(1, )](out, num_warps=4)
    assert out.cpu().tolist() == list(range(256))
