// python/src/module.cpp — the extension module prox._prox (nanobind). The
// public Python API is the package python/prox/, which wraps these classes
// with shape handling, dtypes and docstrings; nothing here is meant to be
// called directly.
#include <nanobind/nanobind.h>

#include <nanobind/stl/string.h>

#include <string>

#include "prox/mesh/isa.hpp"

namespace nb = nanobind;

namespace prox::python {
void bind_mesh(nb::module_& m);
void bind_planar(nb::module_& m);
}  // namespace prox::python

NB_MODULE(_prox, m) {
  m.doc() = "prox's compiled core; use the `prox` package, not this module";
  prox::python::bind_mesh(m);
  prox::python::bind_planar(m);
  m.def("isa", [] { return std::string(prox::isa_description()); });
}
