//===- llvm/ADT/Repeated.h: tlx-alias header-delta layer, triton 3.8.0 ----===//
//
// ABI delta 1/2 (see deltas.py): triton 3.8.0's LLVM has a header
// llvm/ADT/Repeated.h whose `Repeated<T>` (one value repeated N times) is a
// member of TypeRange's and ValueRange's owner PointerUnion. The plugin never
// builds one; it only needs the class name (for mangled names) and a complete
// type aligned like libtriton's (8 bytes, so the union's tag has 3 bits). Not
// a copy of LLVM's header: the smallest declaration with that layout.
//
//===----------------------------------------------------------------------===//
#ifndef TLX_ALIAS_ABI_LLVM_ADT_REPEATED_H
#define TLX_ALIAS_ABI_LLVM_ADT_REPEATED_H

#include <cstddef>

namespace llvm {
template <typename T> class Repeated {
public:
  Repeated(T value, size_t count) : value(value), count(count) {}
  const T &getValue() const { return value; }
  size_t size() const { return count; }

private:
  T value;
  size_t count;
};
} // namespace llvm

#endif
