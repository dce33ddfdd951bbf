"""Which triton a tlx-alias wheel is built for: one wheel per triton ABI
family, built against the triton it will run with.

A scikit-build-core metadata provider (pyproject.toml,
[tool.scikit-build.metadata.dependencies]): it adds `triton==<target>` to the
build requirements, so CMake finds that triton in the build environment and
selects its headers (the header-delta layer for 3.8.0 and 3.9.0, with the
registry package a layer takes its LLVM headers from), and gives the wheel
the dependency on the target's ABI family, so pip keeps the two matched.

The target, first that applies:
  1. TLX_ALIAS_TRITON=<version> in the environment (e.g. for a wheel built
     before its triton is installed);
  2. the triton installed in the environment pip installs into (asked of
     sys.executable in isolated mode: pip's build isolation hides it from
     this process, not from that interpreter);
  3. the newest proven triton of the 3.7 family (torch 2.13's).
A target that is not proven is a one-line error naming the proven ones.
"""
import importlib.util
import os
import subprocess
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_VERSIONS_FILE = os.path.join(_HERE, "..", "python", "tlx_alias", "_triton_version.py")
TARGET_ENV = "TLX_ALIAS_TRITON"


def _versions():
    """python/tlx_alias/_triton_version.py, the one list of proven versions."""
    spec = importlib.util.spec_from_file_location("_tlx_triton_versions", _VERSIONS_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _installed_triton():
    """The triton version of the interpreter running pip, or None."""
    query = ("import importlib.metadata as m\n"
             "try: print(m.version('triton'))\n"
             "except m.PackageNotFoundError: pass\n")
    result = subprocess.run([sys.executable, "-I", "-c", query], capture_output=True, text=True)
    return result.stdout.strip() or None if result.returncode == 0 else None


def target_triton():
    versions = _versions()
    chosen = os.environ.get(TARGET_ENV) or _installed_triton()
    source = f"{TARGET_ENV}={chosen}" if os.environ.get(TARGET_ENV) else f"the installed triton {chosen}"
    if chosen is None:
        return versions.ABI_FAMILIES[0][-1]
    if chosen not in versions.PROVEN_TRITON:
        sys.exit(f"tlx-alias: cannot build for {source}: tlx-alias is proven with triton "
                 f"{', '.join(versions.PROVEN_TRITON)} (set {TARGET_ENV} to one of them)")
    return chosen


def triton_requirement(target):
    """The wheel's dependency: any proven version of the target's ABI family."""
    family = _versions().abi_family(target)
    if len(family) == 1:
        return f"triton=={family[0]}"
    return f"triton>={family[0]},<={family[-1]}"


def layer_llvm_headers(target):
    """The registry package the target's header-delta layer takes its LLVM
    headers from (cpp/abi/triton-<target>/deltas.py's LLVM_HEADERS), or None."""
    deltas = os.path.join(_HERE, "..", "cpp", "abi", f"triton-{target}", "deltas.py")
    if not os.path.exists(deltas):
        return None
    import runpy

    return runpy.run_path(deltas).get("LLVM_HEADERS")


def get_requires_for_dynamic_metadata(settings=None):
    target = target_triton()
    extra = layer_llvm_headers(target)
    return [f"triton=={target}"] + ([extra] if extra else [])


def dynamic_metadata(field, settings=None, project=None):
    if field != "dependencies":
        raise ValueError(f"tlx_triton_target provides the dependencies, not {field!r}")
    return [triton_requirement(target_triton())]
