// src/mesh/kernel_instances.hpp — why the engine's ISA builds never share a
// kernel symbol. engine_isa.cpp is compiled for several ISAs, and a template
// instance it emitted would be a weak symbol the linker may pick for every
// caller, e.g. the AVX-512 copy for a CPU without AVX-512. So:
// - the engine calls the kernels through their Tag-ged instances, with a tag
//   type of its own ISA namespace (IsaTag below): distinct symbols per ISA,
//   inlined or not;
// - the untagged public instances are declared here as explicit
//   instantiations (extern), defined once in kernel_instances.cpp for the
//   baseline ISA, so an untagged call from an ISA build calls that copy.
// A test (engine_isa_symbols) checks the objects for any other shared symbol.
#pragma once

#include "prox/primitives/closest_point_triangle.hpp"
#include "prox/primitives/ray_triangle.hpp"

#include "prox/core/platform.hpp"

namespace prox::detail {
inline namespace PROX_ISA_NAMESPACE {
/// Names the kernel instances of this ISA build.
struct IsaTag {};
}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::detail

#define PROX_KERNEL_INSTANCES(EXTERN, T)                                                     \
  EXTERN template ClosestPointTriangleResult<T> closest_point_triangle<T>(                   \
      const Vec3<T>&, const Vec3<T>&, const Vec3<T>&, const Vec3<T>&);                        \
  EXTERN template ClosestPointTriangleResult<T> detail::closest_point_triangle_tagged<T, void>( \
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
