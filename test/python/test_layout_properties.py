"""Property test of the layout engine: random reuse trees (up to 4 levels, up to
12 leaves, random shapes, dtypes, layouts, buffer counts that may differ
between leaves, and group_size subtiling, nested too) are lowered by
tlx-storage-alias-lowering, and the rewritten IR is checked against the
invariants of the design, with addresses recomputed from the IR itself."""
import json
import math
import os
import re
import tempfile

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import tlx_alias  # noqa: F401
from tlx_alias import _pipeline
from triton._C.libtriton import passes
from ttgir_builder import (DTYPE_BITS, Leaf, build_module, buffers_per_index, ideal_size, kind_and_size, leaves_of,
                           num_indices, nvmma)

EXAMPLES = int(os.environ.get("TLX_PROPERTY_EXAMPLES", "500"))
KNOWN_ERRORS = ("is too small, requires at least", "not enough space for distinct allocations")
DIMS = [8, 16, 32, 64, 128]


@st.composite
def leaves(draw, num):
    if draw(st.integers(0, 5)) == 0:  # NVMMA-swizzled f16 tiles
        swizzle = draw(st.sampled_from([0, 32, 64, 128]))
        shape = (draw(st.sampled_from([64, 128])), 64)
        return Leaf(shape, "f16", num, nvmma(swizzle, 16))
    rank = draw(st.integers(1, 2))
    shape = tuple(draw(st.sampled_from(DIMS)) for _ in range(rank))
    return Leaf(shape, draw(st.sampled_from(sorted(DTYPE_BITS))), num)


@st.composite
def trees(draw):
    base = draw(st.integers(1, 4))
    mixed = draw(st.booleans())  # leaves with different buffer counts
    budget = [draw(st.integers(1, 12))]

    def leaf():
        return draw(leaves(draw(st.integers(1, 6)) if mixed else base))

    def node(depth, kind, subtile=False):
        if depth == 4 or budget[0] <= 1 or draw(st.integers(0, 2)) == 0:
            budget[0] -= 1
            return leaf()
        group_size = draw(st.sampled_from([2, 3] if subtile else [1, 1, 1, 2, 3]))
        children = []
        for _ in range(draw(st.integers(1, 3))):
            if budget[0] <= 0:
                break
            # Kinds alternate, except that a subtiling group may nest in
            # one of its own kind.
            other = "distinct" if kind == "shared" else "shared"
            child_kind = draw(st.sampled_from([kind, other]))
            children.append(node(depth + 1, child_kind, subtile=child_kind == kind))
        if not children:
            budget[0] -= 1
            children = [leaf()]
        return (kind + (f"*{group_size}" if group_size > 1 else ""), ) + tuple(children)

    root_kind = draw(st.sampled_from(["shared", "distinct"]))
    tree = node(1, root_kind)
    if isinstance(tree, Leaf):
        tree = (root_kind, tree)
    explicit = draw(st.sampled_from([None, None, "exact", "padded", "small"]))
    return tree, explicit


def lower(text, memory_map):
    module, context = _pipeline.parse_module(text)
    _pipeline.run_passes(
        module, lambda pm: passes.plugin.tlx_storage_alias_lowering(pm, [f"memory-map={memory_map}"]),
        context=context)
    return str(module)


CONSTANT = re.compile(r"(%[\w]+) = arith.constant (-?\d+) : i32")
INDEX = re.compile(r"ttg.memdesc_index %\w+\[(%\w+)\] : !ttg.memdesc<([0-9x]+)x(\w+),")
ELEMENT_BYTES = {name: bits // 8 for name, bits in DTYPE_BITS.items()}


def buffer_addresses(lowered):
    """Byte address of every memdesc_index in the lowered IR, in order."""
    constants = dict(CONSTANT.findall(lowered))
    addresses = []
    for index, dims, element in INDEX.findall(lowered):
        trailing = 1
        for dim in dims.split("x")[1:]:
            trailing *= int(dim)
        addresses.append(int(constants[index]) * trailing * ELEMENT_BYTES[element])
    return addresses


def paths(tree, prefix=()):
    """Leaf -> path of (node, child position) from the root."""
    if isinstance(tree, Leaf):
        return [(tree, prefix)]
    out = []
    for i, child in enumerate(tree[1:]):
        out += paths(child, prefix + ((tree, i),))
    return out


def digits(path, b):
    """Buffer b of a leaf under `path`: its spec buffer index and its digit at
    each group_size node of the path (outermost first)."""
    sizes = [kind_and_size(node)[1] for node, _ in path]
    out = [0] * len(sizes)
    for level in reversed(range(len(sizes))):
        out[level] = b % sizes[level]
        b //= sizes[level]
    return b, out


def may_overlap(path_a, b, path_b, c):
    """Two buffers may share bytes only at one spec buffer index, in one
    sub-buffer of every subtiling group above both, below a shared node."""
    index_a, digits_a = digits(path_a, b)
    index_b, digits_b = digits(path_b, c)
    if index_a != index_b:
        return False
    for level, ((node_a, i), (node_b, j)) in enumerate(zip(path_a, path_b)):
        assert node_a is node_b
        if digits_a[level] != digits_b[level]:
            return False
        if i != j:
            return kind_and_size(node_a)[0] == "shared"
    return b == c  # same leaf


def expected_address(view, b):
    address, q = view["offset"], b
    for group_size, between in reversed(view["subtiles"]):
        address += (q % group_size) * between
        q //= group_size
    return address + q * view["bytes_between_buffers"]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(trees())
def test_layout_invariants(case):
    tree, explicit = case
    leaf_list = leaves_of(tree)
    num = num_indices(tree)
    ideal = ideal_size(tree)
    size = {None: None, "exact": ideal, "padded": ideal + 4096 * num,
            "small": max(1, ideal - 128 * num)}[explicit]
    with tempfile.TemporaryDirectory() as tmp:
        memory_map = os.path.join(tmp, "map.jsonl")
        try:
            lowered = lower(build_module(tree, size=size), memory_map)
        except RuntimeError as error:
            # Only a too-small explicit size may fail, and with a clear message.
            event("rejected: too small")
            assert explicit == "small", str(error)
            assert any(text in str(error) for text in KNOWN_ERRORS), str(error)
            return
        (entry,) = [json.loads(line) for line in open(memory_map)]

    assert "tlx.reuse_group" not in lowered and "tlx.set_buffer_overlap" not in lowered
    assert entry["size"] == (size if size else ideal)
    views = entry["views"]
    assert len(views) == len(leaf_list)
    event("lowered, " + ("with slot views" if any(v["slot_bytes"] for v in views) else "standard views"))
    event(f"{len(leaf_list) // 4 * 4}+ leaves")
    event("mixed counts" if len({leaf.num for leaf in leaf_list}) > 1 else "one count")
    event("subtiled" if any(v["subtiles"] for v in views) else "no subtiles")
    stride = views[0]["bytes_between_buffers"]
    assert stride * num <= entry["size"]

    # The rewritten indices, read back from the IR, land where the engine says.
    addresses = buffer_addresses(lowered)
    assert len(addresses) == sum(leaf.num for leaf in leaf_list)
    per_index = buffers_per_index(tree)
    placed = {}
    position = 0
    for n, (leaf, view) in enumerate(zip(leaf_list, views)):
        assert view["bytes_between_buffers"] == stride
        assert view["buffer_bytes"] == leaf.buffer_bytes
        assert view["offset"] % leaf.alignment == 0, (view, leaf)
        group_sizes = [k for k, _ in view["subtiles"]]
        assert len(group_sizes) == 0 or math.prod(group_sizes) == per_index[id(leaf)]
        for b in range(leaf.num):
            address = addresses[position]
            position += 1
            assert address == expected_address(view, b), (view, b)
            assert address % leaf.alignment == 0
            assert 0 <= address and address + leaf.buffer_bytes <= entry["size"]
            placed[(n, b)] = (address, address + leaf.buffer_bytes)

    # Distinct siblings (and different buffer indices, and different
    # sub-buffers of a subtiling group) never overlap.
    leaf_paths = [p for _, p in paths(tree)]
    for (n, b), (lo, hi) in placed.items():
        for (m, c), (lo2, hi2) in placed.items():
            if (n, b) >= (m, c):
                continue
            if may_overlap(leaf_paths[n], b, leaf_paths[m], c):
                continue
            assert hi <= lo2 or hi2 <= lo, (n, b, m, c, placed)

    # Shared siblings start together.
    def start(node):
        if isinstance(node, Leaf):
            return views[leaf_list.index(node)]["offset"]
        return min(start(child) for child in node[1:])

    def check_shared(node):
        if isinstance(node, Leaf):
            return
        if kind_and_size(node)[0] == "shared":
            assert len({start(child) for child in node[1:]}) == 1
        for child in node[1:]:
            check_shared(child)

    check_shared(tree)
