// Reading objects out of triton's own Python classes.
//
// Another extension cannot take triton's classes as typed arguments: triton
// 3.7/3.8 register them `py::module_local()` (pybind11 3.0), triton 3.9 binds
// them with nanobind. So we check the Python type first, then read the pointer
// to the held C++ object out of the instance, as each library lays it out:
//   pybind11 3.0 (internals v11), "simple layout": the pointer right after
//     the Python object header (instance::simple_value_holder[0]);
//   nanobind (libtriton 3.9.0's DWARF, nanobind::detail::nb_inst, 24 bytes):
//     int32 offset @16; a byte @20 holding state (bits 0-1, 2 = ready) and
//     direct (bit 2); the object is at self + offset when direct, else the
//     pointer stored there points to it.
#ifndef TLX_ALIAS_TRITONBYNAME_TRITONOBJECTS_H
#define TLX_ALIAS_TRITONBYNAME_TRITONOBJECTS_H

#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace tlx_alias::python {

namespace py = pybind11;

// nanobind::detail::nb_inst as libtriton 3.9.0 compiles it.
struct NanobindInstance {
  PyObject_HEAD
  int32_t offset;
  uint8_t flags; // state : 2, direct : 1, internal : 1, ...
  uint8_t clearKeepAlive;
  uint16_t unused;
};
static_assert(sizeof(NanobindInstance) == 24 &&
                  offsetof(NanobindInstance, offset) == 16 &&
                  offsetof(NanobindInstance, flags) == 20,
              "nanobind::detail::nb_inst layout (libtriton 3.9.0)");

// Whether `object`'s class was made by nanobind: its metaclass is one of
// nanobind's nb_type_<n> (tp_name "nb_type_0" under Python 3.11,
// "nanobind.nb_type_0" under 3.12, triton 3.9.0).
inline bool isNanobindObject(py::handle object) {
  const char *meta = Py_TYPE(Py_TYPE(object.ptr()))->tp_name;
  return std::strncmp(meta, "nb_type_", 8) == 0 ||
         std::strncmp(meta, "nanobind.nb_type_", 17) == 0;
}

inline void *unwrapTritonObject(py::handle object, const char *irClassName) {
  py::object cls =
      py::module_::import("triton._C.libtriton").attr("ir").attr(irClassName);
  if (!py::isinstance(object, cls))
    throw py::type_error(std::string("expected triton ir.") + irClassName +
                         ", got " +
                         py::str(py::type::of(object)).cast<std::string>());
  if (isNanobindObject(object)) {
    auto *instance = reinterpret_cast<NanobindInstance *>(object.ptr());
    constexpr uint8_t kStateMask = 0x3, kReady = 2, kDirect = 0x4;
    if ((instance->flags & kStateMask) != kReady)
      throw py::type_error(std::string("triton ir.") + irClassName +
                           " object is not initialized");
    char *at = reinterpret_cast<char *>(instance) + instance->offset;
    return (instance->flags & kDirect) ? static_cast<void *>(at)
                                       : *reinterpret_cast<void **>(at);
  }
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

#endif // TLX_ALIAS_TRITONBYNAME_TRITONOBJECTS_H
