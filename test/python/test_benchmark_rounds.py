"""benchmarks/sides.round_order: the order of each timing round. Rotations
alone let a kernel always follow the same one (on an H200 the aliased
forward right after FA3 ran its slowest rounds); a Williams design lets
each follow every other equally often."""
import collections
import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import sides  # noqa: E402


@pytest.mark.parametrize("count", range(1, 10))
def test_each_kernel_follows_every_other_equally_often_and_holds_every_place(count):
    cycle = count if count % 2 == 0 else 2 * count
    orders = [sides.round_order(count, r) for r in range(cycle)]
    assert all(sorted(order) == list(range(count)) for order in orders)
    follows = collections.Counter((a, b) for order in orders for a, b in zip(order, order[1:]))
    assert set(follows) == {(a, b) for a in range(count) for b in range(count) if a != b}
    assert len(set(follows.values())) <= 1
    places = collections.Counter((place, k) for order in orders for place, k in enumerate(order))
    assert len(places) == count * count and len(set(places.values())) == 1


@pytest.mark.parametrize("count", range(2, 10))
def test_with_the_spacer_before_each_round_every_kernel_follows_each_other_and_it_equally_often(count):
    cycle = count if count % 2 == 0 else 2 * count
    sequence = [k for r in range(cycle) for k in [sides.SPACER] + sides.round_order(count, r)]
    before = collections.Counter((a, b) for a, b in zip(sequence, sequence[1:]) if b != sides.SPACER)
    assert set(before) == {(a, b) for a in list(range(count)) + [sides.SPACER] for b in range(count) if a != b}
    assert len(set(before.values())) == 1


def test_without_the_spacer_the_rounds_boundaries_tip_the_balance():
    bare = [k for r in range(5) for k in sides.round_order(4, r)][:17]  # a cycle of 4 rounds and the next's first
    before = collections.Counter(zip(bare, bare[1:]))
    assert before[(1, 0)] == 2 and before[(2, 0)] == before[(3, 0)] == 1  # kernel 0 after kernel 1 twice a cycle


def test_the_orders_repeat_with_their_cycle():
    assert [sides.round_order(4, r) for r in range(5)] == [[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1],
                                                           [0, 1, 3, 2]]
    assert sides.round_order(3, 3) == sides.round_order(3, 0)[::-1]
    assert sides.round_order(3, 6) == sides.round_order(3, 0)
    assert sides.round_order(0, 5) == []


def test_attention_rows_give_each_kernels_time_by_its_predecessor():
    import attention

    rows = [dict(dtype="bf16", N=4096, D=256, causal=True, name="aliased", ms_rounds=[1.70, 1.84, 1.72, 1.86, 1.71],
                 after=[None, "FA3", "SDPA", "FA3", "SDPA"]),
            dict(dtype="bf16", N=4096, D=256, causal=True, name="SDPA", ms_rounds=[1.9]),  # no "after": an old run
            dict(dtype="fp16", N=1024, D=64, causal=False, name="FA3", ms_rounds=[0.5, 0.6], after=["aliased", "SDPA"])]
    assert attention.by_predecessor(rows).splitlines() == [
        "bf16 N=4096 D=256 causal aliased: after (none): 1.700 ms x1; after FA3: 1.860 ms x2; after SDPA: 1.720 ms x2",
        "fp16 N=1024 D=64 FA3: after SDPA: 0.600 ms x1; after aliased: 0.500 ms x1"]
