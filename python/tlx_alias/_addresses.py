"""Runs tlx-pid-address-analysis on a kernel's TTGIR: its cross-program
writes become `AddressRaceWarning`s at the store's line, its global accesses
the rows of `tlx_alias.address_report`.

TLX_ALIAS_ADDRESSES: "warn" (default), "error" (a cross-program write is a
compile error), "off" (the analysis does not run while compiling). As with
the hazard check (_hazards.py), the findings are kept in the compiled
kernel's metadata (`tlx_addresses`) and reported again when triton loads the
kernel from its cache."""
import json
import os
import re
import tempfile
import warnings

from ._triton.passes import parse_module, run_reporting
from ._triton.plugin import plugin_passes


class AddressRaceWarning(UserWarning):
    """Two different program ids may store to overlapping bytes
    (tlx-pid-address-analysis)."""


_FINDING = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): warning: (?P<text>tlx-pid-address-analysis: .*)$")
METADATA_KEY = "tlx_addresses"


def mode():
    value = os.environ.get("TLX_ALIAS_ADDRESSES", "warn").strip().lower()
    return value if value in ("warn", "error", "off") else "warn"


def findings(module, context=None):
    """[(file, line, message)]: the cross-program writes of an ir.module."""
    reported = run_reporting(module, lambda pm: plugin_passes.tlx_pid_address_analysis(pm, ["remarks=false"]),
                             context)
    found = []
    for line in reported.splitlines():
        match = _FINDING.match(line)
        if match:
            found.append((match["file"], int(match["line"]), match["text"]))
    return found


def check(module, kernel="", context=None):
    """Warns (or raises, with TLX_ALIAS_ADDRESSES=error) for each finding."""
    if mode() == "off":
        return []
    found = findings(module, context)
    report(found, kernel)
    return found


def report(found, kernel=""):
    """Warns for each (file, line, message), or raises them all at once with
    TLX_ALIAS_ADDRESSES=error."""
    current = mode()
    if current == "off":
        return
    if found and current == "error":
        lines = "\n".join(f"{f}:{n}: {text}" for f, n, text in found)
        raise RuntimeError(f"tlx-pid-address-analysis found {len(found)} cross-program write(s) in "
                           f"{kernel or 'the kernel'}:\n{lines}")
    for filename, lineno, text in found:
        warnings.warn_explicit(text, AddressRaceWarning, filename, lineno)


def store(metadata, found):
    """Keeps the findings in the kernel's metadata, which triton caches."""
    metadata[METADATA_KEY] = json.dumps([list(finding) for finding in found])


def replay(metadata):
    """Reports the findings a cached kernel's metadata holds, as the compile
    that produced it did."""
    text = metadata.get(METADATA_KEY)
    if text:
        report([tuple(finding) for finding in json.loads(text)], metadata.get("name", ""))


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
