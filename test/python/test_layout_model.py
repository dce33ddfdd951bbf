"""Differential test of the layout (issue 29): random overlap trees (shared
and distinct nesting, dtypes, buffer counts that may differ, group_size,
shared and tensor memory, explicit sizes) declared in @triton.jit kernels,
compiled for sm_90 (shared memory) and sm_100 (tensor memory), and every
buffer's range in the memory map compared with test/support/layout_model.py,
a model of the rules of docs/storage_alias_spec.md written without the C++.

The layout must be the model's, or, as the guide allows where it is
smaller, ring by ring (each leaf's buffers side by side); either way
buffers the tree keeps apart (distinct siblings, other buffer indices,
other copies of a group_size group) never overlap, every buffer starts at a
multiple of its own size and lies inside the storage."""
import os
import random
import sys

import triton
import triton.language as tl
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from triton.backends.compiler import GPUTarget

import tlx_alias as tlx
from conftest import jit_from_body

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
import layout_model as model  # noqa: E402

TMEM_COLUMNS = 512
SHARED_LIMIT = 232448  # sm_90's and sm_100's shared memory per CTA
EXAMPLES = int(os.environ.get("TLX_MODEL_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


def compile_tree(tree, capability, buffer_size_bytes=None):
    first = model.leaves(tree)[0]
    use = f"tlx.local_store({first.name}[0], tl.full({first.shape}, 0, tl.{first.dtype}))"
    body = "\n".join(model.declarations(tree, buffer_size_bytes) + [use])
    fn = jit_from_body(body, "x_ptr", {"tlx": tlx, "tl": tl, "triton": triton})
    src = triton.compiler.ASTSource(fn=fn, signature={"x_ptr": "*fp32"})
    return triton.compile(src, target=GPUTarget("cuda", capability, 32))


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
    tmem = model.leaves(tree)[0].tmem
    expected = model.model_layout(tree, explicit_units)
    unit = model.TMEM_COLUMN_BYTES if tmem else 1
    assume(expected.total <= (TMEM_COLUMNS if tmem else SHARED_LIMIT))
    size = None if explicit_units is None else explicit_units * unit
    (spec, ) = tlx.memory_map(compile_tree(tree, 100 if tmem else 90, size))
    total, starts = model.memory_map_placements(spec)
    where = model.describe(tree)
    if (total, starts) == (expected.total, expected.starts):
        event("the model's layout")
    else:
        assert model.ring_by_ring(tree, starts), (where, total, starts, expected)
        if explicit_units is None:
            assert total < expected.total, (where, total, starts, expected)
            event("ring by ring, smaller")
        else:
            # Ring by ring keeps an explicit size's padding at the end, where the guide says
            # "each buffer index gets an equal share" (e.g. distinct(8xbf16 x1, 8xbf16 x2) in 768 bytes).
            assert total == explicit_units, (where, total, expected)
            event("ring by ring, padded at the end")
    check_promise(tree, total, starts)


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
