"""Flash-attention forward on Hopper, in one run: the aliased example
(examples/hopper_flash_attention.py, its default config), its unaliased twin, torch
SDPA, a plain-triton `tl.dot` attention written for this benchmark, and, in
a separate process of the same command, the peer's (fbtriton 3.7.4) Hopper
attention tutorials. The peer's tutorials also run under tlx_alias (imports
changed only) at N = 4096.

    python benchmarks/attention.py                     # both sides, each in its own process
    python benchmarks/attention.py --side ours --out ours.jsonl
    python benchmarks/attention.py --table a.jsonl b.jsonl [--markdown]

Shapes: N in {1024, 4096, 16384} with batch * N = 16384 tokens, 32 heads,
head dims {64, 128, 256}, causal and not, fp16. TFLOP/s count 4 * B * H *
N^2 * D flops (half of it when causal). Errors are max abs differences from
SDPA's output. Times are do_bench medians. cuBLAS's 8192^3 fp16 GEMM, timed at
the run's start and end, gives the GPU's matmul speed beside them.
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


def providers(side):
    """name -> (fn(q, k, v, causal), supports_causal, head dims)."""
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
        every = (64, 128, 256)
        out["tlx_alias aliased (default config)"] = (
            lambda q, k, v, c: fa.attention(q, k, v, causal=c, alias=True), True, every)
        out["tlx_alias aliased, 3 K/V stages, 1 Q buffer"] = (
            lambda q, k, v, c: fa.attention(q, k, v, causal=c, alias=True, q_buffers=1, stages=3), True, (128, ))
        out["tlx_alias aliased, 3 K and 2 V stages"] = (
            lambda q, k, v, c: fa.attention(q, k, v, causal=c, alias=True, stages=3, v_stages=2), True, (256, ))
        out["tlx_alias unaliased twin"] = (lambda q, k, v, c: fa.attention(q, k, v, causal=c, alias=False), True,
                                           every)
        out["torch SDPA"] = (lambda q, k, v, c: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=c),
                             True, every)
        out["triton tl.dot"] = (plain, True, every)
    for name in tutorials.HOPPER_ATTENTION:
        try:
            fn = tutorials.attention(name, for_tlx_alias=(side == "ours"))
        except Exception as error:
            print(json.dumps(dict(side=side, name=name, error=f"load: {error}"[:500])), flush=True)
            continue
        label = ("tlx_alias running " if side == "ours" else "peer ") + name
        out[label] = (lambda q, k, v, c, fn=fn: fn(q, k, v),
                      False, (128, ))  # the tutorials assert BLOCK_N (128) <= HEAD_DIM; 256 does not fit
    return out


GEMM_SIZE = 8192


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


def run_side(side, out_path):
    if side == "ours":
        import tlx_alias  # noqa: F401  (registers the plugin and the hooks)
    import torch
    import triton

    fns = providers(side)
    with open(out_path, "a") as out:
        if side == "ours":
            out.write(json.dumps(gemm_speed(side, "run start")) + "\n")
        for z, h, n, d, causal in shapes():
            torch.manual_seed(0)
            q, k, v = (torch.randn((z, h, n, d), device="cuda", dtype=torch.float16) for _ in range(3))
            ref = None
            flops = 4 * z * h * n * n * d * (0.5 if causal else 1.0)
            for name, (fn, supports_causal, head_dims) in fns.items():
                if (causal and not supports_causal) or d not in head_dims:
                    continue
                is_tutorial = name.startswith(("peer ", "tlx_alias running "))
                if is_tutorial and side == "ours" and n != TUTORIAL_SEQ_LEN:
                    continue
                row = dict(side=side, name=name, Z=z, H=h, N=n, D=d, causal=causal)
                try:
                    if ref is None:
                        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal).float()
                    row["max_abs_err"] = (fn(q, k, v, causal).float() - ref).abs().max().item()
                    ms = triton.testing.do_bench(lambda: fn(q, k, v, causal), warmup=50, rep=200,
                                                 return_mode="median")
                    row["ms"] = ms
                    row["tflops"] = flops / ms * 1e-9
                except Exception as error:
                    row["error"] = f"{type(error).__name__}: {error}"[:600]
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(json.dumps(row), flush=True)
            del q, k, v, ref
            torch.cuda.empty_cache()
        if side == "ours":
            out.write(json.dumps(gemm_speed(side, "run end")) + "\n")


def table(rows):
    lines = []
    keys = []
    for r in rows:
        if r.get("N") is None and "tflops" in r:  # the GPU's matmul speed in this run
            lines.append(f"{r['name']}: {r['tflops']:.1f} TFLOP/s")
    for r in rows:
        key = (r.get("N"), r.get("D"), r.get("causal"))
        if key[0] is not None and key not in keys:
            keys.append(key)
    for n, d, causal in keys:
        group = [r for r in rows if (r.get("N"), r.get("D"), r.get("causal")) == (n, d, causal)]
        sdpa = next((r for r in group if r["name"] == "torch SDPA" and "ms" in r), None)
        peers = [r for r in group if r["side"] == "peer" and "ms" in r and r.get("max_abs_err", 1) < 1e-2]
        best_peer = min(peers, key=lambda r: r["ms"]) if peers else None
        z = group[0]["Z"]
        lines.append(f"\nB={z} H={HEADS} N={n} D={d} {'causal' if causal else 'non-causal'} fp16")
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


ALIASED = "tlx_alias aliased (default config)"
TWIN = "tlx_alias unaliased twin"


def _is_other(r):
    """The kernels the aliased one is compared with ("best other"): SDPA,
    the plain tl.dot kernel, and the peer's tutorials in either process
    (not the example's own configs or its twin, nor the GEMM yardstick)."""
    return r["name"] in ("torch SDPA", "triton tl.dot") or r["side"] == "peer" or \
        r["name"].startswith("tlx_alias running ")


def markdown(rows):
    """The README's attention table: TFLOP/s per kernel and the aliased
    kernel's ratios to SDPA and to the best other kernel, per shape."""
    lines = ["| N | D | mask | aliased | unaliased twin | SDPA | triton `tl.dot` | peer's best | aliased / SDPA | "
             "aliased / best other |", "|---|---|---|---|---|---|---|---|---|---|"]
    done = [r for r in rows if "tflops" in r and r.get("N") is not None]
    shapes = sorted({(r["N"], r["D"], r["causal"]) for r in done}, key=lambda k: (k[1], k[2], k[0]))
    for n, d, causal in shapes:
        group = [r for r in done if (r["N"], r["D"], r["causal"]) == (n, d, causal)]
        speed = {r["name"]: r["tflops"] for r in group if r["side"] == "ours"}
        peers = [r["tflops"] for r in group if r["side"] == "peer"]
        aliased = speed[ALIASED]
        best_other = max(r["tflops"] for r in group if _is_other(r))
        peer = f"{max(peers):.0f}" if peers else "n/a"
        lines.append(f"| {n} | {d} | {'causal' if causal else '-'} | {aliased:.0f} | {speed[TWIN]:.0f} | "
                     f"{speed['torch SDPA']:.0f} | {speed['triton tl.dot']:.0f} | {peer} | "
                     f"{aliased / speed['torch SDPA']:.3f} | {aliased / best_other:.3f} |")
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


def compare(out_dir):
    print(table(sides.run_both_sides(__file__, out_dir, "attention")))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--side", choices=["ours", "peer"])
    parser.add_argument("--out")
    parser.add_argument("--out-dir", default=os.environ.get("OUT", "/tmp"))
    parser.add_argument("--table", nargs="+", metavar="JSONL")
    parser.add_argument("--markdown", action="store_true", help="with --table: the README's table")
    args = parser.parse_args()
    if args.table:
        rows = sides.read_rows(args.table)
        print(markdown(rows) if args.markdown else table(rows))
    elif args.side:
        run_side(args.side, args.out)
    else:
        compare(args.out_dir)


if __name__ == "__main__":
    main()
