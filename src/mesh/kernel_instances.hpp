// src/mesh/kernel_instances.hpp — the scalar kernels that the engine calls, as
// explicit instantiations for float and double: declared here (extern: no
// translation unit that includes this emits its own copy, though it may still
// inline them), defined once in kernel_instances.cpp, compiled for the
// baseline ISA. Why: engine_isa.cpp is compiled for several ISAs, and a
// template instance it emitted would be a weak symbol the linker may pick for
// every caller, e.g. the AVX-512 copy for a CPU without AVX-512.
#pragma once

#include "prox/primitives/closest_point_triangle.hpp"
#include "prox/primitives/ray_triangle.hpp"

#define PROX_KERNEL_INSTANCES(EXTERN, T)                                                     \
  EXTERN template ClosestPointTriangleResult<T> closest_point_triangle<T>(                   \
      const Vec3<T>&, const Vec3<T>&, const Vec3<T>&, const Vec3<T>&);                        \
  EXTERN template ClosestPointTriangleResult<T> detail::face_or_edges<T>(const Vec3<T>&,     \
                                                                         const Vec3<T>*);    \
  EXTERN template ClosestPointTriangleResult<T> detail::closest_on_edges<T>(const Vec3<T>&,  \
                                                                            const Vec3<T>*); \
  EXTERN template ClosestPointTriangleResult<T> detail::closest_on_edge<T>(                  \
      const Vec3<T>&, const Vec3<T>*, int, int);                                             \
  EXTERN template ClosestPointTriangleResult<T> detail::on_edge<T>(                          \
      const Vec3<T>&, const Vec3<T>*, int, int, const T&);

namespace prox {
PROX_KERNEL_INSTANCES(extern, float)
PROX_KERNEL_INSTANCES(extern, double)
}  // namespace prox
