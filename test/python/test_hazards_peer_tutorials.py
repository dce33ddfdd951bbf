"""tlx-check-hazards reports nothing on the peer's 8 Hopper tutorials run
through tlx_alias (imports rewritten, kernels unchanged: benchmarks/
tutorials.py), compiled for sm_90 on the CPU with every configuration their
@triton.autotune lists, up to GROUP_SIZE_M (peer_tutorials.group_free: it
moves TMA coordinates only): 153 of the 341 configurations, each of which
compiles. The first configuration of each kernel is compiled to a cubin; the
others stop after the TTGIR stage, where the analysis runs (the later stages
are most of a compile's time). Needs TLX_TUTORIALS (peer_tutorials.py)."""
import time
import warnings

import pytest

import peer_tutorials
import tlx_alias


@pytest.mark.parametrize("name", peer_tutorials.TUTORIALS)
def test_peer_tutorial_has_no_findings(name, monkeypatch, tmp_path):
    peer_tutorials.require_tutorials()
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile afresh: the pass runs
    monkeypatch.setenv("TLX_ALIAS_HAZARDS", "warn")
    start = time.time()
    found, compiled = [], 0
    for fn, configs in peer_tutorials.kernels(name):
        assert configs, f"{name}: {fn.__name__} has no autotune configs"
        for i, config in enumerate(configs):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                if i == 0:
                    kernel = peer_tutorials.compile_kernel(name, fn, config)
                    assert kernel.asm["cubin"] and "ttng.warp_group_dot" in kernel.asm["ttgir"]
                else:
                    with peer_tutorials.stop_after_ttgir():
                        assert "ttng.warp_group_dot" in peer_tutorials.ttgir(name, fn, config)
            compiled += 1
            found += [f"{fn.__name__} [{peer_tutorials.config_text(config)}]: {w.filename}:{w.lineno}: {w.message}"
                      for w in caught if issubclass(w.category, tlx_alias.AliasHazardWarning)]
    print(f"\n{name}: {compiled} configurations, {len(found)} findings, {time.time() - start:.1f} s")
    assert not found, "\n".join(found)
