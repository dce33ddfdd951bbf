"""An independent model of the storage_alias_spec layout rules, written from
docs/storage_alias_spec.md (and the exact-views rules of
docs/design/lowering.md), never from the C++: random overlap trees, the
kernels that declare them, and where the design puts every buffer.

The rules modelled (exact views, the default):

* a buffer takes `units` of storage: bytes in shared memory (at least 128,
  triton's alignment of shared memory); in tensor memory, columns as
  triton's TMEM allocator counts them;
* one buffer index of the tree: shared children start together (the index
  is as large as the largest), distinct children follow each other in order,
  each starting at a multiple of its alignment (the largest buffer inside
  it: the guide's "every buffer starts at a multiple of its own size", in
  tensor memory too),
  and a `group_size = k` group holds k copies of its children side by side;
* buffer b of a leaf lives in index b // K (K: the product of the group
  sizes above it), in copy (b // ...) % k of each group on the way down;
* the stride between indices is the index's size padded to the largest
  buffer, so every buffer starts at a multiple of its own size; the spec
  has as many indices as the leaf that needs the most.

That layout is the layout, in both memories, wherever it fits the target:
the guide allows a ring-by-ring layout (each leaf's buffers side by side)
only where the interleaved one is larger than the target's memory (shared
memory: the target's, 232448 bytes on sm_90 and sm_100; tensor memory: 512
columns) and the rings fit; where neither fits, the spec is an error naming
the interleaved size. `ring_by_ring` says whether a placement is one, and
`classify` applies the rule to what the compiler laid out.
"""
import dataclasses
import math

SMEM_DTYPES = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "float16": 16, "bfloat16": 16, "float32": 32}
TMEM_DTYPES = {"float32": 32, "float16": 16, "bfloat16": 16}
# Triton aligns shared memory to 128 bytes: a smaller buffer takes a 128-byte
# slot (the guide's packed views name this alignment; exact views keep it).
SMEM_MIN_SLOT = 128
TMEM_LANES = 128
TMEM_COLUMN_BYTES = 512
TMEM_COLUMNS = 512  # tensor memory of a CTA, in columns
SHARED_LIMIT = 232448  # sm_90's and sm_100's shared memory per CTA, in bytes


def memory_limit(tmem, shared_limit=SHARED_LIMIT):
    """The target's memory in a spec's units (bytes, or columns)."""
    return TMEM_COLUMNS if tmem else shared_limit


@dataclasses.dataclass(eq=False)  # leaves are told apart by identity
class Leaf:
    name: str
    shape: tuple
    dtype: str
    num: int
    tmem: bool = False

    @property
    def bits(self):
        return (TMEM_DTYPES if self.tmem else SMEM_DTYPES)[self.dtype]

    @property
    def units(self):
        """Bytes (shared memory) or columns (tensor memory, unpacked 16-bit
        data one element a column: tlx's default colStride)."""
        elements = math.prod(self.shape)
        if not self.tmem:
            return max(elements * self.bits // 8, SMEM_MIN_SLOT)
        return elements // min(self.shape[0], TMEM_LANES)


@dataclasses.dataclass(eq=False)
class Group:
    kind: str  # "shared" or "distinct"
    children: list
    group_size: int = 1


def leaves(node):
    if isinstance(node, Leaf):
        return [node]
    return [leaf for child in node.children for leaf in leaves(child)]


def align_up(value, alignment):
    return -(-value // alignment) * alignment


def largest_buffer(node):
    return max(leaf.units for leaf in leaves(node))


def index_size(node, tree_alignment):
    """(units of one buffer index of `node`, its alignment)."""
    if isinstance(node, Leaf):
        return node.units, node.units
    alignment = largest_buffer(node)
    if node.kind == "shared":
        size = max(index_size(child, tree_alignment)[0] for child in node.children)
    else:
        size = 0
        for child in node.children:
            child_size, child_alignment = index_size(child, tree_alignment)
            size = align_up(size, child_alignment) + child_size
    if node.group_size > 1:
        size = align_up(size, alignment) * node.group_size
    return size, alignment


def buffers_per_index(path):
    return math.prod(group.group_size for group, _ in path)


def paths(node, prefix=()):
    """[(leaf, ((group, child position), ...))] from the root down."""
    if isinstance(node, Leaf):
        return [(node, prefix)]
    return [pair for i, child in enumerate(node.children) for pair in paths(child, prefix + ((node, i), ))]


def num_indices(tree):
    return max(-(-leaf.num // buffers_per_index(path)) for leaf, path in paths(tree))


def digits(path, b):
    """Buffer b under `path`: (its buffer index, its copy in each group)."""
    sizes = [group.group_size for group, _ in path]
    out = [0] * len(sizes)
    for level in reversed(range(len(sizes))):
        out[level] = b % sizes[level]
        b //= sizes[level]
    return b, out


@dataclasses.dataclass
class Layout:
    total: int  # units of storage
    stride: int  # units between buffer indices
    starts: dict  # (leaf name, buffer) -> first unit


def model_layout(tree, explicit_units=None):
    """Where the design puts every buffer (interleaved, exact views)."""
    tree_alignment = largest_buffer(tree)
    size, _ = index_size(tree, tree_alignment)
    stride = align_up(size, tree_alignment)
    count = num_indices(tree)
    total = stride * count
    if explicit_units is not None:  # each index gets an equal share of the padding
        total = explicit_units
        stride = total // count // tree_alignment * tree_alignment
    offsets = {}

    def place(node, offset, copies):
        if isinstance(node, Leaf):
            offsets[id(node)] = (offset, copies)
            return
        node_size, alignment = index_size(node, tree_alignment)
        copies = copies + [node_size // node.group_size]  # one entry per group of the path
        cursor = 0
        for child in node.children:
            child_size, child_alignment = index_size(child, tree_alignment)
            if node.kind == "shared":
                place(child, offset, copies)
                continue
            cursor = align_up(cursor, child_alignment)
            place(child, offset + cursor, copies)
            cursor += child_size

    place(tree, 0, [])
    starts = {}
    for leaf, path in paths(tree):
        offset, copies = offsets[id(leaf)]
        for b in range(leaf.num):
            index, copy_digits = digits(path, b)
            starts[(leaf.name, b)] = offset + index * stride + sum(d * c for d, c in zip(copy_digits, copies))
    return Layout(total, stride, starts)


def may_overlap(tree, a, b):
    """Whether buffers a = (leaf, buffer) and b may share storage: at one
    buffer index, in the same copy of every group above both, and below a
    shared group (or one buffer)."""
    by_leaf = dict(paths(tree))
    (leaf_a, buffer_a), (leaf_b, buffer_b) = a, b
    index_a, digits_a = digits(by_leaf[leaf_a], buffer_a)
    index_b, digits_b = digits(by_leaf[leaf_b], buffer_b)
    if index_a != index_b:
        return False
    for level, ((group, i), (_, j)) in enumerate(zip(by_leaf[leaf_a], by_leaf[leaf_b])):
        if digits_a[level] != digits_b[level]:
            return False
        if i != j:
            return group.kind == "shared"
    return a == b


def ring_by_ring(tree, starts):
    """Whether every leaf's buffers form a ring (the guide's ring-by-ring
    layout): evenly spaced, by its own size or, a shared child lying on a
    sibling's ring (docs/design/lowering.md), by a multiple of it."""
    for leaf in leaves(tree):
        ring = [starts[(leaf.name, b)] for b in range(leaf.num)]
        steps = {later - earlier for earlier, later in zip(ring, ring[1:])}
        if len(steps) > 1 or any(step <= 0 or step % leaf.units for step in steps):
            return False
    return True


def classify(tree, total, starts, limit, explicit_units=None):
    """What the compiler laid out (`total` units, `starts` as
    memory_map_placements gives them), by the rule: "model" where it is the
    model's layout, which it must be wherever that fits `limit` (None: the
    target's memory is not known); else "ring by ring", which must keep every
    leaf a ring and fit. AssertionError for anything else."""
    expected = model_layout(tree, explicit_units)
    if (total, starts) == (expected.total, expected.starts):
        return "model"
    where = describe(tree)
    assert limit is not None and expected.total > limit, (
        f"{where}: not the design's layout, though it fits ({expected.total} <= {limit}): {starts}")
    assert explicit_units is None, f"{where}: an explicit size past the target's memory laid out"
    assert ring_by_ring(tree, starts), f"{where}: past the target's memory, but not ring by ring: {starts}"
    assert total <= limit, f"{where}: ring by ring, but past the target's memory ({total} > {limit})"
    return "ring by ring"


def too_large_message(tree, tmem, explicit_units=None):
    """The words of the error for a tree that fits the target in neither
    layout: the interleaved size, in the spec's units."""
    total = model_layout(tree, explicit_units).total
    return f"needs {total} tensor-memory columns" if tmem else f"needs {total} bytes of shared memory"


# -- random trees -------------------------------------------------------------


def random_tree(choose, tmem=False, max_leaves=6, max_num=4, dtypes=None):
    """A random overlap tree; `choose(options)` picks one of a list (a
    hypothesis draw, or random.Random.choice)."""
    dtypes = sorted(dtypes or (TMEM_DTYPES if tmem else SMEM_DTYPES))
    mixed = choose([False, True])
    base = choose(list(range(1, max_num + 1)))
    budget = [choose(list(range(1, max_leaves + 1)))]
    names = iter(f"b{i}" for i in range(100))

    def leaf():
        budget[0] -= 1
        num = choose(list(range(1, max_num + 1))) if mixed else base
        if tmem:
            shape = (choose([128, 64]), choose([16, 32, 64]))
        else:
            shape = tuple(choose([8, 16, 32, 64]) for _ in range(choose([1, 2])))
        return Leaf(next(names), shape, choose(dtypes), num, tmem)

    def node(depth, kind, subtile):
        if depth == 4 or budget[0] <= 1 or choose([0, 1, 2]) == 0:
            return leaf()
        group_size = choose([2, 3] if subtile else [1, 1, 2])
        children = []
        for _ in range(choose([1, 2, 3])):
            if budget[0] <= 0:
                break
            # Kinds alternate, except that a subtiling group may nest in one of its own kind.
            child_kind = choose([kind, "distinct" if kind == "shared" else "shared"])
            children.append(node(depth + 1, child_kind, child_kind == kind))
        return Group(kind, children or [leaf()], group_size)

    root_kind = choose(["shared", "distinct"])
    tree = node(1, root_kind, False)
    return tree if isinstance(tree, Group) else Group(root_kind, [tree])


# -- kernels --------------------------------------------------------------------


def group_source(node):
    if isinstance(node, Leaf):
        return node.name
    size = f", group_size={node.group_size}" if node.group_size > 1 else ""
    children = ", ".join(group_source(child) for child in node.children)
    return f"tlx.reuse_group({children}, group_type=tlx.reuse_group_type.{node.kind}{size})"


def declarations(tree, buffer_size_bytes=None, layout=None):
    """The kernel lines declaring the tree: a spec, one local_alloc per leaf
    (`layout`: the source of a layout argument, or None for the default),
    the overlap definition."""
    storage = "tlx.storage_kind.tmem" if leaves(tree)[0].tmem else "tlx.storage_kind.smem"
    size = f", buffer_size_bytes={buffer_size_bytes}" if buffer_size_bytes is not None else ""
    lines = [f"spec = tlx.storage_alias_spec(storage={storage}{size})"]
    for leaf in leaves(tree):
        extra = f", layout={layout}" if layout is not None and not leaf.tmem else ""
        lines.append(f"{leaf.name} = tlx.local_alloc({leaf.shape}, tl.{leaf.dtype}, {leaf.num}, {storage}, "
                     f"reuse=spec{extra})")
    lines.append(f"spec.set_buffer_overlap({group_source(tree)})")
    return lines


def describe(tree):
    """The tree in one line, for failure messages and reports."""
    if isinstance(tree, Leaf):
        return f"{tree.name}:{'x'.join(map(str, tree.shape))}x{tree.dtype}x{tree.num}"
    size = f"*{tree.group_size}" if tree.group_size > 1 else ""
    return f"{tree.kind}{size}(" + ", ".join(describe(child) for child in tree.children) + ")"


# -- the GPU fuzz's kernels: every buffer written through its own view, read back through every view ---

FUZZ_DTYPES = {"int8": 1, "int16": 2, "int32": 4, "int64": 8}  # integers: bytes go through unchanged
IDENTITY_LAYOUT = "tlx.swizzled_shared_layout(1, 1, 1)"  # row-major, no swizzle: element e at byte e * size


def buffer_bytes(leaf):
    return math.prod(leaf.shape) * leaf.bits // 8


def fuzz_body(tree, write_order):
    """Kernel lines (params in_ptr, out_ptr: int8 pointers) that store each
    buffer of `write_order` [(leaf, buffer)] from its own region of in_ptr,
    then load every buffer and store it to its own region of out_ptr.
    Returns (lines, {(leaf name, buffer): byte offset of its regions})."""
    lines = declarations(tree, layout=IDENTITY_LAYOUT)
    regions, cursor = {}, 0
    for leaf in leaves(tree):
        for b in range(leaf.num):
            regions[(leaf.name, b)] = cursor
            cursor += align_up(buffer_bytes(leaf), 8)
    by_name = {leaf.name: leaf for leaf in leaves(tree)}

    def offsets(leaf):
        if len(leaf.shape) == 1:
            return f"tl.arange(0, {leaf.shape[0]})"
        return f"tl.arange(0, {leaf.shape[0]})[:, None] * {leaf.shape[1]} + tl.arange(0, {leaf.shape[1]})[None, :]"

    for name, b in write_order:
        leaf = by_name[name]
        pointer = f"(in_ptr + {regions[(name, b)]}).to(tl.pointer_type(tl.{leaf.dtype}))"
        lines.append(f"tlx.local_store({name}[{b}], tl.load({pointer} + {offsets(leaf)}))")
    for leaf in leaves(tree):
        for b in range(leaf.num):
            pointer = f"(out_ptr + {regions[(leaf.name, b)]}).to(tl.pointer_type(tl.{leaf.dtype}))"
            lines.append(f"tl.store({pointer} + {offsets(leaf)}, tlx.local_load({leaf.name}[{b}]))")
    return lines, regions, cursor


def memory_map_placements(spec):
    """(storage units, (leaf name, buffer) -> first unit) of one spec of
    tlx.memory_map: what the compiler laid out, to compare with the model."""
    unit = spec["unit_bytes"]
    starts = {}
    for view in spec["views"]:
        for b in range(view["num_buffers"]):
            start, rest = view["offset"], b
            for group_size, between in reversed(view["subtiles"]):
                start += (rest % group_size) * between
                rest //= group_size
            starts[(view["name"], b)] = (start + rest * view["bytes_between_buffers"]) // unit
    return spec["size"] // unit, starts


def expected_reads(tree, starts, unit_bytes, write_order, written):
    """What each buffer reads back after the writes, by simulating the
    storage: `starts` (leaf name, buffer) -> first unit, `written` (leaf
    name, buffer) -> the bytes stored."""
    by_name = {leaf.name: leaf for leaf in leaves(tree)}
    size = max(starts[key] * unit_bytes + buffer_bytes(by_name[key[0]]) for key in starts)
    storage = bytearray(size)
    for key in write_order:
        start = starts[key] * unit_bytes
        storage[start:start + len(written[key])] = written[key]
    return {key: bytes(storage[starts[key] * unit_bytes:starts[key] * unit_bytes + buffer_bytes(by_name[key[0]])])
            for key in starts}


def jit_kernel(lines, params, namespace):
    """A triton.JITFunction `kernel(<params>)` of these body lines, its
    source in linecache (triton reads a kernel's source, errors quote it)."""
    import linecache

    import triton
    source = f"def kernel({params}):\n" + "\n".join("    " + line for line in lines)
    filename = f"<tlx-layout-fuzz-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope = dict(namespace)
    exec(compile(source, filename, "exec"), scope)
    return triton.JITFunction(scope["kernel"])
