"""tlx.print_memory_map: rows named after their buffers, columns that stay
aligned whatever the cells hold, one line for a kernel without specs."""
import io
import re

import pytest
import tlx_alias as tlx
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget


def _compile(fn):
    return triton.compile(triton.compiler.ASTSource(fn=fn, signature={"out_ptr": "*fp32"}),
                          target=GPUTarget("cuda", 90, 32))


def _printed(kernel):
    out = io.StringIO()
    tlx.print_memory_map(kernel, file=out)
    return out.getvalue()


@triton.jit
def slots_kernel(out_ptr):
    # distinct 16 KiB + 8 KiB buffers: 24 KiB between buffers, no multiple of
    # either, so both views become byte slots ("(8192-byte slots)").
    spec = tlx.storage_alias_spec()
    acc_tile = tlx.local_alloc((64, 64), tl.float32, 2, reuse=spec)
    half = tlx.local_alloc((64, 64), tl.float16, 2, reuse=spec)
    spec.set_buffer_overlap(tlx.reuse_group(acc_tile, half, group_type=tlx.reuse_group_type.distinct))
    offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
    tlx.local_store(acc_tile[1], tl.load(out_ptr + offs))
    tlx.local_store(half[1], tlx.local_load(acc_tile[1]).to(tl.float16))
    tl.store(out_ptr + offs, tlx.local_load(half[1]).to(tl.float32))


def test_rows_name_their_buffers_and_columns_stay_aligned():
    kernel = _compile(slots_kernel)
    lines = _printed(kernel).splitlines()
    assert re.fullmatch(r"storage_alias_spec 'spec' in slots_kernel \(smem, 49152 bytes, aligned \d+\) "
                        r"at test_memory_map_print\.py:\d+", lines[0]), lines[0]
    header, rows = lines[1], lines[2:]
    assert header.split() == ["buffer", "offset", "stride", "bytes", "num", "expanded", "shape", "line", "type"]
    assert [row.split()[0] for row in rows] == ["acc_tile", "half"]
    assert any("-byte slots)" in row for row in rows), rows
    # Each column starts where its header does (numbers end there).
    for title in ["expanded shape", "line", "type"]:
        column = header.index(title)
        for row in rows:
            assert row[column - 2:column] == "  " and row[column] != " ", (title, row)
    for title in ["offset", "stride", "bytes", "num"]:
        end = header.index(title) + len(title)
        for row in rows:
            assert row[end - 1].isdigit() and row[end] == " ", (title, row)
    lines_column = [row[header.index("line"):].split()[0] for row in rows]
    assert all(re.fullmatch(r"test_memory_map_print\.py:\d+", cell) for cell in lines_column), lines_column


@triton.jit
def legacy_only_kernel(out_ptr):
    a = tlx.local_alloc((64, 64), tl.float32, 2)
    b = tlx.local_alloc((64, 64), tl.float16, 2, reuse=a)
    tlx.local_store(b[0], tl.full((64, 64), 3.0, tl.float16))
    offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
    tl.store(out_ptr + offs, tlx.local_load(b[0]).to(tl.float32))


def test_kernel_without_specs_prints_one_line(monkeypatch):
    monkeypatch.setattr(triton.knobs.compilation, "always_compile", True)  # the warning is a frontend's
    with pytest.warns(tlx.TLXDeprecationWarning):
        kernel = _compile(legacy_only_kernel)
    assert tlx.memory_map(kernel) == []
    assert _printed(kernel) == "legacy_only_kernel: no storage_alias_spec\n"
