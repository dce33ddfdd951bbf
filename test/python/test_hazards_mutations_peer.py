"""Mutation suite for tlx-check-hazards on the peer's Hopper tutorials (run
through tlx_alias: peer_tutorials.py), as test_hazards_mutations.py does for
our examples: from each kernel's final TTGIR (the first configuration of its
autotune list with the KERNELS kwargs; both of the ping-pong GEMM's: named
barriers or an mbarrier), every
synchronization op is removed one at a time (ttng.wait_barrier,
ttng.arrive_barrier, ttng.fence_async_shared and the named barriers'
bar.sync / bar.arrive deleted; ttg.async_wait, ttng.warp_group_dot_wait and
ttng.async_tma_store_wait made to wait for nothing), and the pass runs on
the mutant (in process: what tlx-opt --tlx-check-hazards runs, without a
0.25 s process per mutant). 258 mutants of 11 kernels: about 5 s.
The fences and store waits of `desc.store` are triton's (its lowering's
staging copies), removed like the kernels' own.

A mutant is keyed by its partition ("main" without warp_specialize), the op
and its ordinal among that op's occurrences in the partition, in program
order; "partition*" stands for every consumer replica (identical). The
classes, with a reason naming what the op ordered (the tutorials' text is
not copied here):
- race: two accesses to overlapping shared-memory bytes (one writing) can
  then run unordered (at some problem size); the analysis must report it;
- hang: a wait never completes (a removed arrive): no race, no finding
  required;
- benign: something else still orders what the op ordered; no finding is
  expected.
The test fails on a race without a finding, a benign mutant with one, and a
mutant it cannot classify (an edited tutorial: classify it)."""
import collections
import re

import pytest

import peer_tutorials
from mutation_tally import UNCLASSIFIED, Tally, remove, sync_ops
from peer_mutation_classes import CLASSES
from tlx_alias import _hazards
from tlx_alias._triton import passes as _pipeline

SYNC = re.compile(r"^\s*(?:%\S+ = )?(ttng\.wait_barrier|ttng\.arrive_barrier|ttg\.async_wait|"
                  r"ttng\.warp_group_dot_wait|ttng\.async_tma_store_wait|ttng\.fence_async_shared|"
                  r"tt\.elementwise_inline_asm \"bar\.(?:sync|arrive))\b")
SHORT = {"ttng.wait_barrier": "wait", "ttng.arrive_barrier": "arrive", "ttg.async_wait": "async_wait",
         "ttng.warp_group_dot_wait": "dot_wait", "ttng.async_tma_store_wait": "store_wait",
         "ttng.fence_async_shared": "fence", 'tt.elementwise_inline_asm "bar.sync': "bar.sync",
         'tt.elementwise_inline_asm "bar.arrive': "bar.arrive"}

# (tutorial, kernel) -> the configuration mutated: kwargs it has.
KERNELS = {
    ("hopper_gemm_pipelined", "matmul_kernel_pipelined_hopper"): {},
    ("hopper_gemm_ws", "_skinny_matmul_kernel"): dict(NUM_STAGES=3),
    ("hopper_gemm_ws", "_skinny_tma_kernel"): dict(NUM_STAGES=3),
    ("hopper_gemm_ws", "matmul_kernel_tlx_ws"): dict(NUM_STAGES=3, USE_WARP_BARRIER=False),
    ("hopper-persistent-gemm-ws-pingpong", "matmul_kernel_tlx_ws_persistent"): dict(USE_NAMED_BARRIER=True),
    ("hopper-persistent-gemm-ws-pingpong", "matmul_kernel_tlx_ws_persistent mbarrier"):
    dict(USE_NAMED_BARRIER=False),
    ("hopper-persistent-gemm-ws-cooperative", "matmul_kernel_tlx_ws_persistent"): {},
    ("hopper_fa_ws", "_attn_fwd_ws"): dict(NUM_MMA_GROUPS=2),
    ("hopper_fa_ws_pipelined", "_attn_fwd_ws_pipelined"): dict(NUM_MMA_GROUPS=2),
    ("hopper_fa_ws_pipelined_pingpong", "_attn_fwd_ws_pipelined_pingpong"): {},
    ("hopper_fa_ws_pipelined_pingpong_persistent", "_attn_fwd_ws_pipelined_pingpong_persistent"): {},
}


def ttgir(name, kernel):
    function = kernel.split(" ")[0]
    wanted = KERNELS[name, kernel]
    for fn, configs in peer_tutorials.kernels(name):
        if fn.__name__ == function:
            config = next(c for c in configs if all(c.kwargs.get(k) == v for k, v in wanted.items()))
            with peer_tutorials.stop_after_ttgir():
                return peer_tutorials.ttgir(name, fn, config)
    raise LookupError(f"{name} has no kernel {function}")


def mutants(text):
    """(key, line number, mutated text) per synchronization op; key is
    (partition, op, ordinal of that op in the partition)."""
    lines = text.split("\n")
    seen = collections.Counter()
    for i, task, op in sync_ops(lines, SYNC):
        key = (task, SHORT[op], seen[task, SHORT[op]])
        seen[key[:2]] += 1
        yield key, i + 1, remove(lines, i, op)


def findings(text):
    module, context = _pipeline.parse_module(text)
    return len(_hazards.findings(module, context))


def table_key(table, key):
    """A partition's own entry, else the one for every consumer."""
    task, op, ordinal = key
    if key in table or not task.startswith("partition"):
        return key
    return ("partition*", op, ordinal)


@pytest.mark.parametrize("name, kernel", list(KERNELS))
def test_sync_removals_in_peer_tutorial(name, kernel, monkeypatch, tmp_path):
    peer_tutorials.require_tutorials()
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    text = ttgir(name, kernel)
    assert findings(text) == 0
    table = CLASSES[name, kernel]
    tally, used = Tally(f"{name} {kernel}"), set()
    for key, line, mutant in mutants(text):
        used.add(table_key(table, key))
        kind, reason = table.get(table_key(table, key), (UNCLASSIFIED, "add it to peer_mutation_classes.CLASSES"))
        tally.add(kind, findings(mutant), str(key), reason,
                  f"line {line:4} {key[0]:11} {key[1]:10} #{key[2]} ")
    tally.check()
    assert not set(table) - used, f"classes of no mutant (an edited tutorial?): {sorted(set(table) - used)}"
