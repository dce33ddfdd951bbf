"""Differential test of the layout (issue 29): random overlap trees (shared
and distinct nesting, dtypes, buffer counts that may differ, group_size,
shared and tensor memory, explicit sizes) declared in @triton.jit kernels,
compiled for sm_90 (shared memory) and sm_100 (tensor memory), and every
buffer's range in the memory map compared with test/support/layout_model.py,
a model of the rules of docs/storage_alias_spec.md written without the C++.

The layout must be the model's (interleaved) wherever that fits the
target's memory, in shared and tensor memory alike; only a tree the target
cannot hold so may be laid out ring by ring (each leaf's buffers side by
side), if the rings fit, and one that fits neither way is an error naming
the interleaved size. Either layout keeps buffers the tree keeps apart
(distinct siblings, other buffer indices, other copies of a group_size
group) from overlapping, every buffer starts at a multiple of its own size
and lies inside the storage."""
import os
import random
import sys

import pytest
import triton
import triton.language as tl
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis.errors import InvalidArgument
from hypothesis import strategies as st
from triton.backends.compiler import GPUTarget

import tlx_alias as tlx
from conftest import jit_from_body

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
import layout_model as model  # noqa: E402

EXAMPLES = int(os.environ.get("TLX_MODEL_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


def compile_tree(tree, capability, buffer_size_bytes=None):
    first = model.leaves(tree)[0]
    use = f"tlx.local_store({first.name}[0], tl.full({first.shape}, 0, tl.{first.dtype}))"
    body = "\n".join(model.declarations(tree, buffer_size_bytes) + [use])
    fn = jit_from_body(body, "x_ptr", {"tlx": tlx, "tl": tl, "triton": triton})
    src = triton.compiler.ASTSource(fn=fn, signature={"x_ptr": "*fp32"})
    return triton.compile(src, target=GPUTarget("cuda", capability, 32))


def note(text):
    """A hypothesis event, where a hypothesis test runs."""
    try:
        event(text)
    except InvalidArgument:  # a plain test
        pass


def check_promise(tree, total, starts):
    by_name = {leaf.name: leaf for leaf in model.leaves(tree)}
    for (name, b), start in starts.items():
        units = by_name[name].units
        assert start % units == 0 and start + units <= total, (name, b, start, units, total)
    keys = sorted(starts)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            if model.may_overlap(tree, (by_name[a[0]], a[1]), (by_name[b[0]], b[1])):
                continue
            (lo_a, lo_b) = starts[a], starts[b]
            hi_a, hi_b = lo_a + by_name[a[0]].units, lo_b + by_name[b[0]].units
            assert hi_a <= lo_b or hi_b <= lo_a, f"{a} and {b} overlap: {starts}"


def check_against_model(tree, explicit_units=None):
    """Compiles the tree (sm_90 for shared memory, sm_100 for tensor memory)
    and checks its layout by the rule; returns "model", "ring by ring" or
    "too large"."""
    tmem = model.leaves(tree)[0].tmem
    limit = model.memory_limit(tmem)
    expected = model.model_layout(tree, explicit_units)
    unit = model.TMEM_COLUMN_BYTES if tmem else 1
    if explicit_units is not None:  # beyond the target, refused by the frontend (test_target_limits.py)
        assume(expected.total <= limit)
    size = None if explicit_units is None else explicit_units * unit
    try:
        kernel = compile_tree(tree, 100 if tmem else 90, size)
    except RuntimeError as error:
        # Neither the interleaved layout nor the rings fit: an error naming the interleaved size.
        assert expected.total > limit, (model.describe(tree), expected.total, limit, error)
        assert model.too_large_message(tree, tmem, explicit_units) in str(error), (model.describe(tree), error)
        note("too large for the target: an error")
        return "too large"
    (spec, ) = tlx.memory_map(kernel)
    total, starts = model.memory_map_placements(spec)
    outcome = model.classify(tree, total, starts, limit, explicit_units)
    assert spec["layout"] == ("rings" if outcome == "ring by ring" else "interleaved"), spec["layout"]
    assert spec["interleaved_size"] // unit == model.model_layout(tree).total, (spec["interleaved_size"], unit)
    note({"model": "the model's layout", "ring by ring": "ring by ring, past the target's memory"}[outcome])
    check_promise(tree, total, starts)
    return outcome


@st.composite
def trees(draw, tmem):
    return model.random_tree(lambda options: draw(st.sampled_from(options)), tmem=tmem)


@SETTINGS
@given(trees(tmem=False))
def test_shared_memory_layout_is_the_models(tree):
    check_against_model(tree)


@SETTINGS
@given(trees(tmem=True))
def test_tensor_memory_layout_is_the_models(tree):
    check_against_model(tree)


@SETTINGS
@given(trees(tmem=False), st.integers(1, 3))
def test_explicit_size_pads_every_index_equally(tree, extra):
    """buffer_size_bytes beyond the tree's size: each index gets an equal
    share (the stride grows by whole largest buffers here)."""
    layout = model.model_layout(tree)
    count = model.num_indices(tree)
    check_against_model(tree, layout.total + extra * count * model.largest_buffer(tree))


def distinct_pair(num, tmem=False):
    """distinct(a, b), b twice a's size: interleaved, b starts at a multiple
    of its size, so each index takes 2 x b; ring by ring, 1.5 x b."""
    if tmem:
        a, b = model.Leaf("a", (128, 32), "float32", num, True), model.Leaf("b", (128, 64), "float32", num, True)
    else:
        a, b = model.Leaf("a", (32, 64), "float32", num), model.Leaf("b", (64, 64), "float32", num)
    return model.Group("distinct", [a, b])


def test_interleaved_wherever_it_fits_even_where_rings_are_smaller():
    """x 2 (shared memory) and x 4 (tensor memory): the interleaved layout
    fits, so it is the layout, though ring by ring would be smaller."""
    for tmem, num in ((False, 2), (True, 4)):
        tree = distinct_pair(num, tmem)
        assert model.model_layout(tree).total == {False: 65536, True: 512}[tmem]
        assert check_against_model(tree) == "model"


def test_ring_by_ring_only_past_the_target():
    """x 8 in shared memory: 256 KiB interleaved, more than sm_90's 227 KiB,
    192 KiB ring by ring. x 5 in tensor memory: 640 columns interleaved, 480
    ring by ring (512 as a multiple of b's 64). The model accepts rings only
    there."""
    for tmem, num in ((False, 8), (True, 5)):
        tree = distinct_pair(num, tmem)
        assert model.model_layout(tree).total > model.memory_limit(tmem)
        assert check_against_model(tree) == "ring by ring"
    # The same rings under a target that holds the interleaved layout are refused.
    tree = distinct_pair(8)
    rings = {("b", i): 16384 * i for i in range(8)} | {("a", i): 131072 + 8192 * i for i in range(8)}
    assert model.ring_by_ring(tree, rings)
    assert model.classify(tree, 196608, rings, 232448) == "ring by ring"
    with pytest.raises(AssertionError, match="not the design's layout, though it fits"):
        model.classify(tree, 196608, rings, 262144)
    with pytest.raises(AssertionError, match="not the design's layout, though it fits"):
        model.classify(tree, 196608, rings, None)


def test_neither_layout_fits_is_an_error():
    """x 12 in shared memory: 384 KiB interleaved, 288 KiB ring by ring;
    x 8 in tensor memory: 1024 columns, 768 ring by ring."""
    for tmem, num in ((False, 12), (True, 8)):
        assert check_against_model(distinct_pair(num, tmem)) == "too large"


def test_fuzz_kernels_compile_for_sm_90():
    """The GPU fuzz's kernels (test/gpu/test_layout_fuzz.py) build and lower
    on the CPU: a few of its trees, compiled for sm_90."""
    for seed in range(4):
        rng = random.Random(seed)
        tree = model.random_tree(rng.choice, dtypes=model.FUZZ_DTYPES)
        keys = [(leaf.name, b) for leaf in model.leaves(tree) for b in range(leaf.num)]
        rng.shuffle(keys)
        lines, _, _ = model.fuzz_body(tree, keys)
        fn = jit_from_body("\n".join(lines), "in_ptr, out_ptr", {"tlx": tlx, "tl": tl, "triton": triton})
        src = triton.compiler.ASTSource(fn=fn, signature={"in_ptr": "*i8", "out_ptr": "*i8"})
        kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32))
        assert kernel.asm["cubin"]
        (spec, ) = tlx.memory_map(kernel)
        assert len(spec["views"]) == len(model.leaves(tree))
        total, starts = model.memory_map_placements(spec)
        assert model.classify(tree, total, starts, model.SHARED_LIMIT) in ("model", "ring by ring")
