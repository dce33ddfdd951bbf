"""Allocations beyond the target's memory are refused at once (issue 29,
item 5): a CompilationError at the kernel's line, naming the sizes and the
limit, before anything is lowered: shared memory up to the target's opt-in
maximum per CTA (227 KiB on sm_90 and sm_100), tensor memory up to its 512
columns of 128 lanes, and buffer counts up to int32's largest."""
import re
import time

import pytest
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

import tlx_alias as tlx
from conftest import expect_compilation_error, jit_from_body
from tlx_alias._semantic.checks import tmem_buffer_columns
from ttgir_builder import tmem_columns, tmem_encoding


def compile_for(capability, body):
    fn = jit_from_body(body, "x_ptr", {"tlx": tlx, "tl": tl, "triton": triton})
    src = triton.compiler.ASTSource(fn=fn, signature={"x_ptr": "*fp32"})
    return triton.compile(src, target=GPUTarget("cuda", capability, 32))


def refused(capability, body, message):
    started = time.monotonic()
    text = expect_compilation_error(lambda b: compile_for(capability, b), body, "ValueError", re.escape(message))
    assert time.monotonic() - started < 5, "refused, but not at once"
    assert body.splitlines()[-1].strip() in text  # the kernel line is quoted
    return text


SMEM = "spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)\n"
TMEM = "spec = tlx.storage_alias_spec(storage=tlx.storage_kind.tmem)\n"

CASES = {
    "issue: 100000 buffers of 64x64 f32": (
        90, SMEM + "a = tlx.local_alloc((64, 64), tl.float32, 100000, reuse=spec)",
        "local_alloc: 100000 buffers of 64x64 fp32 take 1638400000 bytes (16384 each), more than the 232448 "
        "bytes (227 KiB) of shared memory of sm_90"),
    "a buffer over sm_100's": (
        100, "a = tlx.local_alloc((1024, ), tl.int8, 228)",
        "local_alloc: 228 buffers of 1024 int8 take 233472 bytes (1024 each), more than the 232448 bytes "
        "(227 KiB) of shared memory of sm_100"),
    "sm_80 has 163 KiB": (
        80, SMEM + "a = tlx.local_alloc((128, 128), tl.float16, 6, reuse=spec)",
        "local_alloc: 6 buffers of 128x128 fp16 take 196608 bytes (32768 each), more than the 166912 bytes "
        "(163 KiB) of shared memory of sm_80"),
    "2**31 buffers": (
        90, SMEM + "a = tlx.local_alloc((64, 64), tl.float32, 2**31, reuse=spec)",
        "num must be a positive int32 (at most 2147483647), got 2147483648"),
    "2**40 buffers without a spec": (
        90, "a = tlx.local_alloc((8, ), tl.int8, 2**40)",
        "num must be a positive int32 (at most 2147483647), got 1099511627776"),
    "9 x 64 tensor-memory columns": (
        100, TMEM + "a = tlx.local_alloc((128, 64), tl.float32, 9, tlx.storage_kind.tmem, reuse=spec)",
        "local_alloc: 9 buffers of 128x64 fp32 take 576 tensor-memory columns (64 each), more than the 512 "
        "there are (128 lanes each)"),
    "unpacked fp16 takes a column per element": (
        100, TMEM + "a = tlx.local_alloc((128, 128), tl.float16, 5, tlx.storage_kind.tmem, reuse=spec)",
        "local_alloc: 5 buffers of 128x128 fp16 take 640 tensor-memory columns (128 each), more than the 512 "
        "there are (128 lanes each)"),
    "explicit shared size": (
        90, "spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem, buffer_size_bytes=232449)",
        "storage_alias_spec: buffer_size_bytes 232449 is more than the 232448 bytes (227 KiB) of shared memory "
        "of sm_90"),
    "explicit tensor-memory size": (
        100, "spec = tlx.storage_alias_spec(storage=tlx.storage_kind.tmem, buffer_size_bytes=262145)",
        "storage_alias_spec: buffer_size_bytes 262145 is 513 tensor-memory columns (512 bytes each), more than "
        "the 512 there are"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_beyond_the_target_is_refused_at_the_line(name):
    capability, body, message = CASES[name]
    refused(capability, body, message)


@pytest.mark.parametrize("capability", [90, 100])
def test_exactly_the_target_compiles(capability):
    """227 KiB of buffers is allowed (the kernel's own scratch is triton's
    business, checked when it loads the kernel on a device)."""
    body = SMEM + ("a = tlx.local_alloc((1024, ), tl.int8, 227, reuse=spec)\n"
                   "tlx.local_store(a[0], tl.full((1024, ), 1, tl.int8))")
    assert compile_for(capability, body).metadata.shared >= 227 * 1024


def test_all_512_tensor_memory_columns_compile():
    body = (TMEM + "a = tlx.local_alloc((128, 64), tl.float32, 8, tlx.storage_kind.tmem, reuse=spec)\n"
            "tlx.local_store(a[0], tl.full((128, 64), 1.0, tl.float32))")
    (spec, ) = tlx.memory_map(compile_for(100, body))
    assert spec["size"] == 512 * 512  # 512 columns of 512 bytes


@pytest.mark.parametrize("shape, dtype, bits, block_m, col_stride", [
    ((128, 64), "f32", 32, 128, 1), ((128, 64), "f16", 16, 128, 2), ((128, 64), "f16", 16, 128, 1),
    ((128, 32), "i8", 8, 128, 4), ((128, 128), "i8", 8, 128, 1), ((64, 64), "f32", 32, 64, 1),
    ((128, 64), "bf16", 16, 64, 2), ((128, 256), "f32", 32, 128, 1), ((64, 128), "f16", 16, 64, 2),
    ((256, 64), "f32", 32, 128, 1)])
def test_tmem_columns_are_tritons(shape, dtype, bits, block_m, col_stride):
    """The count the check uses is triton's own TMEM allocator's."""
    encoding = tmem_encoding(block_m, min(shape[1], 256), col_stride)
    assert tmem_buffer_columns(shape, bits, encoding) == tmem_columns(shape, dtype, encoding)


def test_a_tree_beyond_the_target_is_a_compilation_error_at_the_spec():
    """Every buffer fits, but the tree does not, interleaved (393216 bytes)
    or ring by ring (327680): the lowering's diagnostic becomes triton's
    CompilationError at the spec's line, naming both sizes and the limit."""
    body = (SMEM + "a = tlx.local_alloc((128, 128), tl.float32, 2, reuse=spec)\n"
            "b = tlx.local_alloc((128, 128), tl.float32, 2, reuse=spec)\n"
            "c = tlx.local_alloc((128, 64), tl.float32, 2, reuse=spec)\n"
            "spec.set_buffer_overlap(tlx.reuse_group(a, b, c, group_type=tlx.reuse_group_type.distinct))\n"
            "tlx.local_store(a[0], tl.full((128, 128), 1.0, tl.float32))")
    text = expect_compilation_error(lambda b: compile_for(90, b), body, None, re.escape(
        "storage_alias_spec needs 393216 bytes of shared memory; sm_90 has 232448 (227 KiB); laid out ring by "
        "ring it would need 327680"))
    assert "spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)" in text  # the line, quoted
    assert "tlx lowering failed:" in text
