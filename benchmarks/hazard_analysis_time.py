"""What tlx-check-hazards costs: each example kernel compiled for sm_90 (CPU
only) with the analysis on and off, side by side, median of a few compiles;
prints both times and the analysis' share of the compile, and the pass alone
on the kernel's final TTGIR (median of 9 runs in this process: steady where
the difference of two compiles is noise on a busy machine).

    python benchmarks/hazard_analysis_time.py [--repeat 3]
"""
import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))
os.environ["TRITON_ALWAYS_COMPILE"] = "1"  # the cache key does not see the analysis

import tlx_alias  # noqa: E402,F401
import hopper_flash_attention as fa  # noqa: E402
import hopper_flash_attention_bwd as fab  # noqa: E402
import hopper_persistent_gemm as gemm  # noqa: E402
import persistent_gemm  # noqa: E402

KERNELS = {
    "hopper_persistent_gemm (aliased)": lambda: gemm.compile_for_sm90(),
    "hopper_persistent_gemm (twin)": lambda: gemm.compile_for_sm90(STAGES=3, ALIAS=False),
    "hopper_flash_attention D128 causal": lambda: fa.compile_for_sm90(128, causal=True),
    "hopper_flash_attention D256": lambda: fa.compile_for_sm90(256),
    "persistent_gemm (cp.async, aliased)": lambda: persistent_gemm.compile_for_sm90(ALIAS=True, STAGES=4),
    # the backward's defaults up to N = 4096: persistent programs, dQ turns, LSE in the ring
    "attention backward D128 persistent": lambda: fab.compile_for_sm90(
        head_dim=128, persistent=True, dq_tma=True, dq_turns=True, lse_smem=True),
    "attention backward D128 causal persistent": lambda: fab.compile_for_sm90(
        head_dim=128, causal=True, persistent=True, dq_tma=True, dq_turns=True, lse_smem=True),
}


def compile_seconds(fn, mode, repeat, env="TLX_ALIAS_HAZARDS"):
    os.environ[env] = mode
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def pass_seconds(kernel, findings, runs=9):
    from tlx_alias._triton import passes as _pipeline
    module, context = _pipeline.parse_module(kernel.asm["ttgir"])
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        findings(module, context)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(doc=__doc__, env="TLX_ALIAS_HAZARDS", findings=None, kernels=KERNELS):
    """Prints the table for the analysis that `env` switches and whose pass
    alone `findings(module, context)` runs (by default tlx-check-hazards)."""
    if findings is None:
        from tlx_alias import _hazards
        findings = _hazards.findings
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'kernel':40} {'off s':>7} {'on s':>7} {'analysis share':>15} {'pass s':>7} {'pass share':>11}")
    for name, fn in kernels.items():
        kernel = fn()  # warm: imports, first-compile costs
        off = compile_seconds(fn, "off", args.repeat, env)
        on = compile_seconds(fn, "warn", args.repeat, env)
        alone = pass_seconds(kernel, findings)
        print(f"{name:40} {off:7.2f} {on:7.2f} {max(on - off, 0.0) / on:15.1%} {alone:7.3f} "
              f"{alone / (off + alone):11.1%}")


if __name__ == "__main__":
    main()
