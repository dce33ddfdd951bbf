"""The header-delta layer (cpp/abi): each delta is applied exactly where it says,
into a copy (never into the registry's headers), with a comment naming its ABI
fact; a text that is not there is a one-line error; a delta can be reverted
(--skip-fact) for the layout gate's tests; CMake selects a layer by the target
triton's version."""
import os
import runpy
import subprocess
import sys

import pytest
from conftest import registry_includes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ABI = os.path.join(ROOT, "cpp", "abi")
LAYER = os.path.join(ABI, "triton-3.8.0")
APPLY = os.path.join(ABI, "apply_deltas.py")
DELTAS = runpy.run_path(os.path.join(LAYER, "deltas.py"))["DELTAS"]


def _fake_registry(tmp_path, drop=None):
    """Include trees holding, for each header a delta names, each delta's text
    as often as the delta says (and the real text of nothing else)."""
    roots = {"mlir/include/": tmp_path / "mlir" / "include", "llvm/include/": tmp_path / "llvm" / "include"}
    texts = {}
    for i, delta in enumerate(DELTAS):
        if i == drop:
            continue
        prefix = next(p for p in roots if delta["file"].startswith(p))
        path = roots[prefix] / delta["file"][len(prefix):]
        chunk = "\n// --\n".join([delta["old"]] * delta.get("count", 1))
        texts[path] = texts.get(path, "// registry header\n") + "\n// ==\n" + chunk + "\n"
    for path, text in texts.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return roots["mlir/include/"], roots["llvm/include/"], texts


def _apply(mlir, llvm, out, *extra):
    return subprocess.run([sys.executable, APPLY, LAYER, "--mlir-include", str(mlir),
                           "--llvm-include", str(llvm), "--out", str(out), *extra],
                          capture_output=True, text=True)


def test_every_fact_has_a_delta_with_a_note():
    assert sorted({d["fact"] for d in DELTAS}) == list(range(1, 11))
    for delta in DELTAS:
        assert delta["note"] and delta["old"] != delta["new"]


def test_deltas_apply_into_a_copy_with_comments(tmp_path):
    mlir, llvm, texts = _fake_registry(tmp_path)
    before = {path: path.read_text() for path in texts}
    proc = _apply(mlir, llvm, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert {path: path.read_text() for path in texts} == before  # registry untouched
    out = tmp_path / "out"
    for delta in DELTAS:
        rel = delta["file"].split("/include/", 1)[1]
        text = (out / rel).read_text()
        comment = f"/* tlx-alias ABI delta {delta['fact']} (triton 3.8.0): {delta['note']} */"
        assert comment in text
        assert text.count(delta["new"]) >= delta.get("count", 1)
    assert (out / "llvm" / "ADT" / "Repeated.h").exists()
    manifest = (out / "tlx-abi-layer.txt").read_text().splitlines()
    assert manifest[0] == "3.8.0" and all(" applied " in line for line in manifest[1:])


def test_reverting_a_fact_leaves_its_headers_as_registered(tmp_path):
    mlir, llvm, _ = _fake_registry(tmp_path)
    proc = _apply(mlir, llvm, tmp_path / "out", "--skip-fact", "5")
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "out" / "mlir" / "IR" / "BuiltinAttributes.h.inc").exists()
    text = (tmp_path / "out" / "llvm" / "ADT" / "DenseMap.h").read_text()
    assert "tlx-alias ABI delta 9" in text
    assert "5 reverted mlir/include/mlir/IR/BuiltinAttributes.h.inc" in (
        tmp_path / "out" / "tlx-abi-layer.txt").read_text()


def test_missing_text_is_a_one_line_error(tmp_path):
    drop = next(i for i, d in enumerate(DELTAS) if d["fact"] == 4)
    mlir, llvm, _ = _fake_registry(tmp_path, drop=drop)
    proc = _apply(mlir, llvm, tmp_path / "out")
    assert proc.returncode == 1
    assert proc.stderr.startswith("header delta 4 (") and proc.stderr.count("\n") == 1
    assert "expected 1 occurrence(s)" in proc.stderr and "found 0" in proc.stderr


def test_layer_applies_to_the_registry_headers(tmp_path):
    dirs = registry_includes()
    if dirs is None:
        pytest.skip("xtc-mlir-dev/xtc-llvm-dev headers are not installed in this venv")
    proc = _apply(dirs[0], dirs[1], tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert "13 headers patched" in proc.stdout
