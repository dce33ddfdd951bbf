"""The frontend's shape (issue 28): no import circle among tlx_alias's
modules, no oversized file or function (in the whole repository: kernels,
tests and C++ included), and the patches to triton are exactly the recorded
ones, with the signatures tlx_alias relies on."""
import ast
import subprocess
import importlib.util
import inspect
import os
import re

import pytest

import tlx_alias
from tlx_alias._triton import patching

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(ROOT, "python", "tlx_alias")
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80


def _modules():
    """{dotted name: path} of every Python module of the package."""
    found = {}
    for directory, _, names in os.walk(PACKAGE):
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                parts = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                found[".".join(parts)] = path
    return found


def _is_module(dotted):
    if not dotted.startswith("tlx_alias."):
        return False
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError):
        return False


def _imports(name, path, modules):
    """The package's modules that module `name` imports, anywhere in it
    (function bodies included): `from a import b` names module a.b where
    that is one (compiled ones, _C and _opt, are left out), else a."""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    edges = set()
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules or _is_module(f"{base}.{alias.name}")
                       else base for alias in node.names]
        else:
            continue
        edges.update(t for t in targets if t in modules and t != name)
    return edges


def test_the_module_import_graph_is_acyclic():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    done, path = set(), []

    def visit(name):
        if name in path:
            cycle = path[path.index(name):] + [name]
            pytest.fail("import circle: " + " -> ".join(cycle))
        if name in done:
            return
        path.append(name)
        for target in sorted(graph[name]):
            visit(target)
        path.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)


def _repository_files():
    """The checkout's tracked files, less measurements (results files)."""
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [os.path.join(ROOT, f) for f in listed.split() if not f.startswith("benchmarks/results/")]


def test_no_file_or_function_is_oversized():
    too_long = []
    for path in _repository_files():
        if not os.path.isfile(path):
            continue
        source = open(path, errors="replace").read()
        name = os.path.relpath(path, ROOT)
        if source.count("\n") > MAX_FILE_LINES:
            too_long.append(f"{name}: {source.count(chr(10))} lines")
        if not path.endswith(".py"):
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    too_long.append(f"{name}:{node.lineno} {node.name}: {lines} lines")
    assert not too_long


def _signature(function):
    """A callable's parameters as '(a, b)', types normalized across the
    pybind11 spellings of triton 3.7-3.9 ('typing.SupportsInt | ...' is int)."""
    try:
        return str(inspect.signature(function))
    except (TypeError, ValueError):
        pass
    first = function.__doc__.splitlines()[0]
    params = re.match(r"\w+\((.*)\) ->", first).group(1)
    out = []
    for param in (p.strip() for p in params.split(", ")):
        if param == "/":
            continue
        name, _, kind = param.partition(": ")
        if name == "self":
            out.append("self")
            continue
        kind = re.sub(r"typing\.SupportsInt \| typing\.SupportsIndex", "int", kind)
        out.append(kind.rpartition(".")[2])
    return f"({', '.join(out)})"


# Every patch, and the signature each replacement relies on (the conversion
# reads num_warps as its third argument, after the pass manager and target).
PATCHED = {
    "triton._C.libtriton.ir.pass_manager.enable_debug": "(self)",
    "triton._C.libtriton.passes.ttir.add_convert_to_ttgpuir": "(pass_manager, str, int, int, int)",
    "triton._C.libtriton.passes.ttgpuir.add_pipeline": "(pass_manager, int, bool)",
    "triton._C.libtriton.nvidia.passes.ttnvgpuir.add_fence_insertion": "(pass_manager, int)",
    "triton._C.libtriton.nvidia.passes.ttnvgpuir.add_optimize_descriptor_encoding": "(pass_manager)",
    # the wrapper forwards all but the pass manager: 3.8 has one more flag
    "triton._C.libtriton.nvidia.passes.ttgpuir.add_to_llvmir": ("(pass_manager, int, int)",
                                                                "(pass_manager, int, int, bool)"),
    "triton.knobs.runtime_knobs().add_stages_inspection_hook": None,  # a knob: None or a hook
    "triton.knobs.compilation_knobs().listener": None,  # a knob: None or a listener
    "triton.compiler.code_generator.CodeGenerator.visit_With": "(self, node)",
}


def test_every_patch_is_recorded_with_the_signature_it_relies_on():
    applied = {p.where: p for p in patching.patches()}
    assert sorted(applied) == sorted(PATCHED)
    for where, expected in PATCHED.items():
        patch = applied[where]
        assert getattr(patch.owner, patch.name) is patch.replacement
        assert patching.stock(patch.replacement) is patch.stock
        if expected is not None:
            accepted = expected if isinstance(expected, tuple) else (expected, )
            assert _signature(patch.stock) in accepted, where


def test_installing_again_patches_nothing():
    before = patching.patches()
    hook = tlx_alias._triton.install(with_visitors=[(tlx_alias.async_tasks, tlx_alias.warp_specialize.visit_async_tasks)])
    assert hook is tlx_alias._stages_hook
    assert patching.patches() == before


def test_the_code_generator_state_the_visitor_uses_exists():
    # codegen.py reads these of triton's CodeGenerator (visit_in_own_scope, unsupported).
    from triton.compiler.code_generator import CodeGenerator
    for method in ("visit", "visit_compound_statement", "_unsupported"):
        assert callable(getattr(CodeGenerator, method))
    assigned = CodeGenerator.__init__.__code__.co_names
    for attribute in ("lscope", "local_defs", "builder", "semantic"):
        assert attribute in assigned


def test_cache_key_names_the_plugin_build_and_every_module():
    # The plugin's bytes, then every module's of the package, subpackages
    # included, in the order of their paths: a change to any (the semantic
    # layer building a memdesc type, say) recompiles kernels.
    import glob
    import hashlib

    from tlx_alias._triton import pipeline

    digest = hashlib.sha256(open(tlx_alias.plugin_path(), "rb").read())
    for path in sorted(glob.glob(os.path.join(os.path.dirname(tlx_alias.__file__), "**", "*.py"), recursive=True)):
        digest.update(open(path, "rb").read())
    assert pipeline._plugin_key() == f"tlx_alias-{tlx_alias.__version__}-{digest.hexdigest()}"


def test_no_file_points_outside_the_repository():
    # The development machine's staging folders and the steering folder
    # beside the checkout are not the user's.
    outside = re.compile("/tmp/" + "(?:stage|fbsite)" + r"|\.\./shared/|\bshared/(?:design|device|context)/")
    found = []
    for path in _repository_files():
        if os.path.isfile(path):
            for number, line in enumerate(open(path, errors="replace"), 1):
                if outside.search(line):
                    found.append(f"{os.path.relpath(path, ROOT)}:{number}: {line.strip()}")
    assert not found
