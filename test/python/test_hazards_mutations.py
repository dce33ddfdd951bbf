"""Mutation suite for tlx-check-hazards, generated from the final TTGIR of
examples/hopper_persistent_gemm.py (C_SPLIT=2) and
examples/hopper_flash_attention.py (head dim 128; head dim 256 with O over
V slots): each synchronization op is removed one at a time
(ttng.wait_barrier / ttng.arrive_barrier / ttng.fence_async_shared deleted;
ttg.async_wait, ttng.warp_group_dot_wait, ttng.async_tma_store_wait made to
wait for nothing by a huge pendings/num), and tlx-opt --tlx-check-hazards
runs on the mutant.

Each mutant is classified in CLASSES by the op it removes, where it is (its
partition and kernel source line) and why:
- race: two accesses to overlapping shared-memory bytes (one writing) can
  then run unordered (at some problem size: the analysis samples two); the
  analysis must report it;
- hang: the waiting side never sees its phase complete (a removed arrive):
  the kernel stops before any race; no finding is required;
- benign: another hand-off still orders what the op ordered (the reason
  says which); no finding is expected, which pins the analysis' precision.
The test fails on a race without a finding, a benign mutant with one, and a
mutant it cannot classify (an edited example: classify it)."""
import collections
import os
import re
import subprocess
import sys

import pytest

from mutation_tally import ARRIVE_HANGS, BENIGN, HANG, RACE, UNCLASSIFIED, Tally, remove, sync_ops

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
sys.path.insert(0, EXAMPLES)

SYNC = re.compile(r"^\s*(?:%\S+ = )?(ttng\.wait_barrier|ttng\.arrive_barrier|ttg\.async_wait|"
                  r"ttng\.warp_group_dot_wait|ttng\.async_tma_store_wait|ttng\.fence_async_shared)\b")

UNFENCED = ("the TMA store reads the tile through the async proxy before the local_store's generic-proxy "
            "writes are made visible to it")

# The attention kernel's K/V ring and consumer steps, the same with O over Q
# (head dim 128) and over V slots (head dim 256).
_ATTENTION_SHARED = {
    # (_load_kv's wait: the K block's first, then the V block's)
    ("default", "tlx.barrier_wait(empties[slot], phase ^ 1)", 0):
    (RACE, "the K load refills a slot the consumers' QK^T of its previous round still read"),
    ("partition*", "tlx.barrier_wait(q_fulls[qb], q_phase)", 0):
    (RACE, "QK^T reads Q while its TMA load may still write it"),
    ("partition0", "tlx.barrier_wait(k_fulls[slot], phase)", 0):
    (BENIGN, "consumer 0 issues QK^T after its sync on named barrier 9, whose generation pairs with "
     "consumer 1's arrive after consumer 1 waited for the same K block"),
    ("partition1", "tlx.barrier_wait(k_fulls[slot], phase)", 0):
    (RACE, "consumer 1's sync on named barrier 10 follows consumer 0's previous block only: QK^T reads K "
     "while its TMA load may still write it"),
    ("partition*", "qk = tlx.async_dot_wait(0, qk)", 0):
    (RACE, "QK^T still reads the K slot when `k_empties` releases it"),
    ("partition*", "tlx.barrier_arrive(k_empties[slot])", 0): (HANG, ARRIVE_HANGS),
    ("partition0", "tlx.barrier_wait(k_fulls[slot], phase)", 1):
    (BENIGN, "as the first block's: named barrier 9 orders it after consumer 1's wait for the same block"),
    ("partition1", "tlx.barrier_wait(k_fulls[slot], phase)", 1):
    (RACE, "as the first block's: QK^T reads K while its TMA load may still write it"),
    ("partition*", "tlx.barrier_wait(v_fulls[v_slot], v_phase)", 0):
    (RACE, "PV reads V while its TMA load may still write it (the named barriers order only the "
     "previous block's V)"),
    ("partition*", "tlx.barrier_arrive(k_empties[slot])", 1): (HANG, ARRIVE_HANGS),
    ("partition*", "acc = tlx.async_dot_wait(0, acc)", 0):
    (RACE, "PV still reads the V slot when `v_empties` releases it"),
    ("partition*", "tlx.barrier_arrive(v_empties[v_slot])", 0): (HANG, ARRIVE_HANGS),
    ("partition*", "tlx.barrier_wait(v_fulls[v_slot], v_phase)", 1):
    (RACE, "the last PV reads V while its TMA load may still write it"),
    ("partition*", "acc = tlx.async_dot_wait(0, acc)", 1):
    (RACE, "the last PV still reads the V slot when `v_empties` releases it"),
    ("partition*", "tlx.barrier_arrive(v_empties[v_slot])", 1): (HANG, ARRIVE_HANGS),
    ("partition*", "tlx.async_descriptor_store_wait(0)", 1):
    (RACE, "the last tile's O store is still pending when the consumer task ends"),
    ("partition*", "tlx.fence_async_shared()", 0): (RACE, UNFENCED),
}

# (partition, kernel source line without comment, occurrence in that
# partition) -> (class, reason). "partition*": every consumer partition.
CLASSES = {
    "hopper_persistent_gemm": {
        ("default", "tlx.barrier_wait(tlx.local_view(empty, slot), phase ^ 1)", 0):
        (RACE, "the TMA loads refill a slot while the consumers' wgmmas of its previous round still read it"),
        ("default", "tlx.barrier_wait(tlx.local_view(empty, slot), phase ^ 1)", 1):
        (RACE, "the slot is lent to the C tiles while the slower consumer's wgmma of its previous round "
         "still reads its B tile: the faster consumer's C store overwrites it"),
        ("default", "tlx.barrier_arrive(tlx.local_view(full, slot))", 0): (HANG, ARRIVE_HANGS),
        ("partition*", "tlx.barrier_wait(tlx.local_view(full, slot), phase)", 0):
        (RACE, "the tile's first wgmma reads the slot while its TMA loads may still write it"),
        ("partition*", "tlx.barrier_wait(tlx.local_view(full, slot), phase)", 1):
        (RACE, "the K loop's wgmma reads the slot while its TMA loads may still write it"),
        ("partition*", "acc = tlx.async_dot_wait(1, acc)", 0):
        (RACE, "the previous step's wgmma still reads its slot when `empty` releases it to the producer"),
        ("partition*", "tlx.barrier_arrive(tlx.local_view(empty, previous))", 0): (HANG, ARRIVE_HANGS),
        ("partition*", "acc = tlx.async_dot_wait(0, acc)", 0):
        (RACE, "the last wgmma still reads its slot when `empty` releases it (retired a tile later)"),
        ("partition*", "tlx.barrier_arrive(tlx.local_view(empty, previous))", 1): (HANG, ARRIVE_HANGS),
        ("partition*", "tlx.barrier_wait(tlx.local_view(full, slot), phase)", 2):
        (RACE, "the C store writes the lent slot while the other consumer's wgmma of its previous round "
         "may still read it"),
        ("partition*", "tlx.async_descriptor_store_wait(0)", 0):
        (RACE, "the right half overwrites the C rows the left half's TMA store still reads"),
        ("partition*", "tlx.async_descriptor_store_wait(0)", 1):
        (RACE, "`empty` releases the slot while the TMA store still reads it: the next loads overwrite it"),
        ("partition*", "tlx.barrier_arrive(tlx.local_view(empty, slot))", 0): (HANG, ARRIVE_HANGS),
        ("partition*", "tlx.fence_async_shared()", 0): (RACE, UNFENCED),
        ("partition*", "tlx.fence_async_shared()", 1): (RACE, UNFENCED),
    },
    "hopper_flash_attention": {
        **_ATTENTION_SHARED,
        ("default", "tlx.barrier_wait(q_empties[qb], q_phase ^ 1)", 0):
        (RACE, "the next Q load overwrites consumer 0's Q slot while its O store of two tiles before may still "
         "use it (ordered by the K/V ring only when a tile has three or more K/V blocks)"),
        ("default", "tlx.barrier_wait(q_empties[qb], q_phase ^ 1)", 1):
        (RACE, "the same for consumer 1's Q slot"),
        ("default", "tlx.barrier_wait(empties[slot], phase ^ 1)", 1):
        (RACE, "the V load refills a slot the consumers' PV of its previous round still read"),
        ("partition*", "qk = tlx.async_dot_wait(1, qk)", 0):
        (BENIGN, "for shared memory: QK^T is retired by the wait for PV before `v_empties` is released, and "
         "the producer waits on that release before it refills the K slot (the QK^T accumulator is read "
         "before it retires: a register hazard, outside this analysis)"),
        ("partition*", "tlx.async_descriptor_store_wait(0)", 0):
        (RACE, "`q_empties` releases the previous tile's Q slot while its O store may still read it: the "
         "next Q load overwrites it"),
        ("partition*", "tlx.barrier_arrive(q_empties[cid * Q_BUFFERS + (tile_count - 1) % Q_BUFFERS])", 0):
        (HANG, ARRIVE_HANGS),
    },
    # Head dim 256, O over V slots (2 K / 3 V stages). Consumer 1 issues each
    # block's QK^T first (its bootstrap arrive meets its own first wait on
    # named barrier 10); consumer 0 follows after its sync on barrier 9.
    "hopper_flash_attention O over V": {
        **_ATTENTION_SHARED,
        ("default", "tlx.barrier_wait(q_empties[qb], q_phase ^ 1)", 0):
        (BENIGN, "the producer waits for the tile's O entries first; the second lies over the slot of V(L-1), "
         "released after each consumer's PV(L-1), which it retires after its last QK^T"),
        ("default", "tlx.barrier_wait(q_empties[qb], q_phase ^ 1)", 1): (BENIGN, "the same for consumer 1's Q"),
        ("default", "tlx.barrier_wait(empties[slot], phase ^ 1)", 1):
        (RACE, "the V load refills a slot the consumers' PV of its previous round (or an O store) still read"),
        ("default", "tlx.barrier_wait(v_empties[v_slot], v_phase ^ 1)", 0):
        (BENIGN, "consumer 0's O entry lies over V(L-2)'s slot (or, in a two-block tile, consumer 1's previous O "
         "entry): consumer 1 retires that PV (releases that entry) before it issues its last QK^T, which "
         "precedes consumer 0's by named barrier 9, and consumer 0 stores O after its own"),
        ("default", "tlx.barrier_arrive(v_fulls[v_slot])", 0): (HANG, ARRIVE_HANGS),
        ("default", "tlx.barrier_wait(v_empties[v_slot], v_phase ^ 1)", 1):
        (RACE, "consumer 1's O entry lies over V(L-1)'s slot: consumer 1 writes O there while consumer 0's "
         "PV(L-1) may still read it"),
        ("default", "tlx.barrier_arrive(v_fulls[v_slot])", 1): (HANG, ARRIVE_HANGS),
        ("partition*", "qk = tlx.async_dot_wait(1, qk)", 0):
        (RACE, "QK^T still reads the K slot when `k_empties` releases it: with three V stages the producer's "
         "wait for a V slot no longer orders the K refill after the PV wait that retires QK^T"),
        ("partition*", "tlx.async_descriptor_store_wait(0)", 0):
        (RACE, "the consumer releases its previous O entry while that O store may still read it: the V load "
         "refills the slot"),
        ("partition*", "tlx.barrier_arrive(v_empties[(kv_count + v_shift - O_ENTRIES + cid) % V_STAGES])", 0):
        (HANG, ARRIVE_HANGS),
        ("partition*", "tlx.barrier_arrive(q_empties[qb])", 0): (HANG, ARRIVE_HANGS),
        ("partition0", "tlx.barrier_wait(v_fulls[o_slot], o_phase)", 0):
        (BENIGN, "consumer 0's entry lies over V(L-2)'s slot (or consumer 1's previous O entry), which "
         "consumer 1 is done with before its last QK^T, which precedes consumer 0's by named barrier 9"),
        ("partition1", "tlx.barrier_wait(v_fulls[o_slot], o_phase)", 0):
        (RACE, "consumer 1 writes O over V(L-1)'s slot while consumer 0's PV(L-1) may still read it"),
        ("partition*", "tlx.barrier_wait(v_fulls[other_slot], other_phase)", 0):
        (BENIGN, "an early release of the other consumer's entry can complete the slot's previous phase in its "
         "place, but this consumer is done with the slot, the owner stores O there only after its own last PV, "
         "and the slot's next load still needs the owner's release after its O store"),
        ("partition*", "tlx.barrier_arrive(v_empties[other_slot])", 0): (HANG, ARRIVE_HANGS),
    },
}

_LOC_DEF = re.compile(r"^#(loc\d*) = loc\((.*)\)\s*$")
_FILE_LOC = re.compile(r'^"([^"]+)":(\d+):\d+$')


def _ttgir(example):
    import hopper_flash_attention
    import hopper_persistent_gemm
    if example == "hopper_persistent_gemm":
        return hopper_persistent_gemm.compile_for_sm90(C_SPLIT=2).asm["ttgir"]
    if example == "hopper_flash_attention O over V":
        return hopper_flash_attention.compile_for_sm90(256, v_stages=3, o_staging="v").asm["ttgir"]
    return hopper_flash_attention.compile_for_sm90(128).asm["ttgir"]


def _source_line(ref, locs, depth=0):
    """(file, line) of location alias `ref`, through names and call sites."""
    body = locs.get(ref)
    if body is None or depth > 64:
        return None
    match = _FILE_LOC.match(body)
    if match:
        return match.group(1), int(match.group(2))
    match = re.match(r"^callsite\(#(loc\d*) at #loc\d*\)$", body) or re.match(r'^"[^"]*"\(#(loc\d*)\)$', body)
    return _source_line(match.group(1), locs, depth + 1) if match else None


def _source_text(ref, locs):
    where = _source_line(ref, locs) if ref else None
    if not where:
        return "?"
    with open(where[0]) as f:
        return f.read().split("\n")[where[1] - 1].split("#")[0].strip()


def mutants(text):
    """(ordinal, op, line, key, mutated text) per synchronization op; key is
    (partition, source text, occurrence) as in CLASSES."""
    lines = text.split("\n")
    locs = {m.group(1): m.group(2) for m in map(_LOC_DEF.match, lines) if m}
    seen = collections.Counter()
    for ordinal, (i, task, op) in enumerate(sync_ops(lines, SYNC)):
        ref = re.search(r"loc\(#(loc\d*)\)\s*$", lines[i])
        source = _source_text(ref.group(1) if ref else None, locs)
        key = (task, source, seen[(task, source)])
        seen[(task, source)] += 1
        yield ordinal, op, i + 1, key, remove(lines, i, op)


def classify(example, key):
    table = CLASSES[example]
    task, source, occurrence = key
    if task.startswith("partition") and ("partition*", source, occurrence) in table:
        return table[("partition*", source, occurrence)]
    return table.get(key)


def findings(text):
    result = subprocess.run(["tlx-opt", "--tlx-check-hazards", "-", "-o", os.devnull], input=text,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stderr.count("warning: tlx-check-hazards")


@pytest.mark.parametrize("example", list(CLASSES))
def test_sync_removals(example, monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "off")
    text = _ttgir(example)
    assert findings(text) == 0
    tally = Tally(example)
    for ordinal, op, line, key, mutant in mutants(text):
        kind, reason = classify(example, key) or (UNCLASSIFIED, "add it to CLASSES")
        tally.add(kind, findings(mutant), f"{ordinal} {op} {key}", reason,
                  f"{ordinal:3} line {line:4} {op:28}", f"  {key[0]}: {key[1]}")
    tally.check()
