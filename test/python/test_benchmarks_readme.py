"""benchmarks/README.md's tables are what `benchmarks/make_readme.py` makes
of the results files they name: no number there is typed by hand."""
import os
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import make_readme  # noqa: E402


def test_benchmarks_readme_is_what_its_results_files_give():
    with open(make_readme.README) as f:
        committed = f.read()
    assert make_readme.cited_results(committed), "benchmarks/README.md has no generated tables"
    assert make_readme.render(committed) == committed, "stale: run python benchmarks/make_readme.py"
