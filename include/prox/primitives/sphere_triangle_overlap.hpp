// prox/primitives/sphere_triangle_overlap.hpp — does a ball touch a solid triangle?
//
// Algorithm (seed 003): the closest point of the triangle to the centre is in
// the ball: |centre - closest|^2 <= radius^2 (Ericson's closest point, so no
// square root: exact for exact scalar types). Touching counts as overlap.
//
// Degenerate triangles are their segment or point (closest_point_triangle's
// policy), so a ball can touch a collinear triangle. A negative radius is an
// empty ball: false. Non-finite input (centre, radius, corners): false.
#pragma once

#include "prox/primitives/closest_point_triangle.hpp"

namespace prox {

/// True when the closed ball (centre, radius) and the solid triangle (a, b, c) share a point.
template <class T>
bool sphere_triangle_overlap(const Vec3<T>& center, const T& radius, const Vec3<T>& a,
                             const Vec3<T>& b, const Vec3<T>& c) {
  if (!(radius >= T(0))) return false;  // negative or NaN
  if (!is_finite(radius)) return false;
  const ClosestPointTriangleResult<T> r = closest_point_triangle(center, a, b, c);
  const T rr = radius * radius;
  return r.sq_distance <= rr;  // NaN (non-finite input) compares false
}

}  // namespace prox
