"""Runs one flash-attention forward a few times, for a profiler to pick the
last launch: the aliased example (examples/hopper_flash_attention.py),
torch SDPA or FlashAttention-3 (--fa3, bf16: benchmarks/attention.py's
fa3_attention), at one shape. No timing of its own.

    ncu --clock-control none -k regex:attn_fwd_kernel --launch-skip 2 --launch-count 1 \\
        --section SpeedOfLight --section WarpStateStats python benchmarks/attention_profile.py --head-dim 256
    ncu --clock-control none --launch-skip 2 --launch-count 1 ... \\
        python benchmarks/attention_profile.py --head-dim 256 --sdpa

--config BLOCK_N:STAGES:Q_BUFFERS[:V_STAGES[:PINGPONG]] overrides the
example's default_config; --options takes any of attention()'s options as
JSON (e.g. '{"cluster": 1, "tile_order": "dynamic"}'); --examples DIR imports another
version of the examples (an A/B of two commits). --backward runs the backward instead
(examples/hopper_flash_attention_bwd.py's attention_backward at its
defaults, or with --sdpa SDPA's autograd backward, cuDNN's on an H100/H200):

    ncu --clock-control none -k regex:'attn_bwd_kernel|bprop' --launch-skip 2 --launch-count 1 \\
        --section SpeedOfLight --section WarpStateStats python benchmarks/attention_profile.py --backward
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--sdpa", action="store_true", help="torch SDPA instead of the example")
    parser.add_argument("--fa3", action="store_true", help="FlashAttention-3 instead of the example")
    parser.add_argument("--dtype", choices=["float16", "bfloat16"], default="float16")
    parser.add_argument("--config", help="BLOCK_N:STAGES:Q_BUFFERS[:V_STAGES[:PINGPONG]]")
    parser.add_argument("--options", default="{}", help="attention()'s keyword arguments as JSON")
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--examples", default=EXAMPLES, help="the examples folder to import (another version's)")
    parser.add_argument("--backward", action="store_true", help="the backward (ours, or SDPA's with --sdpa)")
    args = parser.parse_args()
    sys.path.insert(0, args.examples)

    import torch
    z = 16384 // args.n
    dtype = getattr(torch, args.dtype)
    q, k, v = (torch.randn(z, 32, args.n, args.head_dim, device="cuda", dtype=dtype) for _ in range(3))
    if args.backward:
        run = _backward(q, k, v, args.causal, args.sdpa)
    elif args.fa3:
        sys.path.insert(0, HERE)
        import attention
        fa3 = attention.fa3_attention()

        def run():
            return fa3(q, k, v, args.causal)
    elif args.sdpa:
        def run():
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=args.causal)
    else:
        import hopper_flash_attention as fa
        options = json.loads(args.options)
        if args.config:
            fields = [int(f) for f in args.config.split(":")]
            options = dict(block_n=fields[0], stages=fields[1], q_buffers=fields[2])
            if len(fields) > 3:
                options["v_stages"] = fields[3]
            if len(fields) > 4:
                options["pingpong"] = bool(fields[4])

        def run():
            return fa.attention(q, k, v, causal=args.causal, **options)
    for _ in range(args.launches):
        run()
    torch.cuda.synchronize()


def _backward(q, k, v, causal, sdpa):
    """A function running one backward of softmax(Q K^T) V given a forward already run."""
    import torch
    do = torch.randn_like(q)
    if sdpa:
        q, k, v = (t.detach().clone().requires_grad_() for t in (q, k, v))
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
    import hopper_flash_attention as fa
    import hopper_flash_attention_bwd as fab
    o, lse = fa.attention(q, k, v, causal=causal, return_lse=True)
    return lambda: fab.attention_backward(q, k, v, o, do, lse, causal=causal)


if __name__ == "__main__":
    main()
