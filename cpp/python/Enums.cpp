// The tlx enums' cases as TableGen defines them (TLXEnums.td), so that the
// Python frontend spells attributes from the same source as the dialect.

#include "Builder.h"
#include "TritonByName/TargetLimits.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"

#include <pybind11/stl.h>

#include <map>
#include <string>

// Only the enum declarations/definitions: the dialect itself is the plugin's.
#include "tlx_alias/Dialect/TLX/IR/TLXEnums.h.inc"
#include "tlx_alias/Dialect/TLX/IR/TLXEnums.cpp.inc"

namespace py = pybind11;

namespace tlx_alias::python {
namespace {

template <typename Enum, typename Stringify>
std::map<std::string, uint32_t> casesOf(uint32_t maxValue, Stringify stringify) {
  std::map<std::string, uint32_t> cases;
  for (uint32_t value = 0; value <= maxValue; ++value)
    cases[stringify(static_cast<Enum>(value)).str()] = value;
  return cases;
}

std::map<std::string, std::map<std::string, uint32_t>> enumCases() {
  using namespace mlir::triton::tlx;
  return {
      {"StorageKind", casesOf<StorageKind>(getMaxEnumValForStorageKind(),
                                           [](StorageKind k) { return stringifyStorageKind(k); })},
      {"ReuseGroupKind", casesOf<ReuseGroupKind>(getMaxEnumValForReuseGroupKind(),
                                                 [](ReuseGroupKind k) { return stringifyReuseGroupKind(k); })},
      {"InputPrecision", casesOf<InputPrecision>(getMaxEnumValForInputPrecision(),
                                                 [](InputPrecision k) { return stringifyInputPrecision(k); })},
  };
}

} // namespace

static std::map<int64_t, int64_t> maxSharedMemoryBytes() {
  std::map<int64_t, int64_t> table;
  for (int64_t capability : mlir::triton::tlx::kKnownCapabilities)
    table[capability] = *mlir::triton::tlx::getMaxSharedMemoryBytes(capability);
  return table;
}

void registerEnums(py::module_ &m) {
  m.def("enum_cases", &enumCases,
        "{enum name: {case spelling: value}} of the tlx dialect's enums "
        "(TLXEnums.td).");
  m.def("max_shared_memory_bytes", &maxSharedMemoryBytes,
        "{compute capability: shared memory one CTA may use} (TargetLimits.h, "
        "the plugin's table too).");
}

} // namespace tlx_alias::python
