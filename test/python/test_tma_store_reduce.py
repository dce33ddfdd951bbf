"""`async_descriptor_store(..., store_reduce=kind)` compiled for sm_90 on the
CPU: it becomes triton's own TMA reduce (`ttng.async_tma_reduce <kind>`, the
op `tensor_descriptor.atomic_add` lowers to) and `cp.reduce.async.bulk.tensor
... .<kind>` in the PTX, from a buffer of a storage_alias_spec too; unknown
kinds and element types triton's TMA reduce does not take are errors at the
kernel line naming what it takes; and the hazard check treats the reduce as
the TMA store it is: its source rewritten before async_descriptor_store_wait
is reported."""
import re
import warnings

import pytest
import triton
import triton.language as tl

from conftest import expect_compilation_error, jit_from_body

import tlx_alias as tlx
from tlx_alias._triton.tma import REDUCE_DTYPES, REDUCE_KINDS, descriptors_have_layouts

from test_hopper_compile import compile_for_sm90

# Triton's names of element types in signatures.
SIGNATURE_TYPES = {"fp32": "fp32", "fp16": "fp16", "bf16": "bf16", "int32": "i32", "uint32": "u32",
                   "int64": "i64", "uint64": "u64"}
_TL_NAMES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "int32": "int32", "uint32": "uint32",
             "int64": "int64", "uint64": "uint64"}
DTYPES = {"fp32": tl.float32, "fp16": tl.float16, "bf16": tl.bfloat16, "int32": tl.int32, "uint32": tl.uint32,
          "int64": tl.int64, "uint64": tl.uint64}

STORE = """offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
buf = tlx.local_alloc((64, 64), DTYPE, 1, layout=LAYOUT)
tlx.local_store(buf[0], tl.load(x_ptr + offs))
tlx.fence_async_shared()
tlx.async_descriptor_store(desc, buf[0], [64, 0], store_reduce=KIND)
tlx.async_descriptor_store_wait(0)
"""


def _compile(body, dtype="fp32", kind="add", layout=None):
    # 64-bit tiles: layout=None picks no NVMMA layout for them; TMA's is named
    layout = layout or ("tlx.nv_mma_shared_layout(128)" if "64" in dtype else "None")
    body = body.replace("DTYPE", f"tl.{_TL_NAMES[dtype]}").replace("KIND", repr(kind)).replace("LAYOUT", layout)
    fn = jit_from_body(body, "desc, x_ptr", {"tlx": tlx, "tl": tl, "triton": triton})
    t = SIGNATURE_TYPES[dtype]
    return compile_for_sm90(fn, {"desc": f"tensordesc<{t}[64, 64]>", "x_ptr": f"*{t}"}, {})


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile afresh: the hazard pass runs
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")


@pytest.mark.parametrize("kind, dtype", [("add", "fp32"), ("add", "bf16"), ("add", "int32"), ("min", "fp16"),
                                         ("max", "int64"), ("and", "int32"), ("or", "uint64"), ("xor", "uint32")])
def test_reduce_is_triton_tma_reduce(kind, dtype):
    k = _compile(STORE, dtype, kind)
    ttgir, ptx = k.asm["ttgir"], k.asm["ptx"]
    # CHECK: ttng.fence_async_shared, then ttng.async_tma_reduce <kind>, %desc[...] %buf, then the wait
    reduce = re.search(rf"ttng\.async_tma_reduce {kind}, %\w+\[%\S+, %\S+\] %\S+ : !tt\.tensordesc<", ttgir)
    assert reduce, ttgir
    assert ttgir.rfind("ttng.fence_async_shared", 0, reduce.start()) >= 0
    assert ttgir.find("ttng.async_tma_store_wait {pendings = 0 : i32}", reduce.end()) >= 0
    assert "async_tma_copy_local_to_global" not in ttgir and "tlx." not in ttgir
    assert len(re.findall(rf"cp\.reduce\.async\.bulk\.tensor\.2d\.global\.shared::cta\.{kind}\b", ptx)) == 1
    assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" not in ptx  # no plain store beside it


@pytest.mark.parametrize("layout, meta", [("None", (3, [64, 32])), ("tlx.nv_mma_shared_layout(64)", (2, [64, 16])),
                                          ("tlx.nv_mma_shared_layout(32)", (1, [64, 8]))])
def test_reduce_keeps_the_buffers_swizzle(layout, meta):
    """A buffer of a narrower NVMMA swizzle than triton's default for its
    block (64 fp32 columns: 128 bytes) keeps it: triton's
    optimize-descriptor-encoding, which would reset the descriptor to the
    default, is left out for a tlx kernel whose descriptors all have
    layouts, and the tensor map the launcher builds swizzles as the buffer
    does (CUtensorMapSwizzle 3, 2, 1: 128, 64, 32 bytes), in boxes as wide
    as the swizzle (triton copies a tile in as many boxes)."""
    k = _compile(STORE, layout=layout)
    (desc, ) = k.metadata.tensordesc_meta
    assert (desc["swizzle"], list(desc["block_size"])) == meta
    swizzle = 128 >> (3 - meta[0])
    assert f"swizzlingByteWidth = {swizzle}, transposed = false, elementBitWidth = 32" in k.asm["ttgir"]
    assert "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add" in k.asm["ptx"]


def test_descriptors_have_layouts():
    """The module-text test that decides it, in triton 3.7's and 3.8's spellings."""
    assert descriptors_have_layouts("%d: !tt.tensordesc<tensor<64x64xf16, #shared>>, %e: !tt.tensordesc<32x8xf32, "
                                    "#ttg.nvmma_shared<{swizzlingByteWidth = 32}>> -> i32")
    assert not descriptors_have_layouts("%d: !tt.tensordesc<tensor<64x64xf16, #shared>>, %e: "
                                        "!tt.tensordesc<tensor<64x64xf16>>")
    assert not descriptors_have_layouts("%e: !tt.tensordesc<64x64xf16>) #shared")
    assert descriptors_have_layouts("module {}")


def test_plain_store_stays_a_copy():
    k = _compile(STORE, "fp32", "")
    assert "ttng.async_tma_copy_local_to_global" in k.asm["ttgir"]
    assert "async_tma_reduce" not in k.asm["ttgir"] and "cp.reduce.async.bulk" not in k.asm["ptx"]


def test_reduce_from_an_aliased_buffer():
    """The tile lies in a storage_alias_spec, over an fp16 buffer of its own
    (read back before the reduce's source is written)."""
    body = """spec = tlx.storage_alias_spec(storage=tlx.storage_kind.smem)
acc = tlx.local_alloc((64, 64), tl.float32, 2, reuse=spec)
half = tlx.local_alloc((64, 64), tl.float16, 2, reuse=spec)
spec.set_buffer_overlap(tlx.reuse_group(acc, half, group_type=tlx.reuse_group_type.shared))
offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
x = tl.load(x_ptr + offs)
tlx.local_store(half[1], x.to(tl.float16))
y = tlx.local_load(half[1]).to(tl.float32)
tlx.local_store(acc[1], x + y)
tlx.fence_async_shared()
tlx.async_descriptor_store(desc, acc[1], [0, 0], store_reduce="add")
tlx.async_descriptor_store_wait(0)
"""
    k = _compile(body)
    assert re.search(r"ttng\.async_tma_reduce add, ", k.asm["ttgir"])
    assert "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add" in k.asm["ptx"]
    (spec, ) = tlx.memory_map(k)
    assert {v["name"] for v in spec["views"]} == {"acc", "half"}


@pytest.mark.parametrize("kind", ["sub", "inc", "ADD", "atomic_add"])
def test_unknown_kind_names_the_kinds(kind):
    text = expect_compilation_error(_compile, STORE.replace("KIND", repr(kind)), "ValueError",
                                    rf"async_descriptor_store: store_reduce must be one of 'add', 'min', 'max', "
                                    rf"'and', 'or', 'xor' \(or \"\" for a plain store\), got '{kind}'")
    assert "store_reduce=" in text  # quotes the kernel line


@pytest.mark.parametrize("kind, dtype", [(kind, dtype) for kind in REDUCE_KINDS for dtype in SIGNATURE_TYPES
                                         if dtype not in REDUCE_DTYPES[kind]])
def test_element_types_triton_does_not_reduce(kind, dtype):
    """As triton's descriptor_atomic_* take them: no fp32 min/max, no
    floating-point bitwise kinds, no int64 add."""
    takes = ", ".join(REDUCE_DTYPES[kind])
    expect_compilation_error(lambda body: _compile(body, dtype, kind), STORE, "ValueError",
                             rf"async_descriptor_store: a TMA reduce '{kind}' does not take {dtype} tiles; "
                             rf"it takes {re.escape(takes)}")


def test_element_types_are_triton_frontends():
    """The table is triton's: each kind's types are those its
    tensor_descriptor.atomic_<kind> accepts (and no other of these)."""
    from triton.language import semantic
    for kind in REDUCE_KINDS:
        for name, dtype in DTYPES.items():
            assert _triton_accepts(semantic, kind, dtype) == (name in REDUCE_DTYPES[kind]), (kind, name)


def _triton_accepts(semantic, kind, dtype):
    """Whether triton's descriptor_atomic_<kind> passes its dtype assert."""

    class Desc:
        pass

    desc = Desc()
    desc.dtype = dtype
    check = semantic.TritonSemantic.__new__(semantic.TritonSemantic)
    check.validate_store_like = lambda *args: None
    check._has_native_tma = lambda: True
    check._convert_to_ir_values = lambda *args, **kwargs: (_ for _ in ()).throw(_Passed())
    try:
        getattr(check, f"descriptor_atomic_{kind}")(desc, None, [])
    except _Passed:
        return True
    except AssertionError:
        return False
    return True


class _Passed(Exception):
    pass


RACE = """offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
buf = tlx.local_alloc((64, 64), tl.float32, 1)
x = tl.load(x_ptr + offs)
tlx.local_store(buf[0], x)
tlx.fence_async_shared()
tlx.async_descriptor_store(desc, buf[0], [0, 0], store_reduce="add")
WAIT
tlx.local_store(buf[0], x * 2.0)
tlx.fence_async_shared()
tlx.async_descriptor_store(desc, buf[0], [0, 0], store_reduce="add")
tlx.async_descriptor_store_wait(0)
"""


def test_source_rewritten_before_the_wait_is_reported(monkeypatch):
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "warn")
    with pytest.warns(tlx.AliasHazardWarning) as record:
        _compile(RACE.replace("WAIT", "pass"))
    text = "\n".join(str(r.message) for r in record)
    assert "TMA reduce (async_descriptor_store with store_reduce)" in text, text
    assert "async_tma_store_wait (async_descriptor_store_wait)" in text, text


def test_source_rewritten_after_the_wait_is_clean():
    with warnings.catch_warnings():
        warnings.simplefilter("error", tlx.AliasHazardWarning)
        k = _compile(RACE.replace("WAIT", "tlx.async_descriptor_store_wait(0)"))
    assert len(re.findall(r"cp\.reduce\.async\.bulk\.tensor", k.asm["ptx"])) == 2
