"""Option sets of the attention forward (`attention()`) or backward
(`attention_backward()`) side by side, with FlashAttention-3 (forward, bf16,
when installed) and SDPA, in rounds where each provider follows every other
equally often (sides.round_order), in one process: how the docs' A/B rows of
one change are taken.

    python benchmarks/attention_options.py '{"default": {}, "c2": {"cluster": 2}}' --shapes 4096:256:0 16384:256:1
    python benchmarks/attention_options.py --backward '{"default": {}, "leader": {"thread_arrives": false}}' \\
        --shapes 4096:128:0 16384:128:1

Each option set is a name and the keyword arguments of the example's function;
a forward set's "_env" ({"VARIABLE": "value"}) is set while its kernel runs,
so that a compile-time switch of tlx_alias (e.g. TLX_ALIAS_UNCHAINED_WAITS)
reaches its compile: give such a set an option that makes it another kernel
(e.g. "rescale_skip": 8.000001 beside the default 8.0).
Shapes are N:D:causal with batch * N = 16384 tokens and 32 heads; --dtype bf16
(default) or fp16; --rounds (default 5) of --rep-ms (default 100) each. A line
per shape is printed and the rows go to --out as JSON lines (attention.py's or
attention_bwd.py's rows).
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))
import sides  # noqa: E402

TOKENS, HEADS = 16384, 32


def _forward_rows(options, shapes, dtype, rounds, rep_ms, emit):
    import torch
    import attention
    import hopper_flash_attention as fa

    def ours(opts):
        opts = dict(opts)
        env = opts.pop("_env", {})

        def run(q, k, v, causal):
            saved = {name: os.environ.get(name) for name in env}
            os.environ.update(env)
            try:
                return fa.attention(q, k, v, causal=causal, **opts)
            finally:
                for name, value in saved.items():
                    if value is None:
                        os.environ.pop(name, None)
                    else:
                        os.environ[name] = value

        return run

    everywhere = ((False, True), (64, 128, 256))
    fns = {name: (ours(opts), *everywhere, ("bf16", "fp16")) for name, opts in options.items()}
    fa3 = attention.fa3_attention()
    if fa3 and dtype == "bf16":
        fns["FlashAttention-3"] = (fa3, *everywhere, ("bf16", ))
    fns["torch SDPA"] = (lambda q, k, v, causal: torch.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=causal), *everywhere, ("bf16", "fp16"))
    for n, d, causal in shapes:
        rows = attention.measure_shape("ours", fns, dtype, TOKENS // n, HEADS, n, d, causal, rounds, rep_ms)
        for row in rows:
            emit(row)
        print(n, d, causal, " ".join(f"{r['name']}={r['tflops']:.0f}" if "tflops" in r else
                                     f"{r['name']}: {r.get('error', 'no time')[:200]}" for r in rows), flush=True)


def _backward_rows(options, shapes, dtype, rounds, rep_ms, emit):
    import torch
    import attention_bwd
    import hopper_flash_attention_bwd as fab

    def ours(opts):
        return lambda q, k, v, o, do, lse, causal: (
            lambda: fab.attention_backward(q, k, v, o, do, lse, causal=causal, **opts))

    table = {name: (ours(opts), (64, 128)) for name, opts in options.items()}
    table["torch SDPA"] = attention_bwd.providers(False, quick=True, candidates=[])["torch SDPA"]
    torch_dtype = torch.bfloat16 if dtype == "bf16" else torch.float16
    for n, d, causal in shapes:
        rows = attention_bwd.run_shape(TOKENS // n, HEADS, n, d, causal, torch_dtype, table, rounds, emit)
        print(n, d, causal, " ".join(f"{r['provider']}={r['tflops']:.0f}/{r.get('vs_sdpa', 0):.3f}" for r in rows),
              flush=True)


def main():
    from attention import REP_MS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("options", help='JSON: {"name": {keyword: value, ...}, ...}')
    parser.add_argument("--shapes", nargs="+", type=sides.parse_shape, required=True, metavar="N:D:CAUSAL")
    parser.add_argument("--backward", action="store_true", help="attention_backward's options, not attention()'s")
    parser.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rep-ms", type=int, default=REP_MS,
                        help="milliseconds each kernel runs in a forward round (the backward's: 100)")
    parser.add_argument("--out", help="append the rows as JSON lines to this file")
    args = parser.parse_args()
    options = json.loads(args.options)
    import torch
    import triton
    import tlx_alias  # noqa: F401
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    out = open(args.out, "a") if args.out else None

    def emit(row):
        if out:
            out.write(json.dumps(row) + "\n")
            out.flush()

    run = _backward_rows if args.backward else _forward_rows
    run(options, args.shapes, args.dtype, args.rounds, args.rep_ms, emit)


if __name__ == "__main__":
    main()
