"""The SM clock, power and throttle reasons while each attention kernel runs
back to back, from nvidia-smi sampled every 100 ms: whether a kernel is
held by the power cap, and at what clock. The backward (default): ours,
examples/hopper_flash_attention_bwd.py's default, and SDPA's; --forward:
examples/hopper_flash_attention.py's default, SDPA and FlashAttention-3
(bf16, where fa3_fwd imports).

    python benchmarks/attention_clocks.py [--forward] [--shapes 16384:256:0 4096:256:1] [--seconds 3] [--out DIR]

Shapes are N:D:causal (batch * N = 16384 tokens, 32 heads), by default
head dim 128 at N = 16384 and 4096, causal and not; bf16; each provider
twice, in turns, the first 0.5 s of each spell left out. Writes DIR/smi.csv
(the samples) and prints a table (DIR/clocks.txt too)."""
import argparse
import datetime
import os
import subprocess
import sys
import time

import sides

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUERY = "timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active"


def backward_providers():
    """name -> make(q, k, v, o, do, lse, causal) -> fn(), attention_bwd.py's."""
    import attention_bwd
    table = attention_bwd.providers(False, quick=True, candidates=[])  # attention_bwd.py's makers, SDPA's included
    return {"ours": table["tlx_alias aliased (default config)"][0], "sdpa": table["torch SDPA"][0]}


def forward_providers():
    """name -> make(q, k, v, o, do, lse, causal) -> fn(), the forwards."""
    import torch
    import attention
    import hopper_flash_attention as fwd
    makers = {"ours": lambda q, k, v, o, do, lse, causal: lambda: fwd.attention(q, k, v, causal=causal),
              "sdpa": lambda q, k, v, o, do, lse, causal:
              lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)}
    fa3 = attention.fa3_attention()
    if fa3:
        makers["fa3"] = lambda q, k, v, o, do, lse, causal: lambda: fa3(q, k, v, causal)
    return makers


def spells(seconds, shapes, forward):
    """(shape, provider, t0, t1, ms a call) of each back-to-back spell."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import hopper_flash_attention as fwd
    makers = forward_providers() if forward else backward_providers()
    for n, d, causal in shapes:
        torch.manual_seed(0)
        q, k, v = (torch.randn(16384 // n, 32, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        o, lse = fwd.attention(q, k, v, causal=causal, return_lse=True)
        do = torch.randn_like(o)
        fns = {name: make(q, k, v, o, do, lse, causal) for name, make in makers.items()}
        for _ in range(2):
            for name, fn in fns.items():
                fn()
                torch.cuda.synchronize()
                t0, calls = time.time(), 0
                while time.time() - t0 < seconds:
                    fn()
                    calls += 1
                    if calls % 4 == 0:
                        torch.cuda.synchronize()
                torch.cuda.synchronize()
                t1 = time.time()
                yield (n, d, causal), name, t0, t1, (t1 - t0) * 1e3 / calls
                time.sleep(1.0)


def samples(path):
    """(time, SM MHz, W, deg C, throttle reasons) of each nvidia-smi line (its local time, as time.time's)."""
    rows = []
    for line in open(path):
        parts = [p.strip() for p in line.split(",")]
        try:
            stamp = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            rows.append((stamp, float(parts[1]), float(parts[2]), float(parts[3]), parts[4]))
        except (ValueError, IndexError):  # a header or a cut line
            pass
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="each spell's length")
    parser.add_argument("--out", default=".", help="the folder for smi.csv and clocks.txt")
    parser.add_argument("--forward", action="store_true", help="the forwards (ours, SDPA, FA3) instead")
    parser.add_argument("--shapes", nargs="+", type=sides.parse_shape, metavar="N:D:CAUSAL",
                        default=[(16384, 128, False), (16384, 128, True), (4096, 128, False), (4096, 128, True)])
    args = parser.parse_args()
    csv = os.path.join(args.out, "smi.csv")
    with open(csv, "w") as log:
        smi = subprocess.Popen(["nvidia-smi", f"--query-gpu={QUERY}", "--format=csv,noheader,nounits", "-lms", "100"],
                               stdout=log)
        try:
            marks = list(spells(args.seconds, args.shapes, args.forward))
        finally:
            smi.terminate()
            smi.wait()
    rows = samples(csv)
    lines = [f"{'N':>6} {'D':>4} {'causal':>6} {'provider':>8} {'ms':>8} {'SM MHz':>7} {'W':>6} {'temp':>5} throttle"]
    for (n, d, causal), name, t0, t1, ms in marks:
        spell = [r for r in rows if t0 + 0.5 <= r[0] <= t1]
        if not spell:
            lines.append(f"{n:6} {d:4} {str(causal):>6} {name:>8} {ms:8.3f} (no samples)")
            continue
        mean = [sum(r[i] for r in spell) / len(spell) for i in (1, 2)]
        lines.append(f"{n:6} {d:4} {str(causal):>6} {name:>8} {ms:8.3f} {mean[0]:7.0f} {mean[1]:6.0f} "
                     f"{max(r[3] for r in spell):5.0f} {','.join(sorted({r[4] for r in spell}))}")
    print("\n".join(lines))
    with open(os.path.join(args.out, "clocks.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
