"""Hazard warnings survive triton's cache (issue 29, item 4): the findings
are stored in the compiled kernel's metadata and reported again, at the same
line with the same text, when a later process loads the kernel from the
cache, as ccache replays a compiler's warnings."""
import json
import os
import re

RACY = '''import json
import tlx_alias as tlx
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget


@triton.jit
def racy(x_ptr, out_ptr):
    buf = tlx.local_alloc((64, 64), tl.float32, 2)
    offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
    token = tlx.async_load(x_ptr + offs, buf[0])
    tlx.async_load_commit_group([token])
    tl.store(out_ptr + offs, tlx.local_load(buf[0]))  # no async_load_wait_group


src = triton.compiler.ASTSource(fn=racy, signature={"x_ptr": "*fp32", "out_ptr": "*fp32"})
kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32))
print("findings stored:", len(json.loads(kernel.metadata.tlx_hazards)))
'''

FINDING = ("{script}:14: AliasHazardWarning: tlx-check-hazards: local_load of buf[0] reads bytes [0, 16384) of buf "
           "while the cp.async copy (async_load) of buf[0] at {script}:12:{column} (writing them) may still be in flight; "
           "order them with a ttg.async_wait (async_load_wait_group) covering its commit group before this access")


def finding(script):
    """FINDING as a pattern: the copy's column is triton's location, which
    differs between versions (3.7.1: the call's, 3.8.0: the statement's)."""
    return re.escape(FINDING.format(script=script, column="@@")).replace("@@", r"\d+")


def cache_files(cache):
    """Every file of the cache directory with its modification time."""
    return {os.path.join(d, n): os.stat(os.path.join(d, n)).st_mtime_ns for d, _, names in os.walk(cache)
            for n in names}


def test_second_process_replays_the_warning_from_the_cache(python_run, tmp_path):
    cache, script = tmp_path / "cache", tmp_path / "racy.py"
    env = {"TRITON_CACHE_DIR": str(cache), "TLX_ALIAS_HAZARDS": None}
    first = python_run(RACY, env, script_path=script)
    compiled = cache_files(cache)
    second = python_run(RACY, env, script_path=script)
    assert cache_files(cache) == compiled  # a cache hit: nothing compiled, nothing written
    expected = finding(script)
    for run in (first, second):
        assert run.stdout == "findings stored: 1\n"
        assert re.fullmatch(expected, run.stderr.splitlines()[0]), run.stderr
    assert second.stderr == first.stderr


def test_cache_hit_honours_the_mode_of_the_process_that_loads_it(python_run, tmp_path):
    cache, script = tmp_path / "cache", tmp_path / "racy.py"
    python_run(RACY, {"TRITON_CACHE_DIR": str(cache), "TLX_ALIAS_HAZARDS": None}, script_path=script)
    # error: the stored finding fails the load as it fails a compile.
    failed = python_run(RACY, {"TRITON_CACHE_DIR": str(cache), "TLX_ALIAS_HAZARDS": "error"}, check=False,
                        script_path=script)
    assert failed.returncode == 1
    error = re.escape("RuntimeError: tlx-check-hazards found 1 hazard(s) in racy:\n") + finding(script)
    assert re.search(error.replace(re.escape(": AliasHazardWarning"), ""), failed.stderr), failed.stderr
    # off: nothing reported (and its own cache entry: off stores no findings).
    quiet = python_run(RACY, {"TRITON_CACHE_DIR": str(cache), "TLX_ALIAS_HAZARDS": "off"}, check=False,
                       script_path=script)
    assert "AliasHazardWarning" not in quiet.stderr
    assert quiet.stdout == "findings stored: 0\n"


def test_replay_reports_what_was_stored(monkeypatch):
    import warnings

    import pytest

    import tlx_alias as tlx
    from tlx_alias import _hazards
    monkeypatch.delenv("TLX_ALIAS_HAZARDS", raising=False)
    metadata = {"name": "k"}
    _hazards.store(metadata, [("kernel.py", 9, "tlx-check-hazards: a race")])
    assert json.loads(metadata["tlx_hazards"]) == [["kernel.py", 9, "tlx-check-hazards: a race"]]
    with pytest.warns(tlx.AliasHazardWarning) as record:
        _hazards.replay(metadata)
    assert [(w.filename, w.lineno, str(w.message)) for w in record] == [("kernel.py", 9, "tlx-check-hazards: a race")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _hazards.replay({"name": "k"})  # a kernel without findings (or without tlx): nothing
