"""GPU fuzz of the layout (issue 29): random shared-memory overlap trees
(TLX_FUZZ_TREES, 200 by default), one kernel launch each. Every buffer is
written with unique bytes through its own view, in a random order, then read
back through every view; what each view reads must be what the model
(test/support/layout_model.py) says the storage holds: buffers the tree keeps
apart are never clobbered, shared siblings see each other's bytes exactly
where the model overlaps them. The memory map must be the model's wherever
that fits the target's shared memory; only a tree too large for it may be
laid out ring by ring (the memory map's placements are then simulated
instead, and test/python/test_layout_model.py checks that layout's promise),
and one that fits neither way must be refused, naming the interleaved size
("too large")."""
import os
import random
import sys

import pytest
import torch
import triton
import triton.language as tl

import tlx_alias as tlx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "support"))
import layout_model as model  # noqa: E402

TREES = int(os.environ.get("TLX_FUZZ_TREES", "200"))
SEED = int(os.environ.get("TLX_FUZZ_SEED", "29"))
SHARED_LIMIT = model.SHARED_LIMIT  # sm_90's and sm_100's


def run_tree(seed):
    rng = random.Random(seed)
    tree = model.random_tree(rng.choice, dtypes=model.FUZZ_DTYPES)
    expected = model.model_layout(tree)
    keys = [(leaf.name, b) for leaf in model.leaves(tree) for b in range(leaf.num)]
    order = keys[:]
    rng.shuffle(order)
    lines, regions, size = model.fuzz_body(tree, order)
    fn = model.jit_kernel(lines, "in_ptr, out_ptr", {"tlx": tlx, "tl": tl, "triton": triton})
    data = torch.randint(-128, 128, (size, ), dtype=torch.int8, device="cuda")
    out = torch.zeros_like(data)
    try:
        compiled = fn[(1, )](data, out)
    except RuntimeError as error:  # the lowering's error: neither layout fits
        assert expected.total > SHARED_LIMIT, (model.describe(tree), error)
        assert model.too_large_message(tree, tmem=False) in str(error), (model.describe(tree), error)
        return "too large"
    (spec, ) = tlx.memory_map(compiled)
    total, starts = model.memory_map_placements(spec)
    layout = model.classify(tree, total, starts, SHARED_LIMIT)  # "model", or "ring by ring" past the limit
    used = expected.starts if layout == "model" else starts
    torch.cuda.synchronize()
    host_in, host_out = bytes(data.cpu().numpy().tobytes()), bytes(out.cpu().numpy().tobytes())
    by_name = {leaf.name: leaf for leaf in model.leaves(tree)}

    def region(blob, key):
        return blob[regions[key]:regions[key] + model.buffer_bytes(by_name[key[0]])]

    written = {key: region(host_in, key) for key in keys}
    reads = model.expected_reads(tree, used, 1, order, written)
    for key in keys:
        assert region(host_out, key) == reads[key], (f"seed {seed}: {key} of {model.describe(tree)} ({layout}), "
                                                     f"writes in order {order}")
    return layout


def test_random_trees_read_back_as_the_model_says():
    outcomes = {}
    for seed in range(SEED, SEED + TREES):
        outcome = run_tree(seed)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    print(f"\n{TREES} trees: {outcomes}")
    assert outcomes.get("model", 0) + outcomes.get("ring by ring", 0) >= TREES * 0.9, outcomes
