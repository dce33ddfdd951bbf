import os
import re
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# triton 3.9 warns once per process while TRITON_DEFAULT_FP_FUSION is unset
# (its default turns to off in 3.10); 1 keeps 3.9's (and every earlier
# triton's) default, so tests that read a compile's stderr see only ours.
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")


def exact_views_by_default():
    """Whether kernels lower with exact views (triton 3.8's memdesc rules):
    the default on every triton, unless TLX_ALIAS_EXACT_VIEWS=0 asks for
    packed views (triton 3.7 only)."""
    return os.environ.get("TLX_ALIAS_EXACT_VIEWS") != "0"


def packed_views_verify():
    """Whether the running triton accepts packed views (3.7 does, 3.8 not)."""
    from tlx_alias._triton_version import imported_triton_at_least
    return not imported_triton_at_least(3, 8)


def registry_includes():
    """The registry packages' MLIR and LLVM include dirs (xtc-mlir-dev,
    xtc-llvm-dev), or None when they are not installed."""
    import importlib.util
    specs = [importlib.util.find_spec(name) for name in ("mlir", "llvm")]
    if any(s is None or not s.submodule_search_locations for s in specs):
        return None
    dirs = [os.path.join(os.path.dirname(s.submodule_search_locations[0]), n, "include")
            for s, n in zip(specs, ("mlir", "llvm"))]
    return dirs if all(os.path.isdir(d) for d in dirs) else None


# The error exact views give for a padded layout in a storage_alias_spec.
PADDED_REFUSED = "cannot place a buffer of a padded shared layout"


def run_python(code, env_update=None, check=True, script_path=None):
    """Runs code in a fresh interpreter (plugin registration is per process).

    env_update values of None remove the variable."""
    env = dict(os.environ)
    for name, value in (env_update or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    # A file, not -c: @triton.jit needs the source of its functions.
    if script_path is None:
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
            script.write(code)
        path = script.name
    else:
        path = str(script_path)
        with open(path, "w") as script:
            script.write(code)
    try:
        proc = subprocess.run([sys.executable, path], capture_output=True, text=True, env=env,
                              timeout=300)
    finally:
        if script_path is None:
            os.unlink(path)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def fake_triton(tmp_path, version):
    """A site dir whose `triton` is another version (never importable)."""
    pkg = tmp_path / "triton"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise RuntimeError('fake triton imported')\n")
    dist = tmp_path / f"triton-{version}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: triton\nVersion: {version}\n")
    return str(tmp_path)


@pytest.fixture
def python_run():
    return run_python


def jit_from_body(body, params, namespace):
    """A triton.JITFunction `kernel(<params>)` whose body is `body` (source
    lines), registered with linecache so errors can quote its lines."""
    import linecache

    import triton
    source = f"def kernel({params}):\n" + "\n".join("    " + line for line in body.splitlines())
    filename = f"<tlx-test-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope = dict(namespace)
    exec(compile(source, filename, "exec"), scope)
    return triton.JITFunction(scope["kernel"])


def expect_compilation_error(compile_body, body, error_type, message):
    """Compiles `body`, which must fail with a CompilationError whose text
    matches `message` (a regex) and whose cause is of class `error_type`
    (None: any); returns the error's text."""
    from triton.compiler.errors import CompilationError
    with pytest.raises(CompilationError) as info:
        compile_body(body)
    text = str(info.value)
    if error_type is not None:
        assert type(info.value.__cause__).__name__ == error_type, repr(info.value.__cause__)
    assert re.search(message, text), text
    return text


def unchecked_waits(ttgir):
    """The source lines of the waits where tlx-opt
    --tlx-check-hazards=report-unchecked says the tasks of `ttgir` fall out
    of step (what follows them is not checked)."""
    proc = subprocess.run(["tlx-opt", "--tlx-check-hazards=report-unchecked=1", "-", "-o", os.devnull],
                          input=ttgir, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    waits = set()
    for path, line in re.findall(r"^(.+?):(\d+):\d+: remark: tlx-check-hazards: the tasks fall out of step",
                                 proc.stderr, re.M):
        with open(path) as f:
            waits.add(f.read().splitlines()[int(line) - 1].split("#")[0].strip())
    return waits


def sass_of(kernel, tmp_path):
    """The SASS of a compiled kernel, by cuobjdump (the cubin goes to tmp_path)."""
    import triton
    cuobjdump = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
    cubin = tmp_path / "kernel.cubin"
    cubin.write_bytes(kernel.asm["cubin"])
    return subprocess.run([cuobjdump, "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout


def wgmma_wait_events(kernel, tmp_path):
    """The kernel's wgmma waits and exp2s in SASS order: "wait1"
    (WARPGROUP.DEPBAR.LE with one group left in flight), "wait0" (none
    left) and "exp2" (a run of MUFU.EX2)."""
    events = []
    for line in sass_of(kernel, tmp_path).splitlines():
        if "WARPGROUP.DEPBAR.LE" in line:
            events.append("wait0" if re.search(r"gsb0,\s*0x0\b", line) else "wait1")
        elif "MUFU.EX2" in line and (not events or events[-1] != "exp2"):
            events.append("exp2")
    return events


def kv_loops(kernel, tmp_path):
    """The kernel's K/V loops in SASS: each loop body (a backward branch's
    target up to the branch, instructions without their addresses) that
    holds wgmmas and at least 30 exp2s."""
    lines = [(int(m.group(1), 16), m.group(2).strip()) for m in
             re.finditer(r"/\*([0-9a-f]{4,5})\*/\s+([^;\n]*);", sass_of(kernel, tmp_path))]
    index = {address: i for i, (address, _) in enumerate(lines)}
    loops = []
    for i, (address, text) in enumerate(lines):
        target = re.search(r"\bBRA (0x[0-9a-f]+)", text)
        if target and int(target.group(1), 16) < address and int(target.group(1), 16) in index:
            body = [t for _, t in lines[index[int(target.group(1), 16)]:i + 1]]
            if any("HGMMA" in t for t in body) and sum("MUFU.EX2" in t for t in body) >= 30:
                loops.append(body)
    return loops
