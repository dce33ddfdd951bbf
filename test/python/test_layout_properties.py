"""Property test of the layout engine: random reuse trees (up to 4 levels, up to
12 leaves, random shapes, dtypes, layouts and buffer counts) are lowered by
tlx-storage-alias-lowering, and the rewritten IR is checked against the
invariants of the design, with addresses recomputed from the IR itself."""
import json
import os
import re
import tempfile

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import tlx_alias  # noqa: F401
from tlx_alias import _pipeline
from triton._C.libtriton import passes
from ttgir_builder import DTYPE_BITS, Leaf, build_module, ideal_size, leaves_of, nvmma

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
    num = draw(st.integers(1, 4))
    budget = [draw(st.integers(1, 12))]

    def node(depth, kind):
        if depth == 4 or budget[0] <= 1 or draw(st.integers(0, 2)) == 0:
            budget[0] -= 1
            return draw(leaves(num))
        children = []
        for _ in range(draw(st.integers(1, 3))):
            if budget[0] <= 0:
                break
            other = "distinct" if kind == "shared" else "shared"
            child = node(depth + 1, other)
            children.append(child)
        if not children:
            budget[0] -= 1
            children = [draw(leaves(num))]
        return (kind,) + tuple(children)

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


def may_overlap(path_a, path_b):
    """Two leaves may share bytes at one buffer index only below a shared node."""
    for (node_a, i), (node_b, j) in zip(path_a, path_b):
        assert node_a is node_b
        if i != j:
            return node_a[0] == "shared"
    return True  # same leaf


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(trees())
def test_layout_invariants(case):
    tree, explicit = case
    leaf_list = leaves_of(tree)
    num = leaf_list[0].num
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
    stride = views[0]["bytes_between_buffers"]
    assert stride * num <= entry["size"]

    # The rewritten indices, read back from the IR, land where the engine says.
    addresses = buffer_addresses(lowered)
    assert len(addresses) == num * len(leaf_list)
    placed = {}
    for n, (leaf, view) in enumerate(zip(leaf_list, views)):
        assert view["bytes_between_buffers"] == stride
        assert view["buffer_bytes"] == leaf.buffer_bytes
        assert view["offset"] % leaf.alignment == 0, (view, leaf)
        for b in range(num):
            address = addresses[n * num + b]
            assert address == view["offset"] + b * stride
            assert 0 <= address and address + leaf.buffer_bytes <= entry["size"]
            placed[(n, b)] = (address, address + leaf.buffer_bytes)

    # Distinct siblings (and different buffer indices) never overlap.
    leaf_paths = [p for _, p in paths(tree)]
    for (n, b), (lo, hi) in placed.items():
        for (m, c), (lo2, hi2) in placed.items():
            if (n, b) >= (m, c):
                continue
            if b == c and may_overlap(leaf_paths[n], leaf_paths[m]):
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
        if node[0] == "shared":
            assert len({start(child) for child in node[1:]}) == 1
        for child in node[1:]:
            check_shared(child)

    check_shared(tree)
