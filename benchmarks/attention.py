"""Flash-attention forward on Hopper, in one run: the aliased example
(examples/hopper_flash_attention.py, its default config), its unaliased twin, torch
SDPA, FlashAttention-3 (PyPI fa3_fwd, bf16 only, when it imports), a plain-triton
`tl.dot` attention written for this benchmark, and, in a separate process of the
same command, the peer's (fbtriton 3.7.4) Hopper attention tutorials. The peer's
tutorials also run under tlx_alias (imports changed only) at N = 4096.

    python benchmarks/attention.py                     # both sides, each in its own process
    python benchmarks/attention.py --side ours --out ours.jsonl [--dtypes bf16] [--rounds 24 --rep-ms 30]
    python benchmarks/attention.py --table a.jsonl b.jsonl [--markdown | --after]

Shapes: N in {1024, 4096, 16384} with batch * N = 16384 tokens, 32 heads,
head dims {64, 128, 256}, causal and not, fp16 and bf16. TFLOP/s count 4 * B * H *
N^2 * D flops (half of it when causal). Errors are max abs differences from
SDPA's output. Every shape's kernels are timed in `--rounds` interleaved rounds
of `--rep-ms` each (do_bench medians; a row's time is the median of its
rounds), so that the GPU's clock drift reaches them alike, in orders where each
kernel follows every other equally often (sides.round_order; the same GEMM runs
before each round, sides.between_rounds, so that rounds' boundaries do too): the acceptance runs
take 24 rounds of 30 ms (benchmarks/README.md). cuBLAS's 8192^3 fp16 GEMM,
timed at the run's start and end, gives the GPU's matmul speed beside them.
"""
import argparse
import json
import math
import os
import sys

import sides

HERE = os.path.dirname(os.path.abspath(__file__))
SUPPORT = os.path.join(os.path.dirname(HERE), "test", "support")  # tutorials.py
ROOT = os.path.dirname(HERE)
HEADS = 32
TOKENS = 16384
SEQ_LENS = [1024, 4096, 16384]
HEAD_DIMS = [64, 128, 256]
TUTORIAL_SEQ_LEN = 4096


def plain_triton_attention():
    """A plain-triton flash-attention forward: tl.dot on register tiles,
    triton's own software pipelining of the K/V loads."""
    import triton
    import triton.language as tl

    @triton.jit
    def _block(acc, m_i, l_i, q, k_ptrs, v_ptrs, offs_m, offs_n, lo, hi, qk_scale, HEAD_DIM: tl.constexpr,
               BLOCK_N: tl.constexpr, MASK: tl.constexpr):
        for start_n in tl.range(lo, hi, BLOCK_N):
            k = tl.load(k_ptrs + start_n * HEAD_DIM)
            qk = tl.dot(q, k)
            if MASK:
                qk = tl.where(offs_m[:, None] >= (start_n + offs_n)[None, :], qk, -float("inf"))
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(v_ptrs + start_n * HEAD_DIM)
            acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
            m_i = m_ij
        return acc, m_i, l_i

    @triton.jit
    def plain_attn_kernel(Q, K, V, O, sm_scale, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
        start_m = tl.program_id(0)
        base = tl.program_id(1).to(tl.int64) * N_CTX * HEAD_DIM
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, HEAD_DIM)
        q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        k_ptrs = K + base + offs_n[None, :] * HEAD_DIM + offs_d[:, None]
        v_ptrs = V + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        qk_scale = sm_scale * 1.44269504
        if CAUSAL:
            acc, m_i, l_i = _block(acc, m_i, l_i, q, k_ptrs, v_ptrs, offs_m, offs_n, 0, start_m * BLOCK_M,
                                   qk_scale, HEAD_DIM, BLOCK_N, False)
            acc, m_i, l_i = _block(acc, m_i, l_i, q, k_ptrs, v_ptrs, offs_m, offs_n, start_m * BLOCK_M,
                                   (start_m + 1) * BLOCK_M, qk_scale, HEAD_DIM, BLOCK_N, True)
        else:
            acc, m_i, l_i = _block(acc, m_i, l_i, q, k_ptrs, v_ptrs, offs_m, offs_n, 0, N_CTX, qk_scale, HEAD_DIM,
                                   BLOCK_N, False)
        o = acc / l_i[:, None]
        tl.store(O + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], o.to(O.dtype.element_ty))

    configs = {64: (128, 128, 8, 3), 128: (128, 64, 8, 3), 256: (128, 64, 8, 2)}  # BM, BN, warps, stages

    def attention(q, k, v, causal):
        import torch
        z, h, n, d = q.shape
        block_m, block_n, warps, stages = configs[d]
        o = torch.empty_like(q)
        plain_attn_kernel[(n // block_m, z * h)](q, k, v, o, 1.0 / math.sqrt(d), n, HEAD_DIM=d, BLOCK_M=block_m,
                                                 BLOCK_N=block_n, CAUSAL=causal, num_warps=warps, num_stages=stages)
        return o

    return attention


def shapes():
    for n in SEQ_LENS:
        for d in HEAD_DIMS:
            for causal in (False, True):
                yield TOKENS // n, HEADS, n, d, causal


def fa3_attention():
    """FlashAttention-3's Hopper forward (fa3_fwd) as fn(q, k, v, causal) on
    (batch, heads, N, D) tensors, or None where it does not import."""
    try:
        from fa3_fwd_interface import flash_attn_func
    except Exception:  # not installed, or built for another torch/CUDA
        return None

    def attention(q, k, v, causal):
        # FA3 takes (batch, N, heads, D): strided views of the same tensors
        out = flash_attn_func(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=causal)
        out = out[0] if isinstance(out, tuple) else out
        return out.transpose(1, 2)

    return attention


def providers(side, only=()):
    """name -> (fn(q, k, v, causal), the masks it runs (causal or not), head dims, dtypes)."""
    import torch
    import triton

    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    sys.path.insert(0, SUPPORT)
    import tutorials
    out = {}
    if side == "ours":
        sys.path.insert(0, os.path.join(ROOT, "examples"))
        import hopper_flash_attention as fa
        plain = plain_triton_attention()
        every, both = (64, 128, 256), ("fp16", "bf16")
        out["tlx_alias aliased (default config)"] = (
            lambda q, k, v, c: fa.attention(q, k, v, causal=c, alias=True), BOTH_MASKS, every, both)
        for name, options, dims, masks in CANDIDATES:
            out["tlx_alias aliased, " + name] = (
                lambda q, k, v, c, options=options: fa.attention(q, k, v, causal=c, alias=True, **options), masks,
                dims, both)
        out["tlx_alias unaliased twin"] = (lambda q, k, v, c: fa.attention(q, k, v, causal=c, alias=False), BOTH_MASKS,
                                           every, both)
        out["torch SDPA"] = (lambda q, k, v, c: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=c),
                             BOTH_MASKS, every, both)
        fa3 = fa3_attention()
        if fa3:
            out[FA3] = (fa3, BOTH_MASKS, every, ("bf16", ))
        out["triton tl.dot"] = (plain, BOTH_MASKS, every, both)
    for name in tutorials.HOPPER_ATTENTION:
        try:
            fn = tutorials.attention(name, for_tlx_alias=(side == "ours"))
        except Exception as error:
            print(json.dumps(dict(side=side, name=name, error=f"load: {error}"[:500])), flush=True)
            continue
        label = ("tlx_alias running " if side == "ours" else "peer ") + name
        # the tutorials assert BLOCK_N (128) <= HEAD_DIM; 256 does not fit
        out[label] = (lambda q, k, v, c, fn=fn: fn(q, k, v), (False, ), (128, ), ("fp16", ))
    if only:  # a shorter run: the default, SDPA, FA3 and the providers named
        out = {name: fn for name, fn in out.items()
               if name in (ALIASED, "torch SDPA", FA3) or any(o in name for o in only)}
    return out


FA3 = "FlashAttention-3"
BOTH_MASKS = (False, True)
# Configs beside the default, measured in the same rounds: (name, attention()'s options, head dims,
# the masks it runs: causal or not).
CANDIDATES = [
    ("3 consumer warp groups (BLOCK_M 192)", dict(groups=3), (64, ), BOTH_MASKS),
    ("turns end after QK^T", dict(pv_in_turn=False), (64, ), BOTH_MASKS),
    ("P in 16 bits", dict(p_16bit=True), (128, 256), BOTH_MASKS),
    ("causal tiles in pairs", dict(tile_order="pairs"), (64, 128, 256), (True, )),
    ("leader arrives (warp-group bar.sync before each)", dict(thread_arrives=""), (64, 128, 256), BOTH_MASKS),
    ("leader arrives for V", dict(thread_arrives="kq"), (64, 128, 256), BOTH_MASKS),
    ("rescale every block", dict(rescale_skip=False), (64, 128, 256), BOTH_MASKS),
    ("PV waited for before the softmax", dict(late_pv_wait=False), (128, ), BOTH_MASKS),
    ("lazy rescale (8)", dict(rescale_skip=8.0), (128, ), (True, )),
    ("one CTA a cluster (no K/V multicast)", dict(cluster=1), (128, ), BOTH_MASKS),
    ("clusters of two CTAs (K/V multicast)", dict(cluster=2), (64, ), BOTH_MASKS),
    ("causal clusters of two CTAs", dict(cluster=2), (128, 256), (True, )),
]
GEMM_SIZE = 8192
# do_bench's time per round: shorter rounds, more of them, put the kernels
# of a shape closer in time, where the clock moves with power draw.
REP_MS = 100


def gemm_speed(side, when):
    """cuBLAS's fp16 GEMM at 8192^3 on this GPU, now: its plain matmul speed,
    the yardstick for an attention kernel's two matmuls and softmax. Timed
    at the start and the end of the run, since the GPU's clock drifts."""
    import torch
    import triton
    a, b = (torch.randn((GEMM_SIZE, GEMM_SIZE), device="cuda", dtype=torch.float16) for _ in range(2))
    ms = triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=50, rep=200, return_mode="median")
    return dict(side=side, name=f"cuBLAS GEMM {GEMM_SIZE}^3 fp16, {when}", ms=ms,
                tflops=2 * GEMM_SIZE**3 / ms * 1e-9)


def run_side(side, out_path, dtypes=("fp16", "bf16"), rounds=3, quick=False, head_dims=None, only=(), masks=None,
             rep_ms=REP_MS):
    if side == "ours":
        import tlx_alias  # noqa: F401  (registers the plugin and the hooks)
    import torch

    fns = providers(side, only)
    with open(out_path, "a") as out:
        if side == "ours":
            out.write(json.dumps(gemm_speed(side, "run start")) + "\n")
        for dtype in dtypes:
            for z, h, n, d, causal in shapes():
                if (quick and n == 1024) or (head_dims and d not in head_dims)\
                        or (masks and causal != (masks == "causal")):
                    continue
                for row in measure_shape(side, fns, dtype, z, h, n, d, causal, rounds, rep_ms):
                    out.write(json.dumps(row) + "\n")
                    print(json.dumps(row), flush=True)
                out.flush()
                torch.cuda.empty_cache()
        if side == "ours":
            out.write(json.dumps(gemm_speed(side, "run end")) + "\n")


def measure_shape(side, fns, dtype, z, h, n, d, causal, rounds, rep_ms=REP_MS):
    """One row per kernel that runs this shape: its error against SDPA, then
    its time in `rounds` rounds of `rep_ms` that take every kernel in turn."""
    import torch
    import triton
    torch.manual_seed(0)
    q, k, v = (torch.randn((z, h, n, d), device="cuda", dtype=getattr(torch, DTYPES[dtype])) for _ in range(3))
    flops = 4 * z * h * n * n * d * (0.5 if causal else 1.0)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal).float()
    rows, runs = [], []
    for name, (fn, masks, head_dims, dtypes) in fns.items():
        if causal not in masks or d not in head_dims or dtype not in dtypes:
            continue
        if name.startswith(("peer ", "tlx_alias running ")) and side == "ours" and n != TUTORIAL_SEQ_LEN:
            continue
        row = dict(side=side, name=name, dtype=dtype, Z=z, H=h, N=n, D=d, causal=causal, rep_ms=rep_ms)
        try:
            row["max_abs_err"] = (fn(q, k, v, causal).float() - ref).abs().max().item()
            runs.append((row, fn))
        except Exception as error:
            row["error"] = f"{type(error).__name__}: {error}"[:600]
        rows.append(row)
    for r in range(rounds):  # no kernel always right after the same one (sides.round_order, between_rounds)
        sides.between_rounds()
        previous = sides.SPACER
        for row, fn in (runs[i] for i in sides.round_order(len(runs), r)):
            row.setdefault("ms_rounds", []).append(triton.testing.do_bench(
                lambda: fn(q, k, v, causal), warmup=25, rep=rep_ms, return_mode="median"))
            row.setdefault("after", []).append(previous)  # the kernel that ran right before each round's
            previous = row["name"]
    for row, _ in runs:
        row["ms"] = sorted(row["ms_rounds"])[len(row["ms_rounds"]) // 2]
        row["tflops"] = flops / row["ms"] * 1e-9
    return rows


DTYPES = {"fp16": "float16", "bf16": "bfloat16"}


def by_predecessor(rows):
    """Each kernel's median time by the kernel that ran right before it
    (rows that name it in "after"), a line per row: does a kernel's time
    depend on what ran before it?"""
    lines = []
    for row in rows:
        times = {}
        for before, ms in zip(row.get("after", ()), row.get("ms_rounds", ())):
            times.setdefault(before or "(none)", []).append(ms)
        if times:
            cells = "; ".join(f"after {name}: {sorted(t)[len(t) // 2]:.3f} ms x{len(t)}"
                              for name, t in sorted(times.items()))
            lines.append(f"{row['dtype']} N={row['N']} D={row['D']}{' causal' if row['causal'] else ''} {row['name']}: "
                         f"{cells}")
    return "\n".join(lines)


def table(rows):
    lines = []
    keys = []
    for r in rows:
        if r.get("N") is None and "tflops" in r:  # the GPU's matmul speed in this run
            lines.append(f"{r['name']}: {r['tflops']:.1f} TFLOP/s")
    for r in rows:
        key = _key(r)
        if key[1] is not None and key not in keys:
            keys.append(key)
    for dtype, n, d, causal in keys:
        group = [r for r in rows if _key(r) == (dtype, n, d, causal)]
        sdpa = next((r for r in group if r["name"] == "torch SDPA" and "ms" in r), None)
        peers = [r for r in group if r["side"] == "peer" and "ms" in r and r.get("max_abs_err", 1) < 1e-2]
        best_peer = min(peers, key=lambda r: r["ms"]) if peers else None
        z = group[0]["Z"]
        lines.append(f"\nB={z} H={HEADS} N={n} D={d} {'causal' if causal else 'non-causal'} {dtype}")
        lines.append(f"  {'kernel':62} {'ms':>8} {'TFLOP/s':>8} {'SDPA time /':>12}  max abs err")
        for r in group:
            if "ms" not in r:
                lines.append(f"  {r['name']:62} {'-':>8} {'-':>8} {'-':>12}  {r.get('error', '')[:90]}")
                continue
            ratio = r["ms"] / sdpa["ms"] if sdpa else float("nan")
            mark = " *" if r is best_peer else ""
            lines.append(f"  {r['name'] + mark:62} {r['ms']:8.3f} {r['tflops']:8.1f} {1 / ratio:12.3f}  "
                         f"{r.get('max_abs_err', float('nan')):.3g}")
    return "\n".join(lines)


def _key(r):
    """(dtype, N, D, causal) of a row; rows written before bf16 runs are fp16."""
    return r.get("dtype", "fp16"), r.get("N"), r.get("D"), r.get("causal")


ALIASED = "tlx_alias aliased (default config)"
TWIN = "tlx_alias unaliased twin"


def _is_other(r):
    """The kernels the aliased one is compared with ("best other"): SDPA,
    the plain tl.dot kernel, and the peer's tutorials in either process
    (not the example's own configs or its twin, nor the GEMM yardstick)."""
    return r["name"] in ("torch SDPA", "triton tl.dot", FA3) or r["side"] == "peer" or \
        r["name"].startswith("tlx_alias running ")


def markdown(rows):
    """The README's attention table: TFLOP/s per kernel and the aliased
    kernel's ratios to SDPA, FlashAttention-3 (bf16) and the best other
    kernel, per shape and dtype; n/a for a kernel the run left out (--only)."""
    lines = ["| dtype | N | D | mask | aliased | unaliased twin | SDPA | FA3 | triton `tl.dot` | peer's best | "
             "aliased / SDPA | aliased / FA3 | aliased / best other |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    done = [r for r in rows if "tflops" in r and r.get("N") is not None]
    keys = sorted({_key(r) for r in done}, key=lambda k: (k[0], k[2], k[3], k[1]))
    for dtype, n, d, causal in keys:
        group = [r for r in done if _key(r) == (dtype, n, d, causal)]
        speed = {r["name"]: r["tflops"] for r in group if r["side"] == "ours"}
        peers = [r["tflops"] for r in group if r["side"] == "peer"]
        aliased = speed[ALIASED]
        best_other = max(r["tflops"] for r in group if _is_other(r))
        fa3 = speed.get(FA3)

        def cell(value, digits=0):
            return "n/a" if value is None else f"{value:.{digits}f}"
        lines.append(f"| {dtype} | {n} | {d} | {'causal' if causal else '-'} | {aliased:.0f} | "
                     f"{cell(speed.get(TWIN))} | {speed['torch SDPA']:.0f} | {cell(fa3)} | "
                     f"{cell(speed.get('triton tl.dot'))} | "
                     f"{cell(max(peers) if peers else None)} | {aliased / speed['torch SDPA']:.3f} | "
                     f"{cell(aliased / fa3 if fa3 else None, 3)} | {aliased / best_other:.3f} |")
    return "\n".join(lines)


def markdown_tutorials(rows):
    """benchmarks/README.md's table of the peer's attention tutorials, each
    under tlx_alias and under the peer, at N = TUTORIAL_SEQ_LEN."""
    done = {r["name"]: r for r in rows if "tflops" in r and r.get("N") == TUTORIAL_SEQ_LEN}
    lines = ["| tutorial | D | tlx_alias TFLOP/s | peer TFLOP/s | time ours / peer | max abs err vs SDPA |",
             "|---|---|---|---|---|---|"]
    for name in sorted({n[len("peer "):] for n in done if n.startswith("peer ")}):
        ours, peer = done.get("tlx_alias running " + name), done["peer " + name]
        if ours:
            lines.append(f"| `{name}` | {ours['D']} | {ours['tflops']:.1f} | {peer['tflops']:.1f} | "
                         f"{ours['ms'] / peer['ms']:.3f} | {ours['max_abs_err']:.2g} |")
    return "\n".join(lines)


def compare(out_dir, args=()):
    print(table(sides.run_both_sides(__file__, out_dir, "attention", args)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--side", choices=["ours", "peer"])
    parser.add_argument("--out")
    parser.add_argument("--out-dir", default=os.environ.get("OUT", "/tmp"))
    parser.add_argument("--table", nargs="+", metavar="JSONL")
    parser.add_argument("--dtypes", nargs="+", default=["fp16", "bf16"], choices=sorted(DTYPES))
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds per shape")
    parser.add_argument("--rep-ms", type=int, default=REP_MS, help="milliseconds each kernel runs in a round")
    parser.add_argument("--quick", action="store_true", help="N = 4096 and 16384 only")
    parser.add_argument("--markdown", action="store_true", help="with --table: the README's table")
    parser.add_argument("--after", action="store_true", help="with --table: each kernel's time by its predecessor")
    parser.add_argument("--head-dims", nargs="+", type=int, choices=HEAD_DIMS, help="these head dims only")
    parser.add_argument("--masks", choices=["causal", "none"], help="causal shapes only, or non-causal only")
    parser.add_argument("--only", nargs="+", default=[], metavar="NAME",
                        help="besides the default, SDPA and FA3, only providers whose name contains one of these")
    args = parser.parse_args()
    if args.table:
        rows = sides.read_rows(args.table)
        print(markdown(rows) if args.markdown else by_predecessor(rows) if args.after else table(rows))
    elif args.side:
        run_side(args.side, args.out, args.dtypes, args.rounds, args.quick, args.head_dims, args.only, args.masks,
                 args.rep_ms)
    else:
        side_args = ["--dtypes", *args.dtypes, "--rounds", str(args.rounds), "--rep-ms", str(args.rep_ms)]
        side_args += ["--quick"] if args.quick else []
        side_args += (["--head-dims", *map(str, args.head_dims)] if args.head_dims else [])
        side_args += (["--masks", args.masks] if args.masks else []) + (["--only", *args.only] if args.only else [])
        compare(args.out_dir, side_args)


if __name__ == "__main__":
    main()
