"""local_load/local_store/local_view/local_slice on tensor-memory buffers,
compiled from @triton.jit kernels on the CPU: for sm_100 to a cubin with
ttng.tmem_load/tmem_store (in the register layout Triton's own
get_tmem_reg_layout gives) and ttng.tmem_subslice in the TTGIR, also for
buffers of a storage_alias_spec(storage=tmem); on sm_90 a CompilationError at
the kernel's line."""
import re

import pytest

import tlx_alias as tlx
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from tlx_alias._triton_version import running_triton_at_least
from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout

try:
    from triton.experimental.gluon.language.nvidia.blackwell import get_tmem_reg_layout as _gluons
    SLICE_KEEPS_ENCODING = False  # triton 3.7: a slice's blockN is its width

    def get_tmem_reg_layout(dtype, shape, layout, num_warps, alloc_shape=None):
        return _gluons(dtype, shape, layout, num_warps)
except ImportError:  # triton 3.8: a method of the descriptor type, computed by this function
    from triton.experimental.gluon.language._semantic import _compute_tmem_reg_layout
    SLICE_KEEPS_ENCODING = True  # triton 3.8: a slice keeps its source's encoding

    def get_tmem_reg_layout(dtype, shape, layout, num_warps, alloc_shape=None):
        return _compute_tmem_reg_layout(dtype, shape, alloc_shape or shape, layout, num_warps, "32x32b")

from conftest import expect_compilation_error, jit_from_body

SM100 = GPUTarget("cuda", 100, 32)
SM90 = GPUTarget("cuda", 90, 32)


def compile_kernel(fn, signature, constexprs=None, target=SM100, num_warps=4):
    constexprs = dict(constexprs or {})
    signature = dict(signature, **{name: "constexpr" for name in constexprs})
    src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs)
    return triton.compile(src, target=target, options={"num_warps": num_warps})


def aliases(ttgir):
    """`#name = <attribute>` definitions at the top of a TTGIR module."""
    return dict(re.findall(r"^(#\w+) = (.+)$", ttgir, re.M))


def ops(ttgir, name):
    return [line.strip() for line in ttgir.splitlines() if re.search(rf"= {name} |^\s*{name} ", line)]


def op_type(line):
    """The type signature of one printed op (after its last ' : ')."""
    return re.sub(r" loc\(.*$", "", line).rsplit(" : ", 1)[1]


def gluon_layout_text(dtype, shape, block, col_stride, num_warps, alloc_shape=None):
    """What Gluon's get_tmem_reg_layout gives, as MLIR text."""
    layout = get_tmem_reg_layout(dtype, shape, TensorMemoryLayout(block, col_stride), num_warps, alloc_shape)
    return (f"#ttg.linear<{{register = {layout.reg_bases}, lane = {layout.lane_bases}, "
            f"warp = {layout.warp_bases}, block = {layout.block_bases}}}>")


def assert_stock(kernel):
    ttgir = kernel.asm["ttgir"]
    assert "tlx." not in ttgir and "unrealized_conversion_cast" not in ttgir
    assert "ttg.local_load" not in ttgir and "ttg.local_store" not in ttgir
    assert kernel.asm["cubin"]


# -- A spec in tensor memory: acc (f32) overlaps p (f16, unpacked) ------------

@triton.jit
def spec_kernel(x_ptr, out_ptr, i, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.tmem)
    acc = tlx.local_alloc((BLOCK_M, BLOCK_N), tl.float32, 2, tlx.storage_kind.tmem, reuse=spec)
    p = tlx.local_alloc((BLOCK_M, BLOCK_N), tl.float16, 2, tlx.storage_kind.tmem, reuse=spec)
    offs = tl.arange(0, BLOCK_M)[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    tlx.local_store(acc[i], tl.load(x_ptr + offs))
    scores = tlx.local_load(tlx.local_view(acc, i))
    tlx.local_store(p[i], scores.to(tl.float16))
    half = tlx.local_slice(acc[i], (0, BLOCK_N // 2), (BLOCK_M, BLOCK_N // 2))
    offs_half = tl.arange(0, BLOCK_M)[:, None] * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)[None, :]
    tl.store(out_ptr + offs_half, tlx.local_load(half))
    tl.store(out_ptr + offs, tlx.local_load(p[i]).to(tl.float32))


SPEC_SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "i": "i32"}


def test_spec_buffers_load_store_and_slice_in_tensor_memory():
    kernel = compile_kernel(spec_kernel, SPEC_SIGNATURE, {"BLOCK_M": 128, "BLOCK_N": 64})
    assert_stock(kernel)
    ttgir = kernel.asm["ttgir"]
    defs = aliases(ttgir)
    f32_mem = "!ttg.memdesc<128x64xf32, {}, #ttng.tensor_memory, mutable>"
    f16_mem = "!ttg.memdesc<128x64xf16, {}, #ttng.tensor_memory, mutable>"
    half_mem = "!ttg.memdesc<128x32xf32, {}, #ttng.tensor_memory, mutable, 128x64>"
    encodings = {text: name for name, text in defs.items()}
    t64 = encodings["#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>"]
    t64u = encodings["#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 2>"]
    reg64 = encodings[gluon_layout_text(tl.float32, [128, 64], (128, 64), 1, 4)]
    if SLICE_KEEPS_ENCODING:
        t32 = t64
        reg32 = encodings[gluon_layout_text(tl.float32, [128, 32], (128, 64), 1, 4, [128, 64])]
    else:
        t32 = encodings["#ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>"]
        reg32 = encodings[gluon_layout_text(tl.float32, [128, 32], (128, 32), 1, 4)]
    # One spec: one 128-column tmem_alloc, viewed as acc and p.
    (alloc, ) = ops(ttgir, "ttng.tmem_alloc")
    t128 = encodings["#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>"]
    assert op_type(alloc) == f"() -> !ttg.memdesc<128x128xf32, {t128}, #ttng.tensor_memory, mutable>"
    stores = ops(ttgir, "ttng.tmem_store")
    loads = ops(ttgir, "ttng.tmem_load")
    # acc[i] <- x, p[i] <- f16(scores): in the 32x32b register layout.
    assert [op_type(s) for s in stores] == [
        f"tensor<128x64xf32, {reg64}> -> {f32_mem.format(t64)}",
        f"tensor<128x64xf16, {reg64}> -> {f16_mem.format(t64u)}"]
    assert sorted(op_type(load) for load in loads) == sorted([
        f"{f32_mem.format(t64)} -> tensor<128x64xf32, {reg64}>",
        f"{half_mem.format(t32)} -> tensor<128x32xf32, {reg32}>",
        f"{f16_mem.format(t64u)} -> tensor<128x64xf16, {reg64}>"])
    # The slice: columns 32..63 of acc[i] (a 32-column block under triton 3.7).
    (sub, ) = ops(ttgir, "ttng.tmem_subslice")
    # triton 3.9 calls the first column `offset` (and prints no default `dim = 1`).
    assert ("{offset = 32 : i32}" if running_triton_at_least(3, 9) else "{N = 32 : i32}") in sub
    assert op_type(sub) == f"{f32_mem.format(t64)} -> {half_mem.format(t32)}"
    # Tensor memory as triton reports it: the spec's 128 columns.
    assert kernel.metadata.tmem_size == 128
    (spec, ) = tlx.memory_map(kernel)
    assert spec["storage"] == "tmem" and spec["size"] == 128 * 512
    assert [(v["offset"], v["bytes_between_buffers"], v["buffer_bytes"]) for v in spec["views"]] == [
        (0, 32768, 32768)] * 2


@triton.jit
def distinct_kernel(out_ptr, i):
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.tmem)
    qk = tlx.local_alloc((128, 64), tl.float32, 2, tlx.storage_kind.tmem, reuse=spec)
    o = tlx.local_alloc((128, 32), tl.float32, 2, tlx.storage_kind.tmem, reuse=spec)
    spec.set_buffer_overlap(tlx.reuse_group(qk, o, group_type=tlx.reuse_group_type.distinct))
    tlx.local_store(o[i], tl.full((128, 32), 2.0, tl.float32))
    tlx.local_store(qk[i], tl.full((128, 64), 1.0, tl.float32))
    y = tl.sum(tlx.local_load(o[i]), axis=1) + tl.sum(tlx.local_load(qk[i]), axis=1)
    tl.store(out_ptr + tl.arange(0, 128), y)


def test_distinct_spec_rewrites_the_buffer_index_under_tmem_accesses():
    """The design's layout in tensor memory too: qk at column 0, o at 64, the
    stride rounded up to a multiple of qk, 128; 256 columns. Each view spans
    them in its own buffers: qk[i] becomes index 2i of 4 x 64 columns, o[i]
    index 4i + 2 of 8 x 32 columns, and the tmem ops read those views."""
    kernel = compile_kernel(distinct_kernel, {"out_ptr": "*fp32", "i": "i32"})
    assert_stock(kernel)
    ttgir = kernel.asm["ttgir"]
    (spec, ) = tlx.memory_map(kernel)
    assert spec["size"] // 512 == 256 and spec["layout"] == "interleaved"
    assert [(v["name"], v["offset"] // 512, v["bytes_between_buffers"] // 512, v["scale"], v["offset_slots"])
            for v in spec["views"]] == [("qk", 0, 128, 2, 0), ("o", 64, 128, 4, 2)]
    assert kernel.metadata.tmem_size == 256
    assert len(ops(ttgir, "ttng.tmem_store")) == 2 and len(ops(ttgir, "ttng.tmem_load")) == 2
    defs = {line.split(" = ")[0]: line.split(" = ", 1)[1] for line in map(str.strip, ttgir.splitlines())
            if re.match(r"%\w+ = ", line)}

    def index_of(view, buffers_type):
        (line, ) = [d for d in defs.values() if d.startswith(f"ttg.memdesc_index %{view}[")]
        assert op_type(line).startswith(f"!ttg.memdesc<{buffers_type}")
        return re.search(r"\[(%\w+)\]", line).group(1)

    assert re.match(r"arith.muli %i, %c2_i32 : i32", defs[index_of("qk", "4x128x64xf32")])
    o_index = re.match(r"arith.addi (%\w+), %c2_i32 : i32", defs[index_of("o", "8x128x32xf32")])
    assert o_index and re.match(r"arith.muli %i, %c4_i32 : i32", defs[o_index.group(1)])
    # Each tmem op reads a ttg.memdesc_index result (of the rewritten views).
    indexed = {line.split(" = ")[0] for line in ops(ttgir, "ttg.memdesc_index")}
    for line in ops(ttgir, "ttng.tmem_load"):
        assert line.split("ttng.tmem_load ")[1].split(" ")[0] in indexed
    for line in ops(ttgir, "ttng.tmem_store"):
        assert line.split(", ")[1] in indexed


# -- Register layouts: Triton's, for blockM 128/64, packed/unpacked, 4/8 warps --

@triton.jit
def roundtrip_kernel(out_ptr, M: tl.constexpr, N: tl.constexpr, DTYPE: tl.constexpr, COL_STRIDE: tl.constexpr):
    buf = tlx.local_alloc((M, N), DTYPE, 1, tlx.storage_kind.tmem,
                          layout=tlx.tensor_memory_layout(col_stride=COL_STRIDE))
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tlx.local_store(buf[0], tl.full((M, N), 3.0, DTYPE))
    tl.store(out_ptr + offs, tlx.local_load(buf[0]).to(tl.float32))


@pytest.mark.parametrize("m, n, dtype, col_stride, num_warps, columns", [
    (128, 64, tl.float32, 1, 4, 64),
    (128, 128, tl.float32, 1, 8, 128),
    (64, 64, tl.float32, 1, 4, 64),  # blockM 64: 64 columns for 16 KiB
    (128, 64, tl.float16, 2, 4, 64),  # unpacked: a 32-bit column per element
    (128, 64, tl.bfloat16, 1, 4, 32),  # packed: two elements per column
    (64, 128, tl.float16, 2, 8, 128),
    (256, 64, tl.float32, 1, 4, 128),  # two row blocks
])
def test_register_layout_is_tritons(m, n, dtype, col_stride, num_warps, columns):
    kernel = compile_kernel(roundtrip_kernel, {"out_ptr": "*fp32"},
                            {"M": m, "N": n, "DTYPE": dtype, "COL_STRIDE": col_stride}, num_warps=num_warps)
    assert_stock(kernel)
    ttgir = kernel.asm["ttgir"]
    block_m = min(128, m)
    expected = gluon_layout_text(dtype, [m, n], (block_m, n), col_stride, num_warps)
    names = [name for name, text in aliases(ttgir).items() if text == expected]
    assert len(names) == 1, (expected, ttgir)
    tmem = f"#ttng.tensor_memory_encoding<blockM = {block_m}, blockN = {n}, colStride = {col_stride}>"
    assert tmem in aliases(ttgir).values()
    ((load, ), (store, )) = ops(ttgir, "ttng.tmem_load"), ops(ttgir, "ttng.tmem_store")
    element = {tl.float32: "f32", tl.float16: "f16", tl.bfloat16: "bf16"}[dtype]
    assert f"-> tensor<{m}x{n}x{element}, {names[0]}>" in load
    assert f": tensor<{m}x{n}x{element}, {names[0]}> -> !ttg.memdesc<{m}x{n}x{element}," in store
    assert kernel.metadata.tmem_size == columns


@triton.jit
def partition_kernel(out_ptr):
    buf = tlx.local_alloc((128, 64), tl.float32, 2, tlx.storage_kind.tmem)
    with tlx.async_tasks():
        with tlx.async_task("default"):
            tlx.local_store(buf[0], tl.full((128, 64), 1.0, tl.float32))
        with tlx.async_task(num_warps=4, registers=232):
            offs = tl.arange(0, 128)[:, None] * 64 + tl.arange(0, 64)[None, :]
            tl.store(out_ptr + offs, tlx.local_load(buf[1]))


def test_warp_specialized_tasks_access_tensor_memory():
    """A store in the default task, a load in a 4-warp partition (inside
    ttg.warp_specialize), both in the 4-warp register layout."""
    kernel = compile_kernel(partition_kernel, {"out_ptr": "*fp32"})
    assert_stock(kernel)
    ttgir = kernel.asm["ttgir"]
    assert "ttg.warp_specialize" in ttgir
    layout = {text: name for name, text in aliases(ttgir).items()}[
        gluon_layout_text(tl.float32, [128, 64], (128, 64), 1, 4)]
    ((load, ), (store, )) = ops(ttgir, "ttng.tmem_load"), ops(ttgir, "ttng.tmem_store")
    assert f"tensor<128x64xf32, {layout}>" in load and f"tensor<128x64xf32, {layout}>" in store
    assert ttgir.index("ttng.tmem_store") < ttgir.index("partition0") < ttgir.index("ttng.tmem_load")


def test_shared_memory_accesses_are_unchanged():
    @triton.jit
    def smem_kernel(out_ptr):
        buf = tlx.local_alloc((64, 64), tl.float32, 1)
        tlx.local_store(buf[0], tl.full((64, 64), 1.0, tl.float32))
        offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
        tl.store(out_ptr + offs, tlx.local_load(buf[0]))

    for target in (SM90, SM100):
        ttgir = compile_kernel(smem_kernel, {"out_ptr": "*fp32"}, target=target).asm["ttgir"]
        assert len(ops(ttgir, "ttg.local_load")) == 1 and len(ops(ttgir, "ttg.local_store")) == 1
        assert "ttng.tmem" not in ttgir and "tlx.tmem_reg_layout" not in ttgir


# -- Errors at the kernel's line ------------------------------------------------

def _compile_body(body, target=SM100, num_warps=4):
    fn = jit_from_body(body, "out_ptr, i", {"tlx": tlx, "tl": tl, "triton": triton})
    return compile_kernel(fn, {"out_ptr": "*fp32", "i": "i32"}, target=target, num_warps=num_warps)


ALLOC = ("spec = tlx.storage_alias_spec(storage=tlx.storage_kind.tmem)\n"
         "acc = tlx.local_alloc((128, 64), tl.float32, 2, tlx.storage_kind.tmem, reuse=spec)\n"
         "view = acc[i]\n")
SM90_MESSAGE = "tensor memory needs sm_100 \\(Blackwell\\): {} of a tensor-memory buffer cannot compile for sm_90"

ERRORS = {
    "load_on_sm90": (ALLOC + "x = tlx.local_load(view)", SM90, 4, SM90_MESSAGE.format("local_load")),
    "store_on_sm90": (ALLOC + "tlx.local_store(view, 1.0)", SM90, 4, SM90_MESSAGE.format("local_store")),
    "sliced_load_on_sm90": (ALLOC + "s = tlx.local_slice(view, (0, 0), (128, 32))\nx = tlx.local_load(s)", SM90, 4,
                            SM90_MESSAGE.format("local_load")),
    "load_on_sm120": (ALLOC + "x = tlx.local_load(view)", GPUTarget("cuda", 120, 32), 4,
                      "tensor memory needs sm_100 \\(Blackwell\\): local_load of a tensor-memory buffer cannot "
                      "compile for sm_120"),
    "slice_rows": (ALLOC + "s = tlx.local_slice(view, (64, 0), (64, 64))", SM100, 4,
                   "local_slice: tensor-memory buffers are sliced by columns only \\(all 128 rows\\), "
                   "got rows \\[64, 128\\)"),
    "two_warps": (ALLOC + "x = tlx.local_load(view)", SM100, 2,
                  "local_load: tensor memory is accessed by whole warp groups: needs a power of two of at least "
                  "4 warps, the code runs on 2"),
    "slice_not_power_of_two": (ALLOC + "s = tlx.local_slice(view, (0, 3), (128, 5))", SM100, 4,
                               "local_slice: a tensor-memory slice is a power of two columns wide, got 5"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_at_the_kernel_line(name):
    body, target, num_warps, message = ERRORS[name]
    text = expect_compilation_error(lambda b: _compile_body(b, target, num_warps), body, "ValueError", message)
    # The failing line is quoted, with a caret under the failing call.
    assert body.splitlines()[-1].strip() in text
    assert "^" in text


def test_views_without_accesses_on_sm90():
    """Allocating and indexing tensor memory touches none of it: triton 3.7
    and 3.8 drop the allocation as unused and the kernel compiles for Hopper.
    triton 3.9 verifies every ttng.tmem_alloc against the target: there the
    lowering's output is refused with triton's message (no kernel line yet)."""
    body = ALLOC + "s = tlx.local_slice(view, (0, 0), (128, 32))"
    if not running_triton_at_least(3, 9):
        kernel = _compile_body(body, target=SM90)
        assert kernel.asm["cubin"] and "tcgen05" not in kernel.asm["ptx"]
        return
    with pytest.raises(RuntimeError) as info:
        _compile_body(body, target=SM90)
    assert "'ttng.tmem_alloc' op requires tcgen05 support" in str(info.value)


def test_readme_example_compiles_for_sm100_and_not_for_sm90():
    import os
    from conftest import ROOT
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    start = readme.index("`storage=tlx.storage_kind.tmem` specs share tensor memory")
    lines = readme[start:].split("\n\n", 2)[1].splitlines()
    body = "\n".join(line[4:] for line in lines) + "\ntl.store(out_ptr + tl.arange(0, 128), tl.sum(x, axis=1))"
    kernel = _compile_body(body)
    assert_stock(kernel)
    ttgir = kernel.asm["ttgir"]
    assert len(ops(ttgir, "ttng.tmem_load")) == 2 and len(ops(ttgir, "ttng.tmem_store")) == 1
    assert len(ops(ttgir, "ttng.tmem_subslice")) == 1
    message = SM90_MESSAGE.format("local_load")
    assert re.search(message, readme[start:].split("\n\n", 1)[0].replace("\n", " "))
    expect_compilation_error(lambda b: _compile_body(b, SM90), body, "ValueError", message)
