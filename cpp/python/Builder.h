// What the _C shim's files share: triton's builder (TritonByName), and
// collecting diagnostics into Python exceptions.
#ifndef TLX_ALIAS_PYTHON_BUILDER_H
#define TLX_ALIAS_PYTHON_BUILDER_H

#include "TritonByName/TritonObjects.h"
#include "TritonByName/TritonOpBuilder.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace tlx_alias::python {

using namespace mlir;

using mirror::TritonOpBuilder;

// Diagnostics raised while building go into the Python exception.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(messages);
          if (!messages.empty())
            os << "\n";
          os << diag;
          for (Diagnostic &note : diag.getNotes())
            os << "\nnote: " << note;
          return success();
        }) {}
  std::string messages;

private:
  ScopedDiagnosticHandler handler;
};

inline TritonOpBuilder &unwrapBuilder(py::handle builder) {
  return unwrap<TritonOpBuilder>(builder, "builder");
}

/// The parts of `_C` beyond create_op, one file each.
void registerWarpSpecialize(py::module_ &m); // WarpSpecialize.cpp
void registerPartitionWarps(py::module_ &m); // PartitionWarps.cpp
void registerEnums(py::module_ &m);          // Enums.cpp

} // namespace tlx_alias::python

#endif // TLX_ALIAS_PYTHON_BUILDER_H
