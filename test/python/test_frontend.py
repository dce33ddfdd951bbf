"""The TLX storage-alias API in @triton.jit kernels, compiled for sm_90 on the
CPU: the design's examples (phases 1-4), validation errors, the legacy path."""
import re

import pytest

import tlx_alias as tlx
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler.errors import CompilationError

from conftest import expect_compilation_error, jit_from_body

TARGET = GPUTarget("cuda", 90, 32)


def compile_kernel(fn, constexprs=None, signature=None):
    constexprs = dict(constexprs or {})
    signature = dict(signature or {"out_ptr": "*fp32"})
    signature.update({name: "constexpr" for name in constexprs})
    src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs)
    return triton.compile(src, target=TARGET)


def assert_stock(kernel):
    assert "tlx." not in kernel.asm["ttgir"]
    assert "unrealized_conversion_cast" not in kernel.asm["ttgir"]
    assert kernel.asm["cubin"]


# -- Phase 1 + 2: specs sized by their largest user, or explicitly -------------

@triton.jit
def two_allocs_kernel(out_ptr, SIZE: tl.constexpr, NUM_B: tl.constexpr):
    if SIZE == 0:
        spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    else:
        spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem, buffer_size_bytes=SIZE)
    a = tlx.local_alloc((64, 64), tl.float32, 2, tlx.storage_kind.smem, reuse=spec)
    b = tlx.local_alloc((64, 64), tl.bfloat16, NUM_B, tlx.storage_kind.smem, reuse=spec)
    x = tl.full((64, 64), 2.0, tl.float32)
    tlx.local_store(a[1], x)
    tlx.local_store(b[NUM_B - 1], x.to(tl.bfloat16))
    y = tlx.local_load(a[1]) + tlx.local_load(b[0]).to(tl.float32)
    offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
    tl.store(out_ptr + offs, y)


def test_unsized_spec_takes_the_largest_allocation():
    kernel = compile_kernel(two_allocs_kernel, {"SIZE": 0, "NUM_B": 2})
    assert kernel.metadata.shared == 32768  # max(2*64*64*4, 2*64*64*2)
    assert_stock(kernel)
    (spec, ) = tlx.memory_map(kernel)
    assert spec["size"] == 32768 and not spec["explicit_size"]
    assert [v["offset"] for v in spec["views"]] == [0, 0]


def test_explicit_size_is_padding():
    kernel = compile_kernel(two_allocs_kernel, {"SIZE": 65536, "NUM_B": 2})
    assert kernel.metadata.shared == 65536
    assert tlx.memory_map(kernel)[0]["explicit_size"]


def test_explicit_size_too_small_names_both_sizes():
    with pytest.raises(RuntimeError, match=r"storage_alias_spec size 16384 is too small, "
                                           r"requires at least 32768 bytes"):
        compile_kernel(two_allocs_kernel, {"SIZE": 16384, "NUM_B": 2})


def test_spec_error_points_at_the_source_line():
    with pytest.raises(RuntimeError, match=r"test_frontend.py:\d+:\d+: error: .*too small"):
        compile_kernel(two_allocs_kernel, {"SIZE": 1024, "NUM_B": 2})


# -- Phases 3 + 4: overlap trees ------------------------------------------------

@triton.jit
def overlap_kernel(out_ptr, KIND: tl.constexpr):
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    a_tiles = tlx.local_alloc((64, 64), tl.float32, 2, tlx.storage_kind.smem, reuse=spec)
    b_tiles = tlx.local_alloc((64, 64), tl.bfloat16, 2, tlx.storage_kind.smem, reuse=spec)
    if KIND == "shared":
        spec.set_buffer_overlap(tlx.reuse_group(a_tiles, b_tiles, group_type=tlx.reuse_group_type.shared))
    else:
        tlx.set_buffer_overlap(spec, tlx.reuse_group(a_tiles, b_tiles,
                                                     group_type=tlx.reuse_group_type.distinct))
    i = tl.program_id(0) % 2
    tlx.local_store(a_tiles[i], tl.full((64, 64), 1.0, tl.float32))
    tlx.local_store(b_tiles[i], tl.full((64, 64), 1.0, tl.bfloat16))
    y = tlx.local_load(a_tiles[i]) + tlx.local_load(b_tiles[i]).to(tl.float32)
    offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
    tl.store(out_ptr + offs, y)


@pytest.mark.parametrize("kind, shared, offsets, strides", [
    ("shared", 32768, [0, 0], [16384, 16384]),
    # Interleaved, the design's layout (exact views: each buffer at a
    # multiple of its size): a at 0, b at 16 KiB, the stride rounded up to a
    # multiple of a, 32 KiB (ring by ring would take 48 KiB, but only a tree
    # too large for the target is laid out so).
    ("distinct", 65536, [0, 16384], [32768, 32768]),
])
def test_simple_overlap(kind, shared, offsets, strides):
    kernel = compile_kernel(overlap_kernel, {"KIND": kind})
    assert kernel.metadata.shared == shared
    assert_stock(kernel)
    views = tlx.memory_map(kernel)[0]["views"]
    assert [v["offset"] for v in views] == offsets
    assert [v["bytes_between_buffers"] for v in views] == strides


@triton.jit
def flash_attention_overlap_kernel(out_ptr, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr,
                                   NUM_BUFFERS: tl.constexpr):
    # The design's flash-attention tree, in shared memory (sm_90 has no TMEM).
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    qk_tiles = tlx.local_alloc((BLOCK_M, HEAD_DIM), tl.float32, NUM_BUFFERS, tlx.storage_kind.smem, reuse=spec)
    p_tiles = tlx.local_alloc((BLOCK_M, HEAD_DIM), tl.bfloat16, NUM_BUFFERS, tlx.storage_kind.smem, reuse=spec)
    alpha = tlx.local_alloc((BLOCK_M, ), tl.float32, NUM_BUFFERS, tlx.storage_kind.smem, reuse=spec)
    l = tlx.local_alloc((BLOCK_M, ), tl.float32, NUM_BUFFERS, tlx.storage_kind.smem, reuse=spec)
    m = tlx.local_alloc((BLOCK_M, ), tl.float32, NUM_BUFFERS, tlx.storage_kind.smem, reuse=spec)
    spec.set_buffer_overlap(
        tlx.reuse_group(
            qk_tiles,
            tlx.reuse_group(
                p_tiles,
                tlx.reuse_group(alpha, l, m, group_type=tlx.reuse_group_type.shared),
                group_type=tlx.reuse_group_type.distinct,
            ),
            group_type=tlx.reuse_group_type.shared,
        ))
    rows = tl.arange(0, BLOCK_M)
    for i in tl.range(0, NUM_BUFFERS):
        qk = tl.full((BLOCK_M, HEAD_DIM), 1.0, tl.float32) * i
        tlx.local_store(qk_tiles[i], qk)
        s = tlx.local_load(qk_tiles[i])
        tlx.local_store(p_tiles[i], s.to(tl.bfloat16))
        tlx.local_store(alpha[i], tl.max(s, axis=1))
        p = tlx.local_load(p_tiles[i]).to(tl.float32)
        tl.store(out_ptr + rows * NUM_BUFFERS + i, tl.sum(p, axis=1) + tlx.local_load(alpha[i]))


def test_flash_attention_nested_overlap():
    kernel = compile_kernel(flash_attention_overlap_kernel,
                            {"BLOCK_M": 64, "HEAD_DIM": 64, "NUM_BUFFERS": 2})
    assert_stock(kernel)
    (spec, ) = tlx.memory_map(kernel)
    # per buffer: max(qk 16384, p 8192 + (alpha | l | m) 256 aligned) = 16384
    assert spec["size"] == 2 * 16384
    offsets = [v["offset"] for v in spec["views"]]
    assert offsets == [0, 0, 8192, 8192, 8192]
    assert kernel.metadata.shared >= 32768  # plus triton's own scratch for reductions


@triton.jit
def conditional_overlap_kernel(out_ptr, BLOCK_M: tl.constexpr):
    spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
    a_tiles = tlx.local_alloc((BLOCK_M, 64), tl.float32, 2, tlx.storage_kind.smem, reuse=spec)
    b_tiles = tlx.local_alloc((BLOCK_M, 64), tl.float32, 2, tlx.storage_kind.smem, reuse=spec)
    # Only share buffers if block size is large (memory constrained)
    if BLOCK_M >= 128:
        spec.set_buffer_overlap(tlx.reuse_group(a_tiles, b_tiles, group_type=tlx.reuse_group_type.shared))
    else:
        spec.set_buffer_overlap(tlx.reuse_group(a_tiles, b_tiles, group_type=tlx.reuse_group_type.distinct))
    tlx.local_store(a_tiles[0], tl.full((BLOCK_M, 64), 1.0, tl.float32))
    tlx.local_store(b_tiles[1], tl.full((BLOCK_M, 64), 2.0, tl.float32))
    rows = tl.arange(0, BLOCK_M)
    tl.store(out_ptr + rows, tl.sum(tlx.local_load(a_tiles[0]) + tlx.local_load(b_tiles[1]), axis=1))


@pytest.mark.parametrize("block_m, b_offset, size", [(128, 0, 2 * 32768), (64, 16384, 2 * 32768)])
def test_constexpr_conditional_overlap(block_m, b_offset, size):
    kernel = compile_kernel(conditional_overlap_kernel, {"BLOCK_M": block_m})
    assert_stock(kernel)
    (spec, ) = tlx.memory_map(kernel)
    assert spec["size"] == size
    assert spec["views"][1]["offset"] == b_offset


# -- Legacy reuse=buffered_tensor ---------------------------------------------

@triton.jit
def legacy_reuse_kernel(out_ptr):
    a = tlx.local_alloc((64, 64), tl.float32, 2)
    b = tlx.local_alloc((64, 64), tl.float16, 2, reuse=a)
    tlx.local_store(b[0], tl.full((64, 64), 3.0, tl.float16))
    y = tlx.local_load(b[0]).to(tl.float32)
    tlx.local_store(a[1], y)
    offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
    tl.store(out_ptr + offs, tlx.local_load(a[1]))


def test_legacy_reuse_warns_and_aliases_at_offset_zero(monkeypatch):
    monkeypatch.setattr(triton.knobs.compilation, "always_compile", True)  # the warning is a frontend's
    with pytest.warns(DeprecationWarning, match="reuse=buffered_tensor.* is deprecated"):
        kernel = compile_kernel(legacy_reuse_kernel)
    assert kernel.metadata.shared == 32768
    assert_stock(kernel)


# -- Validation: errors raised in kernels point at the user's line ------------

def _compile_body(body, constexprs=None):
    """Compiles a kernel whose body is `body` (source lines)."""
    fn = jit_from_body(body, "out_ptr, N", {"tlx": tlx, "tl": tl, "triton": triton})
    return compile_kernel(fn, constexprs, {"out_ptr": "*fp32", "N": "i32"})


ALLOCS = ("spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)\n"
          "a = tlx.local_alloc((64, 64), tl.float32, 2, reuse=spec)\n"
          "b = tlx.local_alloc((64, 64), tl.float16, 2, reuse=spec)\n")

VALIDATION = {
    "smem_cluster": ("tlx.storage_alias_spec(storage=tlx.storage_kind.smemCluster)",
                     "ValueError", "smemCluster storage is not supported for storage_alias_spec"),
    "storage_not_a_kind": ("tlx.storage_alias_spec(storage=3)", "ValueError",
                           "storage must be a tlx.storage_kind"),
    "size_not_constexpr": ("tlx.storage_alias_spec(buffer_size_bytes=N)", "ValueError",
                           "buffer_size_bytes must be a compile-time constant"),
    "size_negative": ("tlx.storage_alias_spec(buffer_size_bytes=-100)", "ValueError",
                      "buffer_size_bytes must be positive, got -100"),
    "size_zero": ("tlx.storage_alias_spec(buffer_size_bytes=0)", "ValueError",
                  "buffer_size_bytes must be positive, got 0"),
    # triton itself refuses attribute assignment in kernels
    "size_immutable": ("spec = tlx.storage_alias_spec()\nspec.buffer_size_bytes = 1024", None,
                       "Attribute assignment is not supported"),
    "empty_group": ("tlx.reuse_group(group_type=tlx.reuse_group_type.shared)", "ValueError",
                    "reuse_group needs at least one element"),
    "group_element_type": (ALLOCS + "tlx.reuse_group(a, 3, group_type=tlx.reuse_group_type.shared)",
                           "TypeError", "reuse_group elements must be buffered_tensor or reuse_group"),
    "nested_same_kind": (ALLOCS + "tlx.reuse_group(a, tlx.reuse_group(b, group_type=tlx.reuse_group_type.shared),"
                         " group_type=tlx.reuse_group_type.shared)", "ValueError",
                         "has the same group_type \\(shared\\) as its parent"),
    "overlap_not_a_group": (ALLOCS + "spec.set_buffer_overlap(a)", "TypeError",
                            "overlap_def must be a reuse_group, got buffered_tensor"),
    "overlap_other_spec": (ALLOCS + "other = tlx.storage_alias_spec()\n"
                           "c = tlx.local_alloc((64, 64), tl.float32, 2, reuse=other)\n"
                           "spec.set_buffer_overlap(tlx.reuse_group(a, c))", "ValueError",
                           "was not allocated with reuse=this storage_alias_spec"),
    "overlap_twice": (ALLOCS + "spec.set_buffer_overlap(tlx.reuse_group(a, b))\n"
                      "spec.set_buffer_overlap(tlx.reuse_group(a, b, group_type=tlx.reuse_group_type.distinct))",
                      "ValueError", "already has a set_buffer_overlap defined"),
    "alloc_storage_mismatch": ("spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)\n"
                               "tlx.local_alloc((128, 64), tl.float32, 2, tlx.storage_kind.tmem, reuse=spec)",
                               "ValueError", "storage_alias_spec storage \\(smem\\) doesn't match local_alloc "
                               "storage \\(tmem\\)"),
    "reuse_wrong_type": ("tlx.local_alloc((64, 64), tl.float32, 2, reuse=3)", "ValueError",
                         "reuse must be a buffered_tensor or storage_alias_spec, got int"),
    "index_out_of_range": (ALLOCS + "tlx.local_load(a[2])", "ValueError", "buffer index 2 out of range for 2"),
    "load_whole_allocation": (ALLOCS + "tlx.local_load(a)", "ValueError", "local_load needs one buffer"),
    # Triton's own verifiers, reached through tlx_alias._C: their diagnostic is the message.
    "ir_rejects_tmem_with_shared_layout": (
        "spec = tlx.storage_alias_spec(storage=tlx.storage_kind.tmem)\n"
        "tlx.local_alloc((128, 64), tl.float32, 2, tlx.storage_kind.tmem, reuse=spec, "
        "layout=tlx.swizzled_shared_layout())", "ValueError",
        "memorySpace must be SharedMemorySpace for shared encoding"),
    "ir_rejects_bad_swizzle": (
        "tlx.local_alloc((64, 64), tl.float32, 2, layout=tlx.nv_mma_shared_layout(96))", "ValueError",
        "swizzlingByteWidth must be 0, 32, 64, or 128"),
}


@pytest.mark.parametrize("name", sorted(VALIDATION))
def test_validation_error_is_a_compilation_error_at_the_line(name):
    body, error_type, message = VALIDATION[name]
    text = expect_compilation_error(_compile_body, body, error_type, message)
    # The failing line is quoted with a caret under it.
    failing_line = body.splitlines()[-1].strip()
    assert failing_line.split("(")[0] in text


def test_distinct_overflow_reports_the_compiler_diagnostic():
    body = ("spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem, buffer_size_bytes=32768)\n"
            "a = tlx.local_alloc((64, 64), tl.float32, 2, reuse=spec)\n"
            "b = tlx.local_alloc((64, 64), tl.float32, 2, reuse=spec)\n"
            "spec.set_buffer_overlap(tlx.reuse_group(a, b, group_type=tlx.reuse_group_type.distinct))\n"
            "tlx.local_store(a[0], tl.full((64, 64), 1.0, tl.float32))\n"
            "tlx.local_store(b[0], tl.full((64, 64), 1.0, tl.float32))")
    # The spec's sizes (two 32768-byte buffer indices of a and b side by side
    # against the 32768 bytes given), not one buffer index's.
    with pytest.raises(RuntimeError, match=re.escape("not enough space for distinct allocations: need 65536 bytes, "
                                                     "have 32768 bytes (storage_alias_spec size, 2 buffers)")):
        _compile_body(body)


def test_python_level_objects_are_immutable():
    group = tlx.reuse_group.__new__(tlx.reuse_group)
    with pytest.raises(AttributeError):
        group.group_type = tlx.reuse_group_type.distinct
    with pytest.raises(AttributeError):
        group.args = ()
    for name in ("storage", "buffer_size_bytes"):
        assert getattr(tlx.storage_alias_spec, name).fset is None
    with pytest.raises(ValueError, match="must be created inside a @triton.jit kernel"):
        tlx.storage_alias_spec()
    with pytest.raises(ValueError, match="smemCluster storage is not supported"):
        tlx.storage_alias_spec(storage=tlx.storage_kind.smemCluster)


# -- cp.async into buffers -------------------------------------------------------

@triton.jit
def async_copy_kernel(x_ptr, out_ptr, B: tl.constexpr, NUM: tl.constexpr):
    spec = tlx.storage_alias_spec()
    ring = tlx.local_alloc((B, B), tl.float16, NUM, reuse=spec)
    offs = tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :]
    for i in tl.static_range(NUM):
        rows = tl.arange(0, B)[:, None]
        tlx.async_load(x_ptr + i * B * B + offs, ring[i], mask=rows < B - i)  # whole rows: stays vectorized
        tlx.async_load_commit_group()
    tlx.async_load_wait_group(0)
    for i in tl.static_range(NUM):
        tl.store(out_ptr + i * B * B + offs, tlx.local_load(ring[i]))


def test_async_load_becomes_16_byte_cp_async():
    src = triton.compiler.ASTSource(
        fn=async_copy_kernel, signature={"x_ptr": "*fp16", "out_ptr": "*fp16", "B": "constexpr", "NUM": "constexpr"},
        constexprs={"B": 64, "NUM": 2}, attrs={(0, ): [["tt.divisibility", 16]], (1, ): [["tt.divisibility", 16]]})
    kernel = triton.compile(src, target=TARGET)
    assert "ttg.async_copy_global_to_local" in kernel.asm["ttgir"]
    assert "tlx." not in kernel.asm["ttgir"]
    copies = [line for line in kernel.asm["ptx"].splitlines() if "cp.async.cg.shared.global" in line]
    assert copies and all("0x10" in line for line in copies)
    assert kernel.metadata.shared == 16384


ASYNC_ERRORS = {
    "not_pointers": (ALLOCS + "tlx.async_load(tl.zeros((64, 64), tl.float32), a[0])", "TypeError",
                     "async_load expects a tensor of pointers"),
    "shape": (ALLOCS + "tlx.async_load(out_ptr + tl.arange(0, 64), a[0])", "ValueError",
              "pointer shape \\(64,\\) != buffer shape \\(64, 64\\)"),
    "dtype": (ALLOCS + "offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]\n"
              "tlx.async_load(out_ptr + offs, b[0])", "ValueError",
              "pointers to fp32 cannot fill a fp16 buffer"),
    "wait_count": ("tlx.async_load_wait_group(-1)", "ValueError", "pendings must be a non-negative"),
}


@pytest.mark.parametrize("name", sorted(ASYNC_ERRORS))
def test_async_load_validation(name):
    body, error_type, message = ASYNC_ERRORS[name]
    with pytest.raises(CompilationError) as info:
        _compile_body(body)
    assert type(info.value.__cause__).__name__ == error_type, repr(info.value.__cause__)
    assert re.search(message, str(info.value)), str(info.value)


def test_errors_of_triton_stages_reach_the_exception():
    # A mask that varies inside a 16-byte vector leaves cp.async 2-byte
    # transfers, which triton's LLVM lowering refuses (on stderr only).
    body = ("spec = tlx.storage_alias_spec()\n"
            "a = tlx.local_alloc((64, 64), tl.float16, 2, reuse=spec)\n"
            "offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]\n"
            "tlx.async_load(out_ptr + offs, a[0], mask=offs % 3 == 0)\n"
            "tlx.async_load_commit_group()\n"
            "tlx.async_load_wait_group(0)")
    from triton.compiler.errors import CompilationError
    # a CompilationError at the kernel's line (still the RuntimeError the stage raised)
    with pytest.raises(CompilationError, match=r"tlx.async_load\(out_ptr.*\n *\^\nmake_llir failed:\n.*:5:\d+: error: "
                                               r"cp.async does not support transfers smaller than 4 bytes") as info:
        _compile_body(body.replace("out_ptr +", "out_ptr.to(tl.pointer_type(tl.float16)) +"))
    assert isinstance(info.value, RuntimeError) and info.value.__cause__ is None


def test_legacy_reuse_warning_is_shown_at_the_kernels_line(tmp_path):
    # Default warning filters (a user's script): Python hides DeprecationWarning
    # outside __main__, and the builtin is called from triton's code generator.
    from conftest import run_python
    script = tmp_path / "legacy_user.py"
    source = ("import tlx_alias as tlx\nimport triton\nimport triton.language as tl\n"
              "from triton.backends.compiler import GPUTarget\n\n\n"
              "@triton.jit\ndef legacy(out_ptr):\n"
              "    a = tlx.local_alloc((64, 64), tl.float32, 2)\n"
              "    b = tlx.local_alloc((64, 64), tl.float16, 2, reuse=a)\n"
              "    tlx.local_store(b[0], tl.full((64, 64), 3.0, tl.float16))\n"
              "    tl.store(out_ptr + tl.arange(0, 64), tl.sum(tlx.local_load(b[0]).to(tl.float32), axis=1))\n\n\n"
              "triton.knobs.compilation.always_compile = True\n"
              "triton.compile(triton.compiler.ASTSource(fn=legacy, signature={'out_ptr': '*fp32'}),\n"
              "               target=GPUTarget('cuda', 90, 32))\n")
    proc = run_python(source, script_path=script)
    assert proc.stderr.splitlines() == [
        f"{script}:10: TLXDeprecationWarning: local_alloc(reuse=buffered_tensor) is deprecated: share memory "
        "through a tlx.storage_alias_spec instead",
        "  b = tlx.local_alloc((64, 64), tl.float16, 2, reuse=a)",
    ]
    assert issubclass(tlx.TLXDeprecationWarning, DeprecationWarning)
    ignored = run_python(source, {"PYTHONWARNINGS": "ignore::DeprecationWarning"}, script_path=script)
    assert ignored.stderr == ""


def test_python_enums_spell_the_dialects_cases():
    # Python spells attributes from the plugin's TableGen enums (TLXEnums.td),
    # never from lists of its own: every Python case exists there, by name.
    from tlx_alias import _C
    from tlx_alias._triton import ir as _ir
    cases = _C.enum_cases()
    assert {kind.value for kind in tlx.storage_kind} <= set(cases["StorageKind"])
    assert {kind.value for kind in tlx.reuse_group_type} == set(cases["ReuseGroupKind"])
    assert cases["InputPrecision"] == {"tf32": 0, "tf32x3": 1, "ieee": 2}  # triton's tt InputPrecision
    assert _ir.enum_attr("StorageKind", "tmem") == f"{cases['StorageKind']['tmem']} : i32"
