#ifndef TLX_ALIAS_SUPPORT_LOCATION_H
#define TLX_ALIAS_SUPPORT_LOCATION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <utility>

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

/// A pass's mark on an op that must outlive triton's lowering, which drops
/// attributes but keeps locations: `loc` wrapped in a FusedLoc whose metadata
/// is `entries`.
inline mlir::Location markLocation(mlir::Location loc,
                                   llvm::ArrayRef<mlir::NamedAttribute> entries) {
  mlir::MLIRContext *context = loc.getContext();
  return mlir::FusedLoc::get(context, {loc}, mlir::DictionaryAttr::get(context, entries));
}

/// The metadata and the wrapped location of a markLocation mark, or nullopt.
inline std::optional<std::pair<mlir::DictionaryAttr, mlir::Location>>
markOfLocation(mlir::Location loc) {
  auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc);
  if (!fused || fused.getLocations().size() != 1)
    return std::nullopt;
  auto meta = llvm::dyn_cast_or_null<mlir::DictionaryAttr>(fused.getMetadata());
  if (!meta)
    return std::nullopt;
  return std::make_pair(meta, fused.getLocations().front());
}

} // namespace tlx_alias

#endif // TLX_ALIAS_SUPPORT_LOCATION_H
