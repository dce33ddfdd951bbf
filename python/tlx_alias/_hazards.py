"""Runs tlx-check-hazards on a tlx kernel's TTGIR (after the lowering) and
turns its findings into `AliasHazardWarning`s at the kernel's source line.

TLX_ALIAS_HAZARDS: "warn" (default), "error" (findings are a compile error),
"off" (the pass does not run). The findings are kept in the compiled
kernel's metadata (`tlx_hazards`) and reported again, the same way, when
triton loads the kernel from its cache (as ccache replays warnings)."""
import json
import os
import re
import warnings

from ._triton.passes import run_reporting
from ._triton.plugin import plugin_passes


class AliasHazardWarning(UserWarning):
    """Two accesses to overlapping shared memory that no wait or barrier
    hand-off orders (tlx-check-hazards)."""


_FINDING = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): warning: (?P<text>tlx-check-hazards: .*)$")


def mode():
    value = os.environ.get("TLX_ALIAS_HAZARDS", "warn").strip().lower()
    return value if value in ("warn", "error", "off") else "warn"


def findings(module, context=None):
    """[(file, line, message)] of tlx-check-hazards on an ir.module."""
    reported = run_reporting(module, lambda pm: plugin_passes.tlx_check_hazards(pm, []), context)
    found = []
    for line in reported.splitlines():
        match = _FINDING.match(line)
        if match:
            found.append((match["file"], int(match["line"]), match["text"]))
    return found


def check(module, kernel="", context=None):
    """Warns (or raises, with TLX_ALIAS_HAZARDS=error) for each finding."""
    if mode() == "off":
        return []
    found = findings(module, context)
    report(found, kernel)
    return found


def report(found, kernel=""):
    """Warns for each (file, line, message), or raises them all at once with
    TLX_ALIAS_HAZARDS=error."""
    current = mode()
    if current == "off":
        return
    if found and current == "error":
        lines = "\n".join(f"{f}:{n}: {text}" for f, n, text in found)
        raise RuntimeError(f"tlx-check-hazards found {len(found)} hazard(s) in {kernel or 'the kernel'}:\n{lines}")
    for filename, lineno, text in found:
        warnings.warn_explicit(text, AliasHazardWarning, filename, lineno)


METADATA_KEY = "tlx_hazards"


def store(metadata, found):
    """Keeps the findings in the kernel's metadata, which triton caches."""
    metadata[METADATA_KEY] = json.dumps([list(finding) for finding in found])


def replay(metadata):
    """Reports the findings a cached kernel's metadata holds, as the compile
    that produced it did."""
    text = metadata.get(METADATA_KEY)
    if text:
        report([tuple(finding) for finding in json.loads(text)], metadata.get("name", ""))
