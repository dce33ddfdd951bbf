"""Which (BLOCK_N, K/V stages, Q buffers, consumer registers, O over Q or
over V slots) is fastest for examples/hopper_flash_attention.py, measured
side by side with torch SDPA in one run: every config that fits 227 KiB at
head dims 64, 128 and 256
(B4 H32 N4096 fp16, non-causal), then the three best of each head dim causal.
The example's default_config should be the best row.

    python benchmarks/attention_configs.py [--out FILE.jsonl]
    python benchmarks/attention_configs.py --only 128:128:3:1:232 128:128:2:2:232 --repeat 3

--only D:BLOCK_N:STAGES:Q_BUFFERS:REGISTERS[:V_STAGES[:PINGPONG[:LATE[:DIAG_FIRST[:O_OVER_V[:Q_REG_COLS]]]]]]
measures just those (STAGES deep K ring, V_STAGES deep V ring, default
STAGES; PINGPONG 0 lets the consumers issue without taking turns; LATE 0
waits for each O store at the tile's end instead of after the next tile's
first QK^T; DIAG_FIRST 0 runs a causal tile's K/V blocks in order, the masked
diagonal one last; -1 the example's default; O_OVER_V 1 stages O over
V ring slots instead of Q; Q_REG_COLS: how many of Q's first columns QK^T
takes from registers), causal and not,
each `--repeat` times in turn (SDPA too), to tell close configs apart;
--n sets the sequence length (the batch keeps Z * N = 16384 tokens);
--tutorial NAME adds one of the peer's Hopper attention tutorials, run under
tlx_alias (TLX_TUTORIALS=<dir>), to each non-causal head-dim-128 round.
"""
import argparse
import itertools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SUPPORT = os.path.join(os.path.dirname(HERE), "test", "support")  # tutorials.py
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))

SMEM_LIMIT = 232448 - 1024  # sm_90's 227 KiB, less the barriers
Z, H, N = 4, 32, 4096


def configs(head_dim):
    import hopper_flash_attention as fa
    for block_n, stages, q_buffers in itertools.product((32, 64, 128), (2, 3, 4), (1, 2)):
        if block_n == 32 and head_dim < 256:
            continue
        if fa.smem_bytes(head_dim, block_n, stages, True, q_buffers) <= SMEM_LIMIT:
            yield dict(block_n=block_n, stages=stages, q_buffers=q_buffers, consumer_registers=232)
        # O over V slots, with the extra V stage that lets it pay
        if fa.smem_bytes(head_dim, block_n, stages, True, q_buffers, v_stages=stages + 1,
                         o_staging="v") <= SMEM_LIMIT:
            yield dict(block_n=block_n, stages=stages, q_buffers=q_buffers, consumer_registers=232,
                       v_stages=stages + 1, o_staging="v")
    default_n, default_stages, default_q = fa.default_config(head_dim)
    yield dict(block_n=default_n, stages=default_stages, q_buffers=default_q, consumer_registers=240)


def measure(fn, flops):
    import triton
    ms = triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
    return ms, flops / ms * 1e-9


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=None)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--n", type=int, default=N)
    parser.add_argument("--tutorial", default=None, help="a peer tutorial to run beside the candidates")
    args = parser.parse_args()
    import tlx_alias  # noqa: F401
    import torch
    import hopper_flash_attention as fa

    out = open(args.out, "a") if args.out else None

    def report(row):
        print(json.dumps(row), flush=True)
        if out:
            out.write(json.dumps(row) + "\n")
            out.flush()

    if args.only:
        return compare_candidates(args.only, args.repeat, report, args.n, args.tutorial)
    for head_dim in (64, 128, 256):
        torch.manual_seed(0)
        q, k, v = (torch.randn((Z, H, N, head_dim), device="cuda", dtype=torch.float16) for _ in range(3))
        ranked = []
        for causal in (False, True):
            flops = 4 * Z * H * N * N * head_dim * (0.5 if causal else 1.0)
            ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
            sdpa_ms, sdpa_tflops = measure(lambda: torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=causal), flops)
            report(dict(D=head_dim, causal=causal, name="torch SDPA", ms=sdpa_ms, tflops=sdpa_tflops))
            todo = list(configs(head_dim)) if not causal else [config for _, config in sorted(
                ranked, key=lambda item: item[0])[:3]]
            for config in todo:
                row = dict(D=head_dim, causal=causal, name="aliased", **config)
                try:
                    fn = lambda: fa.attention(q, k, v, causal=causal, **config)  # noqa: E731
                    row["max_abs_err"] = (fn().float() - ref.float()).abs().max().item()
                    row["ms"], row["tflops"] = measure(fn, flops)
                    row["sdpa_time_over_ours"] = sdpa_ms / row["ms"]
                    if not causal:
                        ranked.append((row["ms"], config))
                except Exception as error:
                    row["error"] = f"{type(error).__name__}: {error}"[:400]
                report(row)
        del q, k, v
        torch.cuda.empty_cache()


def tutorial_attention(name):
    """The peer's tutorial `name` under tlx_alias, as fn(q, k, v)."""
    import torch
    import triton
    sys.path.insert(0, SUPPORT)
    import tutorials
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    return tutorials.attention(name, for_tlx_alias=True)


def compare_candidates(only, repeat, report, n=N, tutorial=None):
    import torch
    import hopper_flash_attention as fa
    peer = tutorial_attention(tutorial) if tutorial else None
    by_dim = {}
    for text in only:
        fields = [int(x) for x in text.split(":")]
        d, block_n, stages, q_buffers, registers = fields[:5]
        v_stages = fields[5] if len(fields) > 5 else stages
        pingpong = bool(fields[6]) if len(fields) > 6 else True
        late = bool(fields[7]) if len(fields) > 7 else True
        diagonal_first = bool(fields[8]) if len(fields) > 8 and fields[8] >= 0 else None  # -1: the default
        o_staging = "v" if len(fields) > 9 and fields[9] else "q"
        q_reg_cols = fields[10] if len(fields) > 10 else 0
        by_dim.setdefault(d, []).append(dict(block_n=block_n, stages=stages, q_buffers=q_buffers,
                                             consumer_registers=registers, v_stages=v_stages, pingpong=pingpong,
                                             late_q_handback=late, diagonal_first=diagonal_first,
                                             o_staging=o_staging, q_reg_cols=q_reg_cols))
    z = Z * N // n
    for head_dim, candidates in by_dim.items():
        torch.manual_seed(0)
        q, k, v = (torch.randn((z, H, n, head_dim), device="cuda", dtype=torch.float16) for _ in range(3))
        for causal in (False, True):
            flops = 4 * z * H * n * n * head_dim * (0.5 if causal else 1.0)
            ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
            # (the fields a run's rows start with, the run)
            runs = [(dict(name="aliased", **config),
                     lambda config=config: fa.attention(q, k, v, causal=causal, **config)) for config in candidates]
            if peer and head_dim == 128 and not causal:  # the tutorials are non-causal, BLOCK_N 128
                runs.append((dict(name=f"tlx_alias running {tutorial}"), lambda: peer(q, k, v)))
            errors = {}
            for round_ in range(repeat):
                sdpa_ms, sdpa_tflops = measure(lambda: torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=causal), flops)
                report(dict(D=head_dim, N=n, causal=causal, round=round_, name="torch SDPA", ms=sdpa_ms,
                            tflops=sdpa_tflops))
                for i, (fields, fn) in enumerate(runs):
                    if i not in errors:
                        errors[i] = (fn().float() - ref.float()).abs().max().item()
                    ms, tflops = measure(fn, flops)
                    report(dict(D=head_dim, N=n, causal=causal, round=round_, **fields, ms=ms, tflops=tflops,
                                sdpa_time_over_ours=sdpa_ms / ms, max_abs_err=errors[i]))
        del q, k, v
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
