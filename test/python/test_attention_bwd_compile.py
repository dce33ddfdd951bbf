"""The flash-attention backward (examples/hopper_flash_attention_bwd.py)
compiled for sm_90 on the CPU: every configuration the GPU tests run
compiles with no hazard finding (TLX_ALIAS_HAZARDS=error, and the final
TTGIR checked again); the memory map shows dK over K, dV over V and dS over
dO; the aliased default config fits sm_90's 227 KiB where its unaliased
twin does not; LSE in shared memory (a candidate) cuts the spills at head
dim 128; and the mutation suite (each wait, arrive and fence removed
in turn, as test_hazards_mutations.py does for the other examples) reports
every race."""
import os
import re
import subprocess
import sys
import tempfile

import pytest
import triton

from mutation_tally import ARRIVE_HANGS, BENIGN, HANG, RACE, UNCLASSIFIED, Tally
from tlx_alias import _hazards
from tlx_alias._triton import passes as _pipeline

import test_hazards_mutations as mutations

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
import hopper_flash_attention_bwd as fab  # noqa: E402

CONFIGS = {
    **{
        f"D={d} causal={causal} {dtype} alias={alias}": dict(head_dim=d, causal=causal, dtype=dtype, alias=alias)
        for d in (64, 128) for causal in (False, True) for dtype in ("fp16", "bf16") for alias in (True, False)
    },
    # the ring depths and dS over dO that test/gpu/test_attention_bwd.py runs
    **{
        f"D={d} causal={causal} stages={stages} ds_over_do={ds}": dict(head_dim=d, causal=causal, stages=stages,
                                                                         ds_over_do=ds)
        for d, stages, ds in ((128, 4, True), (128, 5, True), (64, 4, True), (128, 2, False), (64, 2, False))
        for causal in (False, True)
    },
    # the candidates benchmarks/attention_bwd.py measures beside the default
    **{
        f"D={d} causal={causal} {dtype} {name}": dict(head_dim=d, causal=causal, dtype=dtype, **options)
        for name, (options, dims) in fab.CANDIDATES.items() for d in dims for causal in (False, True)
        for dtype in ("fp16", "bf16")
    },
}


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile afresh: the hazard pass runs


@pytest.mark.parametrize("config", list(CONFIGS))
def test_backward_compiles_without_hazards(config, monkeypatch):
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")
    kernel = fab.compile_for_sm90(**CONFIGS[config])
    module, context = _pipeline.parse_module(kernel.asm["ttgir"])
    assert _hazards.findings(module, context) == []
    options = CONFIGS[config]
    default_m, default_stages, default_ds = fab.default_config(options["head_dim"], options.get("alias", True))
    expected = fab.smem_bytes(options["head_dim"], default_m, options.get("stages", default_stages),
                              options.get("alias", True), options.get("ds_over_do", default_ds),
                              lse_smem=options.get("lse_smem", False))
    assert expected <= kernel.metadata.shared <= expected + 1024  # the buffers, barriers beside them
    assert kernel.metadata.shared <= fab.SMEM_LIMIT


def _placements(kernel):
    """{buffer name: (spec name, offset, bytes)}."""
    out = {}
    for spec in fab.tlx.memory_map(kernel):
        for view in spec["views"]:
            out[view["name"]] = (spec["name"], view["offset"], view["buffer_bytes"])
    return out


def test_memory_map_shows_the_aliasing():
    kernel = fab.compile_for_sm90(128, stages=4, ds_over_do=True)
    where = _placements(kernel)
    assert where["dk_tiles"][:2] == where["k_tiles"][:2] == ("k_spec", 0)
    assert where["dv_tiles"][:2] == where["v_tiles"][:2] == ("v_spec", 0)
    assert where["ds_tiles"][:2] == where["do_tiles"][:2] == ("do_spec", 0)
    assert where["ds_tiles"][2] * 2 == where["do_tiles"][2]  # both consumers' dS^T halves in one dO slot


def test_the_twin_of_the_aliased_config_does_not_fit():
    """At head dim 128 aliasing is what lets the Q/dO ring be 3 deep (or 4
    with dS over dO): the unaliased twin of it needs more than sm_90's
    227 KiB, and the twin's own default is 2 deep."""
    block_m, stages, _ = fab.default_config(128, alias=True)
    assert stages > fab.default_config(128, alias=False)[1]
    aliased = fab.compile_for_sm90(128, alias=True)
    twin = fab.compile_for_sm90(128, alias=False, block_m=block_m, stages=stages)
    assert aliased.metadata.shared <= fab.SMEM_LIMIT < twin.metadata.shared
    assert fab.smem_bytes(128, block_m, stages, alias=False) > fab.SMEM_LIMIT


def _spilled_bytes(kernel):
    """ptxas -v's spill stores of the kernel's PTX (sm_90a)."""
    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as ptx:
        ptx.write(kernel.asm["ptx"])
        ptx.flush()
        report = subprocess.run([ptxas, "-v", "--gpu-name", "sm_90a", ptx.name, "-o", os.devnull],
                                capture_output=True, text=True, check=True).stderr
    return sum(int(n) for n in re.findall(r"(\d+) bytes spill stores", report))


def test_lse_in_shared_memory_cuts_the_spills():
    """At head dim 128 the consumers' LSE and delta (16 + 16 registers a
    thread in the S^T layout, loaded at the step's start) push them past
    240 registers: read from the ring right before their use instead, the
    spills shrink from 184 bytes to 20 (none left in the loop, by nvdisasm)."""
    default = _spilled_bytes(fab.compile_for_sm90(128))
    lse_smem = _spilled_bytes(fab.compile_for_sm90(128, lse_smem=True))
    assert lse_smem * 4 <= default, (lse_smem, default)


def test_ds_over_do_needs_alias():
    with pytest.raises(Exception, match="DS_OVER_DO lays dS over dO: it needs ALIAS"):
        fab.compile_for_sm90(64, alias=False, ds_over_do=True)


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
    ("partition*", "tlx.barrier_arrive(empties[slot])", 0): (HANG, ARRIVE_HANGS),
    ("partition*", "tlx.fence_async_shared()", 1): (RACE, mutations.UNFENCED),
    ("partition*", "tlx.async_descriptor_store_wait(0)", 0):
    (RACE, "the dK/dV stores are still pending when the consumer task ends"),
}
CLASSES = {
    "head dim 128": (dict(head_dim=128), _SHARED),
    "head dim 64 causal, LSE in shared memory, dQ deferred": (dict(head_dim=64, causal=True, lse_smem=True,
                                                                   dq_defer=True), _SHARED),
    "head dim 128 causal, dS over dO": (dict(head_dim=128, causal=True, stages=4, ds_over_do=True), {
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
