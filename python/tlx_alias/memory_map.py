"""The memory map of a compiled kernel's storage alias specs, as the compiler
laid them out (recorded by tlx-storage-alias-lowering, not recomputed)."""
import json


def memory_map(kernel):
    """One dict per storage_alias_spec of a compiled kernel (a CompiledKernel,
    e.g. from `triton.compile` or `kernel.warmup(...)`): its size and, per
    view, offset, bytes between buffers, buffer size and expanded shape."""
    metadata = getattr(kernel, "metadata", kernel)
    text = getattr(metadata, "tlx_memory_map", None)
    if text is None and isinstance(metadata, dict):
        text = metadata.get("tlx_memory_map")
    return json.loads(text) if text else []


def format_memory_map(kernel):
    lines = []
    for spec in memory_map(kernel):
        size = spec["size"]
        lines.append(f"storage_alias_spec in {spec['function']} ({spec['storage']}, "
                     f"{size} bytes{', explicit' if spec['explicit_size'] else ''}, "
                     f"aligned {spec['alignment']}) at {spec['location']}")
        lines.append(f"  {'offset':>8} {'stride':>8} {'buffer':>8} {'num':>4}  {'expanded shape':<16} view")
        for view in spec["views"]:
            shape = "x".join(map(str, view["expanded_shape"]))
            slots = f" ({view['slot_bytes']}-byte slots)" if view["slot_bytes"] else ""
            lines.append(f"  {view['offset']:>8} {view['bytes_between_buffers']:>8} {view['buffer_bytes']:>8} "
                         f"{view['num_buffers']:>4}  {shape + slots:<16} {view['type']}")
    return "\n".join(lines)


def print_memory_map(kernel, file=None):
    print(format_memory_map(kernel), file=file)
