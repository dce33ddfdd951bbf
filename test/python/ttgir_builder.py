"""Generates TTGIR modules that use storage alias specs, for the tests.

A tree is a nested tuple: ("shared"|"distinct", child, ...) with leaves
`Leaf` objects; "shared*2" (or "distinct*3") is a group with group_size 2.
Each leaf is allocated from one spec, stored to at every buffer index (so
nothing is dead), and the tree is set as the spec's overlap.

Leaves live in shared memory (swizzled, NVMMA or #ttg.padded_shared
layouts) or, with a #ttng.tensor_memory_encoding, in tensor memory; one tree
holds leaves of one kind. Sizes here are the test's own model of the rules
(docs/storage_alias_spec.md), in the storage's units: bytes in shared memory,
columns in tensor memory.
"""
import dataclasses
import functools
import math
import re

DTYPE_BITS = {"f32": 32, "f16": 16, "bf16": 16, "i8": 8, "i32": 32, "f8E4M3FN": 8, "i64": 64}
SWIZZLED = {
    1: "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>",
    2: "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
}
BLOCKED = {
    1: "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>",
    2: "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
}
HEADER = ('module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, '
          '"ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {')
TMEM_HEADER = HEADER.replace("cuda:90", "cuda:100")  # tensor memory: Blackwell
TMEM_PREFIX = "#ttng.tensor_memory_encoding<"
TMEM_COLUMN_BYTES = 128 * 4  # 128 lanes of 32 bits
TMEM_COLUMNS = 512


def nvmma(swizzle, bits):
    return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {swizzle}, transposed = false, "
            f"elementBitWidth = {bits}}}>")


def padded(paddings, shape):
    """#ttg.padded_shared with [(interval, padding), ...] for buffers of `shape`."""
    pairs = ", ".join(f"{i}:+{p}" for i, p in paddings)
    order = ", ".join(str(d) for d in reversed(range(len(shape))))
    return f"#ttg.padded_shared<[{pairs}] {{order = [{order}], shape = [{', '.join(map(str, shape))}]}}>"


def paddings_of(encoding):
    """[(interval, padding), ...] of a #ttg.padded_shared encoding, else []."""
    if not encoding or not encoding.startswith("#ttg.padded_shared<["):
        return []
    return [(int(i), int(p)) for i, p in re.findall(r"(\d+):\+(\d+)", encoding.split("]")[0])]


def tmem_encoding(block_m, block_n, col_stride):
    return f"{TMEM_PREFIX}blockM = {block_m}, blockN = {block_n}, colStride = {col_stride}>"


def tmem_memdesc(dims, dtype, encoding):
    return f"!ttg.memdesc<{'x'.join(map(str, dims))}x{dtype}, {encoding}, #ttng.tensor_memory, mutable>"


@functools.lru_cache(maxsize=None)
def tmem_columns(shape, dtype, encoding):
    """Columns triton 3.7.1's own TMEM allocator gives one buffer of this type
    (a second allocation, live beside it, starts right after it), or None if
    triton rejects the type. The test's oracle for tensor memory: independent
    of tlx_alias's own count."""
    from tlx_alias._triton import passes as _pipeline
    from triton._C.libtriton import ir, nvidia
    t = tmem_memdesc(shape, dtype, encoding)
    probe = tmem_memdesc((128, 32), "f32", tmem_encoding(128, 32, 1))
    text = "\n".join([TMEM_HEADER, f"  tt.func private @sink({t}, {probe})", "  tt.func public @k() {",
                      f"    %a = ttng.tmem_alloc : () -> {t}", f"    %p = ttng.tmem_alloc : () -> {probe}",
                      f"    tt.call @sink(%a, %p) : ({t}, {probe}) -> ()", "    tt.return", "  }", "}"])
    try:
        module, context = _pipeline.parse_module(text)
    except RuntimeError:
        return None
    pm = ir.pass_manager(context)
    nvidia.passes.ttnvgpuir.add_allocate_tensor_memory(pm)
    pm.run(module, "tmem")
    first, second = [int(o) for o in re.findall(r"tensor_memory_col_offset = (\d+)", str(module))]
    assert first == 0
    return second


@dataclasses.dataclass(eq=False)  # leaves are compared by identity
class Leaf:
    shape: tuple  # one buffer
    dtype: str
    num: int
    encoding: str = None  # default: swizzled of the buffer's rank

    @property
    def bits(self):
        return DTYPE_BITS[self.dtype]

    @property
    def tmem(self):
        return bool(self.encoding) and self.encoding.startswith(TMEM_PREFIX)

    @property
    def buffer_bytes(self):
        """Shared memory: one buffer with the padding after it (a padded
        layout pads after every interval the buffer starts, the last too)."""
        elements = math.prod(self.shape)
        padding = sum(-(-elements // i) * p for i, p in paddings_of(self.encoding))
        return math.ceil((elements + padding) * self.bits / 8)

    @property
    def units(self):
        """One buffer in the storage's units: bytes, or TMEM columns."""
        if self.tmem:
            return tmem_columns(tuple(self.shape), self.dtype, self.encoding)
        return self.buffer_bytes

    @property
    def layout(self):
        return self.encoding or SWIZZLED[len(self.shape)]

    @property
    def alignment(self):
        """In units: a TMEM buffer starts on a multiple of its own columns."""
        if self.tmem:
            return max(1, self.units)
        if self.encoding and "nvmma" in self.encoding:
            swizzle = int(self.encoding.split("swizzlingByteWidth = ")[1].split(",")[0])
            return max(128, 128 * (swizzle // 16 if swizzle else 1))
        return 128

    @property
    def space(self):
        return "#ttng.tensor_memory" if self.tmem else "#ttg.shared_memory"

    def memdesc(self, num=None):
        dims = "x".join(str(d) for d in ((self.num if num is None else num),) + tuple(self.shape))
        return f"!ttg.memdesc<{dims}x{self.dtype}, {self.layout}, {self.space}, mutable>"

    def buffer_memdesc(self):
        dims = "x".join(str(d) for d in self.shape)
        return f"!ttg.memdesc<{dims}x{self.dtype}, {self.layout}, {self.space}, mutable>"

    def tensor(self):
        dims = "x".join(str(d) for d in self.shape)
        return f"tensor<{dims}x{self.dtype}, {BLOCKED[len(self.shape)]}>"

    def constant(self):
        value = "1" if self.dtype.startswith("i") else "1.0"
        return f"arith.constant dense<{value}> : {self.tensor()}"


def leaves_of(tree):
    if isinstance(tree, Leaf):
        return [tree]
    return [leaf for child in tree[1:] for leaf in leaves_of(child)]


def kind_and_size(node):
    """("shared", 2) from "shared*2"; group_size 1 without a star."""
    kind, _, size = node[0].partition("*")
    return kind, int(size or 1)


def align_to(value, alignment):
    return -(-value // alignment) * alignment


def node_size(tree):
    """(units, alignment) the layout needs per buffer index: the ideal."""
    if isinstance(tree, Leaf):
        return tree.units, tree.alignment
    sizes = [node_size(child) for child in tree[1:]]
    align = max(a for _, a in sizes)
    kind, group_size = kind_and_size(tree)
    if kind == "shared":
        size = max(b for b, _ in sizes)
    else:
        size = 0
        for b, a in sizes:
            size = align_to(size, a) + b
    if group_size > 1:
        size = group_size * align_to(size, align)
    return size, align


def buffers_per_index(tree):
    """Leaf -> product of the group sizes above it."""
    out = {}

    def walk(node, product):
        if isinstance(node, Leaf):
            out[id(node)] = product
            return
        for child in node[1:]:
            walk(child, product * kind_and_size(node)[1])

    walk(tree, 1)
    return out


def num_indices(tree):
    """Buffer indices of the tree: the most any leaf needs."""
    per = buffers_per_index(tree)
    return max(-(-leaf.num // per[id(leaf)]) for leaf in leaves_of(tree))


def ideal_size(tree):
    """Units (bytes, or TMEM columns) of the smallest spec that holds the tree."""
    size, align = node_size(tree)
    return num_indices(tree) * align_to(size, align)


def build_module(tree, size=None, constant_indices=True, overlap=True, func="k"):
    """TTGIR text: one spec, its allocations, the overlap tree, one store per
    buffer (constant indices) or one store at a runtime index `%i`. Tensor
    memory buffers are only indexed (a tmem_store needs a TMEM register
    layout; the index is what the lowering rewrites)."""
    leaves = leaves_of(tree)
    storage = "tmem" if leaves[0].tmem else "smem"
    spec_ty = f"!tlx.storage_alias_spec<{storage}{', ' + str(size) if size else ''}>"
    size_attr = f", size = {size}" if size else ""
    lines = [TMEM_HEADER if storage == "tmem" else HEADER, f"  tt.func public @{func}(%i: i32) {{",
             f"    %spec = tlx.storage_alias_spec storage = {storage}{size_attr} : {spec_ty}"]
    for n, leaf in enumerate(leaves):
        lines.append(f"    %a{n} = tlx.storage_alias_local_alloc %spec : {spec_ty} -> {leaf.memdesc()}")
    counter = [0]
    types = {id(leaf): leaf.memdesc() for leaf in leaves}

    def emit(node):
        if isinstance(node, Leaf):
            return f"%a{leaves.index(node)}", types[id(node)]
        operands = [emit(child) for child in node[1:]]
        name = f"%g{counter[0]}"
        counter[0] += 1
        kind, group_size = kind_and_size(node)
        size_text = f" group_size = {group_size}" if group_size > 1 else ""
        lines.append(f"    {name} = tlx.reuse_group({', '.join(o for o, _ in operands)}) "
                     f"group_kind = {kind}{size_text} : ({', '.join(t for _, t in operands)}) "
                     f"-> !tlx.reuse_group<{kind}>")
        return name, f"!tlx.reuse_group<{kind}>"

    if overlap and not isinstance(tree, Leaf):
        root, root_ty = emit(tree)
        lines.append(f"    tlx.set_buffer_overlap(%spec, {root}) : ({spec_ty}, {root_ty}) -> ()")
    for n, leaf in enumerate(leaves):
        if not leaf.tmem:
            lines.append(f"    %cst{n} = {leaf.constant()}")
        indices = range(leaf.num) if constant_indices else [None]
        for b in indices:
            index = f"%c{n}_{b}" if b is not None else "%i"
            if b is not None:
                lines.append(f"    {index} = arith.constant {b} : i32")
            lines.append(f"    %v{n}_{b} = ttg.memdesc_index %a{n}[{index}] : {leaf.memdesc()} -> "
                         f"{leaf.buffer_memdesc()}")
            if not leaf.tmem:
                lines.append(f"    ttg.local_store %cst{n}, %v{n}_{b} : {leaf.tensor()} -> "
                             f"{leaf.buffer_memdesc()}")
    lines += ["    tt.return", "  }", "}"]
    return "\n".join(lines) + "\n"
