"""Option sets of the attention forward, and FlashAttention-3, side by side
in SM cycles as Nsight Compute counts them: one profiled launch per ncu run,
in rounds that each start one provider later. Cycles barely move with the
clock that power draw sets, where milliseconds do (one kernel's rounds
spread +-10% on an H100: benchmarks/README.md), so an A/B of well under 1%
shows; the acceptance numbers stay attention.py's milliseconds.

    python benchmarks/attention_cycles.py '{"default": {}, "unchained": {"_env": {"TLX_ALIAS_UNCHAINED_WAITS": "1"}}}' \\
        --shapes 16384:128:1 4096:256:1 --fa3 --rounds 3 --out $OUT/cycles.jsonl

Each run is `ncu --clock-control none --cache-control all --metrics METRICS
-k regex:KERNELS --launch-skip 1 --launch-count 1 python attention_profile.py
...` (the first launch compiles). A set's "_env" is the environment of its
runs, its "_examples" the examples folder its runs import (another commit's:
`git archive REV examples | tar -x -C DIR`); every set compiles into its own
TRITON_CACHE_DIR, since a switch read at compile time is not in triton's
cache key. Shapes are N:D:causal with
batch * N = 16384 tokens and 32 heads (attention_profile.py's); --dtype
bfloat16 (default) or float16. A line per shape gives each provider's median
elapsed cycles, the share of them its SMs were active, the least active
SM's over the most active's, its L2 hit rate, the bytes it read from DRAM
and its ratio to the first set's (and FA3's); the rows, every round's
metrics, go to --out as JSON lines.
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = ("gpc__cycles_elapsed.max", "sm__cycles_active.avg", "sm__cycles_active.min", "sm__cycles_active.max",
           "sm__inst_executed.sum", "gpu__time_duration.sum", "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum")
KERNELS = "attn_fwd_kernel|device_kernel"  # ours, FA3's (cutlass's device_kernel)
FA3 = "FlashAttention-3"


def ncu_command(ncu, log, n, d, causal, dtype, options=None, examples=None):
    """The ncu run profiling one launch of the forward at (n, d, causal):
    the example with `options` (from the `examples` folder where given), or
    FA3 where options is None."""
    which = ["--fa3"] if options is None else ["--options", json.dumps(options)]
    which += ["--examples", examples] if examples else []
    return [ncu, "--clock-control", "none", "--cache-control", "all", "--csv", "--print-units", "base",
            "--log-file", log, "--metrics", ",".join(METRICS), "-k", f"regex:{KERNELS}", "--launch-skip", "1", "--launch-count", "1",
            sys.executable, os.path.join(HERE, "attention_profile.py"), "--head-dim", str(d), "--n", str(n),
            "--dtype", dtype, "--launches", "2", *(["--causal"] if causal else []), *which]


def parse_ncu_csv(text):
    """{metric: value} of the one kernel in ncu's --csv details output
    (base units: cycles, instructions, nanoseconds; numbers may carry
    thousands separators); ValueError naming what is
    missing where the output holds no such kernel."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise ValueError(f"ncu printed no metrics table (no kernel matched {KERNELS!r}?): {text[-400:]!r}")
    values, kernels = {}, set()
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        if row.get("Metric Name") in METRICS:
            kernels.add(row["ID"])
            values[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    if len(kernels) != 1 or set(values) != set(METRICS):
        raise ValueError(f"expected {len(METRICS)} metrics of one kernel, got {sorted(values)} "
                         f"of {len(kernels)} kernel(s)")
    return values


def summary(rows, baseline):
    """One line of a shape's rows: each provider's median elapsed cycles,
    its SMs' median active cycles ("active": the tile's own work, apart
    from the schedule's), the median share of elapsed cycles its SMs were
    active ("busy": below the other provider's, its programs end apart or
    start late), the least active SM's cycles over the most active's
    ("ends": how far apart programs that start together end), its L2 hit
    rate and DRAM bytes read (K/V read more than once: Q, K and V are each
    read once at best), its ratio to `baseline`'s and, where FA3 ran, FA3's
    over its own (above 1: fewer cycles than FA3)."""
    by_name = {}
    for row in rows:
        by_name.setdefault(row["name"], []).append(row)

    def median_of(name, of):
        return statistics.median(of(row) for row in by_name[name])
    median = {name: median_of(name, lambda row: row["gpc__cycles_elapsed.max"]) for name in by_name}
    parts = []
    for name, value in median.items():
        active = median_of(name, lambda row: row["sm__cycles_active.avg"])
        busy = median_of(name, lambda row: row["sm__cycles_active.avg"] / row["gpc__cycles_elapsed.max"])
        ends = median_of(name, lambda row: row["sm__cycles_active.min"] / row["sm__cycles_active.max"])
        l2_hit = median_of(name, lambda row: row["lts__t_sector_hit_rate.pct"])
        dram = median_of(name, lambda row: row["dram__bytes_read.sum"])
        text = (f"{name}={value / 1e6:.3f}M active {active / 1e6:.3f}M busy {100 * busy:.1f}% ends {100 * ends:.1f}% "
                f"L2 {l2_hit:.1f}% DRAM {dram / 1e6:.0f}MB")
        if name != baseline:
            text += f" x{median[baseline] / value:.4f}"
        if FA3 in median and name != FA3:
            text += f" FA3/it {median[FA3] / value:.4f}"
        parts.append(text)
    return " ".join(parts)


def profile_once(ncu, scratch, name, options, n, d, causal, dtype):
    """One ncu run of provider `name` (options None: FA3; an "_env" entry is
    its environment, an "_examples" entry the examples folder it imports)
    at (n, d, causal): {metric: value}. Every provider compiles into its
    own triton cache under `scratch`."""
    options = None if options is None else dict(options)
    env = dict(os.environ, **(options.pop("_env", {}) if options else {}))
    env["TRITON_CACHE_DIR"] = os.path.join(scratch, "cache", name)
    examples = options.pop("_examples", None) if options else None
    log = os.path.join(scratch, "ncu.csv")
    done = subprocess.run(ncu_command(ncu, log, n, d, causal, dtype, options, examples), env=env,
                          capture_output=True, text=True)
    text = ""
    if os.path.exists(log):
        with open(log) as csv_log:
            text = csv_log.read()
        os.remove(log)
    if done.returncode != 0:
        raise ValueError(f"ncu exited {done.returncode}: {(done.stderr or text)[-600:]}")
    return parse_ncu_csv(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("options", help='JSON: {"name": {keyword: value, ..., "_env": {...}}, ...}')
    parser.add_argument("--shapes", nargs="+", required=True, metavar="N:D:CAUSAL")
    parser.add_argument("--fa3", action="store_true", help="FlashAttention-3 too (bf16)")
    parser.add_argument("--dtype", choices=("bfloat16", "float16"), default="bfloat16")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ncu", default="ncu")
    parser.add_argument("--out", help="append the rows as JSON lines to this file")
    args = parser.parse_args()
    sets = json.loads(args.options)
    providers = list(sets.items()) + ([(FA3, None)] if args.fa3 else [])
    scratch = tempfile.mkdtemp(prefix="attention_cycles_")
    out = open(args.out, "a") if args.out else None
    for shape in args.shapes:
        n, d, causal = (int(part) for part in shape.split(":"))
        rows = []
        for r in range(args.rounds):  # each round starts one provider later
            for name, options in providers[r % len(providers):] + providers[:r % len(providers)]:
                try:
                    metrics = profile_once(args.ncu, scratch, name, options, n, d, bool(causal), args.dtype)
                except ValueError as error:
                    sys.exit(f"attention_cycles: {name} at {shape}: {error}")
                rows.append(dict(name=name, N=n, D=d, causal=bool(causal), dtype=args.dtype, round=r,
                                 options=sets.get(name), **metrics))
                if out:
                    out.write(json.dumps(rows[-1]) + "\n")
                    out.flush()
        print(shape, summary(rows, providers[0][0]), flush=True)


if __name__ == "__main__":
    main()
