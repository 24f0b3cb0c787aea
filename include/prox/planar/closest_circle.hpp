// prox/planar/closest_circle.hpp — closest point on and in a circle; inside test.
//
// Algorithm: seed 004, "Closest Point on a Circle": the rim point in p's
// direction from the center, center + (p - c) / |p - c| * r. The length is
// std::hypot, so no coordinate squares overflow or underflow, and the unit
// vector (p - c) / |p - c| has components in [-1, 1] (no overflow for a tiny
// |p - c|). Squared distance is (|p - c| - r)^2, which stays accurate when p is
// near the rim.
//
// Ties: at the center every rim point is as near; the answer is the seed's,
// the rim point straight to +x: center + (r, 0). Only an exact zero |p - c|
// takes that branch (no epsilon).
// Inside: |p - c|^2 <= r^2 (points on the rim count as inside), exact for
// exact scalar types. closest_on needs a square root, so it compiles for float
// and double only; contains compiles for mpq_class too.
// Degenerate: radius 0 is the point `center` (closest_on gives the center);
// a negative or NaN radius throws std::invalid_argument. Non-finite p: a miss.
// Result: edge -1 (a rim is not a straight edge), t 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "prox/planar/shapes.hpp"

namespace prox::planar {

/// Whether p is in the solid circle (the rim counts as inside).
template <class T>
bool contains(const Vec2<T>& p, const Circle<T>& c) {
  detail::check_radius(c.radius, "circle");
  Vec2<T> d = p - c.center;
  T r = c.radius;
  if constexpr (std::is_floating_point_v<T>) {
    using std::abs;
    const T m = std::max({abs(d[0]), abs(d[1]), r});
    if (detail::needs_rescale(m)) {  // squares would overflow or underflow
      const T s = detail::rescale_factor(m);
      d = d * s;
      r *= s;
    }
  }
  return squared_norm(d) <= r * r;
}

/// Closest point on the circle's rim to p; at the center, the rim point to +x.
template <class T>
ClosestResult<T> closest_on(const Vec2<T>& p, const Circle<T>& c) {
  detail::check_radius(c.radius, "circle");
  if (!detail::finite_point(p)) return detail::planar_miss<T>();
  const Vec2<T> d = p - c.center;
  const T len = std::hypot(d[0], d[1]);
  if (len == T(0)) {
    return {Vec2<T>{c.center[0] + c.radius, c.center[1]}, c.radius * c.radius, -1, T(0)};
  }
  const T gap = len - c.radius;
  return {c.center + (d / len) * c.radius, gap * gap, -1, T(0)};
}

/// Closest point in the solid circle to p: p itself when inside.
template <class T>
ClosestResult<T> closest_in(const Vec2<T>& p, const Circle<T>& c) {
  if (detail::finite_point(p) && contains(p, c)) return detail::self_result(p);
  return closest_on(p, c);
}

}  // namespace prox::planar
