"""tlx-unchained-waits-as-expects (TLX_ALIAS_UNCHAINED_WAITS=1, triton 3.7):
the flash-attention forward's consumer K/V loop keeps only its ping-pong
turn's warp-group barriers, where triton's barrier analysis otherwise puts a
`bar.sync` of the warp group between the loop's two waits on one mbarrier
ring; the producer's waits stay triton's. Compiled for sm_90 here; on the
GPU see docs/design/attention.md ("Nsight Compute where it trails")."""
import re
import sys

import pytest

from conftest import ROOT, sass_of
from tlx_alias._triton_version import imported_triton_at_least

sys.path.insert(0, f"{ROOT}/examples")

pytestmark = pytest.mark.skipif(imported_triton_at_least(3, 8), reason="the pass runs under triton 3.7 only")


def _loop_barriers(sass):
    """The BAR.SYNCs of each innermost SASS loop (a backward branch, no loop
    inside) that issues wgmmas: the consumers' K/V loops."""
    lines = [(int(m.group(1), 16), m.group(2).strip())
             for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", sass)]
    where = {address: i for i, (address, _) in enumerate(lines)}
    spans = []
    for i, (address, text) in enumerate(lines):
        target = re.search(r"BRA\s.*?(0x[0-9a-f]+)", text)
        if target and int(target.group(1), 16) < address and int(target.group(1), 16) in where:
            spans.append((where[int(target.group(1), 16)], i))
    innermost = [(a, b) for a, b in spans if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in spans)]
    return [[t for _, t in lines[a:b + 1] if t.startswith("BAR.SYNC")] for a, b in innermost
            if sum("HGMMA" in t for _, t in lines[a:b + 1]) >= 8]


@pytest.mark.parametrize("head_dim, options", [
    (128, dict(causal=True, p_16bit=True, rescale_skip=8.0, late_pv_wait=True, cluster=2)),
    (64, dict(causal=True, groups=3, p_16bit=True, pv_in_turn=True, rescale_skip=8.0)),
    (128, dict(causal=False, rescale_skip=8.0, late_pv_wait=True))])
def test_consumer_loop_keeps_only_the_turn_barriers(head_dim, options, tmp_path, monkeypatch):
    import hopper_flash_attention as fa

    kernels = {}
    for unchained in ("0", "1"):
        monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / unchained))
        monkeypatch.setenv("TLX_ALIAS_UNCHAINED_WAITS", unchained)
        kernels[unchained] = fa.compile_for_sm90(head_dim, dtype="bf16", **options)
    chained = _loop_barriers(sass_of(kernels["0"], tmp_path))
    unchained = _loop_barriers(sass_of(kernels["1"], tmp_path))
    assert chained and len(unchained) == len(chained)
    # the turn's bar.sync of both consumers (256 threads), and the chain's of one warp group (128)
    assert all(any(b.endswith(", 0x80") for b in bars) for bars in chained), chained
    assert all(bars and not any(b.endswith(", 0x80") for b in bars) for bars in unchained), unchained
    ptx = kernels["1"].asm["ptx"]
    assert "selp.b32 parity, 1, 0" in ptx and "selp.b32 parity" not in kernels["0"].asm["ptx"]
    # the producer's waits on the empty barriers stay triton's (its warps release nothing)
    assert re.search(r"try_wait\.parity\.shared::cta\.b64 complete, \[%r\d+\], %r\d+;", ptx)
