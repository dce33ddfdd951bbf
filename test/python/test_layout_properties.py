"""Property test of the layout engine: random reuse trees (up to 4 levels,
random shapes, dtypes, layouts, buffer counts that may differ between leaves,
and group_size subtiling, nested too) are lowered by
tlx-storage-alias-lowering, and the rewritten IR is checked against the
invariants of the design, with addresses recomputed from the IR itself.

Two kinds of trees:

* shared memory (up to 12 leaves): swizzled, NVMMA (aligned to 128 x
  swizzle/16 bytes) and #ttg.padded_shared leaves (sized with the padding
  after every interval a buffer starts, the last too);
* tensor memory (up to 6 leaves): TMEM buffers of every element width,
  colStride and blockM, counted in columns as triton's own TMEM allocator
  counts them; every buffer starts on a multiple of its own columns (distinct
  children and the stride align to the largest leaf's), and a spec holds at
  most 512 columns.

The expected layout comes from the test's own model of those rules
(ttgir_builder's node sizes and `oracle_placements` below), never from the
engine: the memory map must say what the model says, and every
ttg.memdesc_index in the lowered IR must address what the memory map says,
read the way triton lowers it (a padded layout's buffer c starts at element
c*N plus the padding before it; a TMEM buffer c at c times its columns)."""
import json
import math
import os
import re
import tempfile

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import tlx_alias  # noqa: F401
from conftest import packed_views_verify
from tlx_alias._triton import passes as _pipeline
from tlx_alias._triton.plugin import plugin_passes
from ttgir_builder import (DTYPE_BITS, TMEM_COLUMN_BYTES, TMEM_COLUMNS, TMEM_PREFIX, Leaf, align_to, build_module,
                           buffers_per_index, ideal_size, kind_and_size, leaves_of, node_size, num_indices, nvmma,
                           padded, paddings_of, tmem_columns, tmem_encoding)

EXAMPLES = int(os.environ.get("TLX_PROPERTY_EXAMPLES", "500"))
# The model is of the packed layout (exact-views=false, which only triton 3.7
# verifies); exact views, the default, have their own property test
# (test_exact_views_properties.py).
pytestmark = pytest.mark.skipif(not packed_views_verify(),
                                reason="packed layouts: this triton does not verify them")
KNOWN_ERRORS = ("is too small, requires at least", "not enough space for distinct allocations")
TMEM_FULL = "tensor-memory columns"  # "storage_alias_spec needs N tensor-memory columns ..."
DIMS = [8, 16, 32, 64, 128]


@st.composite
def padded_leaves(draw, num):
    rank = draw(st.integers(1, 2))
    shape = tuple(draw(st.sampled_from(DIMS)) for _ in range(rank))
    elements = math.prod(shape)
    # Intervals that divide the buffer and ones that do not (memdesc_index
    # then does not step by the padded buffer: the engine uses slots).
    intervals = [4, 8, 16, 32, 64, 128, 256, 512, 1024]
    chosen = draw(st.lists(st.sampled_from(intervals), min_size=1, max_size=2, unique=True))
    pairs = [(i, draw(st.sampled_from([1, 2, 4, 8, 16]))) for i in sorted(chosen)]
    return Leaf(shape, draw(st.sampled_from(sorted(DTYPE_BITS))), num, padded(pairs, shape))


@st.composite
def smem_leaves(draw, num):
    kind = draw(st.integers(0, 5))
    if kind == 0:  # NVMMA-swizzled f16 tiles
        swizzle = draw(st.sampled_from([0, 32, 64, 128]))
        shape = (draw(st.sampled_from([64, 128])), 64)
        return Leaf(shape, "f16", num, nvmma(swizzle, 16))
    if kind == 1:
        return draw(padded_leaves(num))
    rank = draw(st.integers(1, 2))
    shape = tuple(draw(st.sampled_from(DIMS)) for _ in range(rank))
    return Leaf(shape, draw(st.sampled_from(sorted(DTYPE_BITS))), num)


TMEM_STRIDES = {"f32": [1], "f16": [1, 2], "bf16": [1, 2], "i8": [1, 2, 4]}


@st.composite
def tmem_leaves(draw, num):
    """A TMEM buffer triton accepts: 64 rows only with blockM = 64; blockN
    the whole width or 64 of it; 16-bit data packed or unpacked, 8-bit packed
    1, 2 or 4 to a column."""
    m = draw(st.sampled_from([128, 128, 64]))
    n = draw(st.sampled_from([16, 32, 32, 64, 128]))
    dtype = draw(st.sampled_from(sorted(TMEM_STRIDES)))
    col_stride = draw(st.sampled_from(TMEM_STRIDES[dtype]))
    block_m = 64 if m == 64 else draw(st.sampled_from([64, 128]))
    block_n = draw(st.sampled_from(sorted({n, min(n, 64)})))
    return Leaf((m, n), dtype, num, tmem_encoding(block_m, block_n, col_stride))


@st.composite
def trees(draw, leaf_strategy, max_leaves, max_num):
    base = draw(st.integers(1, min(4, max_num)))
    mixed = draw(st.booleans())  # leaves with different buffer counts
    budget = [draw(st.integers(1, max_leaves))]

    def leaf():
        return draw(leaf_strategy(draw(st.integers(1, max_num)) if mixed else base))

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
    return tree, explicit, draw(st.integers(0, 3))


def explicit_size(tree, explicit, extra):
    """The spec's buffer_size_bytes: None, the ideal, more (each index gets
    its share), or less. Tensor memory counts whole columns: the part of a
    column beyond the last whole one (`slack`) is not storage."""
    ideal, num = ideal_size(tree), num_indices(tree)
    if not leaves_of(tree)[0].tmem:
        return {None: None, "exact": ideal, "padded": ideal + 4096 * num,
                "small": max(1, ideal - 128 * num)}[explicit]
    slack = 200 * (extra % 2)
    columns = {None: None, "exact": ideal, "padded": ideal + 8 * extra * num + 1, "small": ideal - 1}[explicit]
    return None if columns is None else max(1, columns * TMEM_COLUMN_BYTES + slack)


def lower(text, memory_map):
    module, context = _pipeline.parse_module(text)
    _pipeline.run_passes(
        module, lambda pm: plugin_passes.tlx_storage_alias_lowering(pm, [f"memory-map={memory_map}",
                                                                         "exact-views=0",
                                                                         "check-target-memory=0"]),
        context=context)
    return str(module)


CONSTANT = re.compile(r"(%[\w]+) = arith.constant (-?\d+) : i32")
ALIAS = re.compile(r"^(#[\w.]+) = (.+)$", re.M)
INDEX = re.compile(r"ttg.memdesc_index %\w+\[(%\w+)\] : (.+?) -> ")
MEMDESC = re.compile(r"!ttg.memdesc<([0-9x]+)x(\w+), ")


def index_address(c, memdesc):
    """Where `ttg.memdesc_index` of index c into `memdesc` (aliases expanded)
    starts, as triton lowers it: in columns in tensor memory, else in bytes,
    with a padded layout's padding before element c*N."""
    dims, element = MEMDESC.match(memdesc).groups()
    shape = tuple(int(d) for d in dims.split("x")[1:])
    if TMEM_PREFIX in memdesc:
        encoding = TMEM_PREFIX + memdesc.split(TMEM_PREFIX)[1].split(">")[0] + ">"
        return c * tmem_columns(shape, element, encoding)
    elements = math.prod(shape)
    start = c * elements
    padded_at = memdesc.find("#ttg.padded_shared<")
    if padded_at >= 0:
        start += sum(c * elements // i * p for i, p in paddings_of(memdesc[padded_at:]))
    return start * DTYPE_BITS[element] // 8


def buffer_addresses(lowered):
    """Address (units) of every memdesc_index in the lowered IR, in order."""
    constants = dict(CONSTANT.findall(lowered))
    aliases = dict(ALIAS.findall(lowered))

    def expand(text):
        return re.sub(r"#[\w.]+", lambda m: aliases.get(m.group(0), m.group(0)), text)

    return [index_address(int(constants[index]), expand(memdesc)) for index, memdesc in INDEX.findall(lowered)]


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


def oracle_placements(tree):
    """Leaf id -> (offset, [(group_size, units between sub-buffers), ...]):
    shared children start together, distinct ones follow each other in order,
    each aligned to its own alignment; a group_size = k group holds k copies
    of its children side by side, each aligned to the group's alignment."""
    out = {}

    def place(node, offset, subtiles):
        if isinstance(node, Leaf):
            out[id(node)] = (offset, subtiles)
            return
        kind, group_size = kind_and_size(node)
        if group_size > 1:
            subtiles = subtiles + [(group_size, node_size(node)[0] // group_size)]
        cursor = 0
        for child in node[1:]:
            if kind == "shared":
                place(child, offset, subtiles)
                continue
            units, alignment = node_size(child)
            cursor = align_to(cursor, alignment)
            place(child, offset + cursor, subtiles)
            cursor += units

    place(tree, 0, [])
    return out


def start_of(offset, subtiles, stride, b):
    """Buffer b of a leaf at `offset` under `subtiles`, `stride` per index."""
    address = offset
    for group_size, between in reversed(subtiles):
        address += (b % group_size) * between
        b //= group_size
    return address + b * stride


def expected_sizes(tree, size):
    """(storage units, units between buffer indices) the spec must get."""
    units, alignment = node_size(tree)
    num = num_indices(tree)
    if size is None:
        return num * align_to(units, alignment), align_to(units, alignment)
    unit = TMEM_COLUMN_BYTES if leaves_of(tree)[0].tmem else 1
    total = size // unit
    # An explicit size is shared equally by the indices, aligned down.
    return total, total // num // alignment * alignment


def lower_or_reject(tree, size):
    """(lowered IR, memory map entry), or None when the spec must be
    rejected: an explicit size below the ideal, or more tensor memory than
    there is; the error must then say so."""
    tmem = leaves_of(tree)[0].tmem
    total, _ = expected_sizes(tree, size)
    too_small = total < ideal_size(tree)
    too_large = tmem and max(total, ideal_size(tree)) > TMEM_COLUMNS
    with tempfile.TemporaryDirectory() as tmp:
        memory_map = os.path.join(tmp, "map.jsonl")
        try:
            lowered = lower(build_module(tree, size=size), memory_map)
        except RuntimeError as error:
            assert too_small or too_large, str(error)
            known = (KNOWN_ERRORS if too_small else ()) + ((TMEM_FULL, ) if too_large else ())
            assert any(text in str(error) for text in known), str(error)
            event("rejected: " + ("too small" if too_small else "over 512 columns"))
            return None
        assert not (too_small or too_large), (too_small, too_large)
        (entry, ) = [json.loads(line) for line in open(memory_map)]
    return lowered, entry


def check_storage(tree, lowered, entry, total):
    """The one allocation the spec becomes, as the memory map describes it."""
    leaf_list = leaves_of(tree)
    tmem = leaf_list[0].tmem
    unit = TMEM_COLUMN_BYTES if tmem else 1
    alignment = node_size(tree)[1]
    assert (entry["storage"], entry["unit_bytes"]) == (("tmem", unit) if tmem else ("smem", 1))
    assert (entry["size"], entry["alignment"]) == (total * unit, alignment * unit)
    if tmem:
        # tcgen05.alloc hands out powers of two, at least 32 columns.
        columns = max(32, 1 << (total - 1).bit_length())
        assert re.findall(r"ttng.tmem_alloc : \(\) -> !ttg.memdesc<128x(\d+)xf32", lowered) == [str(columns)]
        assert "ttg.local_alloc" not in lowered
    else:
        allocs = re.findall(r"ttg.local_alloc \{alignment = (\d+) : i32\} : \(\) -> !ttg.memdesc<(\d+)xi8", lowered)
        assert allocs == [(str(alignment), str(total))]
        assert "ttng.tmem_alloc" not in lowered


def check_placements(tree, entry, stride):
    """Every view of the memory map is where the model puts it; returns
    (leaf index, buffer) -> (start, end) in units, from the model."""
    leaf_list = leaves_of(tree)
    unit = entry["unit_bytes"]
    views = entry["views"]
    assert len(views) == len(leaf_list)
    oracle = oracle_placements(tree)
    per_index = buffers_per_index(tree)
    placed = {}
    for n, (leaf, view) in enumerate(zip(leaf_list, views)):
        offset, subtiles = oracle[id(leaf)]
        assert view["offset"] == offset * unit, (n, view, offset)
        assert view["subtiles"] == [[k, between * unit] for k, between in subtiles], (n, view)
        assert view["bytes_between_buffers"] == stride * unit
        assert (view["buffer_bytes"], view["alignment"]) == (leaf.units * unit, leaf.alignment * unit), view
        assert view["num_buffers"] == leaf.num
        assert math.prod(k for k, _ in subtiles) == per_index[id(leaf)]
        if leaf.tmem:  # no byte-addressed slot views in tensor memory
            assert view["slot_bytes"] == 0
        for b in range(leaf.num):
            start = start_of(offset, subtiles, stride, b)
            placed[(n, b)] = (start, start + leaf.units)
    return placed


def check_invariants(tree, placed, total):
    """Model-independent: everything fits, aligned; distinct siblings (and
    different buffer indices, and different sub-buffers of a subtiling group)
    never overlap; shared siblings start together."""
    leaf_list = leaves_of(tree)
    for (n, b), (lo, hi) in placed.items():
        assert 0 <= lo and hi <= total, (n, b, lo, hi, total)
        assert lo % leaf_list[n].alignment == 0, (n, b, lo)
    leaf_paths = [p for _, p in paths(tree)]
    for (n, b), (lo, hi) in placed.items():
        for (m, c), (lo2, hi2) in placed.items():
            if (n, b) >= (m, c) or may_overlap(leaf_paths[n], b, leaf_paths[m], c):
                continue
            assert hi <= lo2 or hi2 <= lo, (n, b, m, c, placed)

    def start(node):
        if isinstance(node, Leaf):
            return placed[(leaf_list.index(node), 0)][0]
        return min(start(child) for child in node[1:])

    def check_shared(node):
        if isinstance(node, Leaf):
            return
        if kind_and_size(node)[0] == "shared":
            assert len({start(child) for child in node[1:]}) == 1
        for child in node[1:]:
            check_shared(child)

    check_shared(tree)


def check_lowering(tree, size):
    """Lowers the tree's module and checks everything; False if rejected."""
    result = lower_or_reject(tree, size)
    if result is None:
        return False
    lowered, entry = result
    assert "tlx.reuse_group" not in lowered and "tlx.set_buffer_overlap" not in lowered
    total, stride = expected_sizes(tree, size)
    assert stride * num_indices(tree) <= total and stride >= align_to(*node_size(tree))
    check_storage(tree, lowered, entry, total)
    placed = check_placements(tree, entry, stride)
    # The rewritten indices, read back from the IR, land where the model
    # (and so the memory map) puts the buffers.
    leaf_list = leaves_of(tree)
    addresses = buffer_addresses(lowered)
    assert len(addresses) == sum(leaf.num for leaf in leaf_list)
    buffers = [(n, b) for n, leaf in enumerate(leaf_list) for b in range(leaf.num)]
    for (n, b), address in zip(buffers, addresses):
        assert address == placed[(n, b)][0], (n, b, address, placed[(n, b)], entry["views"][n])
    check_invariants(tree, placed, total)
    return True


def describe(tree, more_events):
    leaf_list = leaves_of(tree)
    event(f"{len(leaf_list) // 4 * 4}+ leaves")
    event("mixed counts" if len({leaf.num for leaf in leaf_list}) > 1 else "one count")
    event("subtiled" if any(kind_and_size(node)[1] > 1 for _, path in paths(tree) for node, _ in path)
          else "no subtiles")
    for text in more_events:
        event(text)


SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(trees(smem_leaves, max_leaves=12, max_num=6))
def test_layout_invariants(case):
    tree, explicit, extra = case
    leaf_list = leaves_of(tree)
    describe(tree, ["with padded layouts" if any(paddings_of(leaf.encoding) for leaf in leaf_list)
                    else "no padded layouts"])
    size = explicit_size(tree, explicit, extra)
    if check_lowering(tree, size):
        event("lowered")


@SETTINGS
@given(trees(tmem_leaves, max_leaves=6, max_num=4))
def test_tmem_layout_invariants(case):
    tree, explicit, extra = case
    leaf_list = leaves_of(tree)
    describe(tree, ["columns per buffer differ" if len({leaf.units for leaf in leaf_list}) > 1
                    else "one column count"])
    if check_lowering(tree, explicit_size(tree, explicit, extra)):
        event("lowered")


def test_padded_interval_longer_than_buffer():
    """distinct(x, a), a = 8x8 bf16 (64 elements) padded [128:+64]: 256 bytes
    a buffer with its padding, at byte 256. memdesc_index of a padded view
    would place index 1 at element 64 (byte 128), inside x: the engine
    reaches it through byte slots instead (once a found bug)."""
    pad = padded([(128, 64)], (8, 8))
    tree = ("distinct", Leaf((8, 16), "f16", 1), Leaf((8, 8), "bf16", 1, pad))
    check_lowering(tree, None)


def test_padded_slot_not_a_power_of_two():
    """shared(a), a = 128 x bf16 padded [8:+1]: 288 bytes a buffer, 384
    between buffers (128-byte alignment). gcd(288, 384) = 96 is no memdesc
    dimension; the slot is 32 bytes (once a found bug: the lowering failed)."""
    tree = ("shared", Leaf((128, ), "bf16", 1, padded([(8, 1)], (128, ))))
    check_lowering(tree, None)
