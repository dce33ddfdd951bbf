"""The mutation suite of the flash-attention backward (examples/hopper_flash_attention_bwd.py), as
test_hazards_mutations.py runs it for the other examples: each wait, arrive and fence of the final TTGIR
removed in turn, tlx-opt --tlx-check-hazards run on the mutant, and the result checked against CLASSES
(race: reported; hang or benign: not), for the default configs (one program a K/V block and persistent
programs, causal and not) and the candidates' ways of dQ."""
import os
import sys

import pytest

from mutation_tally import ARRIVE_HANGS, BENIGN, HANG, RACE, UNCLASSIFIED, Tally

import test_hazards_mutations as mutations

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
import hopper_flash_attention_bwd as fab  # noqa: E402

HALVES = dict(dq_tma=True, dq_halves=True, lse_smem=True)
TURNS = dict(dq_tma=True, dq_turns=True, lse_smem=True)


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))


_WAITS_RETIRE = "the wait(0) beside it retires every wgmma of the step before the slot goes back"
_SHARED = {
    ("default", "tlx.barrier_wait(empties[slot], phase ^ 1)", 0):
    (RACE, "the Q/dO loads refill a slot while the consumers' wgmmas of its previous round still read it"),
    ("partition*", "tlx.barrier_wait(kv_full, 0)", 0): (RACE, "S^T and dP^T read K and V while TMA may write them"),
    ("partition*", "tlx.barrier_wait(q_fulls[slot], phase)", 0): (RACE, "S^T reads Q while TMA may write it"),
    ("partition*", "tlx.barrier_wait(do_fulls[slot], phase)", 0): (RACE, "dP^T reads dO while TMA may write it"),
    ("partition*", "qk = tlx.async_dot_wait(1, qk)", 0):
    (BENIGN, "for shared memory: the step's wait(0) retires S^T before the slot goes back (the accumulator "
     "read before it retires is a register hazard, outside this analysis)"),
    ("partition*", "dp = tlx.async_dot_wait(1, dp)", 0):
    (BENIGN, "as S^T's: a later wait of the step retires dP^T before its slot is reused"),
    ("partition*", "tlx.fence_async_shared()", 0): (RACE, mutations.UNFENCED.replace("TMA store", "dQ wgmma")),
    ("partition*", "dq = tlx.async_dot_wait(0, dq)", 0): (BENIGN, _WAITS_RETIRE),
    ("partition*", "dk = tlx.async_dot_wait(0, dk)", 0): (BENIGN, _WAITS_RETIRE),
    ("partition*", "dv = tlx.async_dot_wait(0, dv)", 0): (BENIGN, _WAITS_RETIRE),
    ("partition*", "tlx.barrier_arrive(empty)", 0): (HANG, ARRIVE_HANGS),
    ("partition*", "tlx.fence_async_shared()", 1): (RACE, mutations.UNFENCED),
    ("partition*", "tlx.async_descriptor_store_wait(0)", 0):
    (RACE, "the dK/dV stores are still pending when the consumer task ends"),
}
_DQ_TMA = {
    **_SHARED,
    ("partition*", "tlx.async_descriptor_store_wait(0)", 0):
    (RACE, "dS^T is written over the dQ tile the last step's TMA reduce-add may still read"),
    ("partition*", "dk = tlx.async_dot_wait(0, dk)", 0): (BENIGN, "dV's wait(0) beside it retires dK's wgmma too"),
    ("partition*", "dv = tlx.async_dot_wait(0, dv)", 0): (BENIGN, "dK's wait(0) beside it retires dV's wgmma too"),
    ("partition*", "dq = tlx.async_dot_wait(0, dq)", 0):
    (BENIGN, "for shared memory: the first dQ chunk's tile is not dS^T's, and the next chunk's wait(0) retires "
     "the wgmma before dS^T's bytes are rewritten (the accumulator stored before it retires is a register "
     "hazard, outside this analysis)"),
    ("partition*", "dq = tlx.async_dot_wait(0, dq)", 1):
    (RACE, "the last dQ chunk's tile lies over dS^T, which its wgmma may still read"),
    ("partition*", "tlx.fence_async_shared()", 1):
    (RACE, "the TMA reduce-add reads the dQ tile through the async proxy with no fence after its local_store"),
    ("partition*", "tlx.fence_async_shared()", 2):
    (RACE, "the TMA reduce-add reads the dQ tile through the async proxy with no fence after its local_store"),
    ("partition*", "tlx.fence_async_shared()", 3): (RACE, mutations.UNFENCED),
    ("partition*", "tlx.async_descriptor_store_wait(0)", 1):
    (RACE, "the dK/dV stores and the last TMA reduce-adds are still pending when the consumer task ends"),
}
# dQ turns unroll two steps a trip: consumer 0's turn first (its fences: the
# step's dS^T, the dQ tile, the next step's dS^T, the epilogue's), then
# consumer 1's (dS^T, dS^T, the dQ tile, the epilogue's).
_UNFENCED_DS = "the other consumer's dQ wgmma reads this dS^T half through the async proxy with no fence"
_UNFENCED_DQ = "the TMA reduce-add reads the dQ tile through the async proxy with no fence after its local_store"
_TURNS = {
    **{key: value for key, value in _SHARED.items()  # (those told apart by consumer below)
       if key[1] != "dq = tlx.async_dot_wait(0, dq)" and key != ("partition*", "tlx.fence_async_shared()", 1)},
    **{("partition*", source, 1): _SHARED["partition*", source, 0]
       for source in ("tlx.barrier_wait(q_fulls[slot], phase)", "tlx.barrier_wait(do_fulls[slot], phase)",
                      "qk = tlx.async_dot_wait(1, qk)", "dp = tlx.async_dot_wait(1, dp)", "tlx.barrier_arrive(empty)")},
    **{("partition*", f"{name} = tlx.async_dot_wait(0, {name})", occurrence):
       (BENIGN, f"{other}'s wait(0) beside it retires {name}'s wgmma too")
       for name, other in (("dk", "dV"), ("dv", "dK")) for occurrence in (0, 1)},
    ("partition0", "dq = tlx.async_dot_wait(0, dq)", 0):
    (BENIGN, "for shared memory: the next step's wait(0)s retire dQ's wgmma before dS^T's buffer or K is written "
     "again (the accumulator stored before it retires is a register hazard, outside this analysis)"),
    ("partition1", "dq = tlx.async_dot_wait(0, dq)", 0):
    (RACE, "the last Q block's dQ wgmma may still read K when the epilogue stages dK over it"),
    ("partition0", "tlx.fence_async_shared()", 1): (RACE, _UNFENCED_DQ),
    ("partition0", "tlx.fence_async_shared()", 2): (RACE, _UNFENCED_DS),
    ("partition1", "tlx.fence_async_shared()", 1): (RACE, _UNFENCED_DS),
    ("partition1", "tlx.fence_async_shared()", 2): (RACE, _UNFENCED_DQ),
    ("partition*", "tlx.fence_async_shared()", 3): (RACE, mutations.UNFENCED),
    ("partition*", "tlx.async_descriptor_store_wait(0)", 0):
    (RACE, "the other consumer stages its turn's dQ in the tile this consumer's last TMA reduce-add may still read"),
    ("partition*", "tlx.async_descriptor_store_wait(0)", 1):
    (RACE, "the dK/dV stores and the last TMA reduce-add are still pending when the consumer task ends"),
    ("default", "tlx.barrier_wait(empties[slot], phase ^ 1)", 1):
    _SHARED["default", "tlx.barrier_wait(empties[slot], phase ^ 1)", 0],
}
# Causal, the Q blocks descending (the default): the loop's trip, then the
# diagonal's trip peeled after it; the producer's ring waits likewise.
_STEP_SOURCES = ("tlx.barrier_wait(q_fulls[slot], phase)", "tlx.barrier_wait(do_fulls[slot], phase)",
                 "qk = tlx.async_dot_wait(1, qk)", "dp = tlx.async_dot_wait(1, dp)", "tlx.barrier_arrive(empty)",
                 "dk = tlx.async_dot_wait(0, dk)", "dv = tlx.async_dot_wait(0, dv)")
_FENCES_BY_CONSUMER = {"partition0": (_UNFENCED_DS, _UNFENCED_DQ, _UNFENCED_DS),
                       "partition1": (_UNFENCED_DS, _UNFENCED_DS, _UNFENCED_DQ)}
_FENCE, _STORE_WAIT = "tlx.fence_async_shared()", "tlx.async_descriptor_store_wait(0)"
_TURNS_DESCENDING = {
    **{key: value for key, value in _TURNS.items() if key[1] not in (_FENCE, _STORE_WAIT)},
    **{("default", "tlx.barrier_wait(empties[slot], phase ^ 1)", occurrence):
       _SHARED["default", "tlx.barrier_wait(empties[slot], phase ^ 1)", 0] for occurrence in range(4)},
    **{("partition*", source, occurrence): _TURNS["partition*", source, occurrence % 2]
       for source in _STEP_SOURCES for occurrence in (2, 3)},
    ("partition0", "dq = tlx.async_dot_wait(0, dq)", 1): _TURNS["partition0", "dq = tlx.async_dot_wait(0, dq)", 0],
    ("partition1", "dq = tlx.async_dot_wait(0, dq)", 0):
    (BENIGN, "the diagonal's steps after the loop retire dQ's wgmma (their wait(0)s) before the epilogue stages dK "
     "over K"),
    ("partition1", "dq = tlx.async_dot_wait(0, dq)", 1): _TURNS["partition1", "dq = tlx.async_dot_wait(0, dq)", 0],
    **{(task, _FENCE, 3 * trip + index): (RACE, reason)
       for task, reasons in _FENCES_BY_CONSUMER.items() for trip in (0, 1) for index, reason in enumerate(reasons)},
    ("partition*", _FENCE, 6): (RACE, mutations.UNFENCED),
    **{("partition*", _STORE_WAIT, trip): _TURNS["partition*", _STORE_WAIT, 0] for trip in (0, 1)},
    ("partition*", _STORE_WAIT, 2): _TURNS["partition*", _STORE_WAIT, 1],
}
# Persistent programs: K and V are loaded again for each block (by consumer 0, after named barrier 11), dK is
# staged over the dQ tile and dV over dS^T; the epilogue's first store wait, consumer 1's (consumer 0 sat out
# the tile's last turn and its wait there retired its own last reduce-add), and the staging's.
_KV_LOADED = (RACE, "S^T and dP^T read K and V while the TMA load of this block's may still write them")
_DQ_TILE_READ = (RACE, "dK is staged over the dQ tile while this consumer's last TMA reduce-add may still read it")
_STAGING_READ = (RACE, "the next block's dS^T and dQ go over the staged dK and dV while their TMA stores may still "
                 "read them (and the last block's are pending when the task ends)")
_LAST_DQ_READS = (RACE, "the last Q block's dQ wgmma may still read K and dS^T when consumer 0 loads the next "
                  "block's K over it and dV is staged over dS^T")
_SAT_OUT = (BENIGN, "consumer 0 sat out the last turn, whose store wait already retired its last reduce-add")
_PERSISTENT = {
    **{key: value for key, value in _TURNS.items() if key[1] not in ("tlx.barrier_wait(kv_full, 0)", _STORE_WAIT)},
    ("partition*", "tlx.barrier_wait(kv_full, phase)", 0): _KV_LOADED,
    ("partition*", _STORE_WAIT, 0): _TURNS["partition*", _STORE_WAIT, 0],
    ("partition0", _STORE_WAIT, 1): _SAT_OUT,
    ("partition1", _STORE_WAIT, 1): _DQ_TILE_READ,
    ("partition*", _STORE_WAIT, 2): _STAGING_READ,
    ("partition1", "dq = tlx.async_dot_wait(0, dq)", 0): _LAST_DQ_READS,
}
_PERSISTENT_DESCENDING = {
    **{key: value for key, value in _TURNS_DESCENDING.items()
       if key[1] not in ("tlx.barrier_wait(kv_full, 0)", _STORE_WAIT)},
    ("partition*", "tlx.barrier_wait(kv_full, phase)", 0): _KV_LOADED,
    **{("partition*", _STORE_WAIT, trip): _TURNS["partition*", _STORE_WAIT, 0] for trip in (0, 1)},
    ("partition0", _STORE_WAIT, 2): _SAT_OUT,
    ("partition1", _STORE_WAIT, 2): _DQ_TILE_READ,
    ("partition*", _STORE_WAIT, 3): _STAGING_READ,
    ("partition1", "dq = tlx.async_dot_wait(0, dq)", 0):
    (BENIGN, "the diagonal's steps after the loop retire dQ's wgmma (their wait(0)s) before the epilogue"),
    ("partition1", "dq = tlx.async_dot_wait(0, dq)", 1): _LAST_DQ_READS,
}
ASCENDING = dict(q_descending=False)
CLASSES = {
    "head dim 128": (dict(head_dim=128), _SHARED),
    "head dim 64 causal, LSE in shared memory, dQ deferred": (dict(head_dim=64, causal=True, lse_smem=True,
                                                                   dq_defer=True), _SHARED),
    "head dim 128 causal, dQ by TMA reduce-adds": (dict(head_dim=128, causal=True, dq_tma=True, **ASCENDING),
                                                   _DQ_TMA),
    "head dim 128 causal, dQ halves": (dict(head_dim=128, causal=True, **HALVES, **ASCENDING), {
        **_SHARED,
        ("partition*", "dk = tlx.async_dot_wait(2, dk)", 0): (BENIGN, "dV's wait(2) beside it retires dK's wgmma too"),
        ("partition*", "dv = tlx.async_dot_wait(2, dv)", 0): (BENIGN, "dK's wait(2) beside it retires dV's wgmma too"),
        ("partition*", "dq = tlx.async_dot_wait(0, dq)", 0):
        (RACE, "dS^T's buffer is written again two steps on, and K by dK's staging, while dQ's wgmma may still "
         "read them"),
        ("partition*", "tlx.async_descriptor_store_wait(0)", 0):
        (RACE, "the dQ tile is rewritten while the last step's TMA reduce-add may still read it"),
        ("partition*", "tlx.fence_async_shared()", 1):
        (RACE, "the TMA reduce-add reads the dQ tile through the async proxy with no fence after its local_store"),
        ("partition*", "tlx.fence_async_shared()", 2): (RACE, mutations.UNFENCED),
        ("partition*", "tlx.async_descriptor_store_wait(0)", 1):
        (RACE, "the dK/dV stores and the last TMA reduce-add are still pending when the consumer task ends"),
    }),
    "head dim 64 causal, dQ turns, Q blocks descending (the default)": (dict(head_dim=64, causal=True, **TURNS),
                                                                         _TURNS_DESCENDING),
    "head dim 128 causal, dQ turns, Q blocks descending (the default)": (dict(head_dim=128, causal=True, **TURNS),
                                                                          _TURNS_DESCENDING),
    "head dim 128, dQ turns (the default)": (dict(head_dim=128, **TURNS), _TURNS),
    "head dim 128, persistent (the default up to N = 4096)": (dict(head_dim=128, persistent=True, **TURNS),
                                                              _PERSISTENT),
    "head dim 128 causal, persistent (the default up to N = 4096)": (
        dict(head_dim=128, causal=True, persistent=True, **TURNS), _PERSISTENT_DESCENDING),
    "head dim 128 causal, dS over dO": (dict(head_dim=128, causal=True, stages=4, ds_over_do=True, **ASCENDING), {
        **_SHARED,
        ("partition*", "dv = tlx.async_dot_wait(1, dv)", 0):
        (RACE, "dS^T overwrites the dO slot while this consumer's dV wgmma may still read it"),
    }),
}


@pytest.mark.parametrize("example", list(CLASSES))
def test_sync_removals(example, monkeypatch):
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "off")
    options, table = CLASSES[example]
    text = fab.compile_for_sm90(**options).asm["ttgir"]
    assert mutations.findings(text) == 0
    tally = Tally(f"hopper_flash_attention_bwd {example}")
    for ordinal, op, line, key, mutant in mutations.mutants(text):
        task, source, occurrence = key
        wildcard = ("partition*", source, occurrence) if task.startswith("partition") else key
        kind, reason = table.get(wildcard) or table.get(key) or (UNCLASSIFIED, "add it to CLASSES")
        tally.add(kind, mutations.findings(mutant), f"{ordinal} {op} {key}", reason,
                  f"{ordinal:3} line {line:4} {op:28}", f"  {key[0]}: {key[1]}")
    tally.check()
    assert tally.counts[RACE, True] >= 8  # the test can fail: races are there to find
