"""The memory map as a picture: each storage_alias_spec drawn as byte ranges.

x is the byte (or tensor-memory column) offset inside the spec, one row per
buffer slot (`name[i]`), one colour per buffer; buffers that share storage
line up in x, distinct ones sit side by side; storage no buffer uses
(padding between and after slots) is hatched in the spec's first row. Every
rect carries its numbers as `data-*` attributes and a tooltip naming the
buffer's kernel line.
"""
import html

from .memory_map import _short_type, _where, memory_map

WIDTH = 960
LABEL_WIDTH = 190
PLOT_WIDTH = WIDTH - LABEL_WIDTH - 20
ROW_HEIGHT = 16
ROW_GAP = 4
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"]


def buffer_start(view, i):
    """Where buffer i of a view starts: its offset, i's position among the
    group_size subtiles, and the spec's stride for the rest (the lowering's
    rule)."""
    start = view["offset"]
    for group_size, between in reversed(view.get("subtiles", [])):
        start += (i % group_size) * between
        i //= group_size
    return start + i * view["bytes_between_buffers"]


def slots(spec):
    """(view, i, start, end) for every buffer slot of a spec."""
    return [(view, i, buffer_start(view, i), buffer_start(view, i) + view["buffer_bytes"])
            for view in spec["views"] for i in range(view["num_buffers"])]


def unused_ranges(spec):
    """[start, end) ranges of the spec's storage that no buffer slot covers."""
    covered = sorted((start, end) for _, _, start, end in slots(spec))
    gaps, cursor = [], 0
    for start, end in covered:
        if start > cursor:
            gaps.append((cursor, start))
        cursor = max(cursor, end)
    if cursor < spec["size"]:
        gaps.append((cursor, spec["size"]))
    return gaps


def view_label(view):
    """The buffer's name in the kernel, or (IR without names) where it is allocated."""
    return view.get("name") or f"view@{_where(view['location'])}"


def _x(offset, size):
    return LABEL_WIDTH + offset * PLOT_WIDTH / size


def _spec_svg(spec, top):
    """SVG elements of one spec starting at y = top, and the y after it."""
    size, unit = spec["size"], "columns" if spec["storage"] == "tmem" else "bytes"
    name = f"'{spec['name']}' " if spec.get("name") else ""
    out = [f'<text x="4" y="{top + 14}" class="title">storage_alias_spec {html.escape(name)}in '
           f'{html.escape(spec["function"])} ({spec["storage"]}, {size} {unit}) at '
           f'{html.escape(_where(spec["location"]))}</text>']
    y = top + 24
    for k in range(5):  # axis: offsets at 0, 1/4 ... 1
        offset = size * k // 4
        out.append(f'<line x1="{_x(offset, size):.2f}" y1="{y}" x2="{_x(offset, size):.2f}" y2="{y + 5}" '
                   f'class="tick"/><text x="{_x(offset, size):.2f}" y="{y + 16}" class="axis">{offset}</text>')
    y += 22
    out.append(f'<text x="4" y="{y + 12}" class="label">unused</text>')
    for start, end in unused_ranges(spec):
        out.append(f'<rect class="unused" x="{_x(start, size):.2f}" y="{y}" '
                   f'width="{(end - start) * PLOT_WIDTH / size:.2f}" height="{ROW_HEIGHT}" '
                   f'data-start="{start}" data-end="{end}"><title>unused: {unit} [{start}, {end})</title></rect>')
    y += ROW_HEIGHT + ROW_GAP
    for v, view in enumerate(spec["views"]):
        colour = PALETTE[v % len(PALETTE)]
        for i in range(view["num_buffers"]):
            start = buffer_start(view, i)
            label = f"{view_label(view)}[{i}]"
            tip = (f"{label}: {unit} [{start}, {start + view['buffer_bytes']}), {_short_type(view['type'])}, "
                   f"{_where(view['location'])}")
            out.append(f'<text x="4" y="{y + 12}" class="label">{html.escape(label)}</text>')
            out.append(f'<rect class="buffer" x="{_x(start, size):.2f}" y="{y}" '
                       f'width="{view["buffer_bytes"] * PLOT_WIDTH / size:.2f}" height="{ROW_HEIGHT}" '
                       f'fill="{colour}" data-view="{html.escape(view_label(view))}" data-index="{i}" '
                       f'data-start="{start}" data-end="{start + view["buffer_bytes"]}">'
                       f'<title>{html.escape(tip)}</title></rect>')
            y += ROW_HEIGHT + ROW_GAP
    return out, y + 16


def memory_map_svg(specs):
    """An SVG document drawing the given memory-map specs (the dicts of
    `memory_map(kernel)`, or the JSON lines of tlx-opt's `memory-map=`)."""
    body, y = [], 8
    for spec in specs:
        elements, y = _spec_svg(spec, y)
        body += elements
    if not specs:
        body.append('<text x="4" y="20" class="title">no storage_alias_spec</text>')
        y = 32
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" viewBox="0 0 {WIDTH} {y}" '
        f'font-family="monospace" font-size="11">',
        '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#999" stroke-width="2"/>'
        '</pattern></defs>',
        '<style>.title{font-weight:bold}.axis{fill:#555;text-anchor:middle}.tick{stroke:#555}'
        '.unused{fill:url(#hatch);stroke:#999}.buffer{stroke:#222;stroke-width:0.5;fill-opacity:0.85}</style>',
        *body,
        "</svg>",
        "",
    ])


def save_memory_map(kernel, path):
    """Draws the memory map of a compiled kernel (see memory_map) as SVG to `path`."""
    with open(path, "w") as f:
        f.write(memory_map_svg(memory_map(kernel)))
