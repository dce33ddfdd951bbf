"""Runs tlx-pid-address-analysis on a kernel's TTGIR: its cross-program
writes become `AddressRaceWarning`s at the store's line, its global accesses
the rows of `tlx_alias.address_report`.

TLX_ALIAS_ADDRESSES: "warn" (default), "error" (a cross-program write is a
compile error), "off" (the analysis does not run while compiling). As with
the hazard check (_hazards.py), the findings are kept in the compiled
kernel's metadata (`tlx_addresses`) and reported again when triton loads the
kernel from its cache (_findings.py)."""
import json
import os
import tempfile

from ._findings import PassFindings
from ._triton.passes import parse_module, run_reporting
from ._triton.plugin import plugin_passes


class AddressRaceWarning(UserWarning):
    """Two different program ids may store to overlapping bytes
    (tlx-pid-address-analysis)."""


METADATA_KEY = "tlx_addresses"
_PASS = PassFindings("tlx-pid-address-analysis",
                     lambda pm: plugin_passes.tlx_pid_address_analysis(pm, ["remarks=false"]), AddressRaceWarning,
                     "TLX_ALIAS_ADDRESSES", METADATA_KEY, "cross-program write(s)")
mode, findings, check, report, store, replay = (_PASS.mode, _PASS.findings, _PASS.check, _PASS.report, _PASS.store,
                                                _PASS.replay)


def accesses(ttgir):
    """The analysis' JSON line per global access of TTGIR text, as dicts."""
    module, context = parse_module(ttgir)
    fd, path = tempfile.mkstemp(prefix="tlx_addresses_", suffix=".jsonl")
    os.close(fd)
    try:
        run_reporting(module, lambda pm: plugin_passes.tlx_pid_address_analysis(
            pm, ["remarks=false", f"report={path}"]), context)
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    finally:
        os.unlink(path)
