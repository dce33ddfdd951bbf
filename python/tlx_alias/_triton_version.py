"""Which triton would `import triton` load? Answered without importing it.

Kept free of imports from tlx_alias or triton: the start-up hook loads this
file by path, before triton may be imported.
"""
import glob
import importlib.util
import os
import re

# The triton versions a plugin has been proven with: 3.7.1 (LLVM 1f126a6, the
# registry's 22.1.8 headers as they are) and 3.8.0 (LLVM 5f07f81, through the
# header-delta layer cpp/abi/triton-3.8.0). A plugin serves exactly the triton
# it was built for (its ABI): the build writes that version next to it.
PROVEN_TRITON = ("3.7.1", "3.8.0")
PLUGIN_VERSION_FILE = "libTLXAliasPlugin.triton-version"


def plugin_triton_version(lib_dir):
    """The triton the plugin in lib_dir was built for ("3.7.1" when the build
    wrote no version file, as builds before the header-delta layer did)."""
    try:
        with open(os.path.join(lib_dir, PLUGIN_VERSION_FILE)) as f:
            return f.read().strip() or "3.7.1"
    except OSError:
        return "3.7.1"


# The one triton this installation supports: its plugin's.
SUPPORTED_TRITON = plugin_triton_version(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))


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
