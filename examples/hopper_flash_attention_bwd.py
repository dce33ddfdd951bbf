"""Flash-attention backward for Hopper, written with tlx_alias, and the
autograd Function that pairs it with examples/hopper_flash_attention.py's
forward (which saves the log-sum-exp).

Each program owns BLOCK_N = 128 rows of K and V (one 64-row half per
consumer warp group), keeps them in shared memory and runs over the Q
blocks that see them (causal: from the last down, so that a head's
programs read the same Q blocks together and end on the diagonal); up to
N = 4096 (PERSISTENT) one program an SM runs such blocks one after the
other, loading the next one's K and V during the last one's epilogue. A
producer warp group loads K/V once and a ring of Q and dO tiles with TMA;
each consumer computes, per Q block of BLOCK_M rows,

    S^T  = K_c Q^T          P^T = exp(S^T * scale - LSE)       (wgmma, SS)
    dP^T = V_c dO^T         dS^T = P^T (dP^T - delta)           (wgmma, SS)
    dV_c += P^T dO          dK_c += dS^T Q                      (wgmma, RS)

and stages dS^T in shared memory, where both consumers' halves together
are the A operand of dQ = dS K, added to an fp32 dQ by TMA reduce-adds:
each consumer half of dQ's columns (DQ_HALVES), or the consumers in turns
the whole of it (DQ_TURNS); or by atomics; or (DQ_TMA alone) each
consumer's own dS_c K_c staged in fp32 tiles, its dS^T over the first,
reduce-added: no named barrier between the consumers. The storage
aliasing (ALIAS): the epilogue stages dK over K and dV over V (K and V
are dead after the last Q block), and (DS_OVER_DO) dS lies over the dO
slot it was computed from (dO is dead once dV and dP^T have read it), so
deeper Q/dO rings fit.
The ways of dQ: hopper_flash_attention_bwd_dq.py. The budgets: docs/design/attention_backward.md.

    python examples/hopper_flash_attention_bwd.py   # compile for sm_90 here, print the memory map
    python benchmarks/attention_bwd.py              # on an H100/H200: speed against SDPA's backward
"""
import math
import os
import sys

import triton
import triton.language as tl

import tlx_alias as tlx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hopper_flash_attention as fwd  # noqa: E402
from hopper_flash_attention_bwd_dq import dq_ptrs, dq_rows_back, red_add  # noqa: E402
from hopper_flash_attention_bwd_programs import (  # noqa: E402
    add_partials, persistent_tiles, program_rows, split_rows_back, tile_rows)
from hopper_flash_attention_bwd_steps import consume_q_blocks, load_q_blocks  # noqa: E402
from hopper_flash_attention_tiles import _meet_cluster  # noqa: E402
from hopper_flash_attention_bwd_config import (  # noqa: E402,F401  (the config's names, for callers)
    BARRIER_BYTES, BLOCK_N, CANDIDATES, SMEM_LIMIT, default_config, dq_tile_columns, resolve_cluster,
    resolve_options, resolve_persistent, resolve_q_order, smem_bytes, tail_split)


@triton.jit
def _bwd_preprocess(o_ptr, do_ptr, delta_ptr, HEAD_DIM: tl.constexpr, ROWS: tl.constexpr):
    """delta = rowsum(O * dO) in fp32, ROWS rows per program."""
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    offs = rows[:, None] * HEAD_DIM + tl.arange(0, HEAD_DIM)[None, :]
    o = tl.load(o_ptr + offs).to(tl.float32)
    do = tl.load(do_ptr + offs).to(tl.float32)
    tl.store(delta_ptr + rows, tl.sum(o * do, 1))


@triton.jit
def _load(desc_q, desc_do, desc_k, desc_v, q_tiles, do_tiles, k_tiles, v_tiles, q_fulls, do_fulls, empties, kv_full,
          row0, n0, lo, hi, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, STAGES: tl.constexpr,
          dtype: tl.constexpr, desc_lse, desc_delta, lse_tiles, delta_tiles, LSE_SMEM: tl.constexpr,
          DESCENDING: tl.constexpr, TRIP: tl.constexpr, PEEL: tl.constexpr, peer_empties, CLUSTER: tl.constexpr):
    """The producer: the program's K/V halves once, then Q and dO of each
    Q block into the ring (a slot goes back once both consumers are done)."""
    ELEM: tl.constexpr = tlx.size_of(dtype)
    _meet_cluster(CLUSTER, INITS=True)
    rank = tlx.cluster_cta_rank()
    _load_kv(desc_k, desc_v, k_tiles, v_tiles, kv_full, row0 + n0, HEAD_DIM, dtype)
    load_q_blocks(desc_q, desc_do, q_tiles, do_tiles, q_fulls, do_fulls, empties, row0, lo, hi, 0, HEAD_DIM, BLOCK_M,
                  STAGES, ELEM, desc_lse, desc_delta, lse_tiles, delta_tiles, LSE_SMEM, DESCENDING, TRIP, PEEL,
                  peer_empties, rank, CLUSTER)
    _meet_cluster(CLUSTER)


@triton.jit
def _load_tiles(desc_q, desc_do, q_tiles, do_tiles, q_fulls, do_fulls, empties, N_CTX, tiles, HEAD_DIM: tl.constexpr,
                BLOCK_M: tl.constexpr, STAGES: tl.constexpr, dtype: tl.constexpr, desc_lse, desc_delta, lse_tiles,
                delta_tiles, LSE_SMEM: tl.constexpr, CAUSAL: tl.constexpr, DESCENDING: tl.constexpr,
                TRIP: tl.constexpr, PEEL: tl.constexpr):
    """The persistent producer: Q and dO of every tile's Q blocks into the ring, one tile after the other, so
    that the next tile's first blocks load while the consumers finish this one (they load K and V: _load_kv)."""
    count = 0
    for k in range(0, persistent_tiles(tiles, CAUSAL)):
        n0, row0, lo, hi = tile_rows(k, N_CTX, CAUSAL)
        count = load_q_blocks(desc_q, desc_do, q_tiles, do_tiles, q_fulls, do_fulls, empties, row0, lo, hi, count,
                              HEAD_DIM, BLOCK_M, STAGES, tlx.size_of(dtype), desc_lse, desc_delta, lse_tiles,
                              delta_tiles, LSE_SMEM, DESCENDING, TRIP, PEEL, empties, 0, 1)


@triton.jit
def _load_kv(desc_k, desc_v, k_tiles, v_tiles, kv_full, row, HEAD_DIM: tl.constexpr, dtype: tl.constexpr,
             pred=None):
    """K and V rows [row, row + 128), in 64-row halves, onto kv_full (if pred)."""
    tlx.barrier_expect_bytes(kv_full, 4 * 64 * HEAD_DIM * tlx.size_of(dtype), pred=pred)
    for c in tl.static_range(2):
        tlx.async_descriptor_load(desc_k, k_tiles[c], [row + c * 64, 0], kv_full, pred=pred)
        tlx.async_descriptor_load(desc_v, v_tiles[c], [row + c * 64, 0], kv_full, pred=pred)


@triton.jit
def _consume_tiles(cid: tl.constexpr, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, dk_tiles, dv_tiles,
                   q_fulls, do_fulls, empties, kv_full, lse_tiles, delta_tiles, desc_dq, desc_k, desc_v, desc_dk,
                   desc_dv, N_CTX, tiles, sm_scale, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                   STAGES: tl.constexpr, CAUSAL: tl.constexpr, dtype: tl.constexpr, DESCENDING: tl.constexpr,
                   TRIP: tl.constexpr, PEEL: tl.constexpr):
    """Persistent consumer cid (dQ turns, LSE in the ring): tile after tile as _consume runs a program's. Once
    both consumers' last wgmmas of a tile have read K and V, consumer 0 loads the next tile's (they overlap the
    epilogue, which stages dK and dV over the dS^T and dQ tiles, not over K and V)."""
    HALF: tl.constexpr = 64
    qk_scale = sm_scale * 1.4426950408889634
    mine = persistent_tiles(tiles, CAUSAL)
    if cid == 0:  # the first block's K and V
        first_n0, first_row0, _, _ = tile_rows(0, N_CTX, CAUSAL)
        _load_kv(desc_k, desc_v, k_tiles, v_tiles, kv_full, first_row0 + first_n0, HEAD_DIM, dtype, True)
        tl.debug_barrier()  # (triton's barrier placement syncs the warp group here, not before each step's S^T)
    count = 0
    phase = 0
    for k in range(0, mine):
        n0, row0, lo, hi = tile_rows(k, N_CTX, CAUSAL)
        offs_n = n0 + cid * HALF + tl.arange(0, HALF)
        dk = tl.zeros([HALF, HEAD_DIM], dtype=tl.float32)
        dv = tl.zeros([HALF, HEAD_DIM], dtype=tl.float32)
        tlx.barrier_wait(kv_full, phase)
        no_dq = tl.zeros([BLOCK_M, HEAD_DIM // 2], dtype=tl.float32)  # (dQ turns: no deferred dQ; LSE in the ring)
        dk, dv, _, count = consume_q_blocks(count, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, q_fulls,
                                            do_fulls, empties, dk, dv, no_dq, None, None, lse_tiles, delta_tiles,
                                            desc_dq, row0, lo, hi, offs_n, qk_scale, sm_scale, cid, HEAD_DIM, BLOCK_M,
                                            STAGES, CAUSAL, DS_OVER_DO=False, dtype=dtype, LSE_SMEM=True,
                                            DQ_DEFER=False, DQ_TMA=True, DQ_HALVES=False, DQ_TURNS=True,
                                            DESCENDING=DESCENDING, TRIP=TRIP, PEEL=PEEL)
        tlx.async_descriptor_store_wait(0)  # this consumer's last reduce-add has read the dQ tile
        tlx.named_barrier_wait(11, 256)  # both consumers' last wgmmas have read K, V and dS^T
        if cid == 0:
            next_n0, next_row0, _, _ = tile_rows(k + 1, N_CTX, CAUSAL)
            _load_kv(desc_k, desc_v, k_tiles, v_tiles, kv_full, next_row0 + next_n0, HEAD_DIM, dtype, k + 1 < mine)
            tl.debug_barrier()  # (as after the first block's)
        _stage_and_store(dk, dv, desc_dk, desc_dv, dk_tiles, dv_tiles, row0, n0, sm_scale, cid, dtype)
        tlx.named_barrier_wait(12, 256)  # both consumers' staged dK and dV are read: dS^T and dQ tiles free again
        phase ^= 1


@triton.jit
def _store_dkdv(dk, dv, desc_dk, desc_dv, k_tiles, v_tiles, dk_tiles, dv_tiles, row0, n0, sm_scale,
                cid: tl.constexpr, ALIAS: tl.constexpr, dtype: tl.constexpr, DQ_OWN_K_HALF: tl.constexpr,
                piece=-1, workspace=None, SPLIT: tl.constexpr = False):
    """The epilogue: dK (times the scale) and dV of this consumer's rows,
    staged over its K and V halves (ALIAS) or in tiles of their own, and
    stored with TMA. DQ_OWN_K_HALF: a consumer's dQ reads only its own K half
    (DQ_TMA's whole-width partials), not the other's. SPLIT: a piece of a
    split program (piece >= 0) adds its partial sums to `workspace` instead."""
    if ALIAS and not DQ_OWN_K_HALF:
        # the other consumer's last dQ reads this K half: wait for it
        tlx.named_barrier_wait(11, 256)
    if SPLIT:
        if piece >= 0:
            add_partials(dk * sm_scale, dv, workspace, cid, dk.shape[1])
            tlx.async_descriptor_store_wait(0)  # (the dQ reduce-adds: no TMA store may outlive the task)
        else:
            _stage_and_store(dk, dv, desc_dk, desc_dv, dk_tiles, dv_tiles, row0, n0, sm_scale, cid, dtype)
    else:
        _stage_and_store(dk, dv, desc_dk, desc_dv, dk_tiles, dv_tiles, row0, n0, sm_scale, cid, dtype)


@triton.jit
def _stage_and_store(dk, dv, desc_dk, desc_dv, dk_tiles, dv_tiles, row0, n0, sm_scale, cid: tl.constexpr,
                     dtype: tl.constexpr):
    dk_tile = dk_tiles[cid]
    dv_tile = dv_tiles[cid]
    tlx.local_store(dk_tile, (dk * sm_scale).to(dtype))
    tlx.local_store(dv_tile, dv.to(dtype))
    tlx.fence_async_shared()
    tlx.async_descriptor_store(desc_dk, dk_tile, [row0 + n0 + cid * 64, 0])
    tlx.async_descriptor_store(desc_dv, dv_tile, [row0 + n0 + cid * 64, 0])
    tlx.async_descriptor_store_wait(0)


@triton.jit
def _consume(cid: tl.constexpr, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, dk_tiles, dv_tiles, q_fulls,
             do_fulls, empties, kv_full, lse_ptr, delta_ptr, lse_tiles, delta_tiles, dq_ptr, desc_dk, desc_dv, row0, n0,
             lo, hi, sm_scale, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, STAGES: tl.constexpr,
             CAUSAL: tl.constexpr, ALIAS: tl.constexpr, DS_OVER_DO: tl.constexpr, dtype: tl.constexpr,
             LSE_SMEM: tl.constexpr, DQ_DEFER: tl.constexpr, DQ_TMA: tl.constexpr, DQ_HALVES: tl.constexpr,
             DQ_TURNS: tl.constexpr, DESCENDING: tl.constexpr, TRIP: tl.constexpr, PEEL: tl.constexpr,
             CLUSTER: tl.constexpr, piece, workspace, SPLIT: tl.constexpr):
    """Consumer cid: K/V rows [n0 + 64 cid, n0 + 64 (cid + 1)) against every
    Q block from lo to hi (DESCENDING: from hi down, as _load loads them)."""
    HALF: tl.constexpr = 64
    _meet_cluster(CLUSTER)
    qk_scale = sm_scale * 1.4426950408889634
    offs_n = n0 + cid * HALF + tl.arange(0, HALF)
    dk = tl.zeros([HALF, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([HALF, HEAD_DIM], dtype=tl.float32)
    tlx.barrier_wait(kv_full, 0)
    dq = tl.zeros([BLOCK_M, HEAD_DIM // 2], dtype=tl.float32)  # DQ_DEFER: the last step's, still to add
    dk, dv, dq, count = consume_q_blocks(0, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, q_fulls,
                                         do_fulls, empties, dk, dv, dq, lse_ptr, delta_ptr, lse_tiles, delta_tiles,
                                         dq_ptr, row0, lo, hi, offs_n, qk_scale, sm_scale, cid, HEAD_DIM, BLOCK_M,
                                         STAGES, CAUSAL, DS_OVER_DO, dtype, LSE_SMEM, DQ_DEFER, DQ_TMA, DQ_HALVES,
                                         DQ_TURNS, DESCENDING, TRIP, PEEL)
    if DQ_DEFER:
        if count > 0:
            red_add(dq_ptrs(dq_ptr, row0 + hi - BLOCK_M, cid, HEAD_DIM, BLOCK_M), dq)
    _store_dkdv(dk, dv, desc_dk, desc_dv, k_tiles, v_tiles, dk_tiles, dv_tiles, row0, n0, sm_scale, cid, ALIAS, dtype,
                DQ_TMA and not (DQ_HALVES or DQ_TURNS), piece, workspace, SPLIT)
    _meet_cluster(CLUSTER)  # (in a cluster every task meets the other CTA's first and last)


@triton.jit
def _static_checks(DS_OVER_DO: tl.constexpr, DQ_DEFER: tl.constexpr, DQ_TMA: tl.constexpr,
                   DQ_HALVES: tl.constexpr, DQ_TURNS: tl.constexpr, BLOCK_M: tl.constexpr,
                   Q_DESCENDING: tl.constexpr, CLUSTER: tl.constexpr, CAUSAL: tl.constexpr, SPLIT: tl.constexpr):
    """The kernel's flags that do not go together (resolve_options refuses them on the host)."""
    tl.static_assert(not SPLIT or (CLUSTER == 1 and not CAUSAL), "SPLIT splits non-causal programs of one CTA")
    # CLUSTER CTAs (num_ctas, non-causal) run neighbouring K/V blocks of one head and share each Q/dO block's load
    tl.static_assert(CLUSTER == tlx.cluster_size_1d() and (CLUSTER == 1 or (CLUSTER == 2 and not CAUSAL)),
                     "CLUSTER must be the launch's num_ctas: 1, or 2 non-causal")
    tl.static_assert(not DQ_TMA or not (DS_OVER_DO or DQ_DEFER), "DQ_TMA goes without DS_OVER_DO and DQ_DEFER")
    tl.static_assert(not (DQ_HALVES or DQ_TURNS) or DQ_TMA, "DQ_HALVES and DQ_TURNS are ways of DQ_TMA")
    tl.static_assert(not (DQ_HALVES and DQ_TURNS), "DQ_HALVES and DQ_TURNS are two ways of dQ: one at a time")
    tl.static_assert(not DQ_TURNS or BLOCK_M == 64, "DQ_TURNS takes 64-row Q blocks")
    tl.static_assert(not (Q_DESCENDING and DQ_DEFER), "DQ_DEFER adds the previous Q block's dQ: Q blocks ascending")


@triton.jit
def _buffers(HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, STAGES: tl.constexpr, dtype: tl.constexpr,
             ALIAS: tl.constexpr, DS_OVER_DO: tl.constexpr, LSE_SMEM: tl.constexpr, DQ_TMA: tl.constexpr,
             DQ_HALVES: tl.constexpr, DQ_TURNS: tl.constexpr, PERSISTENT: tl.constexpr):
    """The kernel's shared-memory buffers and what lies over what (attn_bwd_kernel's flags)."""
    HALF: tl.constexpr = 64
    if DS_OVER_DO:  # dO slot s holds dS^T of both consumers once dV and dP^T have read it
        do_spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
        do_tiles = tlx.local_alloc((BLOCK_M, HEAD_DIM), dtype, STAGES, reuse=do_spec)
        ds_tiles = tlx.local_alloc((HALF, BLOCK_M), dtype, 2 * STAGES, reuse=do_spec)
        do_spec.set_buffer_overlap(tlx.reuse_group(do_tiles, tlx.reuse_group(ds_tiles, group_size=2),
                                                   group_type=tlx.reuse_group_type.shared))
    else:
        do_tiles = tlx.local_alloc((BLOCK_M, HEAD_DIM), dtype, STAGES)
    if DQ_HALVES:  # consumer c's fp32 tile of half of dQ's columns; dS^T double-buffered below
        dq_tiles = tlx.local_alloc((BLOCK_M, HEAD_DIM // 2), tl.float32, 2)
    if DQ_TURNS and PERSISTENT:  # dK staged over the dQ tile, dV over dS^T (free at a tile's end), not over K, V
        dq_spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)  # (two specs: triton's barrier placement
        ds_spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)  # sees one as one buffer, syncing in the loop)
        dq_tiles = tlx.local_alloc((BLOCK_M, HEAD_DIM), tl.float32, 1, reuse=dq_spec)
        dk_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2, reuse=dq_spec)
        ds_tiles = tlx.local_alloc((HALF, BLOCK_M), dtype, 4, reuse=ds_spec)
        dv_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2, reuse=ds_spec)
        dq_spec.set_buffer_overlap(tlx.reuse_group(dq_tiles, tlx.reuse_group(dk_tiles, group_size=2),
                                                   group_type=tlx.reuse_group_type.shared))
        ds_spec.set_buffer_overlap(tlx.reuse_group(tlx.reuse_group(ds_tiles, group_size=4),
                                                   tlx.reuse_group(dv_tiles, group_size=2),
                                                   group_type=tlx.reuse_group_type.shared))
        dq_tiles = dq_tiles[0]
    elif DQ_TURNS:  # the Q block's fp32 dQ tile, rows in rows_over_all_banks's order; dS^T double-buffered below
        dq_tiles = tlx.local_alloc((BLOCK_M, HEAD_DIM), tl.float32, 1)[0]
    if DQ_TMA and not (DQ_HALVES or DQ_TURNS):  # consumer c's fp32 dQ tiles [c * D / 64 + j], dS^T over the first
        dq_spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
        dq_tiles = tlx.local_alloc((BLOCK_M, 64), tl.float32, 2 * (HEAD_DIM // 64), reuse=dq_spec)
        ds_tiles = tlx.local_alloc((HALF, BLOCK_M), dtype, 2, reuse=dq_spec)
        if HEAD_DIM > 64:  # a consumer's tiles side by side in one buffer index
            dq_spec.set_buffer_overlap(tlx.reuse_group(tlx.reuse_group(dq_tiles, group_size=HEAD_DIM // 64),
                                                       ds_tiles, group_type=tlx.reuse_group_type.shared))
        else:
            dq_spec.set_buffer_overlap(tlx.reuse_group(dq_tiles, ds_tiles, group_type=tlx.reuse_group_type.shared))
    elif not (DS_OVER_DO or PERSISTENT):  # dS^T double-buffered: consumer c's half of buffer b is ds_tiles[2 b + c]
        ds_tiles = tlx.local_alloc((HALF, BLOCK_M), dtype, 4)
    dq_tiles = dq_tiles if DQ_TMA else ds_tiles  # (unused without DQ_TMA)
    q_tiles = tlx.local_alloc((BLOCK_M, HEAD_DIM), dtype, STAGES)
    if PERSISTENT:
        k_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2)
        v_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2)
    elif ALIAS:  # dK staged over K, dV over V: both are dead after the last Q block
        k_spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
        k_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2, reuse=k_spec)
        dk_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2, reuse=k_spec)
        k_spec.set_buffer_overlap(tlx.reuse_group(k_tiles, dk_tiles, group_type=tlx.reuse_group_type.shared))
        v_spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
        v_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2, reuse=v_spec)
        dv_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2, reuse=v_spec)
        v_spec.set_buffer_overlap(tlx.reuse_group(v_tiles, dv_tiles, group_type=tlx.reuse_group_type.shared))
    else:
        k_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2)
        v_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2)
        dk_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2)
        dv_tiles = tlx.local_alloc((HALF, HEAD_DIM), dtype, 2)
    # LSE_SMEM: (BLOCK_M / 8, 8) fp32, 32-byte rows, the layout TMA gives the (rows / 8, 8) views (else unused)
    lse_tiles = tlx.local_alloc((BLOCK_M // 8, 8), tl.float32, STAGES) if LSE_SMEM else q_tiles
    delta_tiles = tlx.local_alloc((BLOCK_M // 8, 8), tl.float32, STAGES) if LSE_SMEM else q_tiles
    return q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, dk_tiles, dv_tiles, lse_tiles, delta_tiles


@triton.jit
def attn_bwd_kernel(sm_scale, lse_ptr, delta_ptr, dq_ptr, desc_q, desc_k, desc_v, desc_do, desc_dk, desc_dv, N_CTX,
                    split_whole, split_pieces, workspace, tiles,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, STAGES: tl.constexpr, CAUSAL: tl.constexpr,
                    ALIAS: tl.constexpr, DS_OVER_DO: tl.constexpr = False, CONSUMER_REGISTERS: tl.constexpr = 240,
                    LSE_SMEM: tl.constexpr = False, DQ_DEFER: tl.constexpr = False, DQ_TMA: tl.constexpr = False,
                    THREAD_ARRIVES: tl.constexpr = True, DQ_HALVES: tl.constexpr = False,
                    DQ_TURNS: tl.constexpr = False, Q_DESCENDING: tl.constexpr = False, CLUSTER: tl.constexpr = 1,
                    SPLIT: tl.constexpr = False, PERSISTENT: tl.constexpr = False):
    """Program (n, bh): dK, dV of K/V rows [128 n, 128 (n + 1)) of head bh and their share of the fp32 dQ (DQ_TMA:
    dq_ptr a descriptor; LSE_SMEM: lse_ptr, delta_ptr descriptors of (rows / 8, 8) views, loaded with Q, dO).
    PERSISTENT (a 1-D grid): each program runs its share of the `tiles` (K/V blocks of every head: tile_rows)."""
    dtype: tl.constexpr = tlx.dtype_of(desc_q)
    tl.static_assert(not DS_OVER_DO or ALIAS, "DS_OVER_DO lays dS over dO: it needs ALIAS")
    tl.static_assert(not PERSISTENT or (DQ_TURNS and LSE_SMEM and ALIAS and CLUSTER == 1 and not SPLIT),
                     "PERSISTENT runs dQ turns with LSE in the ring, aliased, one CTA a cluster, no split")
    _static_checks(DS_OVER_DO, DQ_DEFER, DQ_TMA, DQ_HALVES, DQ_TURNS, BLOCK_M, Q_DESCENDING, CLUSTER, CAUSAL, SPLIT)
    q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, dk_tiles, dv_tiles, lse_tiles, delta_tiles = _buffers(
        HEAD_DIM, BLOCK_M, STAGES, dtype, ALIAS, DS_OVER_DO, LSE_SMEM, DQ_TMA, DQ_HALVES, DQ_TURNS, PERSISTENT)
    q_fulls = tlx.alloc_barriers(num_barriers=STAGES, arrive_count=1)
    do_fulls = tlx.alloc_barriers(num_barriers=STAGES, arrive_count=1)
    # THREAD_ARRIVES: the consumers' threads hand a slot back each for itself (no warp-group bar.sync);
    # peer_empties: in a cluster rank 0's producer waits there for the other CTA's to free a slot (_load_trip)
    empties = tlx.alloc_warp_barrier(num_barriers=STAGES, num_warps=8) if THREAD_ARRIVES else \
        tlx.alloc_barriers(num_barriers=STAGES, arrive_count=2)
    kv_full = tlx.alloc_barriers(num_barriers=1, arrive_count=1)
    peer_empties = tlx.alloc_barriers(num_barriers=STAGES, arrive_count=1) if CLUSTER > 1 else empties
    TRIP: tl.constexpr = 2 if DQ_TURNS else 1  # DQ_TURNS: two Q blocks a trip, whose dQ turn known when compiling
    PEEL: tl.constexpr = 128 // (TRIP * BLOCK_M) if CAUSAL and Q_DESCENDING else 0  # the diagonal's BLOCK_N rows
    n0, row0, lo, hi, piece, ws = program_rows(N_CTX, split_whole, split_pieces, workspace, HEAD_DIM, BLOCK_M, TRIP,
                                               CAUSAL, CLUSTER, SPLIT)
    if PERSISTENT:
        with tlx.async_tasks():
            with tlx.async_task("default"):
                _load_tiles(desc_q, desc_do, q_tiles, do_tiles, q_fulls, do_fulls, empties, N_CTX, tiles, HEAD_DIM,
                            BLOCK_M, STAGES, dtype, lse_ptr, delta_ptr, lse_tiles, delta_tiles, LSE_SMEM, CAUSAL,
                            Q_DESCENDING, TRIP, PEEL)
            with tlx.async_task(num_warps=4, registers=CONSUMER_REGISTERS, replicate=2):
                cid: tl.constexpr = tlx.async_task_replica_id()
                _consume_tiles(cid, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, dk_tiles, dv_tiles,
                               q_fulls, do_fulls, empties, kv_full[0], lse_tiles, delta_tiles, dq_ptr, desc_k, desc_v,
                               desc_dk, desc_dv, N_CTX, tiles, sm_scale, HEAD_DIM, BLOCK_M, STAGES, CAUSAL, dtype,
                               Q_DESCENDING, TRIP, PEEL)
    else:
        with tlx.async_tasks():
            with tlx.async_task("default"):
                _load(desc_q, desc_do, desc_k, desc_v, q_tiles, do_tiles, k_tiles, v_tiles, q_fulls, do_fulls, empties,
                      kv_full[0], row0, n0, lo, hi, HEAD_DIM, BLOCK_M, STAGES, dtype, lse_ptr, delta_ptr, lse_tiles,
                      delta_tiles, LSE_SMEM, Q_DESCENDING, TRIP, PEEL, peer_empties, CLUSTER)
            with tlx.async_task(num_warps=4, registers=CONSUMER_REGISTERS, replicate=2):
                cid: tl.constexpr = tlx.async_task_replica_id()
                _consume(cid, q_tiles, do_tiles, ds_tiles, dq_tiles, k_tiles, v_tiles, dk_tiles, dv_tiles, q_fulls,
                         do_fulls, empties, kv_full[0], lse_ptr, delta_ptr, lse_tiles, delta_tiles, dq_ptr, desc_dk,
                         desc_dv, row0, n0, lo, hi, sm_scale, HEAD_DIM, BLOCK_M, STAGES, CAUSAL, ALIAS, DS_OVER_DO,
                         dtype, LSE_SMEM, DQ_DEFER, DQ_TMA, DQ_HALVES, DQ_TURNS, Q_DESCENDING, TRIP, PEEL, CLUSTER,
                         piece, ws, SPLIT)


def _check(q, k, v, o, do, lse):
    import torch
    Z, H, N_CTX, HEAD_DIM = q.shape
    for name, t in (("k", k), ("v", v), ("o", o), ("do", do)):
        if t.shape != q.shape or t.dtype != q.dtype:
            raise ValueError(f"attention_backward: {name} must be {tuple(q.shape)} {q.dtype} like q, got "
                             f"{tuple(t.shape)} {t.dtype}")
    if q.dtype not in (torch.float16, torch.bfloat16):
        raise ValueError(f"attention_backward: q, k, v must be float16 or bfloat16, got {q.dtype}")
    if HEAD_DIM not in (64, 128):
        raise ValueError(f"attention_backward: head_dim must be 64 or 128, got {HEAD_DIM}")
    if N_CTX % BLOCK_N:
        raise ValueError(f"attention_backward: the sequence length must be a multiple of {BLOCK_N}, got {N_CTX}")
    if lse.shape != (Z, H, N_CTX) or lse.dtype != torch.float32:
        raise ValueError(f"attention_backward: lse must be ({Z}, {H}, {N_CTX}) float32, got {tuple(lse.shape)} "
                         f"{lse.dtype}")


def attention_backward(q, k, v, o, do, lse, causal=False, sm_scale=None, alias=True, block_m=None, stages=None,
                       ds_over_do=None, consumer_registers=240, lse_smem=None, dq_defer=False, dq_tma=None,
                       thread_arrives=True, dq_halves=None, dq_turns=None, q_descending=None, cluster=None,
                       split_tail=None, persistent=None):
    """(dQ, dK, dV) of softmax(Q K^T * sm_scale) V for (batch, heads, N,
    head_dim) fp16/bf16 tensors on a Hopper GPU, given the forward's output
    o, its log-sum-exp lse (natural log, float32) and the output's gradient
    do. block_m, stages, ds_over_do default to default_config(head_dim, alias)
    (with dQ halves at head dim 64: 128-row Q blocks, 2 stages). lse_smem: LSE
    and delta come through the Q/dO ring by TMA (else from global memory);
    dq_defer: each Q block's dQ atomics wait for the next block's S^T and
    dP^T; dq_tma: each consumer adds its dQ partial by a TMA reduce-add
    (1.07-1.18x the atomics on an H200); dq_halves (with dq_tma): each
    consumer adds half of dQ's columns, from both consumers' dS^T (with
    lse_smem 1.15-1.18x dq_tma alone at head dim 128 on an H200); dq_turns
    (with dq_tma; by default where it fits, with lse_smem): the consumers
    take turns computing a Q block's whole dQ (1.06-1.08x dq_halves at head
    dim 128, 1.02-1.05x at 64); q_descending (by default when causal and
    not dq_defer): each program takes its Q blocks from the last down, so
    that a causal head's programs read the same Q and dO blocks together
    (1.02-1.04x ascending on an H200); cluster=2 (non-causal): clusters of
    two CTAs on neighbouring K/V blocks, rank 0 multicasting each Q/dO block
    into both; split_tail (non-causal, one CTA a cluster): the programs past
    the last whole wave of the GPU's SMs run as pieces of their Q blocks, one
    wave of them, adding dK and dV up in fp32 (level with whole programs on an
    H200: not the default); persistent (by default up to N = 4096, where it
    fits: resolve_persistent): one program an SM runs its share of the K/V
    blocks, the next block's K and V loading during the last one's epilogue.
    resolve_options and resolve_persistent check them (a ValueError for what
    does not go together or does not fit)."""
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    _check(q, k, v, o, do, lse)
    q_descending = resolve_q_order(causal, dq_defer, q_descending)
    Z, H, N_CTX, HEAD_DIM = q.shape
    cluster = resolve_cluster(causal, N_CTX, cluster)
    block_m, stages, ds_over_do, lse_smem, dq_tma, dq_halves, dq_turns = resolve_options(
        HEAD_DIM, alias, block_m, stages, ds_over_do, lse_smem, dq_defer, dq_tma, dq_halves, dq_turns)
    persistent = resolve_persistent(N_CTX, causal, alias, lse_smem, dq_turns, cluster, split_tail, persistent)
    sm_scale = 1.0 / math.sqrt(HEAD_DIM) if sm_scale is None else sm_scale
    q, k, v, o, do = (t.contiguous() for t in (q, k, v, o, do))
    rows = Z * H * N_CTX
    delta = torch.empty((rows, ), device=q.device, dtype=torch.float32)
    _bwd_preprocess[(rows // 128, )](o, do, delta, HEAD_DIM=HEAD_DIM, ROWS=128, num_warps=8)
    dq = torch.zeros((Z, H, N_CTX, HEAD_DIM), device=q.device, dtype=torch.float32)
    dk, dv = torch.empty_like(k), torch.empty_like(v)

    def desc(t, block_rows):
        return TensorDescriptor(t, [rows, HEAD_DIM], [HEAD_DIM, 1], [block_rows, HEAD_DIM])

    lse, vec = lse.contiguous(), delta
    if lse_smem:  # (rows / 8, 8) views, a Q block's BLOCK_M values one (BLOCK_M / 8, 8) box
        lse, vec = (TensorDescriptor(t, [rows // 8, 8], [8, 1], [block_m // 8, 8]) for t in (lse, delta))
    dq_cols = dq_tile_columns(HEAD_DIM, dq_halves, dq_turns)
    dq_arg = TensorDescriptor(dq, [rows, HEAD_DIM], [HEAD_DIM, 1], [block_m, dq_cols]) if dq_tma else dq
    programs, blocks = N_CTX // BLOCK_N * Z * H, N_CTX // BLOCK_N
    num_sms = torch.cuda.get_device_properties(q.device).multi_processor_count
    split = None if persistent else tail_split(programs, num_sms, N_CTX // (block_m * (2 if dq_turns else 1)), causal,
                                               cluster, split_tail)
    whole, pieces = split or (programs, 1)
    workspace = torch.zeros((programs - whole, 2, BLOCK_N, HEAD_DIM), device=q.device, dtype=torch.float32)
    grid = ((min(programs // 2 if causal else programs, num_sms), ) if persistent  # (causal: pairs of K/V blocks)
            else (whole + (programs - whole) * pieces, ) if split else (blocks // cluster, Z * H))
    attn_bwd_kernel[grid](sm_scale, lse, vec, dq_arg, desc(q, block_m), desc(k, 64), desc(v, 64), desc(do, block_m),
                          desc(dk, 64), desc(dv, 64), N_CTX, whole, pieces, workspace if split else delta, programs,
                          HEAD_DIM=HEAD_DIM, BLOCK_M=block_m, STAGES=stages, CAUSAL=causal, ALIAS=alias,
                          DS_OVER_DO=ds_over_do, CONSUMER_REGISTERS=consumer_registers, LSE_SMEM=lse_smem,
                          DQ_DEFER=dq_defer, DQ_TMA=dq_tma, THREAD_ARRIVES=thread_arrives, DQ_HALVES=dq_halves,
                          DQ_TURNS=dq_turns, Q_DESCENDING=q_descending, CLUSTER=cluster, SPLIT=bool(split),
                          PERSISTENT=persistent, num_warps=4, num_stages=1, num_ctas=cluster)
    if split:  # the split programs' K/V rows: their pieces' sums
        split_rows_back(dk, dv, workspace, whole, programs, blocks)
    if not dq_turns:
        return dq.to(q.dtype), dk, dv
    out = torch.empty_like(q)
    dq_rows_back[(rows // 64, )](dq, out, HEAD_DIM=HEAD_DIM, ROWS=64, num_warps=4)
    return out, dk, dv


_FUNCTION = []


def _autograd_function():
    """The torch.autograd.Function (built on first use: this file compiles without torch)."""
    if _FUNCTION:
        return _FUNCTION[0]
    import torch

    class FlashAttention(torch.autograd.Function):
        """softmax(Q K^T * sm_scale) V with examples/hopper_flash_attention.py's
        forward (saving its log-sum-exp) and this file's backward."""

        @staticmethod
        def forward(ctx, q, k, v, causal, sm_scale, alias):
            o, lse = fwd.attention(q, k, v, causal=causal, sm_scale=sm_scale, alias=alias, return_lse=True)
            ctx.save_for_backward(q, k, v, o, lse)
            ctx.causal, ctx.sm_scale, ctx.alias = causal, sm_scale, alias
            return o

        @staticmethod
        def backward(ctx, do):
            q, k, v, o, lse = ctx.saved_tensors
            dq, dk, dv = attention_backward(q, k, v, o, do, lse, causal=ctx.causal, sm_scale=ctx.sm_scale,
                                            alias=ctx.alias)
            return dq, dk, dv, None, None, None

    _FUNCTION.append(FlashAttention)
    return FlashAttention


def attention(q, k, v, causal=False, sm_scale=None, alias=True):
    """Differentiable attention: out = attention(q, k, v); out.backward(...)
    runs this file's backward (the forward saves O and the log-sum-exp)."""
    sm_scale = 1.0 / math.sqrt(q.shape[-1]) if sm_scale is None else sm_scale
    return _autograd_function().apply(q, k, v, causal, sm_scale, alias)


def compile_for_sm90(head_dim=128, causal=False, alias=True, block_m=None, stages=None, ds_over_do=None, dtype="fp16",
                     consumer_registers=240, lse_smem=False, dq_defer=False, dq_tma=False, thread_arrives=True,
                     dq_halves=False, dq_turns=False, q_descending=None, cluster=1, split=False, persistent=False):
    """The backward kernel compiled for sm_90 without a GPU (q_descending: by
    default as attention_backward takes it; persistent: only when asked)."""
    from triton.backends.compiler import GPUTarget
    q_descending = resolve_q_order(causal, dq_defer, q_descending)
    default_m, default_stages, default_ds = default_config(head_dim, alias)
    block_m = block_m or default_m
    constexprs = dict(HEAD_DIM=head_dim, BLOCK_M=block_m, STAGES=stages or default_stages, CAUSAL=causal,
                      ALIAS=alias, DS_OVER_DO=default_ds if ds_over_do is None else ds_over_do,
                      CONSUMER_REGISTERS=consumer_registers, LSE_SMEM=lse_smem, DQ_DEFER=dq_defer, DQ_TMA=dq_tma,
                      THREAD_ARRIVES=thread_arrives, DQ_HALVES=dq_halves, DQ_TURNS=dq_turns,
                      Q_DESCENDING=q_descending, CLUSTER=cluster, SPLIT=split, PERSISTENT=persistent)
    q_block = f"tensordesc<{dtype}[{block_m}, {head_dim}]>"
    kv_block = f"tensordesc<{dtype}[64, {head_dim}]>"
    vec = f"tensordesc<fp32[{block_m // 8}, 8]>" if lse_smem else "*fp32"
    dq = f"tensordesc<fp32[{block_m}, {dq_tile_columns(head_dim, dq_halves, dq_turns)}]>" if dq_tma else "*fp32"
    signature = {"sm_scale": "fp32", "lse_ptr": vec, "delta_ptr": vec, "dq_ptr": dq, "desc_q": q_block,
                 "desc_k": kv_block, "desc_v": kv_block, "desc_do": q_block, "desc_dk": kv_block, "desc_dv": kv_block,
                 "N_CTX": "i32", "split_whole": "i32", "split_pieces": "i32", "workspace": "*fp32", "tiles": "i32",
                 **{name: "constexpr" for name in constexprs}}
    pointers = (() if lse_smem else (1, 2)) + (() if dq_tma else (3, )) + (10, 13)
    attrs = {(i, ): [["tt.divisibility", 16]] for i in pointers}
    src = triton.compiler.ASTSource(fn=attn_bwd_kernel, signature=signature, constexprs=constexprs, attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": 4, "num_stages": 1, "num_ctas": cluster})


if __name__ == "__main__":
    for head_dim in (64, 128):
        for alias in (True, False):
            block_m, stages, ds_over_do = default_config(head_dim, alias)
            kernel = compile_for_sm90(head_dim, alias=alias)
            print(f"HEAD_DIM={head_dim} ALIAS={alias}: BLOCK_N={BLOCK_N}, BLOCK_M={block_m}, {stages} Q/dO stages, "
                  f"dS {'over dO' if ds_over_do else 'double-buffered'}, {kernel.metadata.shared} bytes of shared "
                  "memory")
            if alias:
                tlx.print_memory_map(kernel)
        print()
    kernel = compile_for_sm90(128, stages=4, ds_over_do=True)
    print(f"HEAD_DIM=128 ALIAS=True, dS over dO: 4 Q/dO stages, {kernel.metadata.shared} bytes of shared memory")
    tlx.print_memory_map(kernel)
