#ifndef TLX_ALIAS_PYTHON_ENUMS_H
#define TLX_ALIAS_PYTHON_ENUMS_H

#include <pybind11/pybind11.h>

namespace tlx_alias::python {
/// Adds `enum_cases()` (the tlx enums of TLXEnums.td) to `_C`.
void registerEnums(pybind11::module_ &m);
} // namespace tlx_alias::python

#endif // TLX_ALIAS_PYTHON_ENUMS_H
