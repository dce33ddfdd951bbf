// tlx_alias._C: builds ops at the insertion point of triton's `ir.builder`.
//
// Thin on purpose: the IR work (verification, lowering) lives in the plugin.
// Triton 3.7.1's pybind classes are module_local, so results cannot be
// returned as `ir.value`s: Python passes placeholder values (any `ir.value`)
// and each is overwritten with one result of the new op.

#include "Builder.h"

#include <pybind11/stl.h>

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir;

namespace {

using tlx_alias::python::DiagnosticCapture;
using tlx_alias::python::TritonOpBuilder;

Value &unwrapValue(py::handle value) {
  return tlx_alias::python::unwrap<Value>(value, "value");
}

void createOp(py::handle pyBuilder, const std::string &name,
              const std::vector<py::handle> &operands,
              const std::vector<std::string> &resultTypes,
              const std::map<std::string, std::string> &attributes,
              const std::vector<py::handle> &results) {
  auto &triton = tlx_alias::python::unwrap<TritonOpBuilder>(pyBuilder, "builder");
  OpBuilder &builder = *triton.builder;
  MLIRContext *context = builder.getContext();
  Location loc = triton.lastLoc ? *triton.lastLoc : builder.getUnknownLoc();
  if (results.size() != resultTypes.size())
    throw std::invalid_argument("one placeholder per result type is needed");

  DiagnosticCapture capture(context);
  OperationState state(loc, name);
  for (py::handle operand : operands)
    state.addOperands(unwrapValue(operand));
  for (const std::string &text : resultTypes) {
    Type type = parseType(text, context);
    if (!type)
      throw py::value_error("invalid type " + text + ": " + capture.messages);
    state.addTypes(type);
  }
  for (const auto &[key, text] : attributes) {
    Attribute attr = parseAttribute(text, context);
    if (!attr)
      throw py::value_error("invalid attribute " + key + " = " + text + ": " +
                            capture.messages);
    state.addAttribute(key, attr);
  }
  if (!state.name.isRegistered())
    throw py::value_error("unknown op " + name + " (is the plugin loaded?)");
  Operation *op = builder.create(state);
  if (failed(verify(op))) {
    op->erase();
    throw py::value_error(capture.messages);
  }
  for (auto [slot, result] : llvm::zip(results, op->getResults())) {
    Value &placeholder = unwrapValue(slot);
    Operation *dummy = placeholder.getDefiningOp();
    placeholder = result;
    if (dummy && dummy->use_empty())
      dummy->erase();
  }
}

} // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "Builds ops at triton's ir.builder (see tlx_alias/_ir.py)";
  m.def("create_op", &createOp, py::arg("builder"), py::arg("name"),
        py::arg("operands"), py::arg("result_types"), py::arg("attributes"),
        py::arg("results"),
        "Creates and verifies op `name` at the builder's insertion point and "
        "location; overwrites each placeholder in `results` with a result. "
        "Raises ValueError with the verifier's diagnostics.");
  tlx_alias::python::registerWarpSpecialize(m);
  tlx_alias::python::registerPartitionWarps(m);
  tlx_alias::python::registerEnums(m);
}
