// Partitions that run on another number of warps than the kernel.
//
// Triton's TTIR->TTGIR conversion gives every tensor a layout for the
// module's warp count, also inside `ttg.warp_specialize` partitions, whose
// ops must use the partition's own count (the verifier: "Layout has 8 warps
// per CTA, but the context requires 4"). Before the conversion, the partitions
// of each other count are detached into a holder module (one `tt.func` per
// partition, arguments = captures), converted there by triton's own pass for
// that count, and attached again; the module's conversion then leaves their
// ops alone (tensors that already have a layout are legal).

#include "Builder.h"

#include <pybind11/stl.h>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <set>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir;

namespace tlx_alias::python {
namespace {

ModuleOp &unwrapModule(py::handle module) {
  return unwrap<ModuleOp>(module, "module");
}

// Each partition region of every ttg.warp_specialize, in walk order, with
// its warp count.
std::vector<std::pair<Region *, int32_t>> partitionsOf(ModuleOp module) {
  std::vector<std::pair<Region *, int32_t>> out;
  module->walk([&](Operation *op) {
    if (op->getName().getStringRef() != "ttg.warp_specialize")
      return;
    auto warps = dyn_cast_or_null<DenseI32ArrayAttr>(op->getAttr("partitionNumWarps"));
    Operation *partitions = &op->getRegion(1).front().front();
    if (!warps || warps.size() != static_cast<int64_t>(partitions->getNumRegions()))
      return; // the op's verifier reports it
    for (auto [region, count] : llvm::zip(partitions->getRegions(), warps.asArrayRef()))
      out.emplace_back(&region, count);
  });
  return out;
}

std::vector<int32_t> partitionWarpCounts(py::handle module) {
  std::set<int32_t> counts;
  for (auto [region, count] : partitionsOf(unwrapModule(module)))
    counts.insert(count);
  return {counts.begin(), counts.end()};
}

// Replaces the terminator of `block` with a fresh op named `name`.
void retarget(Block &block, StringRef name) {
  Operation *terminator = &block.back();
  OpBuilder builder(terminator);
  OperationState state(terminator->getLoc(), name);
  builder.create(state);
  terminator->erase();
}

int detachPartitions(py::handle module, py::handle holder, int32_t numWarps) {
  ModuleOp into = unwrapModule(holder);
  OpBuilder builder(into.getBodyRegion());
  builder.setInsertionPointToEnd(into.getBody());
  int detached = 0;
  for (auto [region, count] : partitionsOf(unwrapModule(module))) {
    if (count != numWarps)
      continue;
    Block &body = region->front();
    OperationState state(region->getParentOp()->getLoc(), "tt.func");
    state.addAttribute("sym_name", builder.getStringAttr("tlx_partition_" + std::to_string(detached++)));
    state.addAttribute("sym_visibility", builder.getStringAttr("private"));
    state.addAttribute("function_type",
                       TypeAttr::get(builder.getFunctionType(body.getArgumentTypes(), {})));
    state.addRegion()->takeBody(*region);
    Operation *func = builder.create(state);
    retarget(func->getRegion(0).front(), "tt.return");
  }
  return detached;
}

void attachPartitions(py::handle module, py::handle holder, int32_t numWarps) {
  ModuleOp from = unwrapModule(holder);
  SmallVector<Operation *> funcs;
  for (Operation &func : from.getBody()->getOperations())
    funcs.push_back(&func);
  size_t next = 0;
  for (auto [region, count] : partitionsOf(unwrapModule(module))) {
    if (count != numWarps)
      continue;
    if (next == funcs.size() || !region->empty())
      throw std::runtime_error("tlx: the partitions to attach do not match the detached ones");
    Operation *func = funcs[next++];
    region->takeBody(func->getRegion(0));
    retarget(region->front(), "ttg.warp_return");
    func->erase();
  }
  if (next != funcs.size())
    throw std::runtime_error("tlx: the partitions to attach do not match the detached ones");
}

} // namespace

void registerPartitionWarps(py::module_ &m) {
  m.def("partition_warp_counts", &partitionWarpCounts, py::arg("module"),
        "The distinct warp counts of the ttg.warp_specialize partitions in an "
        "ir.module, ascending.");
  m.def("detach_partitions", &detachPartitions, py::arg("module"), py::arg("holder"),
        py::arg("num_warps"),
        "Moves the body of every partition with `num_warps` warps into a "
        "private tt.func of `holder` (an empty ir.module of the same "
        "context), in walk order; returns how many.");
  m.def("attach_partitions", &attachPartitions, py::arg("module"), py::arg("holder"),
        py::arg("num_warps"),
        "Moves the bodies detach_partitions took (converted or not) back "
        "into their partitions and empties `holder`.");
}

} // namespace tlx_alias::python
