"""How mbarrier arrives reach PTX: a leader's (thread 0 of the warp group,
after a bar.sync of its own) and a warp barrier's (every thread, with no
warp-group barrier under triton 3.7, one under 3.8 and 3.9), on
test/hopper_kernels.py's producer/consumer ring."""
import re

import pytest

from test_hopper_compile import D64, TRITON_38, compile_for_sm90, hk


def test_leader_arrive_follows_a_warp_group_barrier_of_its_own():
    """tlx-sync-before-leader-arrive: each barrier_arrive (thread 0 arrives
    for its warp group) follows a bar.sync of the group emitted with it, after
    the one triton's barrier analysis put there."""
    k = compile_for_sm90(hk.producer_consumer_sum, {"desc": D64, "out_ptr": "*fp32"},
                         dict(NUM_TILES=6, B=64, STAGES=2, EMPTY="leader"))
    ptx = k.asm["ptx"]
    arrives = [m.start() for m in re.finditer(r"mbarrier\.arrive\.shared::cta\.b64 _, \[", ptx)]
    assert arrives
    for at in arrives:
        before = [line.strip() for line in ptx[:at].splitlines()[-6:]]
        assert sum(line.startswith("bar.sync") for line in before) == 2, before


@pytest.mark.parametrize("empty", ["threads", "threads_pred"])
def test_warp_barrier_arrive_is_every_threads_own(empty):
    """A warp barrier's arrive (tlx-thread-arrives-as-expects, then
    tlx-lower-thread-arrives): every consumer thread arrives, unpredicated or
    on the arrive's own predicate, and no bar.sync precedes it: triton's
    barrier analysis saw an mbarrier op, not a leader arrive. (The analysis
    of triton 3.8 and 3.9 puts one bar.sync before the expect all the same:
    one, where a leader arrive gets two.)"""
    k = compile_for_sm90(hk.producer_consumer_sum, {"desc": D64, "out_ptr": "*fp32"},
                         dict(NUM_TILES=6, B=64, STAGES=2, EMPTY=empty))
    ptx = k.asm["ptx"]
    assert re.findall(r"mbarrier\.init\.shared::cta\.b64 \[%r\d+\], (\d+);", ptx).count(
        "128" if empty == "threads" else "256") == 2
    arrives = list(re.finditer(r"^\s*(@%p\d+ )?mbarrier\.arrive\.shared::cta\.b64 _, \[%r\d+\];", ptx, re.M))
    assert [bool(a.group(1)) for a in arrives] == ([False] if empty == "threads" else [False, True])
    # (the analysis still separates two updates of one mbarrier: the second arrive follows a bar.sync)
    before = [line.strip() for line in ptx[:arrives[0].start()].splitlines()[-6:]]
    assert sum(line.startswith("bar.sync") for line in before) == (1 if TRITON_38 else 0), before
