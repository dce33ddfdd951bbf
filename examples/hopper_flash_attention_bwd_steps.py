"""A consumer's Q blocks in the flash-attention backward (examples/hopper_flash_attention_bwd.py): one step
(S^T, dP^T, dV, dK, then one of the ways of dQ in hopper_flash_attention_bwd_dq.py), a trip of them, and the
producer's loads of a trip's Q and dO into the ring."""
import triton
import triton.language as tl

import tlx_alias as tlx
from hopper_flash_attention_bwd_dq import add_dq_atomics, add_dq_halves, add_dq_partials, add_dq_turns, dq_ptrs, red_add
from hopper_flash_attention_tiles import _load_shared, _peer_freed, _ring


@triton.jit
def _load_trip(desc_q, desc_do, q_tiles, do_tiles, q_fulls, do_fulls, empties, row, count, HEAD_DIM: tl.constexpr,
               BLOCK_M: tl.constexpr, STAGES: tl.constexpr, ELEM: tl.constexpr, desc_lse, desc_delta, lse_tiles,
               delta_tiles, LSE_SMEM: tl.constexpr, TRIP: tl.constexpr, STEP: tl.constexpr, peer_empties, rank,
               CLUSTER: tl.constexpr):
    """Q and dO of TRIP Q blocks from row on (STEP rows apart) into the
    ring's next slots; LSE_SMEM: each block's LSE with its Q, delta with its
    dO (one expect_bytes per barrier: it is an arrive, the barriers count one)."""
    VEC: tl.constexpr = BLOCK_M * 4 if LSE_SMEM else 0
    for t in tl.static_range(TRIP):
        slot, phase = _ring(count + t, STAGES)
        tlx.barrier_wait(empties[slot], phase ^ 1)
        if CLUSTER > 1:
            _peer_freed(peer_empties, slot, phase, count + t, rank, STAGES)
        tlx.barrier_expect_bytes(q_fulls[slot], BLOCK_M * HEAD_DIM * ELEM + VEC)
        _load_shared(desc_q, q_tiles[slot], row + t * STEP, q_fulls[slot], rank, CLUSTER)
        if LSE_SMEM:
            _load_shared(desc_lse, lse_tiles[slot], (row + t * STEP) // 8, q_fulls[slot], rank, CLUSTER)
        tlx.barrier_expect_bytes(do_fulls[slot], BLOCK_M * HEAD_DIM * ELEM + VEC)
        _load_shared(desc_do, do_tiles[slot], row + t * STEP, do_fulls[slot], rank, CLUSTER)
        if LSE_SMEM:
            _load_shared(desc_delta, delta_tiles[slot], (row + t * STEP) // 8, do_fulls[slot], rank, CLUSTER)


@triton.jit
def _probabilities(qk, lse, offs_n, m, qk_scale, BLOCK_M: tl.constexpr, MASK: tl.constexpr):
    """P^T for this consumer's K rows (offs_n) and the Q rows from m on:
    exp2(S^T * scale * log2 e - LSE * log2 e), zero above the diagonal."""
    p = tl.math.exp2(qk * qk_scale - lse[None, :] * 1.4426950408889634)
    if MASK:
        offs_m = m + tl.arange(0, BLOCK_M)
        p = tl.where(offs_m[None, :] >= offs_n[:, None], p, 0.0)
    return p


@triton.jit
def _step(count, m, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, q_fulls, do_fulls, empties, dk, dv,
          dq_prev, lse_ptr, delta_ptr, lse_tiles, delta_tiles, dq_ptr, row0, offs_n, qk_scale, sm_scale,
          cid: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, STAGES: tl.constexpr, MASK: tl.constexpr,
          DS_OVER_DO: tl.constexpr, dtype: tl.constexpr, LSE_SMEM: tl.constexpr, DQ_DEFER: tl.constexpr,
          DQ_TMA: tl.constexpr, DQ_HALVES: tl.constexpr, DQ_TURNS: tl.constexpr = False,
          PARITY: tl.constexpr = 0):
    """One Q block of a consumer: S^T, dP^T, dV, dK, then dQ (hopper_flash_attention_bwd_dq.py): add_dq_atomics
    (DQ_DEFER: returned, and added in the next step while its S^T and dP^T run) or, DQ_TMA, add_dq_partials
    (DQ_HALVES: add_dq_halves; DQ_TURNS: add_dq_turns, PARITY the Q block's)."""
    slot, phase = _ring(count, STAGES)
    if not LSE_SMEM:  # else read from the ring next to Q and dO, right before use
        lse = tl.load(lse_ptr + row0 + m + tl.arange(0, BLOCK_M))
        delta = tl.load(delta_ptr + row0 + m + tl.arange(0, BLOCK_M))
    tlx.barrier_wait(q_fulls[slot], phase)
    # K's and V's wgmma descriptors made in the step, not held across the loop; DQ_TMA alone has no barrier
    # before dK goes over the other consumer's K, and its K must be known to the hazard analysis
    zero = 0 if DQ_TMA and not (DQ_HALVES or DQ_TURNS) else _opaque_zero(count)
    k_mine = k_tiles[cid + zero]
    qk = tlx.async_dot(k_mine, tlx.local_trans(q_tiles[slot]))
    tlx.barrier_wait(do_fulls[slot], phase)
    dp = tlx.async_dot(v_tiles[cid + zero], tlx.local_trans(do_tiles[slot]))
    if DQ_DEFER:
        if count > 0:
            red_add(dq_ptrs(dq_ptr, row0 + m - BLOCK_M, cid, HEAD_DIM, BLOCK_M), dq_prev)
    qk = tlx.async_dot_wait(1, qk)
    if LSE_SMEM:
        lse = tl.reshape(tlx.local_load(lse_tiles[slot]), [BLOCK_M])
    p = _probabilities(qk, lse, offs_n, m, qk_scale, BLOCK_M, MASK)
    dv = tlx.async_dot(p.to(dtype), do_tiles[slot], dv)
    dp = tlx.async_dot_wait(1, dp)
    if LSE_SMEM:
        delta = tl.reshape(tlx.local_load(delta_tiles[slot]), [BLOCK_M])
    ds = (p * (dp - delta[None, :])).to(dtype)
    dk = tlx.async_dot(ds, q_tiles[slot], dk)
    if DQ_TURNS:
        dk, dv = add_dq_turns(ds, ds_tiles, dq_tiles, k_tiles, dk, dv, empties[slot], dq_ptr, row0 + m, sm_scale,
                              count, zero, PARITY, cid)
        dq = dq_prev
    elif DQ_HALVES:
        dk, dv = add_dq_halves(ds, ds_tiles, dq_tiles, k_tiles, dk, dv, empties[slot], dq_ptr, row0 + m, sm_scale,
                               count, cid, HEAD_DIM)
        dq = dq_prev
    elif DQ_TMA:
        dk, dv = add_dq_partials(ds, ds_tiles, dq_tiles, k_mine, dk, dv, empties[slot], dq_ptr, row0 + m, sm_scale,
                                 cid, HEAD_DIM)
        dq = dq_prev
    else:
        dk, dv, dq = add_dq_atomics(ds, ds_tiles, k_tiles, dk, dv, empties[slot], dq_ptr, row0 + m, sm_scale, count,
                                    slot, cid, HEAD_DIM, BLOCK_M, DS_OVER_DO, DQ_DEFER)
    return dk, dv, dq


@triton.jit
def _trip(count, m, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, q_fulls, do_fulls, empties, dk, dv, dq,
          lse_ptr, delta_ptr, lse_tiles, delta_tiles, dq_ptr, row0, offs_n, qk_scale, sm_scale, cid: tl.constexpr,
          HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, STAGES: tl.constexpr, MASK: tl.constexpr,
          DS_OVER_DO: tl.constexpr, dtype: tl.constexpr, LSE_SMEM: tl.constexpr, DQ_DEFER: tl.constexpr,
          DQ_TMA: tl.constexpr, DQ_HALVES: tl.constexpr, DQ_TURNS: tl.constexpr, TRIP: tl.constexpr,
          STEP: tl.constexpr):
    """TRIP steps of a consumer, the Q blocks from row m on, STEP rows apart (_load_trip's blocks)."""
    for t in tl.static_range(TRIP):
        dk, dv, dq = _step(count + t, m + t * STEP, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, q_fulls,
                           do_fulls, empties, dk, dv, dq, lse_ptr, delta_ptr, lse_tiles, delta_tiles, dq_ptr, row0,
                           offs_n, qk_scale, sm_scale, cid, HEAD_DIM, BLOCK_M, STAGES, MASK, DS_OVER_DO, dtype,
                           LSE_SMEM, DQ_DEFER, DQ_TMA, DQ_HALVES, DQ_TURNS, t)
    return dk, dv, dq


@triton.jit
def _opaque_zero(step):
    """0, computed at each step: buffers indexed by it get their wgmma descriptors made in the loop; constant
    indices have them hoisted before it, 64 bits each, and spilled at head dim 128 (dQ turns: 352 bytes)."""
    return tl.inline_asm_elementwise("mov.u32 $0, 0;", "=r,r", [step], dtype=tl.int32, is_pure=True, pack=1)


@triton.jit
def load_q_blocks(desc_q, desc_do, q_tiles, do_tiles, q_fulls, do_fulls, empties, row0, lo, hi, first,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, STAGES: tl.constexpr, ELEM: tl.constexpr, desc_lse,
                  desc_delta, lse_tiles, delta_tiles, LSE_SMEM: tl.constexpr, DESCENDING: tl.constexpr,
                  TRIP: tl.constexpr, PEEL: tl.constexpr, peer_empties, rank, CLUSTER: tl.constexpr):
    """The producer's loads of head row0's Q blocks [lo, hi) into the ring's slots from `first` on, in the
    consumers' order and loop shape (TRIP blocks a trip, PEEL trips after the loop: the hazard analysis, which
    cannot know the trip count, then runs both loops alike); returns the count past them."""
    STEP: tl.constexpr = -BLOCK_M if DESCENDING else BLOCK_M
    count = first
    m = hi - BLOCK_M if DESCENDING else lo
    for _ in range(lo + PEEL * TRIP * BLOCK_M, hi, TRIP * BLOCK_M):
        _load_trip(desc_q, desc_do, q_tiles, do_tiles, q_fulls, do_fulls, empties, row0 + m, count, HEAD_DIM,
                   BLOCK_M, STAGES, ELEM, desc_lse, desc_delta, lse_tiles, delta_tiles, LSE_SMEM, TRIP, STEP,
                   peer_empties, rank, CLUSTER)
        count += TRIP
        m += TRIP * STEP
    for _ in tl.static_range(PEEL):
        _load_trip(desc_q, desc_do, q_tiles, do_tiles, q_fulls, do_fulls, empties, row0 + m, count, HEAD_DIM,
                   BLOCK_M, STAGES, ELEM, desc_lse, desc_delta, lse_tiles, delta_tiles, LSE_SMEM, TRIP, STEP,
                   peer_empties, rank, CLUSTER)
        count += TRIP
        m += TRIP * STEP
    return count


@triton.jit
def consume_q_blocks(first, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, q_fulls, do_fulls, empties, dk,
                     dv, dq, lse_ptr, delta_ptr, lse_tiles, delta_tiles, dq_ptr, row0, lo, hi, offs_n, qk_scale,
                     sm_scale, cid: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                     STAGES: tl.constexpr, CAUSAL: tl.constexpr, DS_OVER_DO: tl.constexpr, dtype: tl.constexpr,
                     LSE_SMEM: tl.constexpr, DQ_DEFER: tl.constexpr, DQ_TMA: tl.constexpr, DQ_HALVES: tl.constexpr,
                     DQ_TURNS: tl.constexpr, DESCENDING: tl.constexpr, TRIP: tl.constexpr, PEEL: tl.constexpr):
    """Consumer cid's steps over head row0's Q blocks [lo, hi) (DESCENDING: from hi down, as load_q_blocks
    loads them), the ring's slots from `first` on; returns dK, dV, the deferred dQ and the count past them.
    Causal ascending: every block masked (see "Tried" in docs/design/attention_backward.md); descending: the
    PEEL trips of the diagonal's blocks after the loop, masked, the loop's without a mask (it spills otherwise)."""
    STEP: tl.constexpr = -BLOCK_M if DESCENDING else BLOCK_M
    count = first
    m = hi - BLOCK_M if DESCENDING else lo
    for _ in range(lo + PEEL * TRIP * BLOCK_M, hi, TRIP * BLOCK_M):
        dk, dv, dq = _trip(count, m, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, q_fulls, do_fulls,
                           empties, dk, dv, dq, lse_ptr, delta_ptr, lse_tiles, delta_tiles, dq_ptr, row0, offs_n,
                           qk_scale, sm_scale, cid, HEAD_DIM, BLOCK_M, STAGES, CAUSAL and not DESCENDING, DS_OVER_DO,
                           dtype, LSE_SMEM, DQ_DEFER, DQ_TMA, DQ_HALVES, DQ_TURNS, TRIP, STEP)
        count += TRIP
        m += TRIP * STEP
    for _ in tl.static_range(PEEL):
        dk, dv, dq = _trip(count, m, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, q_fulls, do_fulls,
                           empties, dk, dv, dq, lse_ptr, delta_ptr, lse_tiles, delta_tiles, dq_ptr, row0, offs_n,
                           qk_scale, sm_scale, cid, HEAD_DIM, BLOCK_M, STAGES, True, DS_OVER_DO, dtype, LSE_SMEM,
                           DQ_DEFER, DQ_TMA, DQ_HALVES, DQ_TURNS, TRIP, STEP)
        count += TRIP
        m += TRIP * STEP
    return dk, dv, dq, count
