#ifndef TLX_ALIAS_PYTHON_PARTITIONWARPS_H
#define TLX_ALIAS_PYTHON_PARTITIONWARPS_H

#include <pybind11/pybind11.h>

namespace tlx_alias::python {
/// Adds detaching/attaching partitions of other warp counts (see
/// PartitionWarps.cpp) to `_C`.
void registerPartitionWarps(pybind11::module_ &m);
} // namespace tlx_alias::python

#endif // TLX_ALIAS_PYTHON_PARTITIONWARPS_H
