#ifndef TLX_ALIAS_SUPPORT_LOCATION_H
#define TLX_ALIAS_SUPPORT_LOCATION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tlx_alias {

/// "file:line:col" of the first file location inside `loc` (kernels'
/// locations are name and call-site locations wrapped around them), or
/// MLIR's printed form when there is none.
inline std::string describeLocation(mlir::Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::FileLineColLoc file;
  loc->walk([&](mlir::Location inner) {
    if (auto found = llvm::dyn_cast<mlir::FileLineColLoc>(inner)) {
      file = found;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  if (file)
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return text;
}

/// The variable name triton's frontend gives a value assigned to one (the
/// first name location inside `loc`), or "".
inline std::string locationName(mlir::Location loc) {
  std::string name;
  loc->walk([&](mlir::Location inner) {
    if (auto found = llvm::dyn_cast<mlir::NameLoc>(inner)) {
      name = found.getName().str();
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return name;
}

} // namespace tlx_alias

#endif // TLX_ALIAS_SUPPORT_LOCATION_H
