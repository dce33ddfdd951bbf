"""The producer warp group of examples/hopper_flash_attention.py: for each
of its program's tiles (in the order of hopper_flash_attention_tiles.py)
the Q halves into the consumers' Q buffers, then the tile's K and V blocks
into their rings with TMA, in the order the consumers take them; in a
cluster of two CTAs rank 0 multicasts each K/V block into both."""
import triton
import triton.language as tl

import tlx_alias as tlx
from hopper_flash_attention_tiles import (_ask_tile, _block_start, _dynamic_coords, _kv_part, _load_shared,
                                         _meet_cluster, _next_tile, _peer_freed, _publish_tile, _ring, _table_entry,
                                         _tile_coords, _tile_rows)


@triton.jit
def _load_kv(desc, tiles, fulls, empties, peer_empties, count, row, rank, STAGES: tl.constexpr, BYTES: tl.constexpr,
             CLUSTER: tl.constexpr, EVICT: tl.constexpr):
    """One K or V block into ring position `count`. In a cluster of two CTAs
    (which run two row blocks of one head, reading the same K/V blocks) rank
    0 multicasts it into both once the other CTA has freed the slot too
    (_peer_freed); each CTA expects the bytes. EVICT: its L2 eviction policy."""
    slot, phase = _ring(count, STAGES)
    tlx.barrier_wait(empties[slot], phase ^ 1)
    if CLUSTER > 1:
        _peer_freed(peer_empties, slot, phase, count, rank, STAGES)
    tlx.barrier_expect_bytes(fulls[slot], BYTES)
    _load_shared(desc, tiles[slot], row, fulls[slot], rank, CLUSTER, EVICT)


@triton.jit
def _load_tile(desc_q, desc_k, desc_v, q_tiles, k_tiles, v_tiles, q_fulls, q_empties, k_fulls, k_empties, v_fulls,
               v_empties, k_peer_empties, v_peer_empties, tile_ids, tile, tile_count, kv_count, start_m, off_hz,
               num_pid_m, N_CTX, rank, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               K_STAGES: tl.constexpr, V_STAGES: tl.constexpr, Q_BUFFERS: tl.constexpr, CAUSAL: tl.constexpr,
               TILE_ORDER: tl.constexpr, BLOCK_ORDER: tl.constexpr, O_OVER_V: tl.constexpr, O_ENTRIES: tl.constexpr,
               NUM_MMA_GROUPS: tl.constexpr, dtype: tl.constexpr, CLUSTER: tl.constexpr, L2_HINTS: tl.constexpr):
    """The producer's tile_count-th tile: its Q halves (in the "dynamic"
    order with the tile beside them), then its K/V blocks; with O over V,
    after them one V ring entry per consumer to stage its O in. L2_HINTS:
    K and V loaded at L2 evict_last priority, Q at evict_first."""
    KV_EVICT: tl.constexpr = "evict_last" if L2_HINTS else ""
    Q_EVICT: tl.constexpr = "evict_first" if L2_HINTS else ""
    BM_HALF: tl.constexpr = BLOCK_M // NUM_MMA_GROUPS
    ELEM: tl.constexpr = tlx.size_of(dtype)
    row0 = off_hz * N_CTX
    first_row, lo, hi = _tile_rows(start_m, num_pid_m, N_CTX, BLOCK_M, CAUSAL, CLUSTER)
    q_buf, q_phase = _ring(tile_count, Q_BUFFERS)
    v_shift = tile_count * O_ENTRIES  # block b's V is at V ring position b + v_shift
    for c in tl.static_range(NUM_MMA_GROUPS):  # (rows before the first: TMA fills them with zeros)
        qb = c * Q_BUFFERS + q_buf
        tlx.barrier_wait(q_empties[qb], q_phase ^ 1)
        if TILE_ORDER == "dynamic":
            _publish_tile(tile_ids, qb, tile)
        tlx.barrier_expect_bytes(q_fulls[qb], BM_HALF * HEAD_DIM * ELEM)
        tlx.async_descriptor_load(desc_q, q_tiles[qb], [row0 + first_row + c * BM_HALF, 0], q_fulls[qb],
                                  eviction_policy=Q_EVICT)
    # in the consumers' loops: a causal tile that is no multiple of BLOCK_N in three (see _kv_part)
    SPLIT: tl.constexpr = CAUSAL and BLOCK_M % BLOCK_N != 0
    for part in tl.static_range(3 if SPLIT else 1):
        start, end = _kv_part(part, lo, hi, first_row, BLOCK_N, SPLIT)
        for kv_pos in range(start, end, BLOCK_N):
            kv_start = _block_start(kv_pos, lo, hi, BLOCK_M * CLUSTER, BLOCK_N, BLOCK_ORDER)
            _load_kv(desc_k, k_tiles, k_fulls, k_empties, k_peer_empties, kv_count, row0 + kv_start, rank,
                     K_STAGES, BLOCK_N * HEAD_DIM * ELEM, CLUSTER, KV_EVICT)
            _load_kv(desc_v, v_tiles, v_fulls, v_empties, v_peer_empties, kv_count + v_shift, row0 + kv_start,
                     rank, V_STAGES, BLOCK_N * HEAD_DIM * ELEM, CLUSTER, KV_EVICT)
            kv_count += 1
    if O_OVER_V:  # the consumers' O entries: free V slots, handed over by a plain arrive
        for c in tl.static_range(NUM_MMA_GROUPS):
            v_slot, v_phase = _ring(kv_count + v_shift + c, V_STAGES)
            tlx.barrier_wait(v_empties[v_slot], v_phase ^ 1)
            tlx.barrier_arrive(v_fulls[v_slot])
    return kv_count


@triton.jit
def _load_tiles(desc_q, desc_k, desc_v, q_tiles, k_tiles, v_tiles, q_fulls, q_empties, k_fulls, k_empties, v_fulls,
                v_empties, k_peer_empties, v_peer_empties, tile_ids, my_tiles, pid, nprogs, num_pid_m, tile_table,
                N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, K_STAGES: tl.constexpr,
                V_STAGES: tl.constexpr, Q_BUFFERS: tl.constexpr, CAUSAL: tl.constexpr, TILE_ORDER: tl.constexpr,
                BLOCK_ORDER: tl.constexpr, O_OVER_V: tl.constexpr, O_ENTRIES: tl.constexpr,
                NUM_MMA_GROUPS: tl.constexpr, dtype: tl.constexpr, CLUSTER: tl.constexpr, L2_HINTS: tl.constexpr):
    """The producer: its program's tiles (_load_tile); in the "dynamic"
    order (my_tiles: the tiles of all programs) as long as the counter hands
    it one, and then -1 in each consumer's next Q buffer (no Q loaded)."""
    # CLUSTER CTAs (num_ctas) run CLUSTER row blocks of one head and share each K/V block's load
    tl.static_assert(CLUSTER == tlx.cluster_size_1d(), "CLUSTER must be the launch's num_ctas")
    tl.static_assert(CLUSTER == 1 or (CLUSTER == 2 and TILE_ORDER != "pairs" and not O_OVER_V),
                     "clusters of 2 run the row order or (causal) the table or dynamic order, with O over Q")
    _meet_cluster(CLUSTER, INITS=True)
    rank = tlx.cluster_cta_rank()
    kv_count = 0
    if TILE_ORDER == "dynamic":
        group_heads = tl.load(tile_table + 1)  # dynamic_group_heads
        tile_count = 0
        tile = pid
        while tile < my_tiles:
            asked = _ask_tile(tile_table, CLUSTER)  # the next tile, answered while this one's loads go out
            start_m, off_hz = _dynamic_coords(tile, num_pid_m, my_tiles, group_heads, CLUSTER)
            kv_count = _load_tile(desc_q, desc_k, desc_v, q_tiles, k_tiles, v_tiles, q_fulls, q_empties, k_fulls,
                                  k_empties, v_fulls, v_empties, k_peer_empties, v_peer_empties, tile_ids, tile,
                                  tile_count, kv_count, start_m, off_hz, num_pid_m, N_CTX, rank, HEAD_DIM, BLOCK_M,
                                  BLOCK_N, K_STAGES, V_STAGES, Q_BUFFERS, CAUSAL, TILE_ORDER, BLOCK_ORDER, O_OVER_V,
                                  O_ENTRIES, NUM_MMA_GROUPS, dtype, CLUSTER, L2_HINTS)
            tile = _next_tile(asked, tile_table, my_tiles, nprogs, pid, tile_count, CLUSTER)
            tile_count += 1
        q_buf, q_phase = _ring(tile_count, Q_BUFFERS)
        for c in tl.static_range(NUM_MMA_GROUPS):
            tlx.barrier_wait(q_empties[c * Q_BUFFERS + q_buf], q_phase ^ 1)
            _publish_tile(tile_ids, c * Q_BUFFERS + q_buf, -1)
            tlx.barrier_arrive(q_fulls[c * Q_BUFFERS + q_buf])
    else:
        for tile_count in range(0, my_tiles):
            start_m, off_hz = _tile_coords(tile_count, pid, nprogs, num_pid_m,
                                           _table_entry(tile_count, pid, nprogs, my_tiles, tile_table, TILE_ORDER),
                                           TILE_ORDER, CLUSTER)
            kv_count = _load_tile(desc_q, desc_k, desc_v, q_tiles, k_tiles, v_tiles, q_fulls, q_empties, k_fulls,
                                  k_empties, v_fulls, v_empties, k_peer_empties, v_peer_empties, tile_ids, 0,
                                  tile_count, kv_count, start_m, off_hz, num_pid_m, N_CTX, rank, HEAD_DIM, BLOCK_M,
                                  BLOCK_N, K_STAGES, V_STAGES, Q_BUFFERS, CAUSAL, TILE_ORDER, BLOCK_ORDER, O_OVER_V,
                                  O_ENTRIES, NUM_MMA_GROUPS, dtype, CLUSTER, L2_HINTS)
    _meet_cluster(CLUSTER)
