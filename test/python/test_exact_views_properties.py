"""Property test of the layout engine under exact views (triton 3.8's memdesc
rules, forced with the pass option so that it runs on every triton): the
random reuse trees of test_layout_properties (unpadded shared-memory and
tensor-memory leaves) are lowered, and, read back from the lowered IR alone:

* every buffer starts at a multiple of its own size and every view spans the
  whole storage in whole buffers (what 3.8's reinterpret and index accept);
* buffers of different indices never overlap, and buffers of one index only
  under a shared group (the tree's promise);
* the layout is the design's, interleaved: the storage is as large as the
  tree's indices, each as large as the tree with its buffers at multiples of
  their sizes (`interleaved_size`). The lowering runs without the target's
  shared memory (check-target-memory=0), and the tensor-memory trees are
  those that fit 512 columns, so no tree here is laid out ring by ring (only
  a tree the target's memory cannot hold interleaved is:
  test_layout_model.py and exact-views.mlir check those).
"""
import re

from hypothesis import event, given

import tlx_alias  # noqa: F401
from tlx_alias._triton import passes as _pipeline
from test_layout_properties import SETTINGS, buffer_addresses, may_overlap, paths, smem_leaves, tmem_leaves, trees
from tlx_alias._triton.plugin import plugin_passes
from ttgir_builder import TMEM_COLUMNS, align_to, build_module, ideal_size, kind_and_size, leaves_of, num_indices, \
    paddings_of

SHARED_STORAGE = re.compile(r"ttg.local_alloc \{alignment = \d+ : i32\} : \(\) -> !ttg.memdesc<(\d+)x(\d+)xi8")
TENSOR_STORAGE = re.compile(r"ttng.tmem_alloc : \(\) -> !ttg.memdesc<128x(\d+)xf32")
VIEW = re.compile(r"tlx.local_alias %\w+ : .+? -> !ttg.memdesc<(\d+)x")


def lower_exact(tree):
    module, context = _pipeline.parse_module(build_module(tree, size=None))
    _pipeline.run_passes(module, lambda pm: plugin_passes.tlx_storage_alias_lowering(pm, ["exact-views=1", "check-target-memory=0"]),
                         context=context)
    return str(module)


def interleaved_size(tree):
    """Units of the design's layout under exact views: as packed (shared
    children together, distinct ones one after the other, group_size copies
    side by side), but every buffer aligned to its own size as well, and the
    stride to the largest alignment."""
    def node(tree):
        if not isinstance(tree, tuple):
            return tree.units, max(tree.alignment, tree.units)
        sizes = [node(child) for child in tree[1:]]
        align = max(a for _, a in sizes)
        kind, group_size = kind_and_size(tree)
        size = 0
        for b, a in sizes:
            size = max(size, b) if kind == "shared" else align_to(size, a) + b
        if group_size > 1:
            size = group_size * align_to(size, align)
        return size, align

    size, align = node(tree)
    return num_indices(tree) * align_to(size, align)


def storage_units(lowered, tmem):
    if tmem:
        (columns, ) = TENSOR_STORAGE.findall(lowered)
        return int(columns)
    ((rows, row), ) = SHARED_STORAGE.findall(lowered)
    assert int(row) & (int(row) - 1) == 0, row  # 3.8 lays out no other 1-D size
    return int(rows) * int(row)


def check_exact(tree):
    leaf_list = leaves_of(tree)
    tmem = leaf_list[0].tmem
    if tmem and ideal_size(tree) > TMEM_COLUMNS:
        return False
    lowered = lower_exact(tree)
    total = storage_units(lowered, tmem)
    assert total >= max(leaf.num * leaf.units for leaf in leaf_list)
    # The design's layout, never ring by ring here (tensor memory is
    # allocated in powers of two of at least 32 columns).
    interleaved = interleaved_size(tree)
    assert total == (max(32, 1 << (interleaved - 1).bit_length()) if tmem else interleaved), (total, interleaved)
    # Each view spans the storage: its leading dimension times the buffer.
    for leaf, count in zip(leaf_list, VIEW.findall(lowered)):
        assert int(count) * leaf.units == total, (leaf, count, total)
    addresses = iter(buffer_addresses(lowered))
    placed = {}
    for n, leaf in enumerate(leaf_list):
        for b in range(leaf.num):
            start = next(addresses)
            assert start % leaf.units == 0 and start + leaf.units <= total, (n, b, start, leaf.units)
            placed[(n, b)] = (start, start + leaf.units)
    leaf_paths = [p for _, p in paths(tree)]
    for (n, b), (lo, hi) in placed.items():
        for (m, c), (lo2, hi2) in placed.items():
            if (n, b) < (m, c) and not may_overlap(leaf_paths[n], b, leaf_paths[m], c):
                assert hi <= lo2 or hi2 <= lo, (n, b, m, c, placed)
    ideal = ideal_size(tree)  # packed and interleaved, as under 3.7
    event("larger than packed" if total > ideal else "smaller than packed" if total < ideal else "as packed")
    return True


@SETTINGS
@given(trees(smem_leaves, max_leaves=12, max_num=6))
def test_exact_views_keep_the_promise(case):
    tree, _, _ = case
    if any(paddings_of(leaf.encoding) for leaf in leaves_of(tree)):
        event("padded: refused under exact views")
        return
    check_exact(tree)


@SETTINGS
@given(trees(tmem_leaves, max_leaves=6, max_num=4))
def test_exact_views_keep_the_promise_in_tensor_memory(case):
    tree, _, _ = case
    check_exact(tree)
