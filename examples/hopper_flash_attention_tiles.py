"""Which tiles (a row block of one batch*head) each persistent program of
examples/hopper_flash_attention.py runs, and in which order: the device side
(_tile_coords, _tiles_of) and, for TILE_ORDER "table", the host side that
builds the table (causal_tile_table); and what the forward's and the
backward's clusters of two CTAs share (_meet_cluster, _peer_freed,
_load_shared, resident_clusters); and which rows and K/V blocks a tile
covers (_tile_rows, _block_start, _kv_part).

TILE_ORDER:
  "rows"   program p runs tiles p, p + nprogs, ... of the head-major row order:
           every tile costs the same without a mask.
  "pairs"  causal: row blocks in pairs (num_pid_m - 1 - j, j) of one head, every
           pair costing the same; programs take pairs round robin.
  "table"  causal: a table made on the host. Heads go in groups of four (their
           K/V stay in L2 together; fewer where four heads' K/V pass
           SECTION_BYTES, default_table_heads), more where four leave
           programs' ends apart and the K/V still fit (causal_tile_table);
           in a group the tiles go longest first, each to the program that is
           free first by the tiles' cost in K/V blocks (list scheduling). The
           last tiles are then the shortest, so programs end together: with
           pairs, 2048 pairs on 132 SMs leave the last round half empty (3%
           of the run).
  "dynamic" causal: the table's order (heads in groups, longest tiles
           first) taken by the programs as they come free, in groups whose
           K/V fill SECTION_BYTES (dynamic_group_heads): program p first
           takes tile p, then the next from a counter in global memory
           (_ask_tile, _next_tile), a tile's place in the order giving its row
           block and head (_dynamic_tile). The table's tiles take longer or
           shorter than its model tile by tile (12% sd at head dim 64 N =
           4096), so its programs end apart (527-590 us there) and drift into
           different groups, whose K/V then no longer fit L2 together; this
           order evens that out. The producer hands each tile to the
           consumers beside its Q (_publish_tile, _published_tile). In a
           cluster of two CTAs rank 0's producer asks and passes the answer
           to the other's through a mailbox in global memory (_next_tile).
"""
import functools
import heapq

import triton
import triton.language as tl

import tlx_alias as tlx

GROUP_HEADS = 4
TABLE_GROUP_BYTES = 8 << 20  # a table group's K and V at most (causal_tile_table)
TILE_FIXED_COST = 1  # a causal tile's cost beyond its K/V blocks, in K/V blocks (2 and 4 no better)
SECTION_BYTES = 32 << 20  # FA3's sections: a "dynamic" group's K and V at most, and a table's first group's
MAILBOX_SLOTS = tl.constexpr(2)  # a cluster's "dynamic" answers in flight from rank 0 to rank 1 (_next_tile)
NO_ANSWER = tl.constexpr(-1)  # an empty mailbox slot


@triton.jit
def _ring(count, STAGES: tl.constexpr):
    """(slot, phase) of ring position `count` in a ring of STAGES slots."""
    return count % STAGES, (count // STAGES) & 1


@triton.jit
def _tile_rows(start_m, num_pid_m, N_CTX, BLOCK_M: tl.constexpr, CAUSAL: tl.constexpr, CLUSTER: tl.constexpr = 1):
    """(first row, lo, hi): row block start_m's first Q row and its K/V rows;
    causal, up to its cluster's last row (the CTAs of a cluster read the same
    K/V blocks). A causal tiling that overshoots N (192-row tiles) ends at N
    and begins before row 0: the rows past the end would be the longest
    tile's, the rows before the start cost one masked block (5.5% fewer K/V
    blocks at N = 4096). Rows outside [0, N) are computed, not stored."""
    first = start_m * BLOCK_M - (num_pid_m * BLOCK_M - N_CTX if CAUSAL else 0)
    hi = tl.minimum(first - start_m % CLUSTER * BLOCK_M + BLOCK_M * CLUSTER, N_CTX) if CAUSAL else N_CTX
    return first, 0, hi


@triton.jit
def _block_start(kv_pos, lo, hi, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_ORDER: tl.constexpr):
    """Where the K/V block at loop position kv_pos begins, by BLOCK_ORDER
    (block_order): "ascending" in order; "diagonal_first" the diagonal's
    BLOCK_M // BLOCK_N blocks first and then the others in order, so that a
    causal tile's masked blocks come first and the loop after them needs no
    mask (a masked softmax in the loop made ptxas spill there);
    "diagonal_first_descending" the others from the diagonal down to lo.
    The diagonal's own blocks stay ascending: its first holds a key that
    every row of the tile sees, so no row's max starts at -inf."""
    if BLOCK_ORDER == "ascending":
        return kv_pos
    else:
        on_diagonal = kv_pos < lo + BLOCK_M
        diagonal_block = kv_pos + (hi - BLOCK_M - lo)
        rest = kv_pos - BLOCK_M if BLOCK_ORDER == "diagonal_first" else hi + lo - BLOCK_N - kv_pos
        return tl.where(on_diagonal, diagonal_block, rest)


@triton.jit
def _kv_part(part: tl.constexpr, lo, hi, diagonal, BLOCK_N: tl.constexpr, SPLIT: tl.constexpr):
    """[start, end) of K/V loop `part` of a tile: [lo, hi), or (SPLIT) the
    three loops a causal tile that is no multiple of BLOCK_N (192 x 128) is
    taken in: its first block, the blocks up to the two that reach the
    diagonal, those. The consumers run them (the masked two apart), and the
    producer too: the same loads in the same order, in the consumers' loop
    shape, which the hazard analysis needs to replay the tasks in step
    (loops of unknown trip count run a bounded number of rounds each)."""
    start = lo
    end = hi
    if SPLIT:
        mask_start = tl.maximum((diagonal // BLOCK_N) * BLOCK_N, lo + BLOCK_N)
        if part == 0:
            end = lo + BLOCK_N
        elif part == 1:
            start = lo + BLOCK_N
            end = mask_start
        else:
            start = mask_start
    return start, end


@triton.jit
def _table_entry(k, pid, nprogs, my_tiles, tile_table, TILE_ORDER: tl.constexpr):
    """Program `pid`'s k-th tile in the table (row 0: each program's tile
    count; row k + 1: its k-th tile), or 0 past its last tile or in another
    order: loaded a tile ahead, its latency is not in the first QK^T."""
    if TILE_ORDER == "table":
        return tl.load(tile_table + (k + 1) * nprogs + pid, mask=k < my_tiles, other=0)
    else:
        return 0


@triton.jit
def _tile_coords(k, pid, nprogs, num_pid_m, entry, TILE_ORDER: tl.constexpr, CLUSTER: tl.constexpr = 1):
    """(row block, batch*head) of program `pid`'s k-th tile (`entry`: its
    _table_entry). A program of CLUSTER CTAs ("rows", "table") runs CLUSTER
    neighbouring row blocks of one head at a time, one per CTA (num_pid_m is
    a multiple of CLUSTER)."""
    if TILE_ORDER == "table":  # a tile of CLUSTER row blocks
        off_hz = entry // (num_pid_m // CLUSTER)
        start_m = entry % (num_pid_m // CLUSTER) * CLUSTER + tlx.cluster_cta_rank()
    elif TILE_ORDER == "pairs":
        pair = pid + (k // 2) * nprogs
        off_hz = pair // (num_pid_m // 2)
        j = pair % (num_pid_m // 2)
        start_m = tl.where(k % 2 == 0, num_pid_m - 1 - j, j)
    else:
        tile = (pid + k * nprogs) * CLUSTER + tlx.cluster_cta_rank()
        off_hz = tile // num_pid_m
        start_m = tile % num_pid_m
    return start_m, off_hz


@triton.jit
def _tiles_of(pid, nprogs, num_pid_m, num_heads, tile_table, TILE_ORDER: tl.constexpr, CLUSTER: tl.constexpr = 1):
    """How many tiles program `pid` runs (each CTA of it); "dynamic": how
    many there are."""
    if TILE_ORDER == "dynamic":  # all programs' (a program runs as many as it gets)
        return num_heads * (num_pid_m // CLUSTER)
    elif TILE_ORDER == "table":
        return tl.load(tile_table + pid)
    elif TILE_ORDER == "pairs":
        return 2 * tl.cdiv(num_heads * (num_pid_m // 2) - pid, nprogs)
    else:
        return tl.cdiv(num_heads * (num_pid_m // CLUSTER) - pid, nprogs)


_PRODUCER_THREADS = tl.constexpr(128)


@triton.jit
def _dynamic_tile(t, num_pid_m, num_heads, group_heads):
    """(row block, batch*head) of the "dynamic" order's t-th tile: heads in
    groups of group_heads (tile_table[1]; the last group may hold fewer), in
    a group the last row block of each head in turn, then the one before,
    ...: the table's order (causal_tile_table), its costs rising with the
    row block."""
    group_tiles = group_heads * num_pid_m
    group = t // group_tiles
    in_group = t - group * group_tiles
    heads = tl.minimum(num_heads - group * group_heads, group_heads)
    return num_pid_m - 1 - in_group // heads, group * group_heads + in_group % heads


@triton.jit
def _dynamic_coords(t, num_pid_m, tiles, group_heads, CLUSTER: tl.constexpr):
    """(row block, batch*head) of this CTA's part of the "dynamic" order's
    t-th tile (`tiles` in all): CLUSTER neighbouring row blocks of one head,
    one per CTA."""
    row_blocks = num_pid_m // CLUSTER
    start, off_hz = _dynamic_tile(t, row_blocks, tiles // row_blocks, group_heads)
    if CLUSTER > 1:
        start = start * CLUSTER + tlx.cluster_cta_rank()
    return start, off_hz


@triton.jit
def _ask_tile(tile_table, CLUSTER: tl.constexpr):
    """One producer thread (in a cluster, rank 0's) adds 1 to the "dynamic"
    order's counter at tile_table[0] (a tensor atomic, masked to one
    element, whose result waits in its register: ptxas waits for it where
    _next_tile reads it, a tile's loads later, not here as a scalar
    atomic's broadcast would)."""
    one = tl.arange(0, _PRODUCER_THREADS) == 0
    if CLUSTER > 1:
        one = one & (tlx.cluster_cta_rank() == 0)
    return tl.atomic_add(tile_table + tl.zeros([_PRODUCER_THREADS], tl.int32), one.to(tl.int32), mask=one,
                         sem="relaxed")


@triton.jit
def _thread_0s(values):
    """The producer's first thread's element of `values`, to all threads
    (the result of a one-thread atomic)."""
    return tl.sum(tl.where(tl.arange(0, _PRODUCER_THREADS) == 0, values, 0), 0)


@triton.jit
def _one_thread_xchg(ptr, value):
    """value into *ptr by one producer thread; the old value, to all."""
    one = tl.arange(0, _PRODUCER_THREADS) == 0
    return _thread_0s(tl.atomic_xchg(ptr + tl.zeros([_PRODUCER_THREADS], tl.int32),
                                     tl.full([_PRODUCER_THREADS], value, tl.int32), mask=one, sem="relaxed"))


@triton.jit
def _next_tile(asked, tile_table, tiles, nprogs, pid, tile_count, CLUSTER: tl.constexpr):
    """The next tile's place in the order for the program that asked
    (_ask_tile) while it loaded its tile_count-th tile: tiles 0 to nprogs -
    1 are the programs' first, the counter counts the ones handed out since
    (_counted). In a cluster rank 0 writes the answer into its program's
    mailbox slot tile_count % MAILBOX_SLOTS (tile_table[2 + ...]) and rank 1
    takes it from there, leaving NO_ANSWER. A slot is free again when rank 0
    writes it: rank 0 loads a K/V block only once rank 1's producer has
    reached it (_peer_freed, from the ring's second round on; a tile has
    CLUSTER row blocks, so at least two K/V blocks), so when rank 0 has
    loaded tile k, rank 1 is at tile k and has taken the answer written
    after tile k - 2."""
    taken = _thread_0s(asked)
    if CLUSTER > 1:
        mailbox = tile_table + 2 + pid * MAILBOX_SLOTS + tile_count % MAILBOX_SLOTS
        tile = tl.full((), NO_ANSWER, tl.int32)
        if tlx.cluster_cta_rank() == 0:
            tile = _counted(tile_table, taken, tiles, nprogs)
            _one_thread_xchg(mailbox, tile)
        else:
            while tile == NO_ANSWER:  # rank 0 answers once its loads of this tile went out
                tile = _one_thread_xchg(mailbox, NO_ANSWER)
        return tile
    else:
        return _counted(tile_table, taken, tiles, nprogs)


@triton.jit
def _counted(tile_table, taken, tiles, nprogs):
    """nprogs + taken. Each program asks until it gets none, so the
    counter's last increment is the tiles-th: the program that makes it
    sets the counter back to 0 for the next launch on the stream (no memset
    before each launch)."""
    if taken == tiles - 1:
        tl.atomic_xchg(tile_table, 0, sem="relaxed")
    return nprogs + taken


@triton.jit
def _publish_tile(tile_ids, qb, tile):
    """The producer writes the tile (or -1: no more) that Q buffer qb is
    loaded for beside it, before the Q load's expect arrives on its full
    barrier, which the consumer waits on before it reads it back
    (_published_tile); the producer writes again only once the consumer
    has handed Q buffer qb back."""
    tlx.local_store(tile_ids[qb], tl.full([1], tile, tl.int32))


@triton.jit
def _published_tile(tile_ids, q_fulls, qb, q_phase):
    tlx.barrier_wait(q_fulls[qb], q_phase)
    return tl.sum(tlx.local_load(tile_ids[qb]), 0)


def _list_schedule(heads, group_heads, cost, nprogs):
    """Each program's tiles and its load by the cost model: heads in groups of
    group_heads, in a group tiles longest first, each to the program free first."""
    longest_first = sorted(range(len(cost)), key=lambda j: -cost[j])
    free_at = [(0, p) for p in range(nprogs)]
    tiles = [[] for _ in range(nprogs)]
    for first_head in range(0, heads, group_heads):
        group = range(first_head, min(first_head + group_heads, heads))
        for j in longest_first:
            for h in group:
                load, p = heapq.heappop(free_at)
                tiles[p].append(h * len(cost) + j)
                heapq.heappush(free_at, (load + cost[j], p))
    return tuple(tuple(t) for t in tiles), max(load for load, _ in free_at)


@functools.lru_cache(maxsize=64)
def causal_tile_table(heads, num_pid_m, block_m, block_n, n_ctx, nprogs, head_bytes, group_heads=None):
    """(group_heads, each program's causal tiles (head * num_pid_m + row
    block) in the order it runs them): the "table" order above. A tile
    costs its K/V blocks plus one for its Q load and O store; tiles that
    overshoot N end at N (the kernel's _tile_rows). Groups hold group_heads
    heads (attention()'s table_heads, default_table_heads by default), twice
    as many while the busiest program ends over 0.5% past the mean and the
    group's K and V (head_bytes a head) stay within TABLE_GROUP_BYTES: a
    group of fewer tiles than programs hands its long tiles to programs that
    end late (head dim 64, N = 4096: 3.4% by the model in groups of four,
    1.5% in eight). Groups of 16 MiB cost 1.6-2.7%
    more active SM cycles than fours at head dim 64 (L2), 8 MiB 0.1% at 128;
    8 MiB groups took 1.7-2.2% fewer elapsed cycles than fours at head dim 64
    N = 1024-4096 (docs/design/attention.md, "Causal tile order")."""
    overshoot = num_pid_m * block_m - n_ctx
    cost = [-(-((j + 1) * block_m - overshoot) // block_n) + TILE_FIXED_COST for j in range(num_pid_m)]
    mean = sum(cost) * heads / nprogs
    group, schedules = group_heads or default_table_heads(head_bytes), []
    while True:
        tiles, busiest = _list_schedule(heads, group, cost, nprogs)
        schedules.append((busiest, group, tiles))
        if busiest <= 1.005 * mean or group >= heads or 2 * group * head_bytes > TABLE_GROUP_BYTES:
            break
        group *= 2
    _, group, tiles = min(schedules, key=lambda schedule: schedule[:2])  # the least busiest; ties: fewer heads
    return group, tiles


def dynamic_group_heads(heads, head_bytes):
    """Heads a "dynamic" group holds: the most, a power of two, whose K and V
    (head_bytes a head) fit SECTION_BYTES, as FlashAttention-3's
    scheduler sizes its sections (32 MB); at least one. The last group's
    tiles, longest first, are all that is left for the programs to even out
    on: groups of four at head dim 64 N = 4096 left 88 tiles to 132
    programs (docs/design/attention.md, "Causal tile order")."""
    group = 1
    while 2 * group <= heads and 2 * group * head_bytes <= SECTION_BYTES:
        group *= 2
    return group


def default_table_heads(head_bytes):
    """The table's first group when table_heads is None: GROUP_HEADS heads,
    fewer where their K and V pass SECTION_BYTES (head dim 256, N = 16384:
    two heads, 32 MiB, where four read 1867 MB from DRAM and two 855 on an
    H200, +1.2%; docs/design/attention.md, "Causal tile order")."""
    return dynamic_group_heads(GROUP_HEADS, head_bytes)


def dynamic_order_state(heads, head_bytes, nprogs):
    """The "dynamic" order's int32s at launch: the counter (0), a group's
    heads, each program's mailbox slots, empty (clusters: _next_tile)."""
    return [0, dynamic_group_heads(heads, head_bytes)] + [NO_ANSWER.value] * (nprogs * MAILBOX_SLOTS.value)


def check_table_heads(option, order, head_bytes):
    """attention()'s table_heads: the causal table's first group of heads
    (causal_tile_table), a power of two; None takes default_table_heads for
    heads of head_bytes K and V."""
    if option is None:
        return default_table_heads(head_bytes)
    if order != "table":
        raise ValueError(f"attention: table_heads sizes the causal table's groups: it needs tile_order='table', "
                         f"got tile_order={order!r}")
    if isinstance(option, bool) or not isinstance(option, int) or option < 1 or option & (option - 1):
        raise ValueError(f"attention: table_heads must be a power of two (heads in the table's first group), "
                         f"got {option!r}")
    return option


@functools.lru_cache(maxsize=64)
def tile_table_tensor(order, heads, num_pid_m, block_m, block_n, n_ctx, nprogs, head_bytes, device, stream=None,
                      group_heads=None):
    """The int32 table the kernel reads for TILE_ORDER "table" (row 0 the tile
    counts, row k + 1 each program's k-th tile; head_bytes: a head's K and
    V; group_heads: check_tile_order's), the "dynamic" order's state
    (dynamic_order_state), or a one-element
    stand-in for the other orders; kept per device and shape, and for
    "dynamic" per stream (launches on one stream run one after another, and
    each leaves the counter at 0 and the mailboxes empty)."""
    import torch
    if order == "dynamic":
        return torch.tensor(dynamic_order_state(heads, head_bytes, nprogs), dtype=torch.int32, device=device)
    if order != "table":
        return torch.zeros(1, dtype=torch.int32, device=device)
    _, tiles = causal_tile_table(heads, num_pid_m, block_m, block_n, n_ctx, nprogs, head_bytes, group_heads)
    rows = [[len(t) for t in tiles]] + [[t[k] if k < len(t) else -1 for t in tiles]
                                        for k in range(max(map(len, tiles)))]
    return torch.tensor(rows, dtype=torch.int32, device=device)


def grid_size(order, heads, num_pid_m, num_sms):
    """Persistent programs for a tile order: one per SM, no more than its work items."""
    return min(num_sms, heads * (num_pid_m // 2 if order == "pairs" else num_pid_m))


def check_tile_order(order, causal, num_pid_m, head_bytes, table_heads=None):
    """The tile order's checks, table_heads's among them (check_table_heads,
    before any compile; head_bytes: a head's K and V); returns the table's
    first group of heads."""
    if order not in ("rows", "pairs", "table", "dynamic"):
        raise ValueError(f"attention: tile_order must be 'rows', 'pairs', 'table' or 'dynamic', got {order!r}")
    if order == "dynamic" and not causal:
        raise ValueError("attention: tile_order='dynamic' is for causal attention (non-causal tiles all cost the "
                         "same: 'rows')")
    if order == "pairs" and (not causal or num_pid_m % 2):
        raise ValueError("attention: tile_order='pairs' is for causal attention with an even number of row blocks, "
                         f"got {num_pid_m} row blocks{'' if causal else ' (non-causal)'}")
    return check_table_heads(table_heads, order, head_bytes)


def check_cluster(cluster, order, o_staging, num_pid_m):
    """CTAs per cluster: 1, or 2 for the row order or the causal table or
    dynamic order with O over Q and an even number of row blocks (each
    cluster runs two of one head; causal, both read the K/V blocks up to the
    second one's diagonal)."""
    if cluster == 1:
        return 1
    if cluster != 2 or order == "pairs" or o_staging != "q" or num_pid_m % 2:
        raise ValueError(f"attention: cluster must be 1, or 2 with tile_order 'rows', 'table' or 'dynamic', O over Q "
                         f"and an even number of row blocks; got cluster={cluster}, tile_order={order!r}, "
                         f"o_staging={o_staging!r}, {num_pid_m} row blocks")
    return cluster


_resident = {}


def resident_clusters(kernel, args, constexprs, device):
    """How many clusters of the kernel (compiled for these arguments) the GPU
    runs at once: the persistent grid of a clustered launch. Clusters go to
    GPCs whole, so this can be less than the SMs / cluster."""
    key = (device.index, tuple(sorted((k, str(v)) for k, v in constexprs.items())))
    if key not in _resident:
        _resident[key] = tlx.max_active_clusters(kernel.warmup(*args, grid=(1, ), **constexprs))
    return _resident[key]


# The clusters of two CTAs of the forward and backward (docs/design/clusters.md).

@triton.jit
def _meet_cluster(CLUSTER: tl.constexpr, INITS: tl.constexpr = False):
    """In a cluster each task meets the other CTA's once its barriers are
    initialized (before any multicast or remote arrive; INITS: the task whose
    threads initialized them, on the kernel's own warps, makes the inits
    visible to the cluster first) and at its end (no CTA exits while the
    other may still signal it)."""
    if CLUSTER > 1:
        if INITS:
            tlx.fence_mbarrier_init_cluster()
        tlx.cluster_barrier()


@triton.jit
def _peer_freed(peer_empties, slot, phase, count, rank, STAGES: tl.constexpr):
    """Before rank 0 refills ring slot `slot` (ring position `count`) that
    both CTAs read, the other CTA's producer, having seen its own consumers
    free the slot, tells it so on rank 0's `peer_empties` (a remote arrive,
    from the ring's second round on), and rank 0's producer waits for that."""
    tlx.barrier_wait(peer_empties[slot], phase ^ 1, pred=rank == 0)
    tlx.barrier_arrive(peer_empties[slot], remote_cta_rank=0, pred=(rank != 0) & (count >= STAGES))


@triton.jit
def _load_shared(desc, buf, row, bar, rank, CLUSTER: tl.constexpr, EVICT: tl.constexpr = ""):
    """A tile every CTA of the cluster reads: rank 0 multicasts it into all
    (EVICT: the load's L2 eviction policy)."""
    if CLUSTER > 1:
        tlx.async_descriptor_load(desc, buf, [row, 0], bar, pred=rank == 0, multicast_targets=[0, 1],
                                  eviction_policy=EVICT)
    else:
        tlx.async_descriptor_load(desc, buf, [row, 0], bar, eviction_policy=EVICT)
