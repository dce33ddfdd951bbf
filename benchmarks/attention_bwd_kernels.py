"""Where the flash-attention backward's time goes, kernel by kernel: the
main kernel and the side kernels (delta, dQ's zeroing and conversion) of
examples/hopper_flash_attention_bwd.py at its defaults, and of SDPA's
autograd backward (cuDNN's on an H100/H200), from torch.profiler, at
B * N = 16384 tokens, 32 heads, bf16, over sequence lengths. The main
kernel's time against the Q blocks each program runs (N / 64; causal about
half) separates a per-step cost from a per-program one: programs of 128 K/V
rows, (16384 / 128) * 32 = 4096 of them in every row.

    python benchmarks/attention_bwd_kernels.py [--head-dims 128] [--out results.txt]
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKENS, HEADS, PROGRAMS = 16384, 32, 16384 // 128 * 32


def kernel_times(fn, calls=5):
    """{kernel name: microseconds a call}, CUDA kernels of `calls` calls."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    times = {}
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            times[event.name] = times.get(event.name, 0.0) + event.device_time / calls
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--head-dims", nargs="+", type=int, default=[128, 64], choices=[64, 128])
    parser.add_argument("--lengths", nargs="+", type=int, default=[256, 1024, 2048, 4096, 16384])
    parser.add_argument("--out", help="also write the lines to this file")
    args = parser.parse_args()
    import torch
    import triton
    import tlx_alias  # noqa: F401
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import hopper_flash_attention as fa
    import hopper_flash_attention_bwd as fab
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    out = open(args.out, "w") if args.out else None

    def say(line):
        print(line, flush=True)
        if out:
            out.write(line + "\n")

    say(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}; microseconds a "
        f"call, torch.profiler over 5 calls; B * N = {TOKENS}, {HEADS} heads, bf16; {PROGRAMS} programs")
    for d in args.head_dims:
        for causal in (False, True):
            for n in args.lengths:
                q, k, v, do = (torch.randn((TOKENS // n, HEADS, n, d), device="cuda", dtype=torch.bfloat16)
                               for _ in range(4))
                o, lse = fa.attention(q, k, v, causal=causal, return_lse=True)
                ours = kernel_times(lambda: fab.attention_backward(q, k, v, o, do, lse, causal=causal))
                qq, kk, vv = (t.detach().clone().requires_grad_() for t in (q, k, v))
                out_sdpa = torch.nn.functional.scaled_dot_product_attention(qq, kk, vv, is_causal=causal)
                sdpa = kernel_times(lambda: torch.autograd.grad(out_sdpa, (qq, kk, vv), do, retain_graph=True))
                steps = n // 64 if not causal else (n // 64 + 2) / 2
                main_ours = sum(t for name, t in ours.items() if "attn_bwd_kernel" in name)
                main_sdpa = max(sdpa.values())
                say(f"D={d} causal={causal} N={n} steps={steps:g}: ours main {main_ours:.1f} side "
                    f"{sum(ours.values()) - main_ours:.1f}; SDPA main {main_sdpa:.1f} side "
                    f"{sum(sdpa.values()) - main_sdpa:.1f}")
    if out:
        out.close()


if __name__ == "__main__":
    main()
