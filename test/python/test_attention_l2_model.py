"""benchmarks/attention_l2_model.py: the LRU model of the K/V bytes a causal
forward reads, by the order of the blocks after the diagonal."""
import os
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import attention_l2_model as model  # noqa: E402

D256_4096 = (128, 256, 4096, 256, 64, 66)  # heads, head dim, N, a cluster's rows, BLOCK_N, clusters


def test_a_cache_that_holds_every_head_reads_each_block_once():
    for descending in (False, True):
        read, least = model.kv_reads(*D256_4096, l2_mib=1024, spread=0.12, descending=descending)
        assert read == least == 128 * 2 * 4096 * 256 * 2 / 1e6


def test_descending_blocks_read_less_where_tiles_of_a_head_start_apart():
    ascending, least = model.kv_reads(*D256_4096, l2_mib=20, spread=0.0, descending=False)
    descending, _ = model.kv_reads(*D256_4096, l2_mib=20, spread=0.0, descending=True)
    assert descending == least < ascending


def test_prints_a_row_per_shape_cache_and_spread(capsys):
    model.main(["--l2-mib", "1024", "--spread", "0"])
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "shape | L2 MiB | spread | ascending MB | descending MB | least MB"
    assert rows[1] == "D256 causal N=4096, clusters of two | 1024 | 0 | 537 | 537 | 537"
    assert len(rows) == 1 + len(model.SHAPES)


def test_the_dynamic_order_with_descending_blocks_reads_each_block_about_once():
    """FlashAttention-3's pair, its scheduler and its block order: at 30 MiB
    with the tiles' 12% spread the model reads the least."""
    ascending, least = model.kv_reads(*D256_4096, l2_mib=30, spread=0.12, descending=False, order="dynamic")
    descending, _ = model.kv_reads(*D256_4096, l2_mib=30, spread=0.12, descending=True, order="dynamic")
    assert descending == least < ascending


def test_table_groups_of_two_heads_read_each_block_once_at_head_dim_256_n_16384():
    """A head's K/V are 16 MiB there: with descending blocks the table's
    groups of four (64 MiB) read twice the least at 30 MiB, groups of two
    (FA3's 32 MiB sections, the default there) the least."""
    shape = (32, 256, 16384, 256, 64, 66)
    fours, least = model.kv_reads(*shape, l2_mib=30, spread=0.0, descending=True, table_heads=4)
    twos, _ = model.kv_reads(*shape, l2_mib=30, spread=0.0, descending=True, table_heads=2)
    default, _ = model.kv_reads(*shape, l2_mib=30, spread=0.0, descending=True)
    assert default == twos == least and fours > 2 * least
