"""Writes the tables of benchmarks/README.md from the results files they name,
so that no number there is typed by hand.

A table sits between two marker lines; the first names how it is made and
from which files (paths relative to benchmarks/):

    <!-- table: attention results/a-ours.jsonl results/a-peer.jsonl -->
    ...written by this script...
    <!-- end table -->

    python benchmarks/make_readme.py           # rewrites benchmarks/README.md
    python benchmarks/make_readme.py --check   # exits 1 if it is not what the files give

Kinds: attention, attention-tutorials (benchmarks/attention.py's), attention-bwd
(benchmarks/attention_bwd.py's), hopper-gemm-alias
(benchmarks/hopper_gemm_alias.py's), gemm-tutorials (benchmarks/tlx_hopper.py's),
gpu-tests (the pytest summary line of each log), text (a file as it is, without
its '#' comment lines). Only the standard library is needed: the tables are
made on any machine.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import attention  # noqa: E402
import attention_bwd  # noqa: E402
import hopper_gemm_alias  # noqa: E402
import sides  # noqa: E402
import tlx_hopper  # noqa: E402

README = os.path.join(HERE, "README.md")
TABLE = re.compile(r"^<!-- table: (\S+)((?: \S+)+) -->\n(.*?)^<!-- end table -->\n", re.M | re.S)


def _read(path):
    with open(path) as f:
        return f.read()


def gpu_tests(paths):
    """One row per pytest log: its file and its last summary line."""
    lines = ["| log | result |", "|---|---|"]
    for path in paths:
        summaries = re.findall(r"^[#=\s]*(\d+ (?:passed|failed)[^=\n]*?)[=\s]*$", _read(path), re.M)
        lines.append(f"| `{os.path.relpath(path, os.path.dirname(HERE))}` | {summaries[-1] if summaries else 'no summary'} |")
    return "\n".join(lines)


def text(paths):
    """The files as they are, in one code block, without '#' comment lines."""
    body = "".join(line for path in paths for line in _read(path).splitlines(keepends=True)
                   if not line.startswith("#"))
    return "```\n" + body.strip("\n") + "\n```"


KINDS = {
    "attention": lambda paths: attention.markdown(sides.read_rows(paths)),
    "attention-tutorials": lambda paths: attention.markdown_tutorials(sides.read_rows(paths)),
    "attention-bwd": lambda paths: attention_bwd.markdown(sides.read_rows(paths)),
    "hopper-gemm-alias": lambda paths: hopper_gemm_alias.markdown(sides.read_rows(paths)),
    "gemm-tutorials": lambda paths: tlx_hopper.markdown(sides.read_rows(paths)),
    "gpu-tests": gpu_tests,
    "text": text,
}


def render(readme):
    """`readme` with every marked table made again from its files."""
    def table(match):
        kind, names = match.group(1), match.group(2).split()
        if kind not in KINDS:
            raise ValueError(f"benchmarks/README.md: unknown table kind {kind!r} (known: {', '.join(KINDS)})")
        paths = [os.path.join(HERE, name) for name in names]
        missing = [name for name, path in zip(names, paths) if not os.path.isfile(path)]
        if missing:
            raise FileNotFoundError(f"benchmarks/README.md: the {kind} table names missing files: {missing}")
        return f"<!-- table: {kind} {' '.join(names)} -->\n{KINDS[kind](paths)}\n<!-- end table -->\n"
    return TABLE.sub(table, readme)


def cited_results(readme):
    """The results files the tables are made from."""
    return {name for match in TABLE.finditer(readme) for name in match.group(2).split()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 if README.md differs from what the files give")
    args = parser.parse_args()
    current = _read(README)
    made = render(current)
    if args.check:
        if made != current:
            sys.exit("benchmarks/README.md is stale: run python benchmarks/make_readme.py")
        return
    with open(README, "w") as f:
        f.write(made)


if __name__ == "__main__":
    main()
