# lit configuration: `lit test/lit` from a venv with tlx-alias installed.
import importlib.util
import os
import sys

import lit.formats

config.name = "tlx-alias"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py"]

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

# What the running triton accepts, for tests written for one side of triton
# 3.8's changes (REQUIRES: lines):
#   packed-views         the lowering packs buffers at their layouts'
#                        alignment (3.7; 3.8 takes only exact views:
#                        Transforms/exact-views.mlir runs on both)
#   tensordesc-of-tensor TMA descriptors spelled !tt.tensordesc<tensor<...>> (3.7)
import importlib.metadata

triton_version = tuple(int(p) for p in importlib.metadata.version("triton").split(".")[:2])
if triton_version < (3, 8):
    config.available_features.update(["packed-views", "tensordesc-of-tensor"])

config.substitutions.append(("%FileCheck", filecheck))
config.substitutions.append(("%tlx-opt", os.path.join(bin_dir, "tlx-opt")))
config.substitutions.append(("%python", sys.executable))

for name in ["HOME", "TLX_ALIAS_PLUGIN", "PYTHONPATH", "TRITON_PLUGIN_PATHS", "TMPDIR"]:
    if name in os.environ:
        config.environment[name] = os.environ[name]
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
