"""Which triton would `import triton` load? Answered without importing it.

Kept free of imports from tlx_alias or triton: the start-up hook loads this
file by path, before triton may be imported.
"""
import glob
import importlib.util
import os
import re

# The plugin ABI is that of PyPI triton 3.7.1 (LLVM 1f126a6); 3.8.0 changed
# MLIR's TypeRange, AsmParser and property layouts, and crashes.
SUPPORTED_TRITON = "3.7.1"


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
