// Reading objects out of triton's own pybind11 classes.
//
// Triton 3.7.1 registers its classes `py::module_local()`, so another
// extension cannot take them as typed arguments. Both sides use pybind11 3.0
// (internals v11), whose instances keep a single C++ base in the "simple
// layout": a pointer to the held value right after the Python header. We
// check the Python type first, then read that pointer.
#ifndef TLX_ALIAS_PYTHON_TRITONOBJECTS_H
#define TLX_ALIAS_PYTHON_TRITONOBJECTS_H

#include <pybind11/pybind11.h>

#include <string>

namespace tlx_alias::python {

namespace py = pybind11;

inline void *unwrapTritonObject(py::handle object, const char *irClassName) {
  py::object cls =
      py::module_::import("triton._C.libtriton").attr("ir").attr(irClassName);
  if (!py::isinstance(object, cls))
    throw py::type_error(std::string("expected triton ir.") + irClassName +
                         ", got " +
                         py::str(py::type::of(object)).cast<std::string>());
  auto *instance = reinterpret_cast<py::detail::instance *>(object.ptr());
  if (!instance->simple_layout)
    throw py::type_error(std::string("unsupported layout of triton ir.") +
                         irClassName + " (pybind11 internals mismatch)");
  return instance->simple_value_holder[0];
}

template <typename T> T &unwrap(py::handle object, const char *irClassName) {
  return *static_cast<T *>(unwrapTritonObject(object, irClassName));
}

} // namespace tlx_alias::python

#endif // TLX_ALIAS_PYTHON_TRITONOBJECTS_H
