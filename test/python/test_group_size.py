"""reuse_group(..., group_size=k) (TLX's subtiling) and leaves with different
buffer counts, in @triton.jit kernels compiled for sm_90 on the CPU: the
memory map the lowering recorded (exact offsets, strides, expanded shapes),
the index arithmetic in TTGIR, and the frontend's errors."""
import re

import pytest

import tlx_alias as tlx
import triton
import triton.language as tl
from conftest import expect_compilation_error, jit_from_body
from triton.backends.compiler import GPUTarget

TARGET = GPUTarget("cuda", 90, 32)


def compile_body(body, constexprs=None):
    fn = jit_from_body(body, "x_ptr, i", {"tlx": tlx, "tl": tl, "triton": triton})
    src = triton.compiler.ASTSource(fn=fn, signature={"x_ptr": "*fp32", "i": "i32"}, constexprs=constexprs or {})
    return triton.compile(src, target=TARGET)


def views(compiled):
    (spec, ) = tlx.memory_map(compiled)
    return spec["size"], {
        v["name"]: (v["offset"], v["bytes_between_buffers"], [tuple(s) for s in v["subtiles"]], v["expanded_shape"])
        for v in spec["views"]
    }


USE = ("offs = tl.arange(0, 64)[:, None] * 32 + tl.arange(0, 32)[None, :]\n"
       "tlx.local_store(p[i], tl.load(x_ptr + offs).to(tl.bfloat16))\n"
       "tl.store(x_ptr + offs, tlx.local_load(p[i]).to(tl.float32))\n")

FLASH = ("spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)\n"
         "qk = tlx.local_alloc((64, 64), tl.float32, 2, reuse=spec)\n"
         "p = tlx.local_alloc((64, 32), tl.bfloat16, 4, reuse=spec)\n"
         "alpha = tlx.local_alloc((64, ), tl.float32, 2, reuse=spec)\n"
         "spec.set_buffer_overlap(tlx.reuse_group(qk, tlx.reuse_group(tlx.reuse_group(p, group_size=2), alpha,"
         " group_type=tlx.reuse_group_type.distinct)))\n")


def test_subtiled_flash_attention_tree():
    """qk (16 KiB) shares with distinct(p subtiled by 2, alpha): p's buffers
    2i and 2i+1 are the two 4 KiB halves of the first 8 KiB of qk's buffer
    i, alpha follows at 8 KiB. Each view spans the whole 32 KiB storage in
    its own buffers (exact views): p 8 x 4 KiB, alpha 128 x 256 bytes."""
    compiled = compile_body(FLASH + USE)
    size, v = views(compiled)
    assert size == 32768
    assert v["qk"] == (0, 16384, [], [2, 64, 64])
    # buffer j at (j // 2) * 16384 + (j % 2) * 4096: slots 0, 1, 4, 5 of 8
    assert v["p"] == (0, 16384, [(2, 4096)], [8, 64, 32])
    assert v["alpha"] == (8192, 16384, [], [128, 64])
    assert compiled.metadata.shared == 32768
    ttgir = compiled.asm["ttgir"]
    rem = re.search(r"(%\w+) = arith.remui %i, %c2_i32", ttgir)
    div = re.search(r"(%\w+) = arith.divui %i, %c2_i32", ttgir)
    assert rem and div, ttgir
    mul = re.search(rf"(%\w+) = arith.muli {div.group(1)}, %c4_i32", ttgir)
    assert mul
    add = re.search(rf"(%\w+) = arith.addi {mul.group(1)}, {rem.group(1)}", ttgir)
    assert add
    assert re.search(rf"ttg.memdesc_index %p\[{add.group(1)}\] : !ttg.memdesc<8x64x32xbf16", ttgir)


def test_subtile_in_a_shared_parent():
    """The issue's form: reuse_group(qk, reuse_group(p, group_size=2)), a
    shared group nested in a shared one: p (8 KiB, 4 buffers) twice per qk
    buffer."""
    body = ("spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)\n"
            "qk = tlx.local_alloc((64, 64), tl.float32, 2, reuse=spec)\n"
            "p = tlx.local_alloc((64, 32), tl.bfloat16, 4, reuse=spec)\n"
            "spec.set_buffer_overlap(tlx.reuse_group(qk, tlx.reuse_group(p, group_size=2)))\n" + USE)
    size, v = views(compile_body(body))
    assert size == 32768
    assert v["p"] == (0, 16384, [(2, 4096)], [8, 64, 32])


def test_nested_subtiles():
    """group_size 2 inside group_size 2: p's 8 buffers four to a qk buffer,
    the inner pairs 4 KiB apart, the outer pairs 8 KiB apart."""
    body = ("spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)\n"
            "qk = tlx.local_alloc((64, 64), tl.float32, 2, reuse=spec)\n"
            "p = tlx.local_alloc((64, 32), tl.bfloat16, 8, reuse=spec)\n"
            "spec.set_buffer_overlap(tlx.reuse_group(qk, tlx.reuse_group(tlx.reuse_group(p, group_size=2),"
            " group_size=2)))\n" + USE)
    size, v = views(compile_body(body))
    assert size == 32768
    # buffer j: (j // 4) * 16384 + ((j // 2) % 2) * 8192 + (j % 2) * 4096 = 4096 j
    assert v["p"] == (0, 16384, [(2, 8192), (2, 4096)], [8, 64, 32])


def test_subtile_grows_the_spec():
    """A subtiled group larger than its sibling sets the stride: 3 x 8 KiB;
    qk's view spans the 48 KiB in its 8 KiB buffers, index 3i."""
    body = ("spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)\n"
            "qk = tlx.local_alloc((64, 32), tl.float32, 2, reuse=spec)\n"
            "p = tlx.local_alloc((64, 32), tl.float32, 6, reuse=spec)\n"
            "spec.set_buffer_overlap(tlx.reuse_group(qk, tlx.reuse_group(p, group_size=3)))\n"
            "tlx.local_store(p[i], tl.full((64, 32), 1.0, tl.float32))\n")
    size, v = views(compile_body(body))
    assert size == 2 * 3 * 8192
    assert v["qk"] == (0, 24576, [], [6, 64, 32])
    assert v["p"] == (0, 24576, [(3, 8192)], [6, 64, 32])


def test_mixed_buffer_counts():
    """Counts 2 and 3 in one spec (TLX's multiphase GEMMs), distinct: no
    buffer of a overlaps one of b. Interleaved, the design's layout: 3
    indices of 16 KiB + 8 KiB, the stride rounded up to a multiple of a
    (exact views, each buffer at a multiple of its size): 96 KiB. Ring by
    ring would take 64 KiB, but the interleaved layout fits sm_90, so it is
    the layout."""
    body = ("spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)\n"
            "a = tlx.local_alloc((64, 64), tl.float32, 2, reuse=spec)\n"
            "b = tlx.local_alloc((64, 64), tl.float16, 3, reuse=spec)\n"
            "spec.set_buffer_overlap(tlx.reuse_group(a, b, group_type=tlx.reuse_group_type.distinct))\n"
            "tlx.local_store(b[i], tl.full((64, 64), 1.0, tl.float16))\n"
            "tlx.local_store(a[i], tl.full((64, 64), 1.0, tl.float32))\n")
    compiled = compile_body(body)
    size, v = views(compiled)
    assert size == 98304
    assert v["a"] == (0, 32768, [], [6, 64, 64])
    assert v["b"] == (16384, 32768, [], [12, 64, 64])
    assert compiled.metadata.shared == 98304


@pytest.mark.parametrize("size, message", [
    (0, "group_size must be a positive integer, got 0"),
    (-2, "group_size must be a positive integer, got -2"),
    ("2.5", "group_size must be a positive integer, got 2.5"),
])
def test_bad_group_size_is_an_error_at_the_line(size, message):
    body = ("spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)\n"
            "p = tlx.local_alloc((64, 32), tl.bfloat16, 4, reuse=spec)\n"
            f"g = tlx.reuse_group(p, group_size={size})")
    text = expect_compilation_error(compile_body, body, "ValueError", re.escape(message))
    assert "g = tlx.reuse_group(p, group_size=" in text


def test_reuse_group_properties():
    body = ("spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)\n"
            "p = tlx.local_alloc((64, 32), tl.bfloat16, 4, reuse=spec)\n"
            "g = tlx.reuse_group(p, group_size=2)\n"
            "tl.static_assert(g.group_size == 2)\n"
            "h = tlx.reuse_group(p)\n"
            "tl.static_assert(h.group_size == 1)\n")
    compile_body(body)
