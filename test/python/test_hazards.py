"""tlx-check-hazards at compile time: zero findings on the Hopper test
kernels, a finding on a racy kernel's TTGIR is an AliasHazardWarning at the
kernel's line, TLX_ALIAS_HAZARDS=error makes it an error, =off skips it."""
import os
import warnings

import pytest

import tlx_alias as tlx
from tlx_alias import _hazards
from tlx_alias._triton import passes as _pipeline

from test_hopper_compile import D64, compile_for_sm90, hk

RACY = """
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
#loc = loc("kernel.py":7:3)
#loc2 = loc("kernel.py":9:5)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @k(%p: tensor<64x64x!tt.ptr<f16>, #blocked>) {
    %c0 = arith.constant 0 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %s = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %t = ttg.async_copy_global_to_local %p, %s : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable> loc(#loc)
    %g = ttg.async_commit_group tokens %t
    %v = ttg.local_load %s : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked> loc(#loc2)
    tt.return
  }
}
"""


def test_warning_class():
    assert issubclass(tlx.AliasHazardWarning, UserWarning)


def test_racy_ttgir_warns_at_the_kernel_line(monkeypatch):
    monkeypatch.delenv("TLX_ALIAS_HAZARDS", raising=False)
    module, context = _pipeline.parse_module(RACY)
    with pytest.warns(tlx.AliasHazardWarning) as record:
        found = _hazards.check(module, context=context)
    assert len(found) == 1
    assert (record[0].filename, record[0].lineno) == ("kernel.py", 9)
    assert "kernel.py:7:3" in str(record[0].message)  # the copy still in flight
    assert "bytes [0, 8192)" in str(record[0].message)


def test_error_and_off(monkeypatch):
    module, context = _pipeline.parse_module(RACY)
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")
    with pytest.raises(RuntimeError, match="tlx-check-hazards found 1 hazard"):
        _hazards.check(module, context=context)
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "off")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _hazards.check(module, context=context) == []


@pytest.mark.parametrize("case", ["tma_into_aliased_slot", "producer_consumer_sum", "producer_consumer_sum_threads",
                                  "tma_store_tile"])
def test_hopper_kernels_have_no_findings(case, monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "error")  # a finding fails the compile
    if case == "tma_into_aliased_slot":
        k = compile_for_sm90(hk.tma_into_aliased_slot, {"desc": D64, "out_ptr": "*fp16"}, dict(ROW=64, B=64, EVICT=""))
    elif case.startswith("producer_consumer_sum"):  # _threads: warp barriers, two arrivals, one predicated
        k = compile_for_sm90(hk.producer_consumer_sum, {"desc": D64, "out_ptr": "*fp16"},
                             dict(NUM_TILES=4, B=64, STAGES=2, EMPTY="threads_pred" if "threads" in case else "leader"))
    else:
        k = compile_for_sm90(hk.tma_store_tile, {"in_desc": D64, "out_desc": D64}, dict(B=64, EVICT=""))
    module, context = _pipeline.parse_module(k.asm["ttgir"])
    assert _hazards.findings(module, context) == []
