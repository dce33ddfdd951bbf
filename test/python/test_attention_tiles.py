"""The causal tile orders' host side (examples/hopper_flash_attention_tiles.py):
the "table" each program runs and the "dynamic" order's groups and state,
by the cost model (a tile's K/V blocks + 1), no GPU."""
import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "examples"))


@pytest.mark.parametrize("heads, num_pid_m, block_m, n_ctx, head_dim, group", [
    (128, 32, 128, 4096, 128, 4), (32, 128, 128, 16384, 128, 4), (512, 8, 128, 1024, 64, 32),
    (32, 86, 192, 16384, 64, 4), (128, 22, 192, 4096, 64, 8), (512, 8, 128, 1024, 256, 4)])
def test_causal_tile_table_runs_every_tile_once_and_ends_together(heads, num_pid_m, block_m, n_ctx, head_dim, group):
    """The "table" order: every causal tile once; by the cost model (K/V
    blocks + 1) the busiest of 132 programs within one tile of the mean
    (list scheduling's bound) and below pairs' busiest; heads in groups of
    four, doubled while the busiest ends over 0.5% past the mean and the
    group's K/V fit 8 MiB (head dim 64, N = 4096: eight, the busiest 3.4%
    past the mean in fours); the first round on few heads."""
    from hopper_flash_attention_tiles import GROUP_HEADS, TABLE_GROUP_BYTES, _list_schedule, causal_tile_table

    head_bytes = 2 * n_ctx * head_dim * 2
    chosen, tiles = causal_tile_table(heads, num_pid_m, block_m, 128, n_ctx, 132, head_bytes)
    assert chosen == group and (group == GROUP_HEADS or group * head_bytes <= TABLE_GROUP_BYTES)
    assert sorted(t for program in tiles for t in program) == list(range(heads * num_pid_m))
    overshoot = num_pid_m * block_m - n_ctx  # 192-row tiles end at N: the first begins before row 0
    cost = [-(-((j + 1) * block_m - overshoot) // 128) + 1 for j in range(num_pid_m)]
    assert cost[-1] == n_ctx // 128 + 1 and cost[0] == -(-(block_m - overshoot) // 128) + 1
    loads = [sum(cost[t % num_pid_m] for t in program) for program in tiles]
    mean = sum(loads) / len(loads)
    assert max(loads) <= mean + max(cost)
    assert group == GROUP_HEADS or max(loads) <= 1.005 * mean or 2 * group * head_bytes > TABLE_GROUP_BYTES
    pairs = heads * (num_pid_m // 2)  # a pair costs num_pid_m + 1 blocks and two tiles' one
    assert max(loads) < -(-pairs // 132) * (cost[0] + cost[-1])
    first_round = {t // num_pid_m for program in tiles for t in program[:1]}
    assert len(first_round) <= group * (-(-132 // (group * num_pid_m)) + 1)
    if group > GROUP_HEADS:  # the groups of four it passed over leave programs further apart
        assert max(loads) < _list_schedule(heads, GROUP_HEADS, cost, 132)[1]


@pytest.mark.parametrize("table_heads", [1, 2])
def test_causal_tile_table_starts_at_table_heads(table_heads):
    """table_heads: the table's groups start at one or two heads; where a
    head's K/V fill the group's bytes (head dim 256, N = 16384: 16 MiB) they
    stay so, list-scheduled group by group."""
    from hopper_flash_attention_tiles import _list_schedule, causal_tile_table, check_table_heads

    head_bytes, num_pid_m = 2 * 16384 * 256 * 2, 64  # 256-row tiles of a cluster, 64-row K/V blocks
    group = check_table_heads(table_heads, "table", head_bytes)
    chosen, tiles = causal_tile_table(32, num_pid_m, 256, 64, 16384, 66, head_bytes, group)
    cost = [(j + 1) * 4 + 1 for j in range(num_pid_m)]
    assert chosen == table_heads and tiles == _list_schedule(32, table_heads, cost, 66)[0]
    assert {t // num_pid_m for program in tiles for t in program[:1]} == {0, 1}  # 66 programs, 64 tiles a head


@pytest.mark.parametrize("option, order, message", [
    (3, "table", "attention: table_heads must be a power of two (heads in the table's first group), got 3"),
    (0, "table", "attention: table_heads must be a power of two (heads in the table's first group), got 0"),
    (True, "table", "attention: table_heads must be a power of two (heads in the table's first group), got True"),
    (2, "dynamic", "attention: table_heads sizes the causal table's groups: it needs tile_order='table', got "
                   "tile_order='dynamic'"),
    (2, "rows", "attention: table_heads sizes the causal table's groups: it needs tile_order='table', got "
                "tile_order='rows'")])
def test_table_heads_refusals(option, order, message):
    from hopper_flash_attention_tiles import GROUP_HEADS, check_table_heads, check_tile_order

    head_bytes = 2 * 4096 * 128 * 2
    assert check_table_heads(None, order, head_bytes) == check_tile_order(order, True, 8, head_bytes) == GROUP_HEADS
    assert check_tile_order("table", True, 8, head_bytes, 2) == 2
    for check in (lambda: check_table_heads(option, order, head_bytes),
                  lambda: check_tile_order(order, True, 8, head_bytes, option)):
        with pytest.raises(ValueError) as error:  # attention() checks it with the tile order, before any compile
            check()
        assert str(error.value) == message


@pytest.mark.parametrize("n_ctx, head_dim, group", [
    (16384, 256, 2), (8192, 256, 4), (32768, 256, 1), (65536, 256, 1), (16384, 128, 4), (32768, 128, 2),
    (4096, 128, 4)])
def test_table_starts_at_the_heads_whose_k_and_v_fit_a_section(n_ctx, head_dim, group):
    """table_heads left at None: groups of four heads, fewer where four
    heads' K and V pass 32 MiB (FA3's sections; head dim 256, N = 16384:
    two); at least one. The table is built from that group."""
    from hopper_flash_attention_tiles import _list_schedule, causal_tile_table, check_tile_order, default_table_heads

    head_bytes = 2 * n_ctx * head_dim * 2
    assert default_table_heads(head_bytes) == check_tile_order("table", True, 8, head_bytes) == group
    num_pid_m = n_ctx // 256
    chosen, tiles = causal_tile_table(32, num_pid_m, 256, 64, n_ctx, 66, head_bytes)
    cost = [(j + 1) * 4 + 1 for j in range(num_pid_m)]
    assert chosen == group and tiles == _list_schedule(32, group, cost, 66)[0]


@pytest.mark.parametrize("heads, n_ctx, head_dim, group", [
    (128, 4096, 64, 32), (32, 16384, 64, 8), (512, 1024, 64, 128), (64, 8192, 128, 8), (32, 16384, 256, 2),
    (2, 65536, 256, 1), (3, 1024, 64, 2)])
def test_dynamic_order_groups_fill_32_mib_of_k_and_v(heads, n_ctx, head_dim, group):
    """The "dynamic" order's groups: the most heads, a power of two and no
    more than there are, whose K and V fit 32 MiB (FlashAttention-3's
    sections); one head where one alone is larger."""
    from hopper_flash_attention_tiles import SECTION_BYTES, dynamic_group_heads

    head_bytes = 2 * n_ctx * head_dim * 2
    assert dynamic_group_heads(heads, head_bytes) == group
    assert group == 1 or group * head_bytes <= SECTION_BYTES == 32 << 20


def test_dynamic_order_table_has_a_mailbox_per_program():
    """The "dynamic" order's int32s: the counter at 0, a group's heads, then
    each program's MAILBOX_SLOTS mailbox slots, empty (NO_ANSWER)."""
    from hopper_flash_attention_tiles import MAILBOX_SLOTS, NO_ANSWER, dynamic_order_state

    state = dynamic_order_state(6, 2 * 768 * 128 * 2, 2)
    assert state == [0, 4] + [NO_ANSWER.value] * (2 * MAILBOX_SLOTS.value) == [0, 4, -1, -1, -1, -1]
