// What the _C shim's files share: triton's builder as laid out in 3.7.1, and
// collecting diagnostics into Python exceptions.
#ifndef TLX_ALIAS_PYTHON_BUILDER_H
#define TLX_ALIAS_PYTHON_BUILDER_H

#include "TritonObjects.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace tlx_alias::python {

using namespace mlir;

// The layout of triton's TritonOpBuilder (python/src/ir.h, 3.7.1).
struct TritonOpBuilder {
  std::unique_ptr<OpBuilder> builder;
  std::unique_ptr<Location> lastLoc;
  bool lineInfoEnabled;
};

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
