"""A model of the K/V bytes a causal attention forward reads from DRAM: each
persistent program runs its tiles in the "table" order
(examples/hopper_flash_attention_tiles.causal_tile_table) or, with
--order dynamic, takes the "dynamic" order's next tile (_dynamic_tile: heads
in groups of dynamic_group_heads, each group's longest tiles first, heads
fastest) whenever it comes free; a tile reads one
K/V block per time unit after TILE_FIXED_COST units, every tile's unit
stretched by a random factor (the measured spread of tile times), and all
programs' block reads merge in time order into one LRU cache of --l2-mib.
A read that misses costs the block's K and V bytes. The model has no
prefetch, no L2 partitions and no Q or O traffic: it compares orders, it
does not predict Nsight Compute's counts.

    python benchmarks/attention_l2_model.py [--l2-mib 20 30 40] [--spread 0 0.12] [--order dynamic] [--table-heads 2]

Rows: shape, cache, spread, then the K/V megabytes read with the blocks
after the diagonal ascending and descending (kv_order), and the least a
tile order can read (every K/V byte once).
"""
import argparse
import heapq
import os
import random
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))

import hopper_flash_attention_tiles as tiles  # noqa: E402

# (label, heads (batch * heads), head_dim, N, BLOCK_M a program's tile (two CTAs' in clusters), BLOCK_N, programs)
SHAPES = [
    ("D256 causal N=4096, clusters of two", 128, 256, 4096, 256, 64, 66),
    ("D256 causal N=16384, clusters of two", 32, 256, 16384, 256, 64, 66),
    ("D128 causal N=16384, clusters of two", 32, 128, 16384, 256, 128, 66),
    ("D128 causal N=4096", 128, 128, 4096, 128, 128, 132),
]


def _table_programs(heads, num_pid_m, block_m, block_n, n_ctx, nprogs, head_bytes, table_heads):
    """Each program's tiles, (head, row block), in the table's order."""
    _, programs = tiles.causal_tile_table(heads, num_pid_m, block_m, block_n, n_ctx, nprogs, head_bytes, table_heads)
    return [[divmod(tile, num_pid_m) for tile in program] for program in programs]


def _dynamic_order(heads, num_pid_m, head_bytes):
    """The "dynamic" order's tiles, (head, row block), as _dynamic_tile numbers them."""
    group = tiles.dynamic_group_heads(heads, head_bytes)
    return [(first + h, j) for first in range(0, heads, group) for j in reversed(range(num_pid_m))
            for h in range(min(group, heads - first))]


def kv_reads(heads, head_dim, n_ctx, block_m, block_n, nprogs, l2_mib, spread, descending, seed=0, order="table",
             table_heads=None):
    """(megabytes of K/V read from DRAM, the least possible) under the model;
    table_heads: the table's first group (attention()'s table_heads; None:
    default_table_heads)."""
    rnd = random.Random(seed)
    num_pid_m = n_ctx // block_m
    block_bytes = 2 * block_n * head_dim * 2  # a K and a V block, 16 bits
    head_bytes = 2 * n_ctx * head_dim * 2
    diagonal = block_m // block_n
    if order == "table":  # every tile in a program's list: none handed out later
        programs = _table_programs(heads, num_pid_m, block_m, block_n, n_ctx, nprogs, head_bytes, table_heads)
        queue = []
    else:  # each program starts with one tile, then takes the next as it comes free
        queue = _dynamic_order(heads, num_pid_m, head_bytes)
        programs, queue = [[tile] for tile in queue[:nprogs]], queue[nprogs:]
    reads = []  # (time, head, block)
    free = []  # (time, program): when each program has run its tiles so far

    def run(tile, now):
        head, row_block = tile
        blocks = (row_block + 1) * diagonal
        unit = max(0.0, 1 + spread * rnd.gauss(0, 1))
        now += tiles.TILE_FIXED_COST * unit
        rest = range(blocks - diagonal - 1, -1, -1) if descending else range(blocks - diagonal)
        for block in [*range(blocks - diagonal, blocks), *rest]:
            reads.append((now, head, block))
            now += unit
        return now

    for p, program in enumerate(programs):
        now = 0.0
        for tile in program:
            now = run(tile, now)
        heapq.heappush(free, (now, p))
    for tile in queue:
        now, p = heapq.heappop(free)
        heapq.heappush(free, (run(tile, now), p))
    reads.sort()
    capacity, cache, misses = int(l2_mib * 2**20 // block_bytes), OrderedDict(), 0
    for _, head, block in reads:
        if (head, block) in cache:
            cache.move_to_end((head, block))
            continue
        misses += 1
        cache[(head, block)] = True
        if len(cache) > capacity:
            cache.popitem(last=False)
    return misses * block_bytes / 1e6, heads * head_bytes / 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--l2-mib", nargs="+", type=float, default=[20, 30, 40], help="LRU capacities")
    parser.add_argument("--spread", nargs="+", type=float, default=[0.0, 0.12],
                        help="standard deviation of a tile's time per block, relative")
    parser.add_argument("--order", choices=["table", "dynamic"], default="table", help="the causal tile order")
    parser.add_argument("--table-heads", type=int,
                        help="the table's first group of heads (attention()'s table_heads; default_table_heads's "
                             "by default)")
    args = parser.parse_args(argv)
    if args.table_heads is not None:  # what attention() refuses (a group given needs no head size)
        tiles.check_table_heads(args.table_heads, "table", head_bytes=None)
    print("shape | L2 MiB | spread | ascending MB | descending MB | least MB")
    for label, *shape in SHAPES:
        for l2_mib in args.l2_mib:
            for spread in args.spread:
                up, least = kv_reads(*shape, l2_mib, spread, False, order=args.order, table_heads=args.table_heads)
                down, _ = kv_reads(*shape, l2_mib, spread, True, order=args.order, table_heads=args.table_heads)
                print(f"{label} | {l2_mib:g} | {spread:g} | {up:.0f} | {down:.0f} | {least:.0f}", flush=True)


if __name__ == "__main__":
    main()
