"""The aliased persistent warp-specialized GEMM (examples/hopper_persistent_gemm.py)
beside its unaliased twin, cuBLAS, a plain-triton TMA persistent
warp-specialized kernel and the peer's best Hopper GEMM tutorial, in one run.

    python benchmarks/hopper_gemm_alias.py                 # both sides, each in its own process
    python benchmarks/hopper_gemm_alias.py --side ours --out ours.jsonl

"ours" runs on stock triton 3.7.1 with tlx_alias: the aliased kernel (4 ring
slots, C tiles inside them), its twin (same kernel, C tiles beside the ring:
3 slots fit), torch.matmul (cuBLAS) and the plain-triton kernel below. "peer"
runs the peer's (fbtriton 3.7.4) persistent GEMM tutorials in its own process
(it is a replacement `triton`); the table keeps the fastest per shape. Every
result is checked against torch.matmul. Times are medians of
triton.testing.do_bench; each provider is measured in ROUNDS interleaved
rounds (sides.round_order) and keeps its best median, so all see the same clocks.
"""
import argparse
import json
import os
import sys

import sides

HERE = os.path.dirname(os.path.abspath(__file__))
SUPPORT = os.path.join(os.path.dirname(HERE), "test", "support")  # tutorials.py
ROOT = os.path.dirname(HERE)
SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (8192, 8192, 16384)]
ROUNDS = 2
PEER_CONFIGS = {  # the peer's hopper_gemm_ws at its 128x256x64 tiles (3 and 4 stages)
    f"hopper_gemm_ws[{stages} stages]": dict(BM=128, BN=256, BK=64, GROUP_SIZE_M=8, NUM_STAGES=stages,
                                             NUM_MMA_WARPS=8, NUM_MMA_GROUPS=2, EPILOGUE_SUBTILE=True, NUM_CTAS=1,
                                             USE_WARP_BARRIER=False, num_warps=4, num_stages=1)
    for stages in (3, 4)
}
PEER_PERSISTENT = ["hopper-persistent-gemm-ws-cooperative", "hopper-persistent-gemm-ws-pingpong"]


def plain_triton_kernel():
    """Triton's own TMA persistent warp-specialized GEMM (device-side
    descriptors: triton 3.7's Hopper warp specialization splits A between
    its two consumer groups only for those)."""
    import triton
    import triton.language as tl

    @triton.jit
    def plain_ws_kernel(a_ptr, b_ptr, c_ptr, M, N, K, NUM_SMS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
        dtype = c_ptr.dtype.element_ty
        a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
        b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
        c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN // 2])
        num_pid_m = tl.cdiv(M, BM)
        num_pid_n = tl.cdiv(N, BN)
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        for tile_id in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, warp_specialize=True):
            first_pid_m = (tile_id // num_pid_in_group) * GROUP_SIZE_M
            group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
            pid_m = first_pid_m + (tile_id % num_pid_in_group) % group_size_m
            pid_n = (tile_id % num_pid_in_group) // group_size_m
            acc = tl.zeros((BM, BN), tl.float32)
            for k in range(tl.cdiv(K, BK)):
                acc = tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([k * BK, pid_n * BN]), acc)
            left, right = tl.split(tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1)))
            c_desc.store([pid_m * BM, pid_n * BN], left.to(dtype))
            c_desc.store([pid_m * BM, pid_n * BN + BN // 2], right.to(dtype))

    def matmul(a, b, stages):
        import torch
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), dtype=a.dtype, device=a.device)
        num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count
        grid = (min(num_sms, triton.cdiv(M, 128) * triton.cdiv(N, 256)), )
        plain_ws_kernel[grid](a, b, c, M, N, K, NUM_SMS=num_sms, BM=128, BN=256, BK=64, GROUP_SIZE_M=8, num_warps=4,
                              num_stages=stages)
        return c

    return matmul


def providers(side):
    """name -> fn(a, b) for one side."""
    import torch
    import triton

    def alloc(size, align, stream):
        return torch.empty(size, dtype=torch.int8, device="cuda")

    triton.set_allocator(alloc)
    if side == "ours":
        sys.path.insert(0, os.path.join(ROOT, "examples"))
        import hopper_persistent_gemm as example
        plain = plain_triton_kernel()
        return {
            "cuBLAS": torch.matmul,
            "tlx_alias aliased (4 stages, C halves in 1 lent slot)": lambda a, b: example.matmul(a, b, STAGES=4,
                                                                                                  ALIAS=True, C_SPLIT=2),
            "tlx_alias aliased (4 stages, 2 lent slots)": lambda a, b: example.matmul(a, b, STAGES=4, ALIAS=True,
                                                                                       C_SPLIT=1),
            "tlx_alias unaliased twin (3 stages)": lambda a, b: example.matmul(a, b, STAGES=3, ALIAS=False),
            "triton TMA WS persistent (3 stages)": lambda a, b: plain(a, b, 3),
            "triton TMA WS persistent (4 stages)": lambda a, b: plain(a, b, 4),
        }
    sys.path.insert(0, SUPPORT)
    import tutorials
    out = {}
    ws = tutorials.load("hopper_gemm_ws", for_tlx_alias=False)
    for name, config in PEER_CONFIGS.items():
        out["peer " + name] = lambda a, b, config=config: ws.matmul(a, b, config=dict(config))
    for name in PEER_PERSISTENT:
        module = tutorials.load(name, for_tlx_alias=False)
        out["peer " + name] = module.matmul_tlx_ws_persistent
    return out


def run_side(side, out_path, only=None):
    if side == "ours":
        import tlx_alias  # noqa: F401  (registers the plugin and the hooks)
    import torch
    import triton

    fns = {name: fn for name, fn in providers(side).items() if not only or any(o in name for o in only)}
    with open(out_path, "a") as out:
        for m, n, k in SHAPES:
            torch.manual_seed(0)
            a = torch.randn((m, k), device="cuda", dtype=torch.float16)
            b = torch.randn((k, n), device="cuda", dtype=torch.float16)
            ref = torch.matmul(a, b).float()
            rows = {}
            for name, fn in fns.items():
                row = rows[name] = dict(side=side, name=name, M=m, N=n, K=k)
                try:
                    err = (fn(a, b).float() - ref).abs().max().item()
                    row["max_abs_err"] = err
                    row["correct"] = bool(err <= 1e-2 * ref.abs().max().item())
                except Exception as error:  # a provider that fails is a result too
                    row["error"] = f"{type(error).__name__}: {error}"[:2000]
            ready = [name for name in fns if "error" not in rows[name]]
            for r in range(ROUNDS):  # no provider always right after the same one (sides.round_order, between_rounds)
                sides.between_rounds()
                for name in (ready[i] for i in sides.round_order(len(ready), r)):
                    fn = fns[name]
                    ms = triton.testing.do_bench(lambda: fn(a, b), warmup=100, rep=500, return_mode="median")
                    rows[name]["ms"] = min(ms, rows[name].get("ms", ms))
            for row in rows.values():
                if "ms" in row:
                    row["tflops"] = 2 * m * n * k / row["ms"] * 1e-9
                out.write(json.dumps(row) + "\n")
                print(json.dumps(row), flush=True)


def table(rows):
    lines = []
    for m, n, k in SHAPES:
        shape_rows = [r for r in rows if (r.get("M"), r.get("N"), r.get("K")) == (m, n, k)]
        cublas = next((r for r in shape_rows if r["name"] == "cuBLAS" and "ms" in r), None)
        peers = [r for r in shape_rows if r["side"] == "peer" and "ms" in r and r.get("correct")]
        best_peer = min(peers, key=lambda r: r["ms"]) if peers else None
        lines.append(f"\nM={m} N={n} K={k} fp16" + (f"   (peer's best: {best_peer['name']})" if best_peer else ""))
        lines.append(f"  {'kernel':46} {'ms':>8} {'TFLOP/s':>8} {'time / cuBLAS':>14}  correct (max abs err)")
        for r in shape_rows:
            if "ms" not in r:
                lines.append(f"  {r['name']:46} {'-':>8} {'-':>8} {'-':>14}  {r.get('error', '')[:100]}")
                continue
            ratio = r["ms"] / cublas["ms"] if cublas else float("nan")
            mark = " *" if r is best_peer else ""
            lines.append(f"  {r['name'] + mark:46} {r['ms']:8.3f} {r['tflops']:8.1f} {ratio:14.3f}  "
                         f"{r.get('correct')} ({r.get('max_abs_err', float('nan')):.3g})")
    return "\n".join(lines)


def _best(rows):
    return min(rows, key=lambda r: r["ms"]) if rows else None


def markdown(rows):
    """benchmarks/README.md's table: TFLOP/s and time / cuBLAS per shape, one
    row per tlx_alias kernel and cuBLAS; triton's kernel and the peer's
    tutorials as their fastest correct entry."""
    done = [r for r in rows if "ms" in r and r.get("correct")]
    cublas = {(r["M"], r["N"], r["K"]): r for r in done if r["name"] == "cuBLAS"}
    shapes = [shape for shape in SHAPES if shape in cublas]
    names = list(dict.fromkeys(r["name"] for r in done if r["side"] == "ours" and not r["name"].startswith("triton")))
    groups = [(name, lambda r, name=name: r["name"] == name) for name in names]
    groups += [("triton TMA WS persistent (its best stage count)", lambda r: r["name"].startswith("triton")),
               ("peer's best tutorial", lambda r: r["side"] == "peer")]
    header = " | ".join("{}³".format(m) if m == n == k else f"{m}×{n}×{k}" for m, n, k in shapes)
    lines = [f"| kernel (TFLOP/s, time / cuBLAS) | {header} |", "|---" * (len(shapes) + 1) + "|"]
    for label, wanted in groups:
        cells = []
        for shape in shapes:
            best = _best([r for r in done if (r["M"], r["N"], r["K"]) == shape and wanted(r)])
            cells.append(f"{best['tflops']:.1f}, {best['ms'] / cublas[shape]['ms']:.3f}" if best else "n/a")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def compare(out_dir):
    print(table(sides.run_both_sides(__file__, out_dir, "hopper_gemm_alias")))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--side", choices=["ours", "peer"])
    parser.add_argument("--out")
    parser.add_argument("--out-dir", default=os.environ.get("OUT", "/tmp"))
    parser.add_argument("--table", nargs="+", metavar="JSONL", help="print the table of earlier results")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="with --side: the providers whose name has one of these")
    args = parser.parse_args()
    if args.table:
        print(table(sides.read_rows(args.table)))
    elif args.side:
        run_side(args.side, args.out, args.only)
    else:
        compare(args.out_dir)


if __name__ == "__main__":
    main()
