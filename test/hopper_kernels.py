"""Small kernels, one per Hopper primitive, shared by the CPU compile tests
(test/python) and the GPU tests (test/gpu)."""
import triton
import triton.language as tl

import tlx_alias as tlx
from tlx_alias.warp_spec import get_bufidx_phase


@triton.jit
def tma_into_aliased_slot(desc, out_ptr, ROW: tl.constexpr, B: tl.constexpr, EVICT: tl.constexpr = ""):
    # `tile` shares storage with `scratch` and sits after `pad` (distinct):
    # its slot 1 lies at a non-zero offset of the spec. EVICT: the load's
    # L2 eviction policy.
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    tile = tlx.local_alloc((B, B), tl.float16, 2, reuse=spec)
    scratch = tlx.local_alloc((B, B), tl.float32, 2, reuse=spec)
    pad = tlx.local_alloc((B, B), tl.float16, 2, reuse=spec)
    spec.set_buffer_overlap(tlx.reuse_group(
        pad, tlx.reuse_group(tile, scratch, group_type=tlx.reuse_group_type.shared),
        group_type=tlx.reuse_group_type.distinct))
    bars = tlx.alloc_barriers(num_barriers=1)
    tlx.barrier_expect_bytes(bars[0], B * B * tlx.size_of(tlx.dtype_of(desc)))
    tlx.async_descriptor_load(desc, tile[1], [ROW, 0], bars[0], eviction_policy=EVICT)
    tlx.barrier_wait(bars[0], 0)
    x = tlx.local_load(tile[1])
    offs = tl.arange(0, B)
    tl.store(out_ptr + offs[:, None] * B + offs[None, :], x)


@triton.jit
def producer_consumer_sum(desc, out_ptr, NUM_TILES: tl.constexpr, B: tl.constexpr, STAGES: tl.constexpr,
                          EMPTY: tl.constexpr = "leader"):
    # A TMA producer task and a consumer task hand a ring of STAGES slots
    # over through full/empty mbarriers; NUM_TILES > STAGES flips phases.
    # EMPTY "threads": the empty barriers are warp barriers, every consumer
    # thread arrives; "threads_pred": twice, the second time on a predicate.
    ring = tlx.local_alloc((B, B), tl.float16, STAGES)
    full = tlx.alloc_barriers(num_barriers=STAGES, arrive_count=1)
    if EMPTY == "threads" or EMPTY == "threads_pred":
        empty = tlx.alloc_warp_barrier(num_barriers=STAGES, num_warps=4, num_arrivals=1 + (EMPTY == "threads_pred"))
    else:
        empty = tlx.alloc_barriers(num_barriers=STAGES, arrive_count=1)
    with tlx.async_tasks():
        with tlx.async_task("default"):
            for t in range(NUM_TILES):
                slot, phase = get_bufidx_phase(t, STAGES)
                tlx.barrier_wait(empty[slot], phase ^ 1)
                tlx.barrier_expect_bytes(full[slot], B * B * 2)
                tlx.async_descriptor_load(desc, ring[slot], [t * B, 0], full[slot])
        with tlx.async_task(num_warps=4, registers=232):
            acc = tl.zeros((B, B), tl.float32)
            for t in range(NUM_TILES):
                slot, phase = get_bufidx_phase(t, STAGES)
                tlx.barrier_wait(full[slot], phase)
                acc += tlx.local_load(ring[slot]).to(tl.float32)
                tlx.barrier_arrive(empty[slot])
                if EMPTY == "threads_pred":
                    tlx.barrier_arrive(empty[slot], pred=tl.program_id(0) == 0)
            offs = tl.arange(0, B)
            tl.store(out_ptr + offs[:, None] * B + offs[None, :], acc)


@triton.jit
def async_dot_tile(a_desc, b_desc, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                   TRANS_B: tl.constexpr):
    # D = A @ B with wgmma reading both operands from shared memory; with
    # TRANS_B, B arrives as N x K and is read through local_trans.
    a = tlx.local_alloc((M, K), tl.float16, 1)
    if TRANS_B:
        b = tlx.local_alloc((N, K), tl.float16, 1)
    else:
        b = tlx.local_alloc((K, N), tl.float16, 1)
    bars = tlx.alloc_barriers(num_barriers=1)
    tlx.barrier_expect_bytes(bars[0], (M * K + K * N) * 2)
    tlx.async_descriptor_load(a_desc, a[0], [0, 0], bars[0])
    tlx.async_descriptor_load(b_desc, b[0], [0, 0], bars[0])
    tlx.barrier_wait(bars[0], 0)
    if TRANS_B:
        acc = tlx.async_dot(a[0], tlx.local_trans(b[0]))
    else:
        acc = tlx.async_dot(a[0], b[0])
    acc = tlx.async_dot_wait(0, acc)
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc)


@triton.jit
def tma_store_tile(in_desc, out_desc, B: tl.constexpr, EVICT: tl.constexpr = ""):
    # TMA load, a register round trip (x * 2), local_store, fence, TMA store
    # (EVICT: the store's L2 eviction policy).
    buf = tlx.local_alloc((B, B), tl.float16, 2)
    bars = tlx.alloc_barriers(num_barriers=1)
    tlx.barrier_expect_bytes(bars[0], B * B * 2)
    tlx.async_descriptor_load(in_desc, buf[0], [0, 0], bars[0])
    tlx.barrier_wait(bars[0], 0)
    x = tlx.local_load(buf[0])
    tlx.local_store(buf[1], x * 2)
    tlx.fence_async_shared()
    tlx.async_descriptor_store(out_desc, buf[1], [0, 0], eviction_policy=EVICT)
    tlx.async_descriptor_store_wait(0)


@triton.jit
def partition_warps_round_trip(x_ptr, out_ptr, B: tl.constexpr, WORKER_WARPS: tl.constexpr):
    # Partitions whose warp count is not the kernel's (num_warps at launch):
    # a worker of WORKER_WARPS warps squares a tile the default task staged
    # (local_store/local_load, tensors defined before the region), and a
    # 1-warp task adds up scalars. out[0] = x @ x, out[1][0, 0] = sum of 0..B-1.
    offs = tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :]
    tiles = tlx.local_alloc((B, B), tl.float16, 1)
    ready = tlx.alloc_barriers(num_barriers=1, arrive_count=1)
    with tlx.async_tasks():
        with tlx.async_task("default"):
            tlx.local_store(tiles[0], tl.load(x_ptr + offs))
            tlx.fence_async_shared()
            tlx.barrier_arrive(ready[0])
        with tlx.async_task(num_warps=WORKER_WARPS):
            tlx.barrier_wait(ready[0], 0)
            acc = tlx.async_dot(tiles[0], tiles[0])
            acc = tlx.async_dot_wait(0, acc)
            tl.store(out_ptr + offs, acc + tlx.local_load(tiles[0]).to(tl.float32) * 0)
        with tlx.async_task(num_warps=1):
            total = 0
            for i in range(B):
                total += i
            tl.store(out_ptr + B * B, total.to(tl.float32))


@triton.jit
def _dot_from_registers_and_shared(a, b_nk, K: tl.constexpr, K_REGS: tl.constexpr):
    # A helper holding tlx ops (inlined by triton like any @triton.jit helper):
    # A's first K_REGS columns go to wgmma from registers, the rest from shared
    # memory, into one accumulator; B is N x K, read through local_trans of
    # its column slices.
    a_regs = tlx.local_load(tlx.local_slice(a, [0, 0], [a.shape[0], K_REGS]))
    b_lo = tlx.local_slice(b_nk, [0, 0], [b_nk.shape[0], K_REGS])
    acc = tlx.async_dot(a_regs, tlx.local_trans(b_lo))
    a_hi = tlx.local_slice(a, [0, K_REGS], [a.shape[0], K - K_REGS])
    b_hi = tlx.local_slice(b_nk, [0, K_REGS], [b_nk.shape[0], K - K_REGS])
    return tlx.async_dot(a_hi, tlx.local_trans(b_hi), acc)


@triton.jit
def async_dot_split_operand(a_desc, b_desc, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                            K_REGS: tl.constexpr):
    # D = A @ B^T (B given N x K) in a consumer task, as the attention
    # example's QK^T with Q partly in registers.
    a = tlx.local_alloc((M, K), tl.float16, 1)
    b = tlx.local_alloc((N, K), tl.float16, 1)
    bars = tlx.alloc_barriers(num_barriers=1)
    with tlx.async_tasks():
        with tlx.async_task("default"):
            tlx.barrier_expect_bytes(bars[0], (M * K + N * K) * 2)
            tlx.async_descriptor_load(a_desc, a[0], [0, 0], bars[0])
            tlx.async_descriptor_load(b_desc, b[0], [0, 0], bars[0])
        with tlx.async_task(num_warps=4):
            tlx.barrier_wait(bars[0], 0)
            acc = _dot_from_registers_and_shared(a[0], b[0], K, K_REGS)
            acc = tlx.async_dot_wait(0, acc)
            offs_m = tl.arange(0, M)
            offs_n = tl.arange(0, N)
            tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc)


@triton.jit
def ballot_of_signs(x_ptr, out_ptr, uniform_ptr, N: tl.constexpr):
    # One element a thread (N = 32 * num_warps): out[i] is the ballot of
    # x > 0 over the warp that holds x[i]; uniform[pid] gets the ballot of
    # a predicate every lane shares (pid == 0: all lanes' bits, else none).
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tlx.vote_ballot_sync(0xFFFFFFFF, x > 0))
    tl.store(uniform_ptr + tl.program_id(0), tlx.vote_ballot_sync(0xFFFFFFFF, tl.program_id(0) == 0))


@triton.jit
def clock_around_loads(x_ptr, out_ptr, cycles_ptr, N: tl.constexpr):
    # Two clock reads around a load and a store: the cycles between them.
    start = tlx.clock64()
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + 1.0)
    end = tlx.clock64()
    tl.store(cycles_ptr + tl.program_id(0), end - start)


@triton.jit
def prefetched_copy(x_ptr, out_ptr, n, N: tl.constexpr, LEVEL: tl.constexpr):
    # Prefetch hints change no values: x's lines are hinted into LEVEL (the
    # ones past n masked off), then copied.
    offs = tl.program_id(0) * N + tl.arange(0, N)
    tlx.prefetch(x_ptr + offs, level=LEVEL, mask=offs < n)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@triton.jit
def thread_ids_by_task(out_ptr):
    # Each thread holds one element of a task's 128 and stores its
    # thread_id there: the default task's threads are 0-127, the other
    # task's 128-255 (TLX's thread_id counts the whole CTA).
    with tlx.async_tasks():
        with tlx.async_task("default"):
            offs = tl.arange(0, 128)
            tl.store(out_ptr + offs, tlx.thread_id(0) + offs * 0)
        with tlx.async_task(num_warps=4):
            offs = tl.arange(0, 128)
            tl.store(out_ptr + 128 + offs, tlx.thread_id(0) + offs * 0)


@triton.jit
def cluster_multicast_copy(desc, out_ptr, ranks_ptr, B: tl.constexpr, EVICT: tl.constexpr = ""):
    # num_ctas=2: rank 0 multicasts the cluster's tile (rows pid * B) into
    # both CTAs' buffer (EVICT: at that L2 eviction policy); each CTA stores
    # what landed in its own to slot 2 * pid + rank, with its rank and the
    # cluster's program id and count.
    buf = tlx.local_alloc((B, B), tl.float16, 1)
    bars = tlx.alloc_barriers(1)
    rank = tlx.cluster_cta_rank()
    tlx.fence_mbarrier_init_cluster()
    tlx.cluster_barrier()  # both barriers are initialized before the copy signals them
    tlx.barrier_expect_bytes(bars[0], B * B * 2)
    tlx.async_descriptor_load(desc, buf[0], [tl.program_id(0) * B, 0], bars[0], pred=rank == 0,
                              multicast_targets=[0, 1], eviction_policy=EVICT)
    tlx.barrier_wait(bars[0], 0)
    rows = tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :]
    slot = 2 * tl.program_id(0) + rank
    tl.store(out_ptr + slot * B * B + rows, tlx.local_load(buf[0]))
    tl.store(ranks_ptr + slot * 3 + tl.arange(0, 4), tl.where(
        tl.arange(0, 4) == 0, rank, tl.where(tl.arange(0, 4) == 1, tl.program_id(0), tl.num_programs(0))),
             mask=tl.arange(0, 4) < 3)
    tlx.cluster_barrier()


@triton.jit
def cluster_remote_arrive(out_ptr, ROUNDS: tl.constexpr, EMPTY: tl.constexpr):
    # num_ctas=2: rank 1's producer hands rank 0's consumer a token a round
    # by arriving on rank 0's `fulls`; rank 0's consumer hands it back on
    # rank 1's `empties` (a leader's arrive, or with EMPTY "threads" every
    # thread's on a warp barrier). Each consumer stores the rounds it saw.
    fulls = tlx.alloc_barriers(1)
    if EMPTY == "threads":
        empties = tlx.alloc_warp_barrier(1, num_warps=4)
    else:
        empties = tlx.alloc_barriers(1)
    tlx.fence_mbarrier_init_cluster()
    with tlx.async_tasks():
        with tlx.async_task("default"):
            tlx.cluster_barrier()  # every barrier of the cluster is initialized
            rank = tlx.cluster_cta_rank()
            for r in range(ROUNDS):
                tlx.barrier_wait(empties[0], (r & 1) ^ 1, pred=rank == 1)
                tlx.barrier_arrive(fulls[0], remote_cta_rank=0, pred=rank == 1)
            tlx.cluster_barrier()  # no CTA exits while the other may arrive on it
        with tlx.async_task(num_warps=4):
            tlx.cluster_barrier()
            rank = tlx.cluster_cta_rank()
            seen = 0
            for r in range(ROUNDS):
                tlx.barrier_wait(fulls[0], r & 1, pred=rank == 0)
                seen += (rank == 0).to(tl.int32)
                tlx.barrier_arrive(empties[0], remote_cta_rank=1, pred=rank == 0)
            offs = tl.arange(0, 128)
            tl.store(out_ptr + tl.program_id(0) * 2 + rank + offs * 0, seen + offs * 0, mask=offs == 0)
            tlx.cluster_barrier()
