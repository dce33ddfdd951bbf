"""What tlx-pid-address-analysis costs: each example kernel compiled for
sm_90 (CPU only) with the analysis on and off (TLX_ALIAS_ADDRESSES), side by
side, median of a few compiles; prints both times and the analysis' share of
the compile, and the pass alone on the kernel's final TTGIR (median of 9 runs
in this process: steady where the difference of two compiles is noise on a
busy machine). The measuring is hazard_analysis_time.py's, with this
analysis switched, on its kernels but the unaliased GEMM twin.

    python benchmarks/address_analysis_time.py [--repeat 3]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hazard_analysis_time as timing  # noqa: E402  (imports tlx_alias and the examples)

KERNELS = {name: fn for name, fn in timing.KERNELS.items() if "twin" not in name}


if __name__ == "__main__":
    from tlx_alias import _addresses
    timing.main(__doc__, "TLX_ALIAS_ADDRESSES", _addresses.findings, KERNELS)
