"""Runs tlx-check-hazards on a tlx kernel's TTGIR (after the lowering) and
turns its findings into `AliasHazardWarning`s at the kernel's source line.

TLX_ALIAS_HAZARDS: "warn" (default), "error" (findings are a compile error),
"off" (the pass does not run). The findings are kept in the compiled
kernel's metadata (`tlx_hazards`) and reported again, the same way, when
triton loads the kernel from its cache (_findings.py)."""
from ._findings import PassFindings
from ._triton.plugin import plugin_passes


class AliasHazardWarning(UserWarning):
    """Two accesses to overlapping shared memory that no wait or barrier
    hand-off orders (tlx-check-hazards)."""


METADATA_KEY = "tlx_hazards"
_PASS = PassFindings("tlx-check-hazards", lambda pm: plugin_passes.tlx_check_hazards(pm, []), AliasHazardWarning,
                     "TLX_ALIAS_HAZARDS", METADATA_KEY, "hazard(s)")
mode, findings, check, report, store, replay = (_PASS.mode, _PASS.findings, _PASS.check, _PASS.report, _PASS.store,
                                                _PASS.replay)
