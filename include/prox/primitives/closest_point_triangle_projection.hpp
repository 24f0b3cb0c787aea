// prox/primitives/closest_point_triangle_projection.hpp — closest point on a solid
// 3D triangle by projection, then edges: the reference method.
//
// Algorithm (seed 003, "closest point on a triangle"): drop p onto the plane,
// q = p - (n . (p - a) / n . n) n with n = (b - a) x (c - a); if q is in the
// triangle (seed 003's three edge signs, evaluated at p: they do not change
// along n) it is the answer; otherwise the answer is the nearest of the
// closest points of the three edges. Slower than Ericson's and Eberly's
// region tests, and written to be obviously right: the tests cross-check the
// three methods against each other and against exact rationals.
//
// Same contract as closest_point_triangle: `point`, `sq_distance` (squared),
// `bary` (weights of a, b, c; from the three edge values / n . n), `feature`.
// A projection exactly on the boundary (an edge value exactly zero) is
// answered by the edges, so the feature is that edge or vertex; ties between
// edges go to the first of ab, bc, ca.
//
// Degenerate triangles (n . n == 0 exactly): the nearest of the three edges,
// i.e. the segment or point the triangle collapses to; never NaN. Non-finite
// input: a miss, every output NaN. Exact for exact scalar types.
// Scale: as Eberly's kernel (edges beyond 2^+-16 float, 2^+-200 double, or p
// farther than 2^60 / 2^400 from a: detail::reference_rescaled).
#pragma once

#include "prox/primitives/closest_point_triangle.hpp"

namespace prox {

namespace detail {

/// Seed 003's method on finite input in T's range (reference_in_range).
template <class T>
ClosestPointTriangleResult<T> projection_then_edges(const Vec3<T>& p, const Vec3<T>& a,
                                                    const Vec3<T>& b, const Vec3<T>& c) {
  const Vec3<T> corners[3] = {a, b, c};
  const Vec3<T> n = cross(b - a, c - a);
  const T nn = dot(n, n);
  if (!(nn > T(0))) return detail::closest_on_edges(p, corners);
  // Edge values of seed 003's point-in-triangle test: (edge x (p - start)) . n.
  // The one for the edge opposite a corner is nn times that corner's weight.
  const T wc = dot(cross(b - a, p - a), n);
  const T wa = dot(cross(c - b, p - b), n);
  const T wb = dot(cross(a - c, p - c), n);
  if (!(wa > T(0) && wb > T(0) && wc > T(0))) return detail::closest_on_edges(p, corners);
  ClosestPointTriangleResult<T> r;
  const T k = dot(n, p - a) / nn;
  r.point = p - n * k;
  r.bary[1] = wb / nn;
  r.bary[2] = wc / nn;
  r.bary[0] = T(1) - r.bary[1] - r.bary[2];
  r.feature = Feature::face;
  r.sq_distance = squared_distance(p, r.point);
  return r;
}

}  // namespace detail

/// Closest point on the solid triangle (a, b, c) to p: projection, else nearest edge (seed 003).
template <class T>
ClosestPointTriangleResult<T> closest_point_triangle_projection(const Vec3<T>& p,
                                                                const Vec3<T>& a,
                                                                const Vec3<T>& b,
                                                                const Vec3<T>& c) {
  if (!detail::all_finite(p, a, b, c)) return detail::triangle_miss<T>();
  if constexpr (ScalarTraits<T>::is_ieee) {
    if (!detail::reference_in_range(b - a, c - a, p - a)) {
      return detail::reference_rescaled(p, a, b, c, [](const auto& q, const auto& qa,
                                                       const auto& qb, const auto& qc) {
        return detail::projection_then_edges(q, qa, qb, qc);
      });
    }
  }
  return detail::projection_then_edges(p, a, b, c);
}

}  // namespace prox
