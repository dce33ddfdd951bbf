"""The peer's Hopper GEMM tutorials under tlx_alias (stock triton 3.7.1) and
under the peer (fbtriton 3.7.4), side by side: correctness against
torch.matmul, time and TFLOP/s, and the ratio tlx_alias / peer.

    python benchmarks/tlx_hopper.py            # both sides, each in its own process
    python benchmarks/tlx_hopper.py --side ours --out ours.jsonl

Environment for the two processes (the peer is a replacement `triton`, so it
never shares a process with tlx_alias): TLX_PEER_PYTHONPATH (required) and
TLX_OURS_PYTHONPATH (optional) are put first on each one's PYTHONPATH
(benchmarks/sides.py). Tutorials are read from the peer's install
(test/support/tutorials.py).
"""
import argparse
import json
import os
import sys

import sides

HERE = os.path.dirname(os.path.abspath(__file__))
SUPPORT = os.path.join(os.path.dirname(HERE), "test", "support")  # tutorials.py
SIZES = [(8192, 8192, 8192), (4096, 4096, 4096)]

# One fixed configuration per tutorial, the same on both sides (the
# tutorials' own autotuning is kept where it is small: the two persistent ones).
CONFIGS = {
    "hopper_gemm_pipelined": dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8,
                                  NUM_STAGES=3, num_warps=8),
    "hopper_gemm_ws": dict(BM=128, BN=256, BK=64, GROUP_SIZE_M=8, NUM_STAGES=3, NUM_MMA_WARPS=8,
                           NUM_MMA_GROUPS=2, EPILOGUE_SUBTILE=True, NUM_CTAS=1, USE_WARP_BARRIER=False,
                           num_warps=4, num_stages=1),
}


def run_side(side, out_path, names):
    sys.path.insert(0, SUPPORT)
    if side == "ours":
        import tlx_alias  # noqa: F401  (registers the plugin and the hooks)
    import torch
    import triton
    import tutorials

    def call(module, name, a, b):
        if name in CONFIGS:
            return module.matmul(a, b, config=dict(CONFIGS[name]))
        return module.matmul_tlx_ws_persistent(a, b)

    with open(out_path, "a") as out:
        for name in names:
            try:
                module = tutorials.load(name, for_tlx_alias=(side == "ours"))
            except Exception as error:  # a tutorial that does not load is a result too
                out.write(json.dumps(dict(side=side, name=name, error=f"load: {error}"[:2000])) + "\n")
                continue
            for m, n, k in SIZES:
                row = dict(side=side, name=name, M=m, N=n, K=k)
                try:
                    torch.manual_seed(0)
                    a = torch.randn((m, k), device="cuda", dtype=torch.float16)
                    b = torch.randn((k, n), device="cuda", dtype=torch.float16)
                    c = call(module, name, a, b)
                    ref = torch.matmul(a, b)
                    row["max_abs_err"] = (c.float() - ref.float()).abs().max().item()
                    row["ref_max"] = ref.float().abs().max().item()
                    row["correct"] = bool(row["max_abs_err"] <= 1e-2 * row["ref_max"])
                    ms = triton.testing.do_bench(lambda: call(module, name, a, b), warmup=100, rep=500)
                    row["ms"] = ms
                    row["tflops"] = 2 * m * n * k / ms * 1e-9
                    if side == "ours":
                        ms_ref = triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=100, rep=500)
                        row["cublas_tflops"] = 2 * m * n * k / ms_ref * 1e-9
                except Exception as error:
                    row["error"] = f"{type(error).__name__}: {error}"[:3000]
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(json.dumps(row), flush=True)


def compare(out_dir, names):
    rows = sides.run_both_sides(__file__, out_dir, "tlx_hopper", names)
    by_key = {}
    for row in rows:
        by_key.setdefault((row["name"], row.get("M"), row.get("K")), {})[row["side"]] = row
    print(f"\n{'tutorial':40} {'M=N':>6} {'K':>6} {'ours ms':>9} {'peer ms':>9} {'ours/peer':>9} "
          f"{'ours TF/s':>9} {'peer TF/s':>9} {'cuBLAS':>7} correct")
    for (name, m, k), by_side in by_key.items():
        ours, peer = by_side.get("ours", {}), by_side.get("peer", {})
        if m is None:
            print(f"{name:40} load failed: ours {ours.get('error', '')[:80]} peer {peer.get('error', '')[:80]}")
            continue
        ratio = ours["ms"] / peer["ms"] if "ms" in ours and "ms" in peer else float("nan")
        fmt = lambda r, key, spec: format(r[key], spec) if key in r else "-"  # noqa: E731
        print(f"{name:40} {m:>6} {k:>6} {fmt(ours, 'ms', '9.3f')} {fmt(peer, 'ms', '9.3f')} {ratio:9.3f} "
              f"{fmt(ours, 'tflops', '9.1f')} {fmt(peer, 'tflops', '9.1f')} {fmt(ours, 'cublas_tflops', '7.1f')} "
              f"{ours.get('correct', ours.get('error', '-'))!s:.60} / {peer.get('correct', peer.get('error', '-'))!s:.60}")


def markdown(rows):
    """benchmarks/README.md's table: each tutorial and size, both sides'
    times and TFLOP/s, cuBLAS's beside them (timed on the tlx_alias side)."""
    by_key = {}
    for row in rows:
        if "ms" in row:
            by_key.setdefault((row["name"], row["M"], row["N"], row["K"]), {})[row["side"]] = row
    lines = ["| tutorial | size | tlx_alias ms | peer ms | ratio | tlx_alias TFLOP/s | peer TFLOP/s | cuBLAS TFLOP/s | "
             "exact |", "|---|---|---|---|---|---|---|---|---|"]
    for (name, m, n, k), by_side in by_key.items():
        ours, peer = by_side.get("ours"), by_side.get("peer")
        if not (ours and peer):
            continue
        size = f"{m}³" if m == n == k else f"{m}×{n}×{k}"
        exact = "yes" if ours["max_abs_err"] == peer["max_abs_err"] == 0 else \
            f"{ours['max_abs_err']:.3g} / {peer['max_abs_err']:.3g}"
        lines.append(f"| {name} | {size} | {ours['ms']:.3f} | {peer['ms']:.3f} | {ours['ms'] / peer['ms']:.3f} | "
                     f"{ours['tflops']:.1f} | {peer['tflops']:.1f} | {ours['cublas_tflops']:.1f} | {exact} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", default=None)
    parser.add_argument("--side", choices=["ours", "peer"])
    parser.add_argument("--out")
    parser.add_argument("--out-dir", default=os.environ.get("OUT", "/tmp"))
    args = parser.parse_args()
    sys.path.insert(0, SUPPORT)
    from tutorials import HOPPER_GEMM
    names = args.names or HOPPER_GEMM
    if args.side:
        run_side(args.side, args.out, names)
    else:
        compare(args.out_dir, names)


if __name__ == "__main__":
    main()
