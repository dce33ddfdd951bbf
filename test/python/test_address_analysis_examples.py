"""tlx-pid-address-analysis on the kernels of examples/ (one configuration
each) and the first configuration of each of the peer's 8 Hopper tutorials
(compiled up to TTGIR): no AddressRaceWarning (TLX_ALIAS_ADDRESSES=error
fails the compile) and every pointer access coalesced."""
import pytest

import peer_tutorials
import tlx_alias
from tlx_alias import _addresses
from test_hazards_examples import CASES

EXAMPLES = ["hopper_persistent_gemm C_SPLIT=2", "hopper_flash_attention D=128 causal=True alias=True",
            "persistent_gemm ALIAS=True", "memory_map softmax_rows"]


def _uncoalesced(accesses):
    return [a for a in accesses if a["box"] is None and not a["coalesced"]]


@pytest.mark.parametrize("case", EXAMPLES)
def test_example_has_no_race_and_coalesced_accesses(case, monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TLX_ALIAS_ADDRESSES", "error")
    report = tlx_alias.address_report(CASES[case]())
    assert report, case
    assert [row for row in report if row["box"] is None and not row["coalesced"]] == []


@pytest.mark.parametrize("name", peer_tutorials.TUTORIALS)
def test_peer_tutorial_has_no_race_and_coalesced_accesses(name, monkeypatch, tmp_path):
    peer_tutorials.require_tutorials()
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TLX_ALIAS_ADDRESSES", "error")
    for fn, configs in peer_tutorials.kernels(name):
        with peer_tutorials.stop_after_ttgir():
            text = peer_tutorials.ttgir(name, fn, configs[0])
        accesses = _addresses.accesses(text)
        assert accesses, fn.__name__
        assert _uncoalesced(accesses) == [], fn.__name__
