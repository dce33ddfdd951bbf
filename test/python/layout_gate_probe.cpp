// The layout gate's probe (test_layout_gate.py): one small TU that uses, the
// way the plugin does, a type or function of each ABI fact of
// cpp/abi/triton-3.8.0 and cpp/abi/triton-3.9.0, so that reverting any one of
// them shows in the gate.
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

namespace probe {

// 1, 2: iterating the ranges calls their out-of-line dereference_iterator.
int countRanges(TypeRange types, ValueRange values) {
  int n = 0;
  for (Type t : types)
    n += t ? 1 : 0;
  for (Value v : values)
    n += v ? 1 : 0;
  return n;
}

// 3: OpOperand::getOperandNumber.
unsigned firstOperandNumber(Operation *op) { return op->getOpOperand(0).getOperandNumber(); }

// 4: a virtual call into libtriton's AsmParser.
ParseResult parseWord(AsmParser &parser, StringRef *word) {
  return parser.parseOptionalKeyword(word);
}

// 5: IntegerAttr::getValue's return type.
int64_t attrValue(IntegerAttr attr) { return attr.getValue().getSExtValue(); }

// 6: OperationState, and an op name's OperationName::Impl.
Operation *build(OpBuilder &builder, Location loc, StringRef name, ValueRange operands) {
  OperationState state(loc, name);
  state.addOperands(operands);
  return builder.create(state);
}
TypeID nameTypeID(Operation *op) { return op->getName().getTypeID(); }

// 7: a side-effect resource's virtual getName.
StringRef resourceName(SideEffects::Resource *resource) { return resource->getName(); }

// 8, 9: the ADT containers libtriton fills and probes, and a pass's options.
bool seen(llvm::SmallPtrSet<Operation *, 4> &set, Operation *op) { return !set.insert(op).second; }
unsigned countValue(llvm::DenseMap<Value, unsigned> &map, Value v) { return ++map[v]; }
size_t optionCount(detail::PassOptions &options) { return sizeof(options); }

// 13 (triton 3.9.0): a block numbered by libtriton as its region takes it.
Block *appendBlock(Region &region) {
  auto *block = new Block();
  region.push_back(block);
  return block;
}

// 10: MemoryBuffer, made by libtriton's LLVM and asked its kind through the vtable.
int bufferKind(StringRef text) {
  return static_cast<int>(llvm::MemoryBuffer::getMemBufferCopy(text)->getBufferKind());
}

} // namespace probe
