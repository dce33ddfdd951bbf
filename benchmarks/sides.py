"""Runs a benchmark's two sides, each in its own process: "ours" (stock triton
3.7.1 with tlx_alias) and "peer" (fbtriton, a replacement `triton`, so it never
shares a process with tlx_alias), and reads back their JSON-lines results.

TLX_OURS_PYTHONPATH and TLX_PEER_PYTHONPATH go first on each side's
PYTHONPATH (defaults: the staging folders of the device README).
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIDES = [("ours", "TLX_OURS_PYTHONPATH", "/tmp/stage/site"), ("peer", "TLX_PEER_PYTHONPATH", "/tmp/fbsite")]


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
    paths = []
    for side, var, default in SIDES:
        path = os.path.join(out_dir, f"{stem}_{side}.jsonl")
        if os.path.exists(path):
            os.unlink(path)
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        pythonpath = [os.environ.get(var, default)]
        if side == "ours":
            pythonpath.append(os.path.join(ROOT, "python"))
        else:
            env.pop("TRITON_PLUGIN_PATHS", None)
        env["PYTHONPATH"] = os.pathsep.join(pythonpath)
        subprocess.run([sys.executable, script, "--side", side, "--out", path, *args], env=env, check=False)
        paths.append(path)
    return read_rows(paths)
