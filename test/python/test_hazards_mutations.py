"""Mutation suite for tlx-check-hazards, generated from the final TTGIR of
examples/hopper_persistent_gemm.py (C_SPLIT=2) and
examples/hopper_flash_attention.py (head dim 128): each synchronization op is
removed one at a time (ttng.wait_barrier / ttng.arrive_barrier deleted;
ttg.async_wait, ttng.warp_group_dot_wait, ttng.async_tma_store_wait made to
wait for nothing by a huge pendings/num), and tlx-opt --tlx-check-hazards
runs on the mutant.

What this pins down today (see the README's "Reuse-hazard analysis"):
- removing an arrive_barrier does not create a race: the waiting side never
  completes its phase (a hang), so no detection is required for those;
- removing a wait is a race in these kernels, but only some are reported: the
  analysis summarizes each access over all its unrolled instances, without
  barrier phases (a wait on slot s in round r also counts for round r + 1),
  so removing a wait that an earlier round's wait on the same barrier
  "covers" goes unseen. KNOWN_DETECTED is the floor that must not regress;
  the others are listed as misses by the test output (pytest -s)."""
import os
import re
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
sys.path.insert(0, EXAMPLES)

SYNC = re.compile(r"^\s*(?:%\S+ = )?(ttng\.wait_barrier|ttng\.arrive_barrier|ttg\.async_wait|"
                  r"ttng\.warp_group_dot_wait|ttng\.async_tma_store_wait)\b")

# Ordinals (in file order) of the sync ops whose removal is reported today.
KNOWN_DETECTED = {
    "hopper_persistent_gemm": {0, 3, 7, 10, 11, 12, 13, 17, 20, 21, 22},
    "hopper_flash_attention": {0, 1, 4, 15, 17, 18, 19, 30, 32, 33},
}


def _ttgir(example):
    import hopper_flash_attention
    import hopper_persistent_gemm
    if example == "hopper_persistent_gemm":
        return hopper_persistent_gemm.compile_for_sm90(C_SPLIT=2).asm["ttgir"]
    return hopper_flash_attention.compile_for_sm90(128).asm["ttgir"]


def mutants(text):
    """(ordinal, op, line, mutated text) per synchronization op."""
    lines = text.split("\n")
    ordinal = 0
    for i, line in enumerate(lines):
        match = SYNC.match(line)
        if not match:
            continue
        op = match.group(1)
        if op in ("ttng.wait_barrier", "ttng.arrive_barrier"):
            new = ""
        elif op == "ttg.async_wait":
            new = re.sub(r"num = \d+", "num = 1000", line)
        else:
            new = re.sub(r"pendings = \d+", "pendings = 1000", line)
        yield ordinal, op, i + 1, "\n".join(lines[:i] + [new] + lines[i + 1:])
        ordinal += 1


def findings(text):
    result = subprocess.run(["tlx-opt", "--tlx-check-hazards", "-", "-o", os.devnull], input=text,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stderr.count("warning: tlx-check-hazards")


@pytest.mark.parametrize("example", list(KNOWN_DETECTED))
def test_sync_removals(example, monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "off")
    text = _ttgir(example)
    assert findings(text) == 0
    detected, rows = set(), []
    for ordinal, op, line, mutant in mutants(text):
        count = findings(mutant)
        if count:
            detected.add(ordinal)
        rows.append(f"{ordinal:3} line {line:4} {op:28} {count} finding(s)")
    print(f"\n{example}: {len(detected)} of {len(rows)} removals reported\n" + "\n".join(rows))
    assert KNOWN_DETECTED[example] <= detected, sorted(KNOWN_DETECTED[example] - detected)
    # Arrive removals never count as required (a hang, not a race); at least
    # these waits are seen.
    assert len(detected) >= len(KNOWN_DETECTED[example])
