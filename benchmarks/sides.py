"""Runs a benchmark's two sides, each in its own process: "ours" (stock triton
3.7.1 with tlx_alias) and "peer" (fbtriton, a replacement `triton`, so it never
shares a process with tlx_alias), and reads back their JSON-lines results.

TLX_PEER_PYTHONPATH (required: a folder fbtriton 3.7.4 is installed in, e.g.
`pip install --target DIR fbtriton==3.7.4`) and TLX_OURS_PYTHONPATH (optional:
a folder holding triton and tlx_alias when they are not the environment's own)
go first on each side's PYTHONPATH.
"""
import functools
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIDES = [("ours", "TLX_OURS_PYTHONPATH"), ("peer", "TLX_PEER_PYTHONPATH")]


def round_order(count, r):
    """The order in which round r runs `count` kernels (their indices): a
    Williams design. Rotations alone let every kernel follow the same one in
    each round, and on an H200 a kernel right after a hot one runs slower
    (benchmarks/README.md); here, over a cycle of `count` rounds (2 * count
    when it is odd), each kernel comes right after every other equally often
    and holds every place equally often."""
    if count <= 1:
        return list(range(count))
    base, low, high = [0], 1, count - 1
    while len(base) < count:  # 0, 1, n-1, 2, n-2, ...
        base.append(low)
        low += 1
        if len(base) < count:
            base.append(high)
            high -= 1
    order = [(i + r) % count for i in base]
    return order[::-1] if count % 2 and (r // count) % 2 else order


SPACER = "(spacer GEMM)"


@functools.cache
def _spacer_matrix():
    import torch
    return torch.randn(4096, 4096, device="cuda", dtype=torch.float16)


def between_rounds(rep_ms=30):
    """The same fp16 4096^3 GEMM for rep_ms before every round. Without it a
    round's first kernel follows the previous round's last, pairs outside
    round_order's balance: in 24 rounds of four kernels the aliased forward
    followed its twin 11 times, FA3 and SDPA 6 each (benchmarks/README.md).
    With it, over a cycle, each kernel follows every other and the spacer
    equally often. SPACER is the "after" of each round's first kernel."""
    import triton
    a = _spacer_matrix()
    triton.testing.do_bench(lambda: a @ a, warmup=0, rep=rep_ms)


def parse_shape(text):
    """An attention shape on the command line, N:D:CAUSAL, as (n, d, causal)."""
    n, d, causal = (int(part) for part in text.split(":"))
    return n, d, bool(causal)


def read_rows(paths):
    """The result rows of JSON-lines files (missing files give none)."""
    rows = []
    for path in paths:
        if os.path.exists(path):
            with open(path) as f:
                rows += [json.loads(line) for line in f if line.strip()]
    return rows


def run_both_sides(script, out_dir, stem, args=()):
    """Runs `script --side <side> --out <out_dir>/<stem>_<side>.jsonl [args]`
    for each side and returns the rows both wrote."""
    if not os.environ.get("TLX_PEER_PYTHONPATH"):
        sys.exit("TLX_PEER_PYTHONPATH is not set: point it at a folder fbtriton 3.7.4 is installed in "
                 "(pip install --target DIR fbtriton==3.7.4), or run one side with --side ours")
    paths = []
    for side, var in SIDES:
        path = os.path.join(out_dir, f"{stem}_{side}.jsonl")
        if os.path.exists(path):
            os.unlink(path)
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        pythonpath = [os.environ[var]] if os.environ.get(var) else []
        if side == "ours":
            pythonpath.append(os.path.join(ROOT, "python"))
        else:
            env.pop("TRITON_PLUGIN_PATHS", None)
        env["PYTHONPATH"] = os.pathsep.join(pythonpath)
        subprocess.run([sys.executable, script, "--side", side, "--out", path, *args], env=env, check=False)
        paths.append(path)
    return read_rows(paths)
