"""The memory map of a compiled kernel's storage alias specs, as the compiler
laid them out (recorded by tlx-storage-alias-lowering, not recomputed)."""
import json
import os
import re


def memory_map(kernel):
    """One dict per storage_alias_spec of a compiled kernel (a CompiledKernel,
    e.g. from `triton.compile` or `kernel.warmup(...)`): its size and, per
    view, offset, bytes between buffers, buffer size and expanded shape."""
    metadata = getattr(kernel, "metadata", kernel)
    text = getattr(metadata, "tlx_memory_map", None)
    if text is None and isinstance(metadata, dict):
        text = metadata.get("tlx_memory_map")
    return json.loads(text) if text else []


def _short_type(memdesc):
    """'2x64x64xf32 nvmma_shared' from the view's !ttg.memdesc type."""
    match = re.match(r"!ttg\.memdesc<([^,>]+)(?:, #(?:ttg|ttng)\.(\w+))?", memdesc)
    if not match:
        return memdesc
    return " ".join(part for part in match.groups() if part)


def _where(location):
    """'file.py:12' from 'path/to/file.py:12:34' (or the location as it is)."""
    match = re.match(r"(.*):(\d+):\d+$", location)
    return f"{os.path.basename(match.group(1))}:{match.group(2)}" if match else location


def _table(header, rows):
    """Numbers right-aligned, text left-aligned, each column as wide as its
    widest cell (the last one unpadded)."""
    widths = [max(len(str(row[i])) for row in [header] + rows) for i in range(len(header))]
    numeric = [bool(rows) and all(isinstance(row[i], int) for row in rows) for i in range(len(header))]
    lines = []
    for row in [header] + rows:
        cells = [str(cell).rjust(width) if number else str(cell).ljust(width)
                 for cell, width, number in zip(row[:-1], widths, numeric)]
        lines.append("  " + "  ".join(cells + [str(row[-1])]))
    return lines


def _size(spec):
    """'49152 bytes', or for tensor memory '96 columns (128 allocated), 49152
    bytes': its allocation is a power of two of at least 32 columns."""
    if spec["storage"] != "tmem":
        return f"{spec['size']} bytes"
    unit = spec["unit_bytes"]
    columns, allocated = spec["size"] // unit, spec.get("allocated_size", spec["size"]) // unit
    rounded = f" ({allocated} allocated)" if allocated != columns else ""
    return f"{columns} columns{rounded}, {spec['size']} bytes"


def _rings(spec):
    """', ring by ring (interleaved: N bytes)' for a tree laid out ring by ring:
    the lowering does that only where the interleaved layout does not fit."""
    if spec.get("layout") != "rings":
        return ""
    return f", ring by ring (interleaved: {spec['interleaved_size']} bytes)"


def format_memory_map(kernel):
    """The memory map as text: per spec, a line and a table with one row per
    buffer (named as in the kernel, with its line). "" for a kernel without
    storage_alias_spec."""
    lines = []
    for spec in memory_map(kernel):
        name = f"'{spec['name']}' " if spec.get("name") else ""
        lines.append(f"storage_alias_spec {name}in {spec['function']} ({spec['storage']}, {_size(spec)}"
                     f"{', explicit' if spec['explicit_size'] else ''}, "
                     f"aligned {spec['alignment']}{_rings(spec)}) at {_where(spec['location'])}")
        rows = []
        for view in spec["views"]:
            shape = "x".join(map(str, view["expanded_shape"]))
            if view["slot_bytes"]:
                shape += f" ({view['slot_bytes']}-byte slots)"
            stride = view["bytes_between_buffers"]
            # group_size subtiles: k consecutive buffers `between` bytes apart
            # within one stride, e.g. "16384 (by 2: 4096)".
            for group_size, between in view.get("subtiles", []):
                stride = f"{stride} (by {group_size}: {between})"
            rows.append([view.get("name") or "?", view["offset"], stride, view["buffer_bytes"],
                         view["num_buffers"], shape, _where(view["location"]), _short_type(view["type"])])
        lines += _table(["buffer", "offset", "stride", "bytes", "num", "expanded shape", "line", "type"], rows)
    return "\n".join(lines)


def print_memory_map(kernel, file=None):
    """Prints format_memory_map(kernel); for a kernel without
    storage_alias_spec (e.g. one using only legacy reuse=), one line saying so."""
    text = format_memory_map(kernel)
    if not text:
        name = getattr(getattr(kernel, "metadata", None), "name", None) or getattr(kernel, "name", "kernel")
        text = f"{name}: no storage_alias_spec"
    print(text, file=file)
