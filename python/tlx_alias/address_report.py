"""Which bytes each program of a compiled kernel touches per global load,
store and atomic, and how well the access is coalesced and vectorized
(tlx-pid-address-analysis on the kernel's final TTGIR; docs/address_analysis.md)."""
from . import _addresses
from .memory_map import _table, _where


def _row(access):
    axes, strides = access["axes"], access["strides"]
    return {
        "op": access["op"],
        "location": _where(access["location"]),
        "pattern": access["pattern"],
        "axis": axes[0] if len(axes) == 1 else (tuple(axes) if axes else None),
        "stride_bytes": strides[0] if len(strides) == 1 else (tuple(strides) if strides else None),
        "block_elems": access["block_elems"],
        "coalesced": access["coalesced"],
        "vector_bytes": access["vector_bytes"],
        "best_vector_bytes": access["best_vector_bytes"],
        "reason": access["reason"],
        "base": access["base"],
        "offset_bytes": tuple(access["offset"]) if access["offset"] else None,
        "element_bytes": access["element_bytes"],
        "box": tuple(access["box"]) if access["box"] is not None else None,
        "name": access["name"],
    }


def address_report(kernel):
    """One dict per global tt.load / tt.store / atomic (and cp.async or TMA
    copy) of a compiled kernel (a CompiledKernel, e.g. from `triton.compile`
    or `kernel.warmup(...)`), in program order: `op` ("load", "store",
    "atomic"), `location` ("file:line"), `pattern` ("PID_AFFINE",
    "PID_INDEPENDENT", "UNKNOWN"; "TMA" for descriptor copies, which carry
    `box` instead), `axis` and `stride_bytes` (per program along it; tuples
    for several grid axes), `block_elems`, `coalesced`, `vector_bytes` (per
    thread, as compiled), `best_vector_bytes`, `reason`, and `base` (the
    pointer argument), `offset_bytes` (program 0's byte range from it),
    `element_bytes`, `name` (the op)."""
    asm = getattr(kernel, "asm", None) or {}
    ttgir = asm.get("ttgir") if isinstance(asm, dict) else None
    if not ttgir:
        raise ValueError("address_report needs a compiled kernel with its TTGIR (kernel.asm['ttgir'])")
    return [_row(access) for access in _addresses.accesses(ttgir)]


def _cell(value):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return "x".join(str(v) for v in value)
    return value


def format_address_report(kernel):
    """The address report as a table, one row per access."""
    header = ["op", "line", "pattern", "axis", "stride", "elems", "coalesced", "vector", "best", "reason"]
    rows = []
    for row in address_report(kernel):
        pattern = row["pattern"] if row["box"] is None else f"TMA box {_cell(row['box'])}"
        rows.append([row["op"], row["location"], pattern, _cell(row["axis"]), _cell(row["stride_bytes"]),
                     row["block_elems"], _cell(row["coalesced"]), _cell(row["vector_bytes"]),
                     _cell(row["best_vector_bytes"]), row["reason"]])
    return "\n".join(_table(header, rows)) if rows else ""


def print_address_report(kernel):
    """Prints format_address_report(kernel)."""
    print(format_address_report(kernel))
