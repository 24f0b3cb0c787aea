// prox/primitives/signed_distance_plane.hpp — signed distance from a point to a plane.
//
// Algorithm: Schneider & Eberly, Geometric Tools for Computer Graphics, 10.3.1
// (seed 001). For a plane through `origin` with any non-zero normal n, the
// signed distance of q is n . (q - origin) / |n|; for a unit normal n^ in the
// implicit form n^ . x + d = 0 it is n^ . q + d (Georgiades 1992), no division.
// Positive on the side n points to. Units: those of the coordinates.
//
// Degenerate plane (n == 0 exactly): no plane, NaN. Non-finite input: NaN.
// The general form takes a square root (float/double only); the unit-normal
// form is a polynomial and also compiles for exact types. For the projected
// point, exactly, see closest_point_plane.hpp.
#pragma once

#include <cmath>

#include "prox/core/vec.hpp"

namespace prox {

/// Signed distance of q to the plane through `origin` with normal n (any length > 0).
template <class T>
T signed_distance_plane(const Vec3<T>& q, const Vec3<T>& origin, const Vec3<T>& normal) {
  using std::sqrt;
  const T nn = squared_norm(normal);
  if (!(nn > T(0))) return ScalarTraits<T>::quiet_nan();
  const T side = dot(normal, q - origin);
  // Unit normals (nn == 1 exactly) skip the square root and division.
  if (nn == T(1)) return side;
  const T len = sqrt(nn);
  return side / len;
}

/// Signed distance of q to the plane unit_normal . x + offset = 0 (|unit_normal| = 1).
template <class T>
T signed_distance_plane(const Vec3<T>& q, const Vec3<T>& unit_normal, const T& offset) {
  const T s = dot(unit_normal, q) + offset;
  return s;
}

}  // namespace prox
