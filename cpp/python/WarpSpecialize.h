#ifndef TLX_ALIAS_PYTHON_WARPSPECIALIZE_H
#define TLX_ALIAS_PYTHON_WARPSPECIALIZE_H

#include <pybind11/pybind11.h>

namespace tlx_alias::python {
/// Adds the `ttg.warp_specialize` builder (see WarpSpecialize.cpp) to `_C`.
void registerWarpSpecialize(pybind11::module_ &m);
} // namespace tlx_alias::python

#endif // TLX_ALIAS_PYTHON_WARPSPECIALIZE_H
