"""tlx-pid-address-analysis from Python: `tlx.address_report` on kernels
compiled for sm_90 on the CPU (coalescing, vectors, divisibility, patterns)
and `AddressRaceWarning` for cross-program writes (warn, error, off, and
again on a cache hit)."""
import os
import warnings

import pytest
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

import tlx_alias as tlx

THIS_FILE = os.path.abspath(__file__)


def _line_of(marker):
    with open(THIS_FILE) as f:
        return next(i for i, line in enumerate(f, 1) if line.rstrip().endswith(marker))


@triton.jit
def tile_copy(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK + tl.arange(0, BLOCK)
    offs = rows[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :]
    buf = tlx.local_alloc((BLOCK, BLOCK), tl.float32, 1)
    tlx.local_store(buf[0], tl.load(x_ptr + offs))  # row-major tile
    tl.store(out_ptr + offs, tlx.local_load(buf[0]))


@triton.jit
def gather_every_other(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK // 2)
    buf = tlx.local_alloc((BLOCK, BLOCK // 2), tl.float32, 1)
    tlx.local_store(buf[0], tl.load(x_ptr + rows[:, None] * BLOCK + 2 * cols[None, :]))  # gather
    tl.store(out_ptr + rows[:, None] * (BLOCK // 2) + cols[None, :], tlx.local_load(buf[0]))


@triton.jit
def same_block_everywhere(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    buf = tlx.local_alloc((BLOCK, ), tl.float32, 1)
    tlx.local_store(buf[0], tl.load(x_ptr + pid * BLOCK + offs))
    tl.store(out_ptr + offs, tlx.local_load(buf[0]))  # every program: the same block


def _compile(fn, dtype="fp32", divisibility=16, BLOCK=64):
    signature = {"x_ptr": f"*{dtype}", "out_ptr": f"*{dtype}", "BLOCK": "constexpr"}
    attrs = {(0, ): [["tt.divisibility", divisibility]], (1, ): [["tt.divisibility", 16]]}
    src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs={"BLOCK": BLOCK}, attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32))


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TLX_ALIAS_ADDRESSES", raising=False)


def _rows(kernel, op):
    return [row for row in tlx.address_report(kernel) if row["op"] == op]


def test_row_major_tile_is_coalesced_with_16_byte_vectors():
    kernel = _compile(tile_copy)
    (load, ), (store, ) = _rows(kernel, "load"), _rows(kernel, "store")
    for row in (load, store):
        assert row["pattern"] == "PID_AFFINE" and row["axis"] == 0
        assert row["stride_bytes"] == 64 * 64 * 4 and row["block_elems"] == 64 * 64
        assert row["coalesced"] and row["vector_bytes"] == 16 and row["best_vector_bytes"] == 16
        assert row["reason"] == ""
    assert load["location"] == f"{os.path.basename(THIS_FILE)}:{_line_of('# row-major tile')}"
    assert load["base"] == "x_ptr" and load["offset_bytes"] == (0, 64 * 64 * 4 - 4)


def test_strided_gather_is_uncoalesced_with_a_reason():
    kernel = _compile(gather_every_other)
    (load, ), (store, ) = _rows(kernel, "load"), _rows(kernel, "store")
    assert not load["coalesced"] and load["vector_bytes"] == 4
    assert load["reason"] == "no dimension is contiguous: element strides [64, 2]"
    assert store["coalesced"] and store["reason"] == ""


def test_divisibility_4_limits_best_vectors_to_4_bytes():
    kernel = _compile(tile_copy, dtype="fp16", divisibility=4)
    (load, ) = _rows(kernel, "load")
    assert load["best_vector_bytes"] == 4 and load["vector_bytes"] == 4
    assert load["reason"] == "divisibility 4 bytes limits vectors to 4 bytes"
    (aligned, ) = _rows(_compile(tile_copy, dtype="fp16"), "load")
    assert aligned["best_vector_bytes"] == 16 and aligned["reason"] == ""


def _race_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _compile(fn)
    return [w for w in caught if issubclass(w.category, tlx.AddressRaceWarning)]


def test_every_program_storing_one_block_warns_once_at_the_store():
    assert issubclass(tlx.AddressRaceWarning, UserWarning)
    (found, ) = _race_warnings(same_block_everywhere)
    assert (found.filename, found.lineno) == (THIS_FILE, _line_of("# every program: the same block"))
    assert "program {pid0=0} bytes [0, 255] and program {pid0=1} bytes [0, 255] overlap" in str(found.message)
    assert "out_ptr" in str(found.message)
    # Loaded again from triton's cache, the kernel warns again.
    assert len(_race_warnings(same_block_everywhere)) == 1
    assert _race_warnings(tile_copy) == [] and _race_warnings(gather_every_other) == []


def test_error_and_off_modes(monkeypatch):
    monkeypatch.setenv("TLX_ALIAS_ADDRESSES", "error")
    with pytest.raises(RuntimeError, match="cross-program write"):
        _compile(same_block_everywhere)
    monkeypatch.setenv("TLX_ALIAS_ADDRESSES", "off")
    assert _race_warnings(same_block_everywhere) == []


def test_print_address_report_is_a_table(capsys):
    tlx.print_address_report(_compile(gather_every_other))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["op", "line", "pattern", "axis"]
    assert "no dimension is contiguous" in lines[1] and lines[1].split()[0] == "load"
    with pytest.raises(ValueError, match="TTGIR"):
        tlx.address_report(object())
