// prox/primitives/point_in_triangle.hpp — is a point over (or in) a triangle?
//
// Algorithm (seed 003): with n = (b - a) x (c - a), p is inside when it is on
// the inner side of all three edges: ((b - a) x (p - a)) . n >= 0, and the same
// for edges bc and ca. Moving p along n changes none of the three values, so
// for a point off the plane the answer is that of its orthogonal projection:
// "is p over or under the triangle". The boundary counts as inside.
//
// Degenerate triangles (n == 0 exactly: collinear or coincident corners) have
// no area: false (DESIGN.md), where the seed's bare test would say true for
// every point. Non-finite input: false. Exact for exact scalar types (degree-5
// polynomials, no division); in floating point the sign is rounded.
#pragma once

#include "prox/primitives/triangle_normal.hpp"

namespace prox {

/// True when the orthogonal projection of p onto the triangle's plane lies in the solid triangle.
template <class T>
bool point_in_triangle(const Vec3<T>& p, const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
  if constexpr (ScalarTraits<T>::is_ieee) {
    if (!all_finite(p) || !all_finite(a) || !all_finite(b) || !all_finite(c)) return false;
  }
  const Vec3<T> n = triangle_normal(a, b, c);
  if (squared_norm(n) == T(0)) return false;
  // Comparisons written as !(x < 0) would accept NaN; these reject it.
  const T ea = dot(cross(b - a, p - a), n);
  if (!(ea >= T(0))) return false;
  const T eb = dot(cross(c - b, p - b), n);
  if (!(eb >= T(0))) return false;
  const T ec = dot(cross(a - c, p - c), n);
  return ec >= T(0);
}

}  // namespace prox
