# Which triton the plugin is built for, and the header-delta layer that makes
# the registry's MLIR/LLVM 22.1.8 headers match that triton's libtriton ABI.
#
#   TLX_TRITON_TARGET_VERSION  the triton whose libtriton.so we link (default:
#                              the installed one, read from its metadata)
#   TLX_HEADER_DELTAS          AUTO (default): cpp/abi/triton-<version> if it
#                              exists; OFF: none; or a layer directory
#
# The proven versions are listed once, in python/tlx_alias/_triton_version.py.
# 3.7.0/3.7.1 need no layer (their LLVM is ABI-compatible with the 22.1.8
# headers); any version neither proven nor with a layer is refused: a plugin
# built against headers of another ABI corrupts libtriton's heap.
# -I: the script's own directory (with tlx_alias/types.py) must not shadow the stdlib.
execute_process(COMMAND "${Python3_EXECUTABLE}" -I "${CMAKE_SOURCE_DIR}/python/tlx_alias/_triton_version.py"
  OUTPUT_VARIABLE TLX_PROVEN_TRITON_VERSIONS OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0 OR NOT TLX_PROVEN_TRITON_VERSIONS)
  message(FATAL_ERROR "tlx-alias: cannot read the proven triton versions from python/tlx_alias/_triton_version.py")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  "${CMAKE_SOURCE_DIR}/python/tlx_alias/_triton_version.py")

if(NOT TLX_TRITON_TARGET_VERSION)
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c
    "import importlib.metadata as m; print(m.version('triton'))"
    OUTPUT_VARIABLE TLX_TRITON_TARGET_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _rc ERROR_QUIET)
  if(NOT _rc EQUAL 0 OR NOT TLX_TRITON_TARGET_VERSION)
    message(FATAL_ERROR "Cannot read triton's version from ${Python3_EXECUTABLE}; "
                        "set -DTLX_TRITON_TARGET_VERSION=<x.y.z>")
  endif()
  string(REGEX REPLACE "\\+.*$" "" TLX_TRITON_TARGET_VERSION "${TLX_TRITON_TARGET_VERSION}")
endif()
set(TLX_TRITON_TARGET_VERSION "${TLX_TRITON_TARGET_VERSION}" CACHE STRING
    "triton version the plugin is built for" FORCE)
# The proven versions of its ABI family, comma-separated: the plugin declares
# whichever of them runs (TritonPlugin.cpp).
execute_process(COMMAND "${Python3_EXECUTABLE}" -I "${CMAKE_SOURCE_DIR}/python/tlx_alias/_triton_version.py"
  --family "${TLX_TRITON_TARGET_VERSION}" OUTPUT_VARIABLE TLX_TRITON_ABI_FAMILY OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT TLX_TRITON_ABI_FAMILY)
  set(TLX_TRITON_ABI_FAMILY "${TLX_TRITON_TARGET_VERSION}")
endif()

set(TLX_HEADER_DELTAS AUTO CACHE STRING "header-delta layer: AUTO, OFF or a layer directory")
set(_tlx_layer "")
if(TLX_HEADER_DELTAS STREQUAL "AUTO")
  if(EXISTS "${CMAKE_SOURCE_DIR}/cpp/abi/triton-${TLX_TRITON_TARGET_VERSION}/deltas.py")
    set(_tlx_layer "${CMAKE_SOURCE_DIR}/cpp/abi/triton-${TLX_TRITON_TARGET_VERSION}")
  elseif(NOT TLX_TRITON_TARGET_VERSION IN_LIST TLX_PROVEN_TRITON_VERSIONS)
    string(REPLACE ";" ", " _proven "${TLX_PROVEN_TRITON_VERSIONS}")
    message(FATAL_ERROR
      "tlx-alias: triton ${TLX_TRITON_TARGET_VERSION} is not a proven version "
      "(proven: ${_proven}); install one of those")
  endif()
elseif(NOT TLX_HEADER_DELTAS STREQUAL "OFF")
  set(_tlx_layer "${TLX_HEADER_DELTAS}")
endif()

set(TLX_ABI_INCLUDE "")
if(_tlx_layer)
  # A layer may take its LLVM headers from a registry package of a nearer LLVM
  # than xtc-llvm-dev's 22.1.8 (its LLVM_HEADERS; 3.9.0: karellen's 23.1.4).
  # TLX_LAYER_LLVM_INCLUDE (environment): those headers unpacked elsewhere (a
  # GPU machine without the package: test/gpu/run_on_device.sh).
  if(DEFINED ENV{TLX_LAYER_LLVM_INCLUDE})
    set(_llvm_headers "$ENV{TLX_LAYER_LLVM_INCLUDE}")
  else()
    execute_process(
      COMMAND "${Python3_EXECUTABLE}" "${CMAKE_SOURCE_DIR}/cpp/abi/apply_deltas.py" "${_tlx_layer}"
              --locate-llvm-headers
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _llvm_headers ERROR_VARIABLE _err
      OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "tlx-alias: ${_err}")
    endif()
  endif()
  if(_llvm_headers)
    set(TLX_LLVM_INCLUDE "${_llvm_headers}" CACHE PATH "LLVM headers (the layer's LLVM_HEADERS)" FORCE)
    message(STATUS "TLX_LLVM_INCLUDE (the layer's LLVM_HEADERS): ${TLX_LLVM_INCLUDE}")
  endif()
  set(TLX_ABI_INCLUDE "${CMAKE_BINARY_DIR}/abi-include")
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_SOURCE_DIR}/cpp/abi/apply_deltas.py" "${_tlx_layer}"
            --mlir-include "${TLX_MLIR_INCLUDE}" --llvm-include "${TLX_LLVM_INCLUDE}"
            --out "${TLX_ABI_INCLUDE}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "tlx-alias: ${_err}")
  endif()
  message(STATUS "${_out}")
  # Re-run (re-patch) when the layer or the applier changes.
  file(GLOB_RECURSE _tlx_layer_files "${_tlx_layer}/*")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    "${CMAKE_SOURCE_DIR}/cpp/abi/apply_deltas.py" ${_tlx_layer_files})
endif()
message(STATUS "tlx-alias: building for triton ${TLX_TRITON_TARGET_VERSION}, "
               "header-delta layer: ${_tlx_layer}")
