"""Flash-attention backward on Hopper, in one run: the aliased example
(examples/hopper_flash_attention_bwd.py, its default config and each of its
CANDIDATES, or those --candidates names: LSE/delta through the ring with the
atomics, at head dim 64 also dQ's atomics deferred a step, dQ by each
consumer's whole-width TMA reduce-add, leader arrives, dQ halves, causal Q
blocks ascending), its unaliased twin, and torch SDPA's backward
(the backend torch dispatches to, named in the output from the kernels a
profiler sees; --backends adds each SDPA backend forced on its own;
without --quick, also the 4-deep Q/dO ring with dS over dO at head dim 128).

    python benchmarks/attention_bwd.py [--quick] [--backends] [--candidates NAME ...] [--out bwd.jsonl]

Shapes: N in {1024, 4096, 16384} with batch * N = 16384 tokens, 32 heads,
head dims {64, 128}, causal and not, bf16 (--dtype fp16). Our backward's time holds
everything that attention_backward launches (delta = rowsum(O dO), the zeroed
fp32 dQ, the kernel, dQ's conversion); SDPA's is `out.backward(dO)` of
a forward already run (its own preprocessing included). TFLOP/s count 2.5x
the forward's 4 * B * H * N^2 * D (half of it when causal). Providers take
turns in rounds (the GPU's clock drifts): each time is the median over
rounds of do_bench medians. Errors: max abs differences from SDPA's
gradients.
"""
import argparse
import json
import math
import os
import statistics
import sys

import sides

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HEADS = 32
TOKENS = 16384
SEQ_LENS = [1024, 4096, 16384]
HEAD_DIMS = [64, 128]


def shapes(quick):
    for n in (SEQ_LENS[:2] if quick else SEQ_LENS):
        for d in HEAD_DIMS:
            for causal in (False, True):
                yield TOKENS // n, HEADS, n, d, causal


def providers(backends, quick=False, candidates=None):
    """name -> (make(q, k, v, o, do, lse, causal) -> a function timing one backward, head dims); candidates: the
    names of fab.CANDIDATES to time (None: all)."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import hopper_flash_attention_bwd as fab

    def ours(**options):

        def make(q, k, v, o, do, lse, causal):
            return lambda: fab.attention_backward(q, k, v, o, do, lse, causal=causal, **options)

        return make

    def sdpa(backend=None):

        def make(q, k, v, o, do, lse, causal):
            q, k, v = (t.detach().clone().requires_grad_() for t in (q, k, v))
            if backend is None:
                out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
            else:
                with torch.nn.attention.sdpa_kernel([backend]):
                    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
            return lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True)

        return make

    out = {"tlx_alias aliased (default config)": (ours(alias=True), (64, 128))}
    unknown = set(candidates or ()) - set(fab.CANDIDATES)
    if unknown:
        sys.exit(f"attention_bwd.py: no candidates named {sorted(unknown)} (there are {sorted(fab.CANDIDATES)})")
    for name, (options, dims) in fab.CANDIDATES.items():
        if candidates is not None and name not in candidates:
            continue
        out[f"tlx_alias aliased, {name}"] = (ours(alias=True, **options), dims) + (
            ((False, ), ) if options.get("cluster", 1) > 1 else ())  # clusters run non-causal only
    if not quick:
        out["tlx_alias aliased, 4 Q/dO stages, dS over dO"] = (ours(alias=True, stages=4, ds_over_do=True), (128, ))
    out["tlx_alias unaliased twin"] = (ours(alias=False), (64, 128))
    out["torch SDPA"] = (sdpa(), (64, 128))
    if backends:
        from torch.nn.attention import SDPBackend
        for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION):
            out[f"torch SDPA forced {backend.name}"] = (sdpa(backend), (64, 128))
    return out


def sdpa_backend(q, k, v, do, causal):
    """The CUDA kernels of SDPA's forward and backward, as the profiler sees them."""
    import torch
    q, k, v = (t.detach().clone().requires_grad_() for t in (q, k, v))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal).backward(do)
        torch.cuda.synchronize()
    names = {e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA}
    keys = ("flash", "fmha", "cudnn", "attention", "attn", "sm90", "sdpa", "efficient")
    return sorted(n[:120] for n in names if any(key in n.lower() for key in keys))


def errors(make_ours, q, k, v, o, do, lse, causal):
    """Max abs differences of our dQ, dK, dV from SDPA's."""
    import torch
    grads = make_ours(q, k, v, o, do, lse, causal)()
    qq, kk, vv = (t.detach().clone().requires_grad_() for t in (q, k, v))
    torch.nn.functional.scaled_dot_product_attention(qq, kk, vv, is_causal=causal).backward(do)
    return [round((a.float() - b.float()).abs().max().item(), 5) for a, b in zip(grads, (qq.grad, kk.grad, vv.grad))]


def run_shape(z, h, n, d, causal, dtype, table, rounds, emit):
    import torch
    import triton
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import hopper_flash_attention as fa
    torch.manual_seed(0)
    q, k, v, do = (torch.randn((z, h, n, d), device="cuda", dtype=dtype) for _ in range(4))
    o, lse = fa.attention(q, k, v, causal=causal, return_lse=True)
    flops = 2.5 * 4 * z * h * n * n * d * (0.5 if causal else 1.0)
    fns, times = {}, {}
    for name, (make, dims, *masks) in table.items():
        if d not in dims or causal not in (masks[0] if masks else (False, True)):
            continue
        try:
            fns[name] = make(q, k, v, o, do, lse, causal)
            fns[name]()  # compile and run once
            times[name] = []
        except Exception as error:  # a backend that does not take this shape
            emit(dict(provider=name, n=n, head_dim=d, causal=causal, error=f"{type(error).__name__}: {error}"[:300]))
    order = [name for name in fns if name in times]
    for r in range(rounds):  # no provider always right after the same one (sides.round_order, between_rounds)
        sides.between_rounds()
        for name in (order[i] for i in sides.round_order(len(order), r)):
            times[name].append(triton.testing.do_bench(fns[name], warmup=25, rep=100))
    sdpa_ms = statistics.median(times["torch SDPA"]) if times.get("torch SDPA") else None
    rows = []
    for name, samples in times.items():
        ms = statistics.median(samples)
        row = dict(provider=name, batch=z, heads=h, n=n, head_dim=d, causal=causal, dtype=str(dtype).split(".")[-1],
                   ms=round(ms, 4), tflops=round(flops / ms * 1e-9, 1), rounds=len(samples))
        if sdpa_ms:
            row["vs_sdpa"] = round(sdpa_ms / ms, 3)  # > 1: faster than SDPA's backward
        if name.startswith("tlx_alias"):
            row["max_abs_err_vs_sdpa"] = errors(table[name][0], q, k, v, o, do, lse, causal)
        rows.append(row)
    twin = next((r["ms"] for r in rows if r["provider"] == "tlx_alias unaliased twin"), None)
    for row in rows:
        if twin and row["provider"].startswith("tlx_alias aliased"):
            row["vs_twin"] = round(twin / row["ms"], 3)
        emit(row)
    return rows


def markdown(rows):
    """benchmarks/README.md's table of JSON-lines rows (one run per dtype):
    per shape, the default config's TFLOP/s and its speed against SDPA's
    backward and against the unaliased twin, bf16 then fp16 columns."""
    ours = "tlx_alias aliased (default config)"
    mine = [r for r in rows if r.get("provider") == ours and "ms" in r]
    dtypes = sorted({r["dtype"] for r in mine}, key=lambda d: d != "bfloat16")
    short = {"bfloat16": "bf16", "float16": "fp16"}
    by_key = {(r["dtype"], r["n"], r["head_dim"], r["causal"]): r for r in mine}
    cells = [f"{short.get(d, d)} {c}" for d in dtypes for c in ("TFLOP/s", "vs SDPA", "vs twin")]
    lines = ["| N | D | causal | " + " | ".join(cells) + " |", "|---|---|---|" + "---|" * len(cells)]
    for n, d, causal in sorted({k[1:] for k in by_key}):
        row = []
        for dtype in dtypes:
            r = by_key.get((dtype, n, d, causal), {})
            row += [f"{r['tflops']:.1f}" if r else "", str(r.get("vs_sdpa", "")), str(r.get("vs_twin", ""))]
        lines.append(f"| {n} | {d} | {'yes' if causal else 'no'} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def print_table(rows):
    print(f"\n{'provider':48} {'N':>6} {'D':>4} {'causal':>6} {'ms':>8} {'TFLOP/s':>8} {'vs SDPA':>8} {'vs twin':>8}")
    for r in rows:
        if "ms" in r:
            print(f"{r['provider'][:48]:48} {r['n']:6} {r['head_dim']:4} {str(r['causal']):>6} {r['ms']:8.3f} "
                  f"{r['tflops']:8.1f} {r.get('vs_sdpa', ''):>8} {r.get('vs_twin', ''):>8}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="N in {1024, 4096}, two rounds (< 3 minutes)")
    parser.add_argument("--backends", action="store_true", help="also each SDPA backend forced on its own")
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--out", help="append the results as JSON lines to this file")
    parser.add_argument("--candidates", nargs="*", metavar="NAME",
                        help="only these of the example's CANDIDATES (none: the default, the twin and SDPA)")
    args = parser.parse_args()
    import torch
    import triton
    import tlx_alias  # noqa: F401
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    rounds = args.rounds or (2 if args.quick else 5)
    out = open(args.out, "a") if args.out else None

    def emit(row):
        line = json.dumps(row)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    props = torch.cuda.get_device_properties(0)
    q = torch.randn((4, HEADS, 4096, 128), device="cuda", dtype=dtype)
    emit(dict(device=props.name, sms=props.multi_processor_count, torch=torch.__version__,
              triton=triton.__version__, sdpa_kernels=sdpa_backend(q, q, q, q, False),
              sdpa_kernels_causal=sdpa_backend(q, q, q, q, True)))
    table = providers(args.backends, args.quick, args.candidates)
    rows = []
    for z, h, n, d, causal in shapes(args.quick):
        rows += run_shape(z, h, n, d, causal, dtype, table, rounds, emit)
    print_table(rows)
    if out:
        out.close()


if __name__ == "__main__":
    main()
