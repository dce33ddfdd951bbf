"""tlx.print_memory_map: rows named after their buffers, columns that stay
aligned whatever the cells hold, one line for a kernel without specs."""
import io
import json
import re

import pytest
import tlx_alias as tlx
import triton
import triton.language as tl
from tlx_alias.memory_map import format_memory_map
from triton.backends.compiler import GPUTarget


def _compile(fn, **constexprs):
    signature = {"out_ptr": "*fp32", **{name: "constexpr" for name in constexprs}}
    return triton.compile(triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs),
                          target=GPUTarget("cuda", 90, 32))


def _printed(kernel):
    out = io.StringIO()
    tlx.print_memory_map(kernel, file=out)
    return out.getvalue()


@triton.jit
def slots_kernel(out_ptr, NUM: tl.constexpr):
    # distinct 16 KiB + 8 KiB buffers, NUM deep. NUM = 2: interleaved (the
    # design's layout): acc_tile at 0, half at 16 KiB, 32 KiB between buffer
    # indices. NUM = 8: 8 x 32 KiB = 256 KiB interleaved, more than sm_90's
    # 227 KiB; ring by ring (acc_tile's ring at 0, half's after it) 192 KiB.
    spec = tlx.storage_alias_spec()
    acc_tile = tlx.local_alloc((64, 64), tl.float32, NUM, reuse=spec)
    half = tlx.local_alloc((64, 64), tl.float16, NUM, reuse=spec)
    spec.set_buffer_overlap(tlx.reuse_group(acc_tile, half, group_type=tlx.reuse_group_type.distinct))
    offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
    tlx.local_store(acc_tile[NUM - 1], tl.load(out_ptr + offs))
    tlx.local_store(half[NUM - 1], tlx.local_load(acc_tile[NUM - 1]).to(tl.float16))
    tl.store(out_ptr + offs, tlx.local_load(half[NUM - 1]).to(tl.float32))


def test_rows_name_their_buffers_and_columns_stay_aligned():
    kernel = _compile(slots_kernel, NUM=2)
    lines = _printed(kernel).splitlines()
    assert re.fullmatch(r"storage_alias_spec 'spec' in slots_kernel \(smem, 65536 bytes, aligned \d+\) "
                        r"at test_memory_map_print\.py:\d+", lines[0]), lines[0]
    header, rows = lines[1], lines[2:]
    assert header.split() == ["buffer", "offset", "stride", "bytes", "num", "expanded", "shape", "line", "type"]
    assert [row.split()[:6] for row in rows] == [["acc_tile", "0", "32768", "16384", "2", "4x64x64"],
                                                 ["half", "16384", "32768", "8192", "2", "8x64x64"]]
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


def test_rings_past_the_target_say_so_in_the_header():
    """Ring by ring only where the interleaved layout does not fit the
    target: the header says so, with the interleaved size; the map records
    both."""
    kernel = _compile(slots_kernel, NUM=8)
    (spec, ) = tlx.memory_map(kernel)
    assert (spec["layout"], spec["size"], spec["interleaved_size"]) == ("rings", 196608, 262144)
    lines = _printed(kernel).splitlines()
    assert re.fullmatch(r"storage_alias_spec 'spec' in slots_kernel \(smem, 196608 bytes, aligned \d+, "
                        r"ring by ring \(interleaved: 262144 bytes\)\) at test_memory_map_print\.py:\d+",
                        lines[0]), lines[0]
    assert [row.split()[:5] for row in lines[2:]] == [["acc_tile", "0", "16384", "16384", "8"],
                                                      ["half", "131072", "8192", "8192", "8"]]
    # A tree that fits is interleaved, and the header does not mention rings.
    fitting = _compile(slots_kernel, NUM=2)
    (fits, ) = tlx.memory_map(fitting)
    assert (fits["layout"], fits["interleaved_size"]) == ("interleaved", fits["size"])
    assert "ring by ring" not in _printed(fitting)


def test_packed_views_show_their_slots_and_subtiles():
    """Packed views (triton 3.7: padded layouts in a spec, or
    TLX_ALIAS_EXACT_VIEWS=0) reach a buffer through byte slots where its
    stride is no multiple of it; the map records the slot size, and
    group_size subtiles their spacing."""
    view = {"name": "acc_tile", "offset": 0, "bytes_between_buffers": 24576, "buffer_bytes": 16384,
            "num_buffers": 2, "expanded_shape": [4, 8192], "slot_bytes": 8192, "subtiles": [[2, 4096]],
            "location": "k.py:3:4", "type": "!ttg.memdesc<4x8192xi8, #ttg.swizzled_shared<{}>>"}
    spec = {"name": "spec", "function": "k", "storage": "smem", "size": 49152, "explicit_size": False,
            "alignment": 1024, "location": "k.py:2:4", "views": [view]}
    text = format_memory_map({"tlx_memory_map": json.dumps([spec])})
    assert text.splitlines()[2].split() == ["acc_tile", "0", "24576", "(by", "2:", "4096)", "16384", "2",
                                            "4x8192", "(8192-byte", "slots)", "k.py:3", "4x8192xi8",
                                            "swizzled_shared"]


def test_tensor_memory_spec_shows_its_columns_and_allocation():
    """A tmem spec's header counts columns, and the power of two of at least
    32 that its allocation takes when that differs."""
    view = {"name": "acc", "offset": 0, "bytes_between_buffers": 49152, "buffer_bytes": 49152, "num_buffers": 1,
            "expanded_shape": [1, 128, 96], "slot_bytes": 0, "subtiles": [], "location": "k.py:3:4",
            "type": "!ttg.memdesc<1x128x96xf32, #ttng.tensor_memory_encoding<blockM = 128, blockN = 96>>"}
    spec = {"name": "spec", "function": "k", "storage": "tmem", "size": 96 * 512, "allocated_size": 128 * 512,
            "unit_bytes": 512, "explicit_size": False, "alignment": 512, "location": "k.py:2:4", "views": [view]}
    header = format_memory_map({"tlx_memory_map": json.dumps([spec])}).splitlines()[0]
    assert header == ("storage_alias_spec 'spec' in k (tmem, 96 columns (128 allocated), 49152 bytes, "
                      "aligned 512) at k.py:2")
    spec.update(size=128 * 512)
    header = format_memory_map({"tlx_memory_map": json.dumps([spec])}).splitlines()[0]
    assert "(tmem, 128 columns, 65536 bytes," in header


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
