// prox/primitives/triangle_area.hpp — a triangle's area.
//
// area = |(b - a) x (c - a)| / 2 (seed 003). Takes a square root, so float and
// double only; triangle_area_squared (= |n|^2 / 4) is a polynomial and exact
// for exact scalar types. Degenerate triangles have area 0 (exactly, when the
// cross product is exactly zero). Non-finite corners: NaN or inf, as computed.
#pragma once

#include <cmath>

#include "prox/primitives/triangle_normal.hpp"

namespace prox {

/// Squared area of the triangle (a, b, c): |(b - a) x (c - a)|^2 / 4.
template <class T>
T triangle_area_squared(const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
  const T nn = squared_norm(triangle_normal(a, b, c));
  return nn / T(4);
}

/// Area of the triangle (a, b, c) (float/double).
template <class T>
T triangle_area(const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
  using std::sqrt;
  const T nn = squared_norm(triangle_normal(a, b, c));
  return sqrt(nn) / T(2);
}

}  // namespace prox
