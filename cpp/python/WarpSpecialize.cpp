// Building `ttg.warp_specialize` while triton's code generator fills it.
//
// `with tlx.async_tasks()` creates the op (a default region and one
// partition region per replica of each other task); the code generator then
// emits each task's body at the end of its region. Partitions are isolated
// from above, but the kernel's code refers to values defined outside them
// (buffers, barriers, arguments): `finish` makes those explicit captures —
// operands of `ttg.warp_specialize.partitions` and block arguments of every
// partition — after cloning into the partition what is cheaper to recompute
// than to pass (constants, and side-effect-free tensor producers: tensors
// cannot be captured).

#include "Builder.h"

#include <pybind11/stl.h>

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SetVector.h"

#include <stdexcept>
#include <vector>

namespace py = pybind11;
using namespace mlir;

namespace tlx_alias::python {
namespace {

struct WarpSpecializeHandle {
  Operation *op = nullptr;
  Operation *partitions() const { return &op->getRegion(1).front().front(); }
  Block &taskBlock(unsigned task) const {
    if (task == 0)
      return op->getRegion(0).front();
    return partitions()->getRegion(task - 1).front();
  }
};

Operation *create(OpBuilder &builder, Location loc, StringRef name,
                  unsigned numRegions, ArrayRef<NamedAttribute> attrs = {}) {
  OperationState state(loc, name);
  for (unsigned i = 0; i < numRegions; ++i)
    state.addRegion()->push_back(new Block);
  state.addAttributes(attrs);
  if (!state.name.isRegistered())
    throw py::value_error("unknown op " + name.str());
  return builder.create(state);
}

WarpSpecializeHandle begin(py::handle pyBuilder, std::vector<int32_t> numWarps,
                           std::vector<int32_t> registers) {
  TritonOpBuilder &triton = unwrapBuilder(pyBuilder);
  OpBuilder &builder = *triton.builder;
  Location loc = triton.lastLoc ? *triton.lastLoc : builder.getUnknownLoc();
  SmallVector<NamedAttribute> attrs{
      builder.getNamedAttr("partitionNumWarps", builder.getDenseI32ArrayAttr(numWarps))};
  if (!registers.empty())
    attrs.push_back(builder.getNamedAttr("requestedRegisters",
                                         builder.getDenseI32ArrayAttr(registers)));
  Operation *op = create(builder, loc, "ttg.warp_specialize", 2, attrs);
  OpBuilder inner(&op->getRegion(1).front(), op->getRegion(1).front().end());
  create(inner, loc, "ttg.warp_specialize.partitions", numWarps.size());
  return {op};
}

void setInsertionPointToTask(py::handle pyBuilder, const WarpSpecializeHandle &ws,
                             unsigned task) {
  Block &block = ws.taskBlock(task);
  unwrapBuilder(pyBuilder).builder->setInsertionPointToEnd(&block);
}

bool isOutside(Value value, Region &region) {
  return !region.isAncestor(value.getParentRegion());
}

// Recomputing inside the partition beats capturing: constants, and tensors
// (which a partition cannot capture) made without side effects.
bool shouldClone(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getNumRegions() != 0 || !isMemoryEffectFree(def))
    return false;
  return def->getName().getStringRef() == "arith.constant" ||
         isa<RankedTensorType>(value.getType());
}

void cloneIntoPartition(Region &region) {
  Block &block = region.front();
  IRMapping cloned;
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<OpOperand *> outside;
    region.walk([&](Operation *op) {
      for (OpOperand &use : op->getOpOperands())
        if (isOutside(use.get(), region))
          outside.push_back(&use);
    });
    for (OpOperand *use : outside) {
      Value value = use->get();
      if (Value copy = cloned.lookupOrNull(value)) {
        use->set(copy);
        continue;
      }
      if (!shouldClone(value))
        continue;
      OpBuilder builder(&block, block.begin());
      Operation *def = value.getDefiningOp();
      Operation *copy = builder.clone(*def);
      cloned.map(def->getResults(), copy->getResults());
      use->set(cloned.lookup(value));
      changed = true; // the copy's own operands are outside
    }
  }
}

void finish(py::handle pyBuilder, const WarpSpecializeHandle &ws) {
  TritonOpBuilder &triton = unwrapBuilder(pyBuilder);
  OpBuilder &builder = *triton.builder;
  Operation *op = ws.op;
  Location loc = op->getLoc();
  MLIRContext *context = op->getContext();
  DiagnosticCapture capture(context);
  {
    OpBuilder at(&op->getRegion(0).front(), op->getRegion(0).front().end());
    create(at, loc, "ttg.warp_yield", 0);
  }
  Operation *partitions = ws.partitions();
  for (Region &region : partitions->getRegions()) {
    OpBuilder at(&region.front(), region.front().end());
    create(at, loc, "ttg.warp_return", 0);
    cloneIntoPartition(region);
  }
  // What is left outside becomes a capture, in order of first use.
  llvm::SetVector<Value> captures;
  for (Region &region : partitions->getRegions())
    region.walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (isOutside(operand, region))
          captures.insert(operand);
    });
  for (Region &region : partitions->getRegions()) {
    Block &block = region.front();
    for (Value value : captures) {
      BlockArgument arg = block.addArgument(value.getType(), value.getLoc());
      value.replaceUsesWithIf(arg, [&](OpOperand &use) {
        return region.isAncestor(use.getOwner()->getParentRegion());
      });
    }
  }
  partitions->setOperands(captures.getArrayRef());
  builder.setInsertionPointAfter(op);
  if (failed(verify(op)))
    throw py::value_error(capture.messages);
}

} // namespace

void registerWarpSpecialize(py::module_ &m) {
  py::class_<WarpSpecializeHandle>(m, "WarpSpecialize",
                                   "A ttg.warp_specialize being built");
  m.def("begin_warp_specialize", &begin, py::arg("builder"),
        py::arg("partition_num_warps"), py::arg("requested_registers"),
        "Creates ttg.warp_specialize at the builder's insertion point with "
        "a default region and one partition per entry of partition_num_warps.");
  m.def("set_insertion_point_to_task", &setInsertionPointToTask,
        py::arg("builder"), py::arg("op"), py::arg("task"),
        "Moves the builder to the end of task `task` (0: default region, "
        "i: partition i-1).");
  m.def("finish_warp_specialize", &finish, py::arg("builder"), py::arg("op"),
        "Adds terminators, turns uses of outside values in partitions into "
        "captures (cloning constants and tensors), moves the builder after "
        "the op and verifies it; ValueError with the diagnostics on failure.");
}

} // namespace tlx_alias::python
