"""The memory map as SVG (`tlx.save_memory_map`, `tlx-opt --memory-map-svg`):
its geometry checked against the memory-map data, with the buffer
positions and the unused storage recomputed here byte by byte."""
import os
import sys
import xml.etree.ElementTree as ET

from conftest import ROOT

import tlx_alias as tlx
from tlx_alias import memory_map_svg as svg

from test_tlx_opt import tlx_opt

NS = {"svg": "http://www.w3.org/2000/svg"}


def rects(path, cls):
    root = ET.parse(path).getroot()
    return [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == cls]


def expected_slots(spec):
    """(view name, i) -> (start, end), from the layout rule written out again:
    buffer i of a view with group_size levels (k, between) sits at offset +
    its position within each level + (i // prod k) * stride."""
    out = {}
    for view in spec["views"]:
        per_index = 1
        for k, _ in view.get("subtiles", []):
            per_index *= k
        for i in range(view["num_buffers"]):
            start, rest, inner = view["offset"], i % per_index, per_index
            for k, between in view.get("subtiles", []):
                inner //= k
                start += (rest // inner) * between
                rest %= inner
            start += (i // per_index) * view["bytes_between_buffers"]
            out[(view["name"], i)] = (start, start + view["buffer_bytes"])
    return out


def expected_unused(spec, slots):
    used = bytearray(spec["size"])
    for start, end in slots.values():
        used[start:end] = b"\1" * (end - start)
    gaps, start = [], None
    for offset, flag in enumerate(list(used) + [1]):
        if not flag and start is None:
            start = offset
        elif flag and start is not None:
            gaps.append((start, offset))
            start = None
    return gaps


def check_geometry(path, spec):
    slots = expected_slots(spec)
    drawn = {(r.get("data-view"), int(r.get("data-index"))): r for r in rects(path, "buffer")}
    assert set(drawn) == set(slots)
    scale = svg.PLOT_WIDTH / spec["size"]
    for key, (start, end) in slots.items():
        r = drawn[key]
        assert (int(r.get("data-start")), int(r.get("data-end"))) == (start, end)
        assert abs(float(r.get("x")) - (svg.LABEL_WIDTH + start * scale)) < 0.01
        assert abs(float(r.get("width")) - (end - start) * scale) < 0.01
        assert f"{key[0]}[{key[1]}]" in r.find("svg:title", NS).text
    unused = [(int(r.get("data-start")), int(r.get("data-end"))) for r in rects(path, "unused")]
    assert unused == expected_unused(spec, slots)
    return slots, unused


def test_save_memory_map_draws_the_aliased_gemm(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import hopper_persistent_gemm as example

    kernel = example.compile_for_sm90(STAGES=4, ALIAS=True)
    path = tmp_path / "gemm.svg"
    tlx.save_memory_map(kernel, str(path))
    (spec, ) = tlx.memory_map(kernel)
    slots, unused = check_geometry(path, spec)
    # Ring by ring (256 KiB interleaved would not fit sm_90): C tile i is
    # drawn over B's ring slot i (32 KiB each), A's ring follows B's.
    assert slots[("c_tiles", 2)] == slots[("b_ring", 2)] == (2 * 32768, 3 * 32768)
    assert slots[("a_ring", 0)] == (4 * 32768, 4 * 32768 + 16384)
    assert unused == []
    tip = next(r for r in rects(path, "buffer") if r.get("data-view") == "c_tiles").find("svg:title", NS).text
    assert "hopper_persistent_gemm.py:" in tip


# An explicit 64 KiB spec holding 2 x (8 KiB f16 shared with 16 KiB f32): the
# explicit size pads each buffer index to 32 KiB, so the last 16 KiB of each is unused.
SIZED = ('module {\n  tt.func @k() {\n'
         '    %spec = tlx.storage_alias_spec storage = smem, size = 65536 : !tlx.storage_alias_spec<smem, 65536>\n'
         '    %a = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 65536> -> '
         '!ttg.memdesc<2x64x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, '
         '#ttg.shared_memory, mutable>\n'
         '    %b = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem, 65536> -> '
         '!ttg.memdesc<2x64x64xf32, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, '
         '#ttg.shared_memory, mutable>\n'
         '    %g = tlx.reuse_group(%a, %b) group_kind = shared : (!ttg.memdesc<2x64x64xf16, '
         '#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #ttg.shared_memory, mutable>, '
         '!ttg.memdesc<2x64x64xf32, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, '
         '#ttg.shared_memory, mutable>) -> !tlx.reuse_group<shared>\n'
         '    tlx.set_buffer_overlap(%spec, %g) : (!tlx.storage_alias_spec<smem, 65536>, !tlx.reuse_group<shared>) -> ()\n'
         '    tt.return\n  }\n}\n')


def test_tlx_opt_memory_map_svg(tmp_path):
    path, data = tmp_path / "map.svg", tmp_path / "map.jsonl"
    proc = tlx_opt("-", "--tlx-lower", f"--memory-map-svg={path}", stdin=SIZED)
    assert proc.returncode == 0, proc.stderr
    # the same layout, recorded as JSON by the pass itself
    assert tlx_opt("-", f"--tlx-lower=memory-map={data}", stdin=SIZED).returncode == 0
    import json
    (spec, ) = [json.loads(line) for line in open(data)]
    # IR has no buffer names: rows are named by where the buffer is allocated
    spec["views"] = [dict(v, name=f"view@<stdin>:{line}") for v, line in zip(spec["views"], (4, 5))]
    slots, unused = check_geometry(path, spec)
    assert spec["size"] == 65536 and unused == [(16384, 32768), (49152, 65536)]


def test_tlx_opt_memory_map_svg_errors(tmp_path):
    proc = tlx_opt("-", "--canonicalize", f"--memory-map-svg={tmp_path / 'x.svg'}", stdin=SIZED)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == ("tlx-opt: --memory-map-svg needs a pass that lowers storage_alias_spec: "
                           "--tlx-lower or --tlx-storage-alias-lowering\n")
    proc = tlx_opt("-", "--pass-pipeline=builtin.module(tlx-lower)", f"--memory-map-svg={tmp_path / 'x.svg'}",
                   stdin=SIZED)
    assert proc.stderr == "tlx-opt: --memory-map-svg needs the passes as flags (--tlx-lower ...), not --pass-pipeline\n"
    proc = tlx_opt("-", "--tlx-lower", f"--memory-map-svg={tmp_path / 'missing' / 'x.svg'}", stdin=SIZED)
    assert proc.returncode == 1 and proc.stderr.startswith(f"tlx-opt: cannot write '{tmp_path / 'missing' / 'x.svg'}'")
    assert not (tmp_path / "x.svg").exists()
