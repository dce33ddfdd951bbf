"""Which triton would `import triton` load? Answered without importing it.

Kept free of imports from tlx_alias or triton: the start-up hook loads this
file by path, before triton may be imported.
"""
import glob
import importlib.util
import os
import re

# The one list of the triton versions tlx-alias has been proven with (CMake
# reads it by running this file), by ABI family: the versions of a family have
# one libtriton ABI for everything the plugin and the _C/_opt modules use, and
# a plugin built for one of them serves them all.
#   3.7.0, 3.7.1: LLVM ac5dc54 and 1f126a6, the registry's 22.1.8 headers as
#     they are; measured identical (DWARF layouts of 22,081 mlir/llvm types,
#     4,448 vtables slot by slot, 12,457 data objects, the plugin's imports).
#   3.8.0: LLVM 5f07f81, through the header-delta layer cpp/abi/triton-3.8.0.
#   3.9.0: LLVM b010a18d, through cpp/abi/triton-3.9.0 (LLVM 23.1.4's headers
#     with MLIR 22.1.8's and deltas).
ABI_FAMILIES = (("3.7.0", "3.7.1"), ("3.8.0", ), ("3.9.0", ))
PROVEN_TRITON = tuple(version for family in ABI_FAMILIES for version in family)
# How each proven triton loads a plugin: the name of its adapter in _plugin_api.py.
PLUGIN_API = {"3.7.0": "TRITON_PLUGIN_PATHS", "3.7.1": "TRITON_PLUGIN_PATHS",
              "3.8.0": "TRITON_PLUGIN_PATHS", "3.9.0": "extend_with"}
PLUGIN_VERSION_FILE = "libTLXAliasPlugin.triton-version"


def plugin_triton_version(lib_dir):
    """The triton the plugin in lib_dir was built for ("3.7.1" when the build
    wrote no version file, as builds before the header-delta layer did)."""
    try:
        with open(os.path.join(lib_dir, PLUGIN_VERSION_FILE)) as f:
            return f.read().strip() or "3.7.1"
    except OSError:
        return "3.7.1"


def abi_family(version):
    """The proven versions that share `version`'s ABI (empty if unproven)."""
    return next((family for family in ABI_FAMILIES if version in family), ())


# The triton this installation's plugin was built for, and the versions it serves.
SUPPORTED_TRITON = plugin_triton_version(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
SERVED_TRITON = abi_family(SUPPORTED_TRITON)


def installed_triton_version():
    """The version of the triton package first on sys.path, or None."""
    spec = importlib.util.find_spec("triton")
    if spec is None or not spec.origin:
        return None
    site = os.path.dirname(os.path.dirname(spec.origin))
    for dist in sorted(glob.glob(os.path.join(site, "triton-*.dist-info"))):
        match = re.match(r"triton-([^-]+)\.dist-info$", os.path.basename(dist))
        if match:
            return match.group(1)
    try:  # e.g. an editable install: ask the metadata instead
        from importlib.metadata import version

        return version("triton")
    except Exception:
        return None


def _at_least(found, version):
    """Whether version string `found` ('3.8.0', '3.9.0+git...') is at least the tuple `version`."""
    return tuple(int(p) for p in found.split("+")[0].split(".")[:len(version)]) >= version


def running_triton_at_least(*version):
    """Whether the installed triton is at least `version` (e.g. 3, 9), read
    from its metadata without importing it."""
    found = installed_triton_version()
    return found is not None and _at_least(found, version)


def imported_triton_at_least(*version):
    """Whether the imported triton (the one compiling now) is at least `version`."""
    import triton
    return _at_least(triton.__version__, version)


# The variable through which tlx_alias tells its plugin which proven triton
# of its ABI family is running: triton's loader requires a plugin to declare
# exactly the running version (TritonPlugin.cpp).
RUNNING_TRITON_ENV = "TLX_ALIAS_TRITON_VERSION"

if __name__ == "__main__":  # for CMake: the proven versions (a CMake list), or --family V
    import sys
    if sys.argv[1:2] == ["--family"]:
        print(",".join(abi_family(sys.argv[2])))
    else:
        print(";".join(PROVEN_TRITON))
