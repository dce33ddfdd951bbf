# The layout gate (cpp/abi/layout_gate.py): after the plugin, _C and _opt link,
# compares the MLIR/LLVM ABI they were compiled against (registry headers plus
# the header-delta layer) with the target libtriton.so's own DWARF, vtables and
# exports; any mismatch fails the build, naming the type or symbol.
#
#   TLX_LAYOUT_GATE  ON (default when libtriton.so carries DWARF and
#                    llvm-dwarfdump is installed: apt-get install llvm-19) or OFF
#
# The gate needs full type descriptions, which the shipped objects (-g1) lack:
# their sources are compiled a second time, into gate-only objects (-O0 -g
# -fstandalone-debug, never linked), with the same includes and definitions.
set(_tlx_gate_default OFF)
find_program(TLX_LLVM_DWARFDUMP NAMES llvm-dwarfdump-19 llvm-dwarfdump)
if(TLX_BUILD_PLUGIN AND TLX_LLVM_DWARFDUMP AND EXISTS "${TLX_TRITON_LIB}")
  execute_process(COMMAND readelf -S "${TLX_TRITON_LIB}" OUTPUT_VARIABLE _sections ERROR_QUIET)
  if(_sections MATCHES "\\.debug_info")
    set(_tlx_gate_default ON)
  endif()
endif()
option(TLX_LAYOUT_GATE "check the headers' ABI against libtriton's DWARF after linking" ${_tlx_gate_default})
if(NOT TLX_LAYOUT_GATE)
  message(STATUS "tlx-alias: layout gate off")
  return()
elseif(NOT TLX_LLVM_DWARFDUMP)
  message(FATAL_ERROR "tlx-alias: the layout gate needs llvm-dwarfdump (apt-get install llvm-19)")
endif()

# One gate-only object library per shipped target, from the target's own sources.
function(tlx_gate_objects target out_var)
  get_target_property(_srcs ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  set(_abs "")
  foreach(_src IN LISTS _srcs)
    if(NOT IS_ABSOLUTE "${_src}")
      set(_src "${_dir}/${_src}")
    endif()
    list(APPEND _abs "${_src}")
    # Per-source options (e.g. _opt's -fno-rtti) live in the target's directory.
    get_source_file_property(_opts "${_src}" DIRECTORY "${_dir}" COMPILE_OPTIONS)
    if(_opts)
      set_source_files_properties("${_src}" PROPERTIES COMPILE_OPTIONS "${_opts}")
    endif()
  endforeach()
  set(_gate ${target}LayoutGate)
  add_library(${_gate} OBJECT EXCLUDE_FROM_ALL ${_abs})
  target_include_directories(${_gate} PRIVATE $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>)
  target_compile_definitions(${_gate} PRIVATE $<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>)
  # Last on the command line: overrides the build type's -O2 -g1.
  target_compile_options(${_gate} PRIVATE $<TARGET_PROPERTY:${target},COMPILE_OPTIONS>
                         -O0 -g -fstandalone-debug -w)
  if(TARGET pybind11::module AND NOT target STREQUAL "TLXAliasPlugin")
    target_link_libraries(${_gate} PRIVATE pybind11::module)
  endif()
  add_dependencies(${_gate} TLXIRIncGen TLXPassesIncGen)
  set(${out_var} ${_gate} PARENT_SCOPE)
endfunction()

set(_gate_targets "")
set(_gate_inputs "")
foreach(_target TLXAliasPlugin _C _opt)
  if(TARGET ${_target})
    tlx_gate_objects(${_target} _gate)
    list(APPEND _gate_targets ${_target} ${_gate})
    # The shipped binary too: its undefined symbols are what the loader resolves.
    list(APPEND _gate_inputs $<TARGET_OBJECTS:${_gate}> $<TARGET_FILE:${_target}>)
  endif()
endforeach()

set(_stamp "${CMAKE_BINARY_DIR}/layout-gate/passed.txt")
add_custom_command(OUTPUT "${_stamp}"
  COMMAND ${CMAKE_COMMAND} -E env "TLX_LLVM_DWARFDUMP=${TLX_LLVM_DWARFDUMP}"
          "${Python3_EXECUTABLE}" "${CMAKE_SOURCE_DIR}/cpp/abi/layout_gate.py"
          --libtriton "${TLX_TRITON_LIB}" --cache "${CMAKE_BINARY_DIR}/layout-gate"
          --stamp "${_stamp}" ${_gate_inputs}
  DEPENDS ${_gate_targets} ${_gate_inputs} "${CMAKE_SOURCE_DIR}/cpp/abi/layout_gate.py" "${TLX_TRITON_LIB}"
  COMMENT "Layout gate: the headers' MLIR/LLVM ABI against ${TLX_TRITON_LIB}"
  COMMAND_EXPAND_LISTS VERBATIM)
add_custom_target(tlx_layout_gate ALL DEPENDS "${_stamp}")
message(STATUS "tlx-alias: layout gate on (${TLX_TRITON_LIB})")
