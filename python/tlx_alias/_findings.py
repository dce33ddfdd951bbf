"""A warning pass's findings, for the analyses that report at kernel lines
(tlx-check-hazards: _hazards.py, tlx-pid-address-analysis: _addresses.py):
run the pass, warn (or raise) at each finding's line, keep the findings in
the compiled kernel's metadata and report them again when triton loads the
kernel from its cache (as ccache replays warnings).

Each analysis' environment variable says "warn" (default), "error" (a
finding is a compile error) or "off" (the analysis does not run)."""
import json
import os
import re
import warnings

from ._triton.passes import run_reporting


class PassFindings:
    """The findings of pass `name` (its warnings start with "name: "),
    added to a pass manager by `add_pass(pm)`, reported as `category`."""

    def __init__(self, name, add_pass, category, env, metadata_key, noun):
        self.name, self.add_pass, self.category = name, add_pass, category
        self.env, self.metadata_key, self.noun = env, metadata_key, noun
        self._finding = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): warning: "
                                   rf"(?P<text>{re.escape(name)}: .*)$")

    def mode(self):
        value = os.environ.get(self.env, "warn").strip().lower()
        return value if value in ("warn", "error", "off") else "warn"

    def findings(self, module, context=None):
        """[(file, line, message)] of the pass on an ir.module."""
        reported = run_reporting(module, self.add_pass, context)
        return [(match["file"], int(match["line"]), match["text"])
                for match in map(self._finding.match, reported.splitlines()) if match]

    def check(self, module, kernel="", context=None):
        """Warns (or raises, in "error" mode) for each finding."""
        if self.mode() == "off":
            return []
        found = self.findings(module, context)
        self.report(found, kernel)
        return found

    def report(self, found, kernel=""):
        """Warns for each (file, line, message), or raises them all at once
        in "error" mode."""
        current = self.mode()
        if current == "off":
            return
        if found and current == "error":
            lines = "\n".join(f"{f}:{n}: {text}" for f, n, text in found)
            raise RuntimeError(f"{self.name} found {len(found)} {self.noun} in {kernel or 'the kernel'}:\n{lines}")
        for filename, lineno, text in found:
            warnings.warn_explicit(text, self.category, filename, lineno)

    def store(self, metadata, found):
        """Keeps the findings in the kernel's metadata, which triton caches."""
        metadata[self.metadata_key] = json.dumps([list(finding) for finding in found])

    def replay(self, metadata):
        """Reports the findings a cached kernel's metadata holds, as the
        compile that produced it did."""
        text = metadata.get(self.metadata_key)
        if text:
            self.report([tuple(finding) for finding in json.loads(text)], metadata.get("name", ""))
