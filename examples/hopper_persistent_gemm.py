"""An aliased persistent warp-specialized Hopper GEMM: the epilogue's C tiles
live in the operand ring's storage, like CUTLASS's SharedStorage union.

One producer warp group streams A (BM x BK) and B (BK x BN) tiles into a ring
of STAGES slots with TMA; two consumer warp groups each multiply their half of
A (BM/2 rows) by B with async wgmma, and store C through shared memory with
TMA. With 128x256x64 tiles a slot is 48 KiB and a consumer's C tile 32 KiB:

    ALIAS=True   4 slots, C tiles inside the slots      192 KiB
    ALIAS=False  4 slots + 2 C tiles side by side        256 KiB (does not fit
                 the 227 KiB of an sm_90 CTA: the unaliased twin runs 3 slots)

How C gets a slot: after a tile's last k-step the producer lends the next
slot of the ring instead of filling it. Lending a slot is the same handshake
as filling it (wait until both consumers released it, then arrive on its
`full` barrier, with no bytes to expect), so the ring's barriers alone order
the epilogue against the wgmmas that read the slot before and the TMA loads
that fill it after. With C_SPLIT=2 (default) both consumers share one lent
slot: each writes the left half of its C tile (BM/2 x BN/2) into its rows
of the slot, stores it, waits for the store to have read it, does the same
with the right half and releases the slot; the producer keeps filling the
other three slots with the next tile's operands. With C_SPLIT=1 the
producer lends one slot per consumer, each holding a whole C tile.

    python examples/hopper_persistent_gemm.py     # compile for sm_90 here, print the memory map
    python benchmarks/hopper_gemm_alias.py        # on an H100/H200: correctness and speed
"""
import triton
import triton.language as tl

import tlx_alias as tlx


@triton.jit
def _tile_coords(tile_id, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    """Grouped tile order: GROUP_SIZE_M row blocks walk the columns together
    so that their B tiles stay in L2."""
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    first_pid_m = (tile_id // num_pid_in_group) * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % num_pid_in_group) % group_size_m
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def _ring_position(step, STAGES: tl.constexpr):
    """Slot and barrier phase of the `step`-th use of the ring."""
    return step % STAGES, (step // STAGES) & 1


@triton.jit
def _load_operands(a_desc, b_desc, a_ring, b_ring, full, empty, num_tiles, num_pid_m, num_pid_n, k_tiles,
                   NUM_SMS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                   GROUP_SIZE_M: tl.constexpr, STAGES: tl.constexpr, ALIAS: tl.constexpr, C_SPLIT: tl.constexpr,
                   NUM_MMA_GROUPS: tl.constexpr, dtype: tl.constexpr):
    """The producer: each tile's A and B tiles, one ring slot per k-step;
    aliased, then the slots it lends to the C tiles."""
    step = 0
    for tile_id in range(tl.program_id(0), num_tiles, NUM_SMS):
        pid_m, pid_n = _tile_coords(tile_id, num_pid_m, num_pid_n, GROUP_SIZE_M)
        for k in range(k_tiles):
            slot, phase = _ring_position(step, STAGES)
            tlx.barrier_wait(tlx.local_view(empty, slot), phase ^ 1)
            bar = tlx.local_view(full, slot)
            tlx.barrier_expect_bytes(bar, (BM * BK + BK * BN) * tlx.size_of(dtype))
            tlx.async_descriptor_load(a_desc, a_ring[slot], [pid_m * BM, k * BK], bar)
            tlx.async_descriptor_load(b_desc, b_ring[slot], [k * BK, pid_n * BN], bar)
            step += 1
        if ALIAS:
            for _ in tl.static_range(NUM_MMA_GROUPS // C_SPLIT):  # lend slots to the C tiles
                slot, phase = _ring_position(step, STAGES)
                tlx.barrier_wait(tlx.local_view(empty, slot), phase ^ 1)
                tlx.barrier_arrive(tlx.local_view(full, slot))
                step += 1


@triton.jit
def _multiply(a_ring, b_ring, full, empty, step, k_tiles, cid: tl.constexpr, BM_HALF: tl.constexpr,
              BK: tl.constexpr, STAGES: tl.constexpr):
    """Consumer cid's accumulator for one tile: its rows of A times B over
    the k-steps, each slot released once the wgmma that read it is done.
    Returns it and the next ring step."""
    slot, phase = _ring_position(step, STAGES)
    tlx.barrier_wait(tlx.local_view(full, slot), phase)
    a_half = tlx.local_slice(a_ring[slot], [cid * BM_HALF, 0], [BM_HALF, BK])
    acc = tlx.async_dot(a_half, b_ring[slot])
    previous = slot
    step += 1
    for k in range(1, k_tiles):
        slot, phase = _ring_position(step, STAGES)
        tlx.barrier_wait(tlx.local_view(full, slot), phase)
        a_half = tlx.local_slice(a_ring[slot], [cid * BM_HALF, 0], [BM_HALF, BK])
        acc = tlx.async_dot(a_half, b_ring[slot], acc)
        # The wgmma of step k - 1 is done: its slot can be refilled.
        acc = tlx.async_dot_wait(1, acc)
        tlx.barrier_arrive(tlx.local_view(empty, previous))
        previous = slot
        step += 1
    acc = tlx.async_dot_wait(0, acc)
    tlx.barrier_arrive(tlx.local_view(empty, previous))
    return acc, step


@triton.jit
def _store_c(c, c_desc, c_tiles, full, empty, step, offsets, cid: tl.constexpr, BM_HALF: tl.constexpr,
             BN: tl.constexpr, STAGES: tl.constexpr, ALIAS: tl.constexpr, C_SPLIT: tl.constexpr,
             NUM_MMA_GROUPS: tl.constexpr):
    """The epilogue: consumer cid's C tile through shared memory with TMA,
    in the slot(s) the producer lent (aliased) or in its own C tile.
    Returns the next ring step."""
    if ALIAS and C_SPLIT == 2:  # one lent slot: this consumer's rows of it, left half, then right half
        slot, phase = _ring_position(step, STAGES)
        tlx.barrier_wait(tlx.local_view(full, slot), phase)  # lent: nobody reads it now
        rows = tlx.local_slice(c_tiles[slot], [cid * BM_HALF, 0], [BM_HALF, BN // 2])
        left, right = tl.split(tl.permute(tl.reshape(c, (BM_HALF, 2, BN // 2)), (0, 2, 1)))
        tlx.local_store(rows, left)
        tlx.fence_async_shared()
        tlx.async_descriptor_store(c_desc, rows, offsets)
        tlx.async_descriptor_store_wait(0)  # read: the right half may overwrite it
        tlx.local_store(rows, right)
        tlx.fence_async_shared()
        tlx.async_descriptor_store(c_desc, rows, [offsets[0], offsets[1] + BN // 2])
        tlx.async_descriptor_store_wait(0)
        tlx.barrier_arrive(tlx.local_view(empty, slot))
        step += 1
    elif ALIAS:  # a lent slot per consumer: it stores through slot cid and releases the other's at once
        for j in tl.static_range(NUM_MMA_GROUPS):
            slot, phase = _ring_position(step, STAGES)
            tlx.barrier_wait(tlx.local_view(full, slot), phase)  # lent: nobody reads it now
            if j == cid:
                tlx.local_store(c_tiles[slot], c)
                tlx.fence_async_shared()
                tlx.async_descriptor_store(c_desc, c_tiles[slot], offsets)
                tlx.async_descriptor_store_wait(0)
            tlx.barrier_arrive(tlx.local_view(empty, slot))
            step += 1
    else:
        tlx.async_descriptor_store_wait(0)  # the previous tile's store has read c_tiles[cid]
        tlx.local_store(c_tiles[cid], c)
        tlx.fence_async_shared()
        tlx.async_descriptor_store(c_desc, c_tiles[cid], offsets)
    return step


@triton.jit
def _consume(a_ring, b_ring, c_tiles, full, empty, c_desc, num_tiles, num_pid_m, num_pid_n, k_tiles,
             cid: tl.constexpr, NUM_SMS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
             GROUP_SIZE_M: tl.constexpr, STAGES: tl.constexpr, ALIAS: tl.constexpr, C_SPLIT: tl.constexpr,
             NUM_MMA_GROUPS: tl.constexpr, dtype: tl.constexpr):
    """Consumer cid: rows [cid * BM/2, (cid + 1) * BM/2) of each of its
    program's tiles, multiplied and stored."""
    BM_HALF: tl.constexpr = BM // NUM_MMA_GROUPS
    step = 0
    for tile_id in range(tl.program_id(0), num_tiles, NUM_SMS):
        pid_m, pid_n = _tile_coords(tile_id, num_pid_m, num_pid_n, GROUP_SIZE_M)
        acc, step = _multiply(a_ring, b_ring, full, empty, step, k_tiles, cid, BM_HALF, BK, STAGES)

        c = acc.to(dtype)
        offsets = [pid_m * BM + cid * BM_HALF, pid_n * BN]
        step = _store_c(c, c_desc, c_tiles, full, empty, step, offsets, cid, BM_HALF, BN, STAGES, ALIAS, C_SPLIT,
                        NUM_MMA_GROUPS)
    if not ALIAS:
        tlx.async_descriptor_store_wait(0)


@triton.jit
def gemm_ws_persistent_kernel(a_desc, b_desc, c_desc, M, N, K, NUM_SMS: tl.constexpr, BM: tl.constexpr,
                              BN: tl.constexpr, BK: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                              STAGES: tl.constexpr, ALIAS: tl.constexpr, C_SPLIT: tl.constexpr = 2):
    NUM_MMA_GROUPS: tl.constexpr = 2
    BM_HALF: tl.constexpr = BM // NUM_MMA_GROUPS
    dtype: tl.constexpr = tlx.dtype_of(a_desc)

    if ALIAS:
        spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
        a_ring = tlx.local_alloc((BM, BK), dtype, STAGES, reuse=spec)
        b_ring = tlx.local_alloc((BK, BN), dtype, STAGES, reuse=spec)
        # C_SPLIT 1: one consumer's C tile per lent slot; 2: both consumers'
        # column halves (BM x BN/2) in one lent slot, stored half after half.
        c_tiles = tlx.local_alloc((BM_HALF * C_SPLIT, BN // C_SPLIT), dtype, STAGES, reuse=spec)
        # A slot is its A and B tiles side by side; C tile i is laid over slot i.
        spec.set_buffer_overlap(
            tlx.reuse_group(tlx.reuse_group(a_ring, b_ring, group_type=tlx.reuse_group_type.distinct), c_tiles,
                            group_type=tlx.reuse_group_type.shared))
    else:
        a_ring = tlx.local_alloc((BM, BK), dtype, STAGES)
        b_ring = tlx.local_alloc((BK, BN), dtype, STAGES)
        c_tiles = tlx.local_alloc((BM_HALF, BN), dtype, NUM_MMA_GROUPS)
    full = tlx.alloc_barriers(num_barriers=STAGES, arrive_count=1)
    empty = tlx.alloc_barriers(num_barriers=STAGES, arrive_count=NUM_MMA_GROUPS)

    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_tiles = num_pid_m * num_pid_n
    k_tiles = tl.cdiv(K, BK)

    with tlx.async_tasks():
        with tlx.async_task("default"):  # producer
            _load_operands(a_desc, b_desc, a_ring, b_ring, full, empty, num_tiles, num_pid_m, num_pid_n, k_tiles,
                           NUM_SMS, BM, BN, BK, GROUP_SIZE_M, STAGES, ALIAS, C_SPLIT, NUM_MMA_GROUPS, dtype)
        with tlx.async_task(num_warps=4, registers=232, replicate=NUM_MMA_GROUPS):  # consumers
            cid: tl.constexpr = tlx.async_task_replica_id()
            _consume(a_ring, b_ring, c_tiles, full, empty, c_desc, num_tiles, num_pid_m, num_pid_n, k_tiles, cid,
                     NUM_SMS, BM, BN, BK, GROUP_SIZE_M, STAGES, ALIAS, C_SPLIT, NUM_MMA_GROUPS, dtype)


def smem_bytes(BM, BN, BK, STAGES, ALIAS, itemsize=2):
    """Shared memory of the buffers (barriers aside), for choosing configs."""
    slot = (BM * BK + BK * BN) * itemsize
    c_tile = BM // 2 * BN * itemsize
    return STAGES * max(slot, c_tile) if ALIAS else STAGES * slot + 2 * c_tile


def matmul(a, b, BM=128, BN=256, BK=64, GROUP_SIZE_M=8, STAGES=None, ALIAS=True, C_SPLIT=2, num_sms=None):
    """C = A @ B for row-major fp16/bf16 A (M x K) and B (K x N) on a Hopper GPU."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    STAGES = STAGES or (4 if ALIAS else 3)
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    num_sms = num_sms or torch.cuda.get_device_properties(a.device).multi_processor_count
    a_desc = TensorDescriptor.from_tensor(a, [BM, BK])
    b_desc = TensorDescriptor.from_tensor(b, [BK, BN])
    C_SPLIT = C_SPLIT if ALIAS else 1
    c_desc = TensorDescriptor.from_tensor(c, [BM // 2, BN // C_SPLIT])
    grid = (min(num_sms, triton.cdiv(M, BM) * triton.cdiv(N, BN)), )
    gemm_ws_persistent_kernel[grid](a_desc, b_desc, c_desc, M, N, K, NUM_SMS=num_sms, BM=BM, BN=BN, BK=BK,
                                    GROUP_SIZE_M=GROUP_SIZE_M, STAGES=STAGES, ALIAS=ALIAS, C_SPLIT=C_SPLIT, num_warps=4,
                                    num_stages=1)
    return c


def compile_for_sm90(BM=128, BN=256, BK=64, STAGES=4, ALIAS=True, NUM_SMS=132, C_SPLIT=2):
    """The kernel compiled for sm_90 without a GPU (TMA descriptors as a launch passes them)."""
    from triton.backends.compiler import GPUTarget
    C_SPLIT = C_SPLIT if ALIAS else 1
    constexprs = dict(NUM_SMS=NUM_SMS, BM=BM, BN=BN, BK=BK, GROUP_SIZE_M=8, STAGES=STAGES, ALIAS=ALIAS, C_SPLIT=C_SPLIT)
    signature = {"a_desc": f"tensordesc<fp16[{BM}, {BK}]>", "b_desc": f"tensordesc<fp16[{BK}, {BN}]>",
                 "c_desc": f"tensordesc<fp16[{BM // 2}, {BN // C_SPLIT}]>", "M": "i32", "N": "i32", "K": "i32",
                 **{name: "constexpr" for name in constexprs}}
    src = triton.compiler.ASTSource(fn=gemm_ws_persistent_kernel, signature=signature, constexprs=constexprs)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4, "num_stages": 1})


if __name__ == "__main__":
    for alias, stages in ((True, 4), (False, 3)):
        kernel = compile_for_sm90(STAGES=stages, ALIAS=alias)
        print(f"ALIAS={alias}, {stages} stages: {kernel.metadata.shared} bytes of shared memory "
              f"({smem_bytes(128, 256, 64, stages, alias)} in buffers)")
        if alias:
            tlx.print_memory_map(kernel)
        print()
