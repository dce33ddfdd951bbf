"""Runs tlx-check-hazards on a tlx kernel's TTGIR (after the lowering) and
turns its findings into `AliasHazardWarning`s at the kernel's source line.

TLX_ALIAS_HAZARDS: "warn" (default), "error" (findings are a compile error),
"off" (the pass does not run)."""
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
    current = mode()
    if current == "off":
        return []
    found = findings(module, context)
    if found and current == "error":
        lines = "\n".join(f"{f}:{n}: {text}" for f, n, text in found)
        raise RuntimeError(f"tlx-check-hazards found {len(found)} hazard(s) in {kernel or 'the kernel'}:\n{lines}")
    for filename, lineno, text in found:
        warnings.warn_explicit(text, AliasHazardWarning, filename, lineno)
    return found
