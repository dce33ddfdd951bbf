"""tlx-check-hazards reports nothing on the (correct, GPU-tested) kernels of
examples/: every configuration compiled for sm_90 with TLX_ALIAS_HAZARDS=error
(a finding fails the compile), and its final TTGIR checked again for an empty
list of findings (which names them when it is not); and the analysis checks
all of it: no task's trace falls out of step (--tlx-check-hazards=
report-unchecked names the waits where one does: the three causal consumer
groups' producer did, with one K/V loop to their three, until it took their
loops, docs/hazard_analysis.md#limits)."""
import os
import sys

import pytest
import triton
from triton.backends.compiler import GPUTarget

from conftest import unchecked_waits
from tlx_alias import _hazards
from tlx_alias._triton import passes as _pipeline

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
sys.path.insert(0, EXAMPLES)

import hopper_flash_attention  # noqa: E402
import hopper_persistent_gemm  # noqa: E402
import memory_map  # noqa: E402
import persistent_gemm  # noqa: E402


def _memory_map_kernel():
    constexprs = {"BLOCK_M": 64, "BLOCK_N": 64, "NUM_BUFFERS": 2}
    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", **{k: "constexpr" for k in constexprs}}
    src = triton.compiler.ASTSource(fn=memory_map.softmax_rows, signature=signature, constexprs=constexprs)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32))


CASES = {
    "hopper_persistent_gemm C_SPLIT=2": lambda: hopper_persistent_gemm.compile_for_sm90(C_SPLIT=2),
    "hopper_persistent_gemm C_SPLIT=1": lambda: hopper_persistent_gemm.compile_for_sm90(C_SPLIT=1),
    "hopper_persistent_gemm ALIAS=False": lambda: hopper_persistent_gemm.compile_for_sm90(ALIAS=False, STAGES=3),
    # Other ring depths: the analysis unrolls a whole number of every ring's
    # phase cycles (STAGES=4 unaliased, which does not fit sm_90 anyway, was
    # once a false positive at the default bound).
    **{
        f"hopper_persistent_gemm ALIAS={alias} STAGES={stages}":
        (lambda alias=alias, stages=stages: hopper_persistent_gemm.compile_for_sm90(ALIAS=alias, STAGES=stages))
        for alias, stages in ((False, 4), (False, 2), (True, 3), (True, 2))
    },
    **{
        f"hopper_flash_attention D={d} causal={causal} alias={alias}":
        (lambda d=d, causal=causal, alias=alias: hopper_flash_attention.compile_for_sm90(d, causal=causal, alias=alias))
        for d in (64, 128, 256) for causal in (False, True) for alias in (True, False)
    },
    **{  # three consumers taking turns round robin, BLOCK_M 192
        f"hopper_flash_attention D=64 groups=3 causal={causal}":
        (lambda causal=causal: hopper_flash_attention.compile_for_sm90(
            64, causal=causal, groups=3, consumer_registers=160, diagonal_first=False))
        for causal in (False, True)
    },
    **{  # P in 16 bits (the causal mask's "lane" form) with the skipped acc rescale (a reduction through scratch)
        f"hopper_flash_attention D={d} causal={causal} p_16bit rescale_skip":
        (lambda d=d, causal=causal: hopper_flash_attention.compile_for_sm90(d, causal=causal, p_16bit=True,
                                                                            rescale_skip=True))
        for d in (128, 256) for causal in (False, True)
    },
    **{  # PV waited for between the two halves of a block's exp2s
        f"hopper_flash_attention D={d} causal={causal} late_pv_wait=half":
        (lambda d=d, causal=causal: hopper_flash_attention.compile_for_sm90(
            d, causal=causal, p_16bit=True, rescale_skip=8.0, late_pv_wait="half", groups=3 if d == 64 else 2))
        for d in (64, 128) for causal in (False, True)
    },
    **{  # head dim 128's default from N = 4096: clusters, the lazy rescale, PV waited for inside its asm
        f"hopper_flash_attention D=128 causal={causal} cluster=2 lazy late_pv_wait":
        (lambda causal=causal: hopper_flash_attention.compile_for_sm90(128, causal=causal, p_16bit=causal, cluster=2,
                                                                       rescale_skip=8.0, late_pv_wait=True))
        for causal in (False, True)
    },
    **{  # causal tiles from the device-side counter, handed to the consumers beside their Q (a while loop each)
        f"hopper_flash_attention D={d} causal tile_order=dynamic {name}":
        (lambda d=d, options=options: hopper_flash_attention.compile_for_sm90(d, causal=True, tile_order="dynamic",
                                                                              **options))
        for d, name, options in (
            (64, "groups=3 lazy", dict(groups=3, p_16bit=True, pv_in_turn=True, rescale_skip=8.0)),
            (64, "groups=3 lazy stages=4", dict(groups=3, p_16bit=True, pv_in_turn=True, rescale_skip=8.0, stages=4)),
            (128, "lazy late_pv_wait", dict(p_16bit=True, rescale_skip=8.0, late_pv_wait=True)),
            (128, "q_buffers=1", dict(q_buffers=1)), (256, "lazy", dict(rescale_skip=8.0)),
            (256, "o_staging=v", dict(o_staging="v", v_stages=3)),
            (128, "cluster=2 lazy late_pv_wait=half", dict(cluster=2, p_16bit=True, rescale_skip=8.0,
                                                           late_pv_wait="half")),
            (256, "cluster=2 lazy", dict(cluster=2, rescale_skip=8.0)))
    },
    "persistent_gemm ALIAS=True": lambda: persistent_gemm.compile_for_sm90(ALIAS=True, STAGES=4),
    "persistent_gemm ALIAS=False": lambda: persistent_gemm.compile_for_sm90(ALIAS=False, STAGES=2),
    "memory_map softmax_rows": _memory_map_kernel,
}


@pytest.mark.parametrize("case", list(CASES))
def test_example_kernel_has_no_findings(case, monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile afresh: the pass runs
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")
    kernel = CASES[case]()
    module, context = _pipeline.parse_module(kernel.asm["ttgir"])
    assert _hazards.findings(module, context) == []
    assert unchecked_waits(kernel.asm["ttgir"]) == set()
