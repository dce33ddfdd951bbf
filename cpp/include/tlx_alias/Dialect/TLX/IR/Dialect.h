#ifndef TLX_ALIAS_DIALECT_TLX_IR_DIALECT_H
#define TLX_ALIAS_DIALECT_TLX_IR_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "TritonByName/MemDesc.h"

#include "tlx_alias/Dialect/TLX/IR/TLXDialect.h.inc"
#include "tlx_alias/Dialect/TLX/IR/TLXEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tlx_alias/Dialect/TLX/IR/TLXTypes.h.inc"

#define GET_OP_CLASSES
#include "tlx_alias/Dialect/TLX/IR/TLXOps.h.inc"

#endif // TLX_ALIAS_DIALECT_TLX_IR_DIALECT_H
