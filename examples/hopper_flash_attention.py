"""Flash-attention forward for Hopper whose O epilogue tile lives in the Q
tile's storage (Q is dead once a tile's last QK^T has run, O is born after
it), or (O_STAGING "v") in a V ring slot. A producer warp group loads Q and
a K/V ring with TMA; two consumer warp groups each own half of a 128-row Q
tile, take turns issuing their wgmmas ("ping-pong") and overlap QK^T of block
j with PV of block j - 1; the kernel is persistent. The design, the
shared-memory budget of each config and why the defaults are what they are:
docs/design/attention.md.

    python examples/hopper_flash_attention.py     # compile for sm_90 here, print the memory map
    python benchmarks/attention.py                # on an H100/H200: correctness and speed
"""
import math

import triton
import triton.language as tl

import tlx_alias as tlx
from hopper_flash_attention_config import (  # noqa: F401  (smem_bytes: for callers)
    block_order, check_flag, check_inputs, check_late_pv_wait, check_rescale_skip, check_thread_arrives,
    consumer_registers_for, default_cluster, default_config, default_groups, default_issue, default_schedule,
    smem_bytes)

from hopper_flash_attention_producer import _load_tiles
from hopper_flash_attention_softmax import (block_softmax, fast_log2, online_softmax_waiting_pv, rescale_moved,
                                            row_sums_of, to_16bit)
from hopper_flash_attention_tiles import (_block_start, _dynamic_coords, _kv_part, _meet_cluster, _published_tile,
                                         _ring, _table_entry, _tile_coords, _tile_rows, _tiles_of, check_cluster,
                                         check_tile_order, grid_size, resident_clusters, tile_table_tensor)

LOG2E = 1.4426950408889634


@triton.jit
def _qk(q, q_regs, k_tile, Q_REG_COLS: tl.constexpr):
    """Issues S = Q K^T. Q's first Q_REG_COLS columns come from registers
    (q_regs), so that wgmma reads only K's bytes for them; the rest from
    shared memory in slices of doubling width (slices are powers of two;
    four doublings reach head dim 256 from 16 columns)."""
    if Q_REG_COLS == 0:
        qk = tlx.async_dot(q, tlx.local_trans(k_tile))
    else:
        qk = tlx.async_dot(q_regs, tlx.local_trans(tlx.local_slice(k_tile, [0, 0], [k_tile.shape[0], Q_REG_COLS])))
        for shift in tl.static_range(0, 4):  # columns [Q_REG_COLS << shift, 2 * (Q_REG_COLS << shift))
            if (Q_REG_COLS << shift) < q.shape[1]:
                q_part = tlx.local_slice(q, [0, Q_REG_COLS << shift], [q.shape[0], Q_REG_COLS << shift])
                k_part = tlx.local_slice(k_tile, [0, Q_REG_COLS << shift], [k_tile.shape[0], Q_REG_COLS << shift])
                qk = tlx.async_dot(q_part, tlx.local_trans(k_part), qk)
    return qk


@triton.jit
def _kv_step(kv_count, v_shift, kv_start, q, k_tiles, v_tiles, k_fulls, k_empties, v_fulls, v_empties, acc, p, m_i,
             l_i, qk_scale, offs_m, diagonal, cid: tl.constexpr, K_STAGES: tl.constexpr, V_STAGES: tl.constexpr,
             BLOCK_N: tl.constexpr, MASK: tl.constexpr, TURNS: tl.constexpr, q_regs=None,
             Q_REG_COLS: tl.constexpr = 0, P16: tl.constexpr = "", RESCALE_SKIP: tl.constexpr = -1.0,
             PV_IN_TURN: tl.constexpr = False, LATE_PV_WAIT: tl.constexpr = False):
    """K/V block kv_count of a consumer: QK^T of this block runs while PV of
    the one before (its V at ring position kv_count - 1 + v_shift) is issued,
    then this block's softmax. MASK: "none", "all" (the causal mask) or
    "diagonal" (the mask where the block reaches the diagonal).
    PV_IN_TURN: the next consumer's turn starts once this consumer has
    issued PV too (FlashAttention-3's order), else once it issued QK^T.
    LATE_PV_WAIT (with RESCALE_SKIP): PV is waited for inside the rescale's
    asm, after the softmax, so that the softmax overlaps this PV; "half"
    (P in 16 bits): after the exp2s of half the block's columns."""
    slot, phase = _ring(kv_count, K_STAGES)
    tlx.barrier_wait(k_fulls[slot], phase)
    _issue_in_turn(cid, TURNS)
    qk = _qk(q, q_regs, k_tiles[slot], Q_REG_COLS)
    _issued(cid, 0 if PV_IN_TURN else TURNS)
    v_slot, v_phase = _ring(kv_count - 1 + v_shift, V_STAGES)
    tlx.barrier_wait(v_fulls[v_slot], v_phase)
    acc = tlx.async_dot(p.to(q.dtype), v_tiles[v_slot], acc)
    _issued(cid, TURNS if PV_IN_TURN else 0)
    qk = tlx.async_dot_wait(1, qk)
    tlx.barrier_arrive(k_empties[slot])
    masked = MASK == "all" or (MASK == "diagonal" and kv_start + BLOCK_N > diagonal)
    if LATE_PV_WAIT == "half":  # the rescale's asm waits for PV amid the exp2s, and rescales
        p32, m_i, l_i, acc = online_softmax_waiting_pv(qk, m_i, l_i, qk_scale, offs_m, kv_start, acc, masked,
                                                       BLOCK_N, RESCALE_SKIP)
    else:
        p32, m_i, l_i, alpha = block_softmax(qk, m_i, l_i, qk_scale, offs_m, kv_start, masked, BLOCK_N, P16,
                                             q.shape[1], RESCALE_SKIP)
    if P16 != "":  # P waits for its PV in 16 bits: half the registers (three consumers have 160)
        p = to_16bit(p32, q.dtype, P16)
    else:
        p = p32
    if LATE_PV_WAIT and LATE_PV_WAIT != "half":  # the rescale's asm waits for PV, after the softmax
        acc = rescale_moved(acc, alpha, True)
    # with the wait in an asm this one finds nothing in flight, and keeps V's release after a wait in the IR
    acc = tlx.async_dot_wait(0, acc)
    tlx.barrier_arrive(v_empties[v_slot])
    if not LATE_PV_WAIT:
        if RESCALE_SKIP >= 0:  # a warp whose rows' maxima stayed put (every alpha 1) skips the multiplies
            acc = rescale_moved(acc, alpha)
        else:
            acc = acc * alpha[:, None]
    return acc, p, m_i, l_i


@triton.jit
def _issue_in_turn(cid: tl.constexpr, TURNS: tl.constexpr):
    """TURNS consumers issue their wgmmas in turn (ping-pong, round robin with
    three; 0: no turns): consumer c waits on named barrier 9 + c, which the
    consumer before it arrives on once it has issued (256 threads); the last
    consumer's bootstrap arrive lets it go first."""
    if TURNS:
        tlx.named_barrier_wait(9 + cid, 256)


@triton.jit
def _issued(cid: tl.constexpr, TURNS: tl.constexpr):
    if TURNS:
        tlx.named_barrier_arrive(9 + (cid + 1) % TURNS, 256)


@triton.jit
def _first_block(kv_count, tile_count, v_shift, lo, hi, q, q_regs, k_tiles, k_fulls, k_empties, q_empties, v_empties,
                 m_i, l_i, qk_scale, offs_m, diagonal, cid: tl.constexpr, BLOCK_M: tl.constexpr,
                 BLOCK_N: tl.constexpr, K_STAGES: tl.constexpr, V_STAGES: tl.constexpr, Q_BUFFERS: tl.constexpr,
                 CAUSAL: tl.constexpr, BLOCK_ORDER: tl.constexpr, O_OVER_V: tl.constexpr, O_ENTRIES: tl.constexpr,
                 LATE_HANDBACK: tl.constexpr, TURNS: tl.constexpr, Q_REG_COLS: tl.constexpr, P16: tl.constexpr):
    """A tile's first K/V block: QK^T alone (no PV is pending yet); with a
    late handback the previous tile's O buffer goes back here; then the
    block's softmax."""
    slot, phase = _ring(kv_count, K_STAGES)
    tlx.barrier_wait(k_fulls[slot], phase)
    _issue_in_turn(cid, TURNS)
    qk = _qk(q, q_regs, k_tiles[slot], Q_REG_COLS)
    _issued(cid, TURNS)
    qk = tlx.async_dot_wait(0, qk)
    tlx.barrier_arrive(k_empties[slot])
    if LATE_HANDBACK and tile_count > 0:
        # The previous tile's O store has had this QK^T's time to
        # read O: only now wait for it, and hand its buffer back
        # (a Q buffer for the tile after this one, or a V slot).
        tlx.async_descriptor_store_wait(0)
        if O_OVER_V:
            tlx.barrier_arrive(v_empties[(kv_count + v_shift - O_ENTRIES + cid) % V_STAGES])
        else:
            tlx.barrier_arrive(q_empties[cid * Q_BUFFERS + (tile_count - 1) % Q_BUFFERS])
    first = _block_start(lo, lo, hi, BLOCK_M, BLOCK_N, BLOCK_ORDER)
    masked = BLOCK_ORDER != "ascending" or (CAUSAL and first + BLOCK_N > diagonal)
    p, m_i, l_i, alpha = block_softmax(qk, m_i, l_i, qk_scale, offs_m, first, masked, BLOCK_N, P16, q.shape[1])
    if P16 != "":
        p = to_16bit(p, q.dtype, P16)
    return p, m_i, l_i


@triton.jit
def _other_blocks(kv_count, v_shift, lo, hi, q, q_regs, k_tiles, v_tiles, k_fulls, k_empties, v_fulls, v_empties, m_i,
                  l_i, acc, p, qk_scale, offs_m, diagonal, cid: tl.constexpr, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, K_STAGES: tl.constexpr, V_STAGES: tl.constexpr, CAUSAL: tl.constexpr,
                  BLOCK_ORDER: tl.constexpr, TURNS: tl.constexpr, Q_REG_COLS: tl.constexpr, P16: tl.constexpr,
                  RESCALE_SKIP: tl.constexpr, PV_IN_TURN: tl.constexpr, LATE_PV_WAIT: tl.constexpr):
    """A tile's K/V blocks after its first: block j's QK^T runs while
    PV(j - 1) is issued. Returns the state and the next kv_count. (The
    loops carry their state in parameter order: kv_count, m_i, l_i, acc, p
    keeps the registers as they were when this ran inline in the kernel.)"""
    if BLOCK_ORDER != "ascending":
        for i in tl.static_range(1, BLOCK_M // BLOCK_N):  # the diagonal's other blocks
            kv_start = _block_start(lo + i * BLOCK_N, lo, hi, BLOCK_M, BLOCK_N, BLOCK_ORDER)
            acc, p, m_i, l_i = _kv_step(kv_count, v_shift, kv_start, q, k_tiles, v_tiles, k_fulls, k_empties, v_fulls,
                                        v_empties, acc, p, m_i, l_i, qk_scale, offs_m, diagonal, cid, K_STAGES,
                                        V_STAGES, BLOCK_N, "all", TURNS, q_regs, Q_REG_COLS, P16, RESCALE_SKIP,
                                        PV_IN_TURN, LATE_PV_WAIT)
            kv_count += 1
        for kv_pos in range(lo + BLOCK_M, hi, BLOCK_N):  # the blocks left of it: no mask
            kv_start = _block_start(kv_pos, lo, hi, BLOCK_M, BLOCK_N, BLOCK_ORDER)
            acc, p, m_i, l_i = _kv_step(kv_count, v_shift, kv_start, q, k_tiles, v_tiles, k_fulls, k_empties, v_fulls,
                                        v_empties, acc, p, m_i, l_i, qk_scale, offs_m, diagonal, cid, K_STAGES,
                                        V_STAGES, BLOCK_N, "none", TURNS, q_regs, Q_REG_COLS, P16, RESCALE_SKIP,
                                        PV_IN_TURN, LATE_PV_WAIT)
            kv_count += 1
    elif CAUSAL and BLOCK_M % BLOCK_N != 0:  # 192 x 128: the last two blocks reach the diagonal
        start, end = _kv_part(1, lo, hi, diagonal, BLOCK_N, True)  # the producer's loops too
        for kv_pos in range(start, end, BLOCK_N):
            acc, p, m_i, l_i = _kv_step(kv_count, v_shift, kv_pos, q, k_tiles, v_tiles, k_fulls, k_empties, v_fulls,
                                        v_empties, acc, p, m_i, l_i, qk_scale, offs_m, diagonal, cid, K_STAGES,
                                        V_STAGES, BLOCK_N, "none", TURNS, q_regs, Q_REG_COLS, P16, RESCALE_SKIP,
                                        PV_IN_TURN, LATE_PV_WAIT)
            kv_count += 1
        start, end = _kv_part(2, lo, hi, diagonal, BLOCK_N, True)
        for kv_pos in range(start, end, BLOCK_N):
            acc, p, m_i, l_i = _kv_step(kv_count, v_shift, kv_pos, q, k_tiles, v_tiles, k_fulls, k_empties, v_fulls,
                                        v_empties, acc, p, m_i, l_i, qk_scale, offs_m, diagonal, cid, K_STAGES,
                                        V_STAGES, BLOCK_N, "all", TURNS, q_regs, Q_REG_COLS, P16, RESCALE_SKIP,
                                        PV_IN_TURN, LATE_PV_WAIT)
            kv_count += 1
    else:
        for kv_pos in range(lo + BLOCK_N, hi, BLOCK_N):
            kv_start = _block_start(kv_pos, lo, hi, BLOCK_M, BLOCK_N, BLOCK_ORDER)
            acc, p, m_i, l_i = _kv_step(kv_count, v_shift, kv_start, q, k_tiles, v_tiles, k_fulls, k_empties, v_fulls,
                                        v_empties, acc, p, m_i, l_i, qk_scale, offs_m, diagonal, cid, K_STAGES,
                                        V_STAGES, BLOCK_N, "diagonal" if CAUSAL else "none", TURNS, q_regs, Q_REG_COLS,
                                        P16, RESCALE_SKIP, PV_IN_TURN, LATE_PV_WAIT)
            kv_count += 1
    return acc, p, m_i, l_i, kv_count


@triton.jit
def _store_o(acc, m_i, l_i, lse_ptr, desc_o, o_tiles, q_empties, v_fulls, v_empties, kv_count, v_shift, qb, off_hz,
             row0, first_row, offs_m, N_CTX, cid: tl.constexpr, BM_HALF: tl.constexpr,
             V_STAGES: tl.constexpr, O_OVER_Q: tl.constexpr, O_OVER_V: tl.constexpr, LATE_HANDBACK: tl.constexpr,
             CAUSAL: tl.constexpr, dtype: tl.constexpr):
    """The epilogue: O (and the log-sum-exp, natural log) of this consumer's
    rows, staged over its Q buffer, over the V slot the producer handed it,
    or (unaliased) in its own O tile, and stored with TMA. Rows past N_CTX
    or before 0 (192-row tiles: _tile_rows) are not stored: they belong to
    another head."""
    l_i = row_sums_of(l_i)
    rows_valid = first_row + cid * BM_HALF < N_CTX  # N_CTX is a multiple of BM_HALF
    if CAUSAL:
        rows_valid = rows_valid & (first_row + cid * BM_HALF >= 0)
    if rows_valid:
        tl.store(lse_ptr + off_hz * N_CTX + offs_m, (m_i + fast_log2(l_i)) * 0.6931471805599453)
    o = (acc * (1.0 / l_i)[:, None]).to(dtype)  # a division a row, not one an element
    if O_OVER_V:
        o_slot, o_phase = _ring(kv_count + v_shift + cid, V_STAGES)
        tlx.barrier_wait(v_fulls[o_slot], o_phase)  # the producer has handed the slot over
        o_tile = o_tiles[o_slot]
    elif O_OVER_Q:
        o_tile = o_tiles[qb]  # over this tile's Q, which no wgmma reads any more
    else:
        tlx.async_descriptor_store_wait(0)  # the previous tile's store has read o_tiles[cid]
        o_tile = o_tiles[cid]
    if rows_valid:
        tlx.local_store(o_tile, o)
        tlx.fence_async_shared()
        tlx.async_descriptor_store(desc_o, o_tile, [row0 + first_row + cid * BM_HALF, 0])
    if O_OVER_V:
        other_slot, other_phase = _ring(kv_count + v_shift + 1 - cid, V_STAGES)
        tlx.barrier_wait(v_fulls[other_slot], other_phase)
        tlx.barrier_arrive(v_empties[other_slot])  # the other consumer's O entry
        if not LATE_HANDBACK:
            tlx.async_descriptor_store_wait(0)
            tlx.barrier_arrive(v_empties[o_slot])
    if O_OVER_Q and not LATE_HANDBACK:
        tlx.async_descriptor_store_wait(0)  # the store has read O: Q's storage goes back
        tlx.barrier_arrive(q_empties[qb])


@triton.jit
def _attend_tile(cid: tl.constexpr, qk_scale, tile_count, kv_count, start_m, off_hz, num_pid_m, N_CTX, q_tiles,
                 q_fulls, k_fulls, k_tiles, k_empties, v_tiles, v_fulls, v_empties, lse_ptr, o_tiles, desc_o,
                 q_empties, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 K_STAGES: tl.constexpr, V_STAGES: tl.constexpr, Q_BUFFERS: tl.constexpr, CAUSAL: tl.constexpr,
                 ALIAS: tl.constexpr, BLOCK_ORDER: tl.constexpr, O_OVER_Q: tl.constexpr, O_OVER_V: tl.constexpr,
                 O_ENTRIES: tl.constexpr, LATE_HANDBACK: tl.constexpr, TURNS: tl.constexpr, Q_REG_COLS: tl.constexpr,
                 NUM_MMA_GROUPS: tl.constexpr, dtype: tl.constexpr, P16: tl.constexpr, RESCALE_SKIP: tl.constexpr,
                 PV_IN_TURN: tl.constexpr, LATE_PV_WAIT: tl.constexpr, CLUSTER: tl.constexpr,
                 LANE_SUMS: tl.constexpr):
    """Consumer cid's rows of its program's tile_count-th tile, from QK^T to
    the O store (LANE_SUMS: each thread keeps its share of the row sums,
    sums_like). Returns the next kv_count."""
    BM_HALF: tl.constexpr = BLOCK_M // NUM_MMA_GROUPS
    row0 = off_hz * N_CTX
    first_row, lo, hi = _tile_rows(start_m, num_pid_m, N_CTX, BLOCK_M, CAUSAL, CLUSTER)
    offs_m = first_row + cid * BM_HALF + tl.arange(0, BM_HALF)
    diagonal = first_row  # blocks from here on need the causal mask
    m_i = tl.zeros([BM_HALF], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM_HALF, 8] if LANE_SUMS else [BM_HALF], dtype=tl.float32) + (0.125 if LANE_SUMS else 1.0)
    acc = tl.zeros([BM_HALF, HEAD_DIM], dtype=tl.float32)
    q_buf, q_phase = _ring(tile_count, Q_BUFFERS)
    qb = cid * Q_BUFFERS + q_buf
    q = q_tiles[qb]
    v_shift = tile_count * O_ENTRIES  # block b's V is at V ring position b + v_shift
    tlx.barrier_wait(q_fulls[qb], q_phase)
    if Q_REG_COLS > 0:
        q_regs = tlx.local_load(tlx.local_slice(q, [0, 0], [BM_HALF, Q_REG_COLS]))
    else:
        q_regs = None

    p, m_i, l_i = _first_block(kv_count, tile_count, v_shift, lo, hi, q, q_regs, k_tiles, k_fulls, k_empties,
                               q_empties, v_empties, m_i, l_i, qk_scale, offs_m, diagonal, cid, BLOCK_M * CLUSTER,
                               BLOCK_N, K_STAGES, V_STAGES, Q_BUFFERS, CAUSAL, BLOCK_ORDER, O_OVER_V, O_ENTRIES,
                               LATE_HANDBACK, TURNS, Q_REG_COLS, P16)
    kv_count += 1
    acc, p, m_i, l_i, kv_count = _other_blocks(kv_count, v_shift, lo, hi, q, q_regs, k_tiles, v_tiles, k_fulls,
                                               k_empties, v_fulls, v_empties, m_i, l_i, acc, p, qk_scale, offs_m,
                                               diagonal, cid, BLOCK_M * CLUSTER, BLOCK_N, K_STAGES, V_STAGES,
                                               CAUSAL, BLOCK_ORDER, TURNS, Q_REG_COLS, P16, RESCALE_SKIP, PV_IN_TURN,
                                               LATE_PV_WAIT)
    if O_OVER_V:
        tlx.barrier_arrive(q_empties[qb])  # its last QK^T is done: the next Q can load

    # the last block's PV
    v_slot, v_phase = _ring(kv_count - 1 + v_shift, V_STAGES)
    tlx.barrier_wait(v_fulls[v_slot], v_phase)
    acc = tlx.async_dot(p.to(dtype), v_tiles[v_slot], acc)
    acc = tlx.async_dot_wait(0, acc)
    tlx.barrier_arrive(v_empties[v_slot])
    if not ALIAS:
        tlx.barrier_arrive(q_empties[qb])  # the next Q can load while O is stored

    _store_o(acc, m_i, l_i, lse_ptr, desc_o, o_tiles, q_empties, v_fulls, v_empties, kv_count, v_shift, qb, off_hz,
             row0, first_row, offs_m, N_CTX, cid, BM_HALF, V_STAGES, O_OVER_Q, O_OVER_V, LATE_HANDBACK, CAUSAL, dtype)
    return kv_count


@triton.jit
def _attend(cid: tl.constexpr, sm_scale, my_tiles, pid, nprogs, num_pid_m, tile_table, N_CTX, q_tiles, q_fulls, k_fulls,
            k_tiles, k_empties, v_tiles, v_fulls, v_empties, lse_ptr, o_tiles, desc_o, q_empties, tile_ids,
            HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, K_STAGES: tl.constexpr,
            V_STAGES: tl.constexpr, Q_BUFFERS: tl.constexpr, CAUSAL: tl.constexpr, TILE_ORDER: tl.constexpr,
            ALIAS: tl.constexpr, BLOCK_ORDER: tl.constexpr, O_OVER_Q: tl.constexpr, O_OVER_V: tl.constexpr,
            O_ENTRIES: tl.constexpr, LATE_Q_HANDBACK: tl.constexpr, PINGPONG: tl.constexpr, Q_REG_COLS: tl.constexpr,
            NUM_MMA_GROUPS: tl.constexpr, dtype: tl.constexpr, P_16BIT: tl.constexpr, RESCALE_SKIP: tl.constexpr,
            PV_IN_TURN: tl.constexpr, LATE_PV_WAIT: tl.constexpr, CLUSTER: tl.constexpr, LANE_SUMS: tl.constexpr):
    """Consumer cid: the rows [cid * BM_HALF, (cid + 1) * BM_HALF) of each of
    its program's tiles (_attend_tile); in the "dynamic" order each tile the
    producer wrote beside its Q, until it writes -1."""
    # wait for the O store only after the next tile's first QK^T (else at the
    # tile's end); over Q that needs a second Q buffer
    LATE_HANDBACK: tl.constexpr = LATE_Q_HANDBACK and (O_OVER_V or (O_OVER_Q and Q_BUFFERS > 1))
    TURNS: tl.constexpr = NUM_MMA_GROUPS if PINGPONG else 0
    # P in 16 bits ("cast", "asm": see to_16bit) or not (""); three consumers need it: 160 registers
    P16: tl.constexpr = ("asm" if CAUSAL and BLOCK_M % BLOCK_N else "cast") if P_16BIT or NUM_MMA_GROUPS == 3 else ""
    _meet_cluster(CLUSTER)
    if cid == NUM_MMA_GROUPS - 1:
        _issued(cid - 1, TURNS)  # meets its own first wait: the last consumer goes first
    qk_scale = sm_scale * 1.44269504
    kv_count = 0
    if TILE_ORDER == "dynamic":
        group_heads = tl.load(tile_table + 1)  # dynamic_group_heads
        tile_count = 0
        tile = _published_tile(tile_ids, q_fulls, cid * Q_BUFFERS, 0)
        while tile >= 0:
            start_m, off_hz = _dynamic_coords(tile, num_pid_m, my_tiles, group_heads, CLUSTER)
            kv_count = _attend_tile(cid, qk_scale, tile_count, kv_count, start_m, off_hz, num_pid_m, N_CTX, q_tiles,
                                    q_fulls, k_fulls, k_tiles, k_empties, v_tiles, v_fulls, v_empties, lse_ptr,
                                    o_tiles, desc_o, q_empties, HEAD_DIM, BLOCK_M, BLOCK_N, K_STAGES, V_STAGES,
                                    Q_BUFFERS, CAUSAL, ALIAS, BLOCK_ORDER, O_OVER_Q, O_OVER_V, O_ENTRIES,
                                    LATE_HANDBACK, TURNS, Q_REG_COLS, NUM_MMA_GROUPS, dtype, P16, RESCALE_SKIP,
                                    PV_IN_TURN, LATE_PV_WAIT, CLUSTER, LANE_SUMS)
            tile_count += 1
            q_buf, q_phase = _ring(tile_count, Q_BUFFERS)
            tile = _published_tile(tile_ids, q_fulls, cid * Q_BUFFERS + q_buf, q_phase)
    else:
        entry = _table_entry(0, pid, nprogs, my_tiles, tile_table, TILE_ORDER)
        for tile_count in range(0, my_tiles):
            start_m, off_hz = _tile_coords(tile_count, pid, nprogs, num_pid_m, entry, TILE_ORDER, CLUSTER)
            entry = _table_entry(tile_count + 1, pid, nprogs, my_tiles, tile_table, TILE_ORDER)
            kv_count = _attend_tile(cid, qk_scale, tile_count, kv_count, start_m, off_hz, num_pid_m, N_CTX, q_tiles,
                                    q_fulls, k_fulls, k_tiles, k_empties, v_tiles, v_fulls, v_empties, lse_ptr,
                                    o_tiles, desc_o, q_empties, HEAD_DIM, BLOCK_M, BLOCK_N, K_STAGES, V_STAGES,
                                    Q_BUFFERS, CAUSAL, ALIAS, BLOCK_ORDER, O_OVER_Q, O_OVER_V, O_ENTRIES,
                                    LATE_HANDBACK, TURNS, Q_REG_COLS, NUM_MMA_GROUPS, dtype, P16, RESCALE_SKIP,
                                    PV_IN_TURN, LATE_PV_WAIT, CLUSTER, LANE_SUMS)
    if not ALIAS or LATE_HANDBACK:
        tlx.async_descriptor_store_wait(0)
    _meet_cluster(CLUSTER)


@triton.jit
def attn_fwd_kernel(sm_scale, lse_ptr, Z, H, desc_q, desc_k, desc_v, desc_o, N_CTX, tile_table,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, K_STAGES: tl.constexpr,
                    V_STAGES: tl.constexpr, CAUSAL: tl.constexpr, TILE_ORDER: tl.constexpr, ALIAS: tl.constexpr,
                    Q_BUFFERS: tl.constexpr = 1, CONSUMER_REGISTERS: tl.constexpr = 232,
                    PINGPONG: tl.constexpr = True, LATE_Q_HANDBACK: tl.constexpr = True,
                    BLOCK_ORDER: tl.constexpr = "ascending", O_STAGING: tl.constexpr = "q",
                    Q_REG_COLS: tl.constexpr = 0, NUM_MMA_GROUPS: tl.constexpr = 2, P_16BIT: tl.constexpr = False,
                    RESCALE_SKIP: tl.constexpr = -1.0, PV_IN_TURN: tl.constexpr = False,
                    THREAD_ARRIVES: tl.constexpr = "kqv", CLUSTER: tl.constexpr = 1, LATE_PV_WAIT: tl.constexpr = False,
                    LANE_SUMS: tl.constexpr = False, L2_HINTS: tl.constexpr = False):
    BM_HALF: tl.constexpr = BLOCK_M // NUM_MMA_GROUPS
    dtype: tl.constexpr = tlx.dtype_of(desc_q)
    # Where each consumer stages its O tile for the TMA store: over its Q
    # buffer ("q"), or (O_STAGING "v") over a V ring slot that the producer
    # hands it at the tile's end, so that Q goes back after the last QK^T and
    # the next tile's Q loads while this tile's last PV and O store run.
    O_OVER_Q: tl.constexpr = ALIAS and O_STAGING == "q"
    O_OVER_V: tl.constexpr = ALIAS and O_STAGING == "v"
    # V ring entries per tile beside its K/V blocks: one O entry per consumer
    O_ENTRIES: tl.constexpr = NUM_MMA_GROUPS if O_OVER_V else 0
    tl.static_assert(O_STAGING == "q" or O_STAGING == "v", "O_STAGING must be \"q\" or \"v\"")
    tl.static_assert(BLOCK_ORDER == "ascending" or CAUSAL and BLOCK_M % BLOCK_N == 0,
                     "BLOCK_ORDER: the diagonal first needs a causal tile of whole K/V blocks (block_order)")

    if O_OVER_Q:
        spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
        q_tiles = tlx.local_alloc((BM_HALF, HEAD_DIM), dtype, NUM_MMA_GROUPS * Q_BUFFERS, reuse=spec)
        o_tiles = tlx.local_alloc((BM_HALF, HEAD_DIM), dtype, NUM_MMA_GROUPS * Q_BUFFERS, reuse=spec)
        spec.set_buffer_overlap(tlx.reuse_group(q_tiles, o_tiles, group_type=tlx.reuse_group_type.shared))
    else:
        q_tiles = tlx.local_alloc((BM_HALF, HEAD_DIM), dtype, NUM_MMA_GROUPS * Q_BUFFERS)
        if not ALIAS:
            o_tiles = tlx.local_alloc((BM_HALF, HEAD_DIM), dtype, NUM_MMA_GROUPS)
    k_tiles = tlx.local_alloc((BLOCK_N, HEAD_DIM), dtype, K_STAGES)
    if O_OVER_V:  # V slot s and O tile s share storage
        spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
        v_tiles = tlx.local_alloc((BLOCK_N, HEAD_DIM), dtype, V_STAGES, reuse=spec)
        o_tiles = tlx.local_alloc((BM_HALF, HEAD_DIM), dtype, V_STAGES, reuse=spec)
        spec.set_buffer_overlap(tlx.reuse_group(v_tiles, o_tiles, group_type=tlx.reuse_group_type.shared))
    else:
        v_tiles = tlx.local_alloc((BLOCK_N, HEAD_DIM), dtype, V_STAGES)

    # Q buffer (cid, b) is q_tiles[cid * Q_BUFFERS + b]; tile t of a program uses b = t % Q_BUFFERS.
    q_fulls = tlx.alloc_barriers(num_barriers=NUM_MMA_GROUPS * Q_BUFFERS, arrive_count=1)
    k_fulls = tlx.alloc_barriers(num_barriers=K_STAGES, arrive_count=1)
    # THREAD_ARRIVES "kqv": the consumers hand K, Q and V slots back by every
    # thread's own arrive (warp barriers: no warp-group bar.sync before it);
    # "kq": V by a leader's; "": all by a leader's
    q_empties = tlx.alloc_warp_barrier(num_barriers=NUM_MMA_GROUPS * Q_BUFFERS, num_warps=4) \
        if THREAD_ARRIVES != "" else tlx.alloc_barriers(num_barriers=NUM_MMA_GROUPS * Q_BUFFERS, arrive_count=1)
    k_empties = tlx.alloc_warp_barrier(num_barriers=K_STAGES, num_warps=4 * NUM_MMA_GROUPS) \
        if THREAD_ARRIVES != "" else tlx.alloc_barriers(num_barriers=K_STAGES, arrive_count=NUM_MMA_GROUPS)
    # With O over V the V ring holds, after each tile's blocks, one entry per
    # consumer that the producer fills with nothing: consumer c stages its O
    # in entry c, the other consumer releases it at once.
    v_fulls = tlx.alloc_barriers(num_barriers=V_STAGES, arrive_count=1)
    v_empties = tlx.alloc_warp_barrier(num_barriers=V_STAGES, num_warps=4 * NUM_MMA_GROUPS) \
        if THREAD_ARRIVES == "kqv" else tlx.alloc_barriers(num_barriers=V_STAGES, arrive_count=NUM_MMA_GROUPS)
    # in a cluster rank 0's producer waits here for the other CTA's consumers to free a slot (_load_kv)
    k_peer_empties = tlx.alloc_barriers(num_barriers=K_STAGES, arrive_count=1) if CLUSTER > 1 else None
    v_peer_empties = tlx.alloc_barriers(num_barriers=V_STAGES, arrive_count=1) if CLUSTER > 1 else None
    # "dynamic": the tile each consumer's Q buffer is loaded for (_publish_tile)
    tile_ids = tlx.local_alloc((1, ), tl.int32, NUM_MMA_GROUPS * Q_BUFFERS) if TILE_ORDER == "dynamic" else None
    num_pid_m = tl.cdiv(N_CTX, BLOCK_M)
    pid = tl.program_id(0)
    nprogs = tl.num_programs(0)
    my_tiles = _tiles_of(pid, nprogs, num_pid_m, Z * H, tile_table, TILE_ORDER, CLUSTER)
    with tlx.async_tasks():
        with tlx.async_task("default"):  # producer: Q halves, then the K/V blocks of the tile
            _load_tiles(desc_q, desc_k, desc_v, q_tiles, k_tiles, v_tiles, q_fulls, q_empties, k_fulls, k_empties,
                        v_fulls, v_empties, k_peer_empties, v_peer_empties, tile_ids, my_tiles, pid, nprogs,
                        num_pid_m, tile_table, N_CTX, HEAD_DIM, BLOCK_M, BLOCK_N, K_STAGES, V_STAGES, Q_BUFFERS, CAUSAL,
                        TILE_ORDER, BLOCK_ORDER, O_OVER_V, O_ENTRIES, NUM_MMA_GROUPS, dtype, CLUSTER, L2_HINTS)
        with tlx.async_task(num_warps=4, registers=CONSUMER_REGISTERS, replicate=NUM_MMA_GROUPS):  # consumers
            cid: tl.constexpr = tlx.async_task_replica_id()
            _attend(cid, sm_scale, my_tiles, pid, nprogs, num_pid_m, tile_table, N_CTX, q_tiles, q_fulls, k_fulls,
                    k_tiles, k_empties, v_tiles, v_fulls, v_empties, lse_ptr, o_tiles, desc_o, q_empties, tile_ids,
                    HEAD_DIM, BLOCK_M, BLOCK_N, K_STAGES, V_STAGES, Q_BUFFERS, CAUSAL, TILE_ORDER, ALIAS, BLOCK_ORDER,
                    O_OVER_Q, O_OVER_V, O_ENTRIES, LATE_Q_HANDBACK, PINGPONG, Q_REG_COLS, NUM_MMA_GROUPS, dtype,
                    P_16BIT, RESCALE_SKIP, PV_IN_TURN, LATE_PV_WAIT, CLUSTER, LANE_SUMS)


def attention(q, k, v, causal=False, sm_scale=None, alias=True, block_n=None, stages=None, q_buffers=None,
              num_sms=None, return_lse=False, consumer_registers=None, v_stages=None, pingpong=True,
              late_q_handback=True, diagonal_first=None, o_staging=None, q_reg_cols=None, groups=None,
              p_16bit=None, rescale_skip=None, pv_in_turn=None, tile_order=None, thread_arrives=None, cluster=None,
              late_pv_wait=None, lane_sums=None, l2_hints=False, kv_order=None, table_heads=None):
    """softmax(Q K^T * sm_scale) V for (batch, heads, N, head_dim) fp16/bf16 tensors on a Hopper GPU
    (N a multiple of 128; head_dim 64, 128 or 256). Options left at None take
    default_config, default_groups, default_issue and default_schedule's choices; what each
    option does: docs/design/attention.md ("attention()'s options")."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    Z, H, N_CTX, HEAD_DIM = check_inputs(q, k, v)
    groups = groups or (2 if o_staging == "v" else default_groups(HEAD_DIM, causal, N_CTX))
    if groups not in (2, 3) or (groups == 3 and o_staging == "v"):
        raise ValueError(f"attention: groups (consumer warp groups) must be 2 or 3 (2 with O over V), got {groups}")
    BLOCK_M = 64 * groups
    if N_CTX % 128:
        raise ValueError(f"attention: the sequence length must be a multiple of 128, got {N_CTX}")
    schedule = default_schedule(HEAD_DIM, N_CTX, alias, block_n, stages, v_stages, q_buffers)
    o_staging, v_stages = o_staging or schedule["o_staging"], v_stages or schedule["v_stages"]
    q_reg_cols = schedule["q_reg_cols"] if q_reg_cols is None else q_reg_cols
    num_pid_m = triton.cdiv(N_CTX, BLOCK_M)
    tile_order = tile_order or ("table" if causal else "rows")
    head_bytes = 2 * N_CTX * HEAD_DIM * q.element_size()  # a head's K and V
    table_heads = check_tile_order(tile_order, causal, num_pid_m, head_bytes, table_heads)
    cluster = check_cluster(cluster or default_cluster(HEAD_DIM, causal, N_CTX, tile_order, o_staging, num_pid_m),
                            tile_order, o_staging, num_pid_m)
    issue = default_issue(HEAD_DIM, causal, N_CTX, cluster)
    p_16bit, pv_in_turn = (issue[0] if p_16bit is None else p_16bit), (issue[1] if pv_in_turn is None else pv_in_turn)
    thread_arrives = check_thread_arrives(issue[2] if thread_arrives is None else thread_arrives)
    rescale_skip = check_rescale_skip(issue[3] if rescale_skip is None else rescale_skip)
    late_pv_wait = check_late_pv_wait(issue[4] if late_pv_wait is None else late_pv_wait, rescale_skip, p_16bit,
                                      groups)
    consumer_registers = consumer_registers or consumer_registers_for(groups, late_pv_wait,
                                                                      schedule["consumer_registers"])
    if o_staging not in ("q", "v"):
        raise ValueError(f"attention: o_staging must be 'q' (O over Q) or 'v' (O over V slots), got {o_staging!r}")
    if o_staging == "v" and not alias:
        raise ValueError("attention: o_staging='v' lays O over V slots, which needs alias=True")
    if q_reg_cols and (q_reg_cols > HEAD_DIM or q_reg_cols & (q_reg_cols - 1) or q_reg_cols < 16):
        raise ValueError(f"attention: q_reg_cols must be 0 or a power of two from 16 to head_dim ({HEAD_DIM}), "
                         f"got {q_reg_cols}")
    default_n, default_stages, default_q = default_config(HEAD_DIM, alias)
    block_n, stages, q_buffers = block_n or default_n, stages or default_stages, q_buffers or default_q
    v_stages = v_stages or stages
    order = block_order((HEAD_DIM > 64 or N_CTX <= 1024) if diagonal_first is None else diagonal_first, kv_order,
                        causal, BLOCK_M, block_n, HEAD_DIM)
    sm_scale = 1.0 / math.sqrt(HEAD_DIM) if sm_scale is None else sm_scale
    q, k, v = (t.contiguous() for t in (q, k, v))
    o, lse = torch.empty_like(q), torch.empty((Z, H, N_CTX), device=q.device, dtype=torch.float32)
    rows = Z * H * N_CTX
    desc_q = TensorDescriptor(q, [rows, HEAD_DIM], [HEAD_DIM, 1], [64, HEAD_DIM])
    desc_k = TensorDescriptor(k, [rows, HEAD_DIM], [HEAD_DIM, 1], [block_n, HEAD_DIM])
    desc_v = TensorDescriptor(v, [rows, HEAD_DIM], [HEAD_DIM, 1], [block_n, HEAD_DIM])
    desc_o = TensorDescriptor(o, [rows, HEAD_DIM], [HEAD_DIM, 1], [64, HEAD_DIM])
    num_sms = num_sms or torch.cuda.get_device_properties(q.device).multi_processor_count
    constexprs = dict(HEAD_DIM=HEAD_DIM, BLOCK_M=BLOCK_M, BLOCK_N=block_n, K_STAGES=stages, V_STAGES=v_stages,
                      CAUSAL=causal, TILE_ORDER=tile_order, ALIAS=alias, Q_BUFFERS=q_buffers,
                      CONSUMER_REGISTERS=consumer_registers, PINGPONG=pingpong, LATE_Q_HANDBACK=late_q_handback,
                      BLOCK_ORDER=order, O_STAGING=o_staging, Q_REG_COLS=q_reg_cols,
                      NUM_MMA_GROUPS=groups, P_16BIT=p_16bit, RESCALE_SKIP=rescale_skip, PV_IN_TURN=pv_in_turn,
                      THREAD_ARRIVES=thread_arrives, CLUSTER=cluster, LATE_PV_WAIT=late_pv_wait,
                      LANE_SUMS=check_flag("lane_sums", issue[5] if lane_sums is None else lane_sums),
                      L2_HINTS=check_flag("l2_hints", l2_hints), num_warps=4, num_stages=1, num_ctas=cluster)

    def args(table):
        return sm_scale, lse, Z, H, desc_q, desc_k, desc_v, desc_o, N_CTX, table

    # a program (cluster) runs tiles of `cluster` row blocks: at most one per SM, and (clusters) no more than
    # the GPU runs at once (compiled with a stand-in table: the table is made for this many programs)
    nprogs = grid_size(tile_order, Z * H, num_pid_m // cluster, max(1, num_sms // cluster))
    if cluster > 1:
        stand_in = tile_table_tensor("rows", 0, 0, 0, 0, 0, 0, 0, q.device)
        nprogs = min(nprogs, resident_clusters(attn_fwd_kernel, args(stand_in), constexprs, q.device))
    stream = torch.cuda.current_stream(q.device).cuda_stream if tile_order == "dynamic" else None
    table = tile_table_tensor(tile_order, Z * H, num_pid_m // cluster, BLOCK_M * cluster, block_n, N_CTX, nprogs,
                              head_bytes, q.device, stream, table_heads)
    attn_fwd_kernel[(nprogs, )](*args(table), **constexprs)
    return (o, lse) if return_lse else o


def compile_for_sm90(head_dim=128, causal=False, alias=True, block_n=None, stages=None, q_buffers=None,
                     dtype="fp16", v_stages=None, pingpong=True, late_q_handback=True, diagonal_first=True,
                     o_staging="q", q_reg_cols=0, consumer_registers=None, groups=2, p_16bit=False,
                     rescale_skip=False, pv_in_turn=False, tile_order=None, thread_arrives="kqv", cluster=1,
                     late_pv_wait=False, lane_sums=False, l2_hints=False, kv_order="ascending"):
    """The kernel compiled for sm_90 without a GPU (consumer_registers left
    at None: consumer_registers_for's, 232 where attention() schedules)."""
    from triton.backends.compiler import GPUTarget
    rescale_skip = check_rescale_skip(rescale_skip)
    default_n, default_stages, default_q = default_config(head_dim, alias)
    stages = stages or default_stages
    order = block_order(diagonal_first, kv_order, causal, 64 * groups, block_n or default_n)
    constexprs = dict(HEAD_DIM=head_dim, BLOCK_M=64 * groups, BLOCK_N=block_n or default_n, K_STAGES=stages,
                      V_STAGES=v_stages or stages, CAUSAL=causal,
                      TILE_ORDER=tile_order or ("table" if causal else "rows"), ALIAS=alias,
                      Q_BUFFERS=q_buffers or default_q, PINGPONG=pingpong,
                      CONSUMER_REGISTERS=consumer_registers or consumer_registers_for(groups, late_pv_wait, 232),
                      LATE_Q_HANDBACK=late_q_handback, BLOCK_ORDER=order, O_STAGING=o_staging,
                      Q_REG_COLS=q_reg_cols, NUM_MMA_GROUPS=groups, P_16BIT=p_16bit,
                      RESCALE_SKIP=rescale_skip,
                      PV_IN_TURN=pv_in_turn, THREAD_ARRIVES=thread_arrives, CLUSTER=cluster,
                      LATE_PV_WAIT=check_late_pv_wait(late_pv_wait, rescale_skip, p_16bit, groups),
                      LANE_SUMS=check_flag("lane_sums", lane_sums), L2_HINTS=check_flag("l2_hints", l2_hints))
    q_block = f"tensordesc<{dtype}[64, {head_dim}]>"
    kv_block = f"tensordesc<{dtype}[{constexprs['BLOCK_N']}, {head_dim}]>"
    signature = {"sm_scale": "fp32", "lse_ptr": "*fp32", "Z": "i32", "H": "i32", "desc_q": q_block,
                 "desc_k": kv_block, "desc_v": kv_block, "desc_o": q_block, "N_CTX": "i32", "tile_table": "*i32",
                 **{name: "constexpr" for name in constexprs}}
    attrs = {(1, ): [["tt.divisibility", 16]], (8, ): [["tt.divisibility", 16]]}
    src = triton.compiler.ASTSource(fn=attn_fwd_kernel, signature=signature, constexprs=constexprs, attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": 4, "num_stages": 1, "num_ctas": cluster})


if __name__ == "__main__":
    for head_dim in (64, 128, 256):
        for alias in (True, False):
            block_n, stages, q_buffers = default_config(head_dim, alias)
            kernel = compile_for_sm90(head_dim, alias=alias)
            print(f"HEAD_DIM={head_dim} ALIAS={alias}: BLOCK_N={block_n}, {stages} K/V stages, {q_buffers} Q buffers, "
                  f"{kernel.metadata.shared} bytes of shared memory")
            if alias:
                tlx.print_memory_map(kernel)
        if head_dim == 256:
            kernel = compile_for_sm90(head_dim, v_stages=3, o_staging="v")
            print(f"HEAD_DIM=256 O over V (the default up to N = 1024): 2 K / 3 V stages, "
                  f"{kernel.metadata.shared} bytes of shared memory")
            tlx.print_memory_map(kernel)
        print()
