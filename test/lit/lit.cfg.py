# lit configuration: `lit test/lit` from a venv with tlx-alias installed.
import importlib.util
import os
import sys

import lit.formats

config.name = "tlx-alias"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "tools"]

# FileCheck comes with the triton wheel; tlx-opt is the console script of the
# Python running lit.
triton_spec = importlib.util.find_spec("triton")
if triton_spec is None:
    lit_config.fatal("triton is not importable from " + sys.executable)
triton_dir = os.path.dirname(triton_spec.origin)
filecheck = os.path.join(triton_dir, "FileCheck")
if not os.path.exists(filecheck):
    lit_config.fatal("FileCheck not found at " + filecheck)
bin_dir = os.path.dirname(sys.executable)

# What the running triton accepts. Every test runs on triton 3.7, 3.8 and 3.9
# (the same tests pass on all, one is unsupported on 3.9: subbyte-smem); a RUN line for one side only
# is wrapped in `%if packed-views %{ ... %}` (3.7) or
# `%if !packed-views %{ ... %}` (3.8), never a REQUIRES: line.
#   packed-views         triton verifies packed views (3.7): the lowering
#                        passes take `exact-views=false` (buffers packed at
#                        their layouts' alignment, byte slots), and padded
#                        shared layouts (in a spec, or the view of a
#                        tlx.local_alias) are lowered packed under the default
#                        exact views. Without it (3.8) both are errors. Exact
#                        views, the default, run on both.
#   tensordesc-of-tensor TMA descriptors spelled !tt.tensordesc<tensor<...>>
#                        (3.7); 3.8 spells them !tt.tensordesc<...>. Tests
#                        keep the 3.7 spelling and read their input through
#                        %triton-syntax, which rewrites it for the running
#                        triton; their CHECK lines accept both spellings
#                        (the feature is there for `%if`).
import importlib.metadata

triton_version = tuple(int(p) for p in importlib.metadata.version("triton").split(".")[:2])
if triton_version < (3, 8):
    config.available_features.update(["packed-views", "tensordesc-of-tensor"])
# subbyte-smem: shared-memory buffers of i1/i4 parse (3.7, 3.8); triton 3.9's
# memdesc verifier wants whole bytes. The one test that needs them says
# `REQUIRES: subbyte-smem` (unsupported under 3.9: there is no such IR).
if triton_version < (3, 9):
    config.available_features.add("subbyte-smem")

# `%triton-syntax %s | %tlx-opt - ...`: the test file in the running triton's
# syntax on stdout, line for line (expected-error line offsets hold). With
# --blank-packed-only (--blank-exact-only) it also empties the lines between
# `// PACKED-ONLY-BEGIN` and `// PACKED-ONLY-END` (EXACT-ONLY-...): what only
# a test's packed-views run (exact-views=false) or only its exact-views runs
# may see, e.g. IR that exact views refuse or a diagnostic that differs.
# tools/triton_syntax.py says more.
triton_syntax = os.path.join(os.path.dirname(__file__), "tools", "triton_syntax.py")
tensordesc_spelling = "tensor" if triton_version < (3, 8) else "bare"
config.substitutions.append(
    ("%triton-syntax", "%s %s --tensordesc=%s" % (sys.executable, triton_syntax, tensordesc_spelling))
)
config.substitutions.append(("%FileCheck", filecheck))
config.substitutions.append(("%tlx-opt", os.path.join(bin_dir, "tlx-opt")))
config.substitutions.append(("%python", sys.executable))

for name in ["HOME", "TLX_ALIAS_PLUGIN", "PYTHONPATH", "TRITON_PLUGIN_PATHS", "TMPDIR"]:
    if name in os.environ:
        config.environment[name] = os.environ[name]
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
