// prox/planar/closest_capsule.hpp — closest point on and in a capsule (a
// segment with a radius, seed 004 exercise 4); inside test.
//
// Algorithm: q = the closest point of the core segment (the shared segment
// kernel); the outline point is q moved toward p by the radius,
// q + (p - q) / |p - q| * r, at squared distance (|p - q| - r)^2. Solid: p
// itself when |p - q|^2 <= r^2 (the outline counts as inside; exact for exact
// scalars).
//
// Ties: when p lies on the core segment every direction is as near; the
// answer is the outline point straight to the left of a -> b (a turned
// +90 degrees in y-up axes), or, for a == b, to +x as for a circle.
// Result: edge -1 (the outline is not a straight edge everywhere), t the
// fraction of q along the core segment.
// Degenerate: a == b is a circle, radius 0 is the segment. A negative or NaN
// radius throws std::invalid_argument. closest_on needs a square root (float
// and double only); contains compiles for mpq_class. Non-finite p: a miss.
#pragma once

#include <cmath>

#include "prox/planar/shapes.hpp"
#include "prox/primitives/closest_point_segment.hpp"

namespace prox::planar {

/// Whether p is in the solid capsule (the outline counts as inside).
template <class T>
bool contains(const Vec2<T>& p, const Capsule<T>& c) {
  detail::check_radius(c.radius, "capsule");
  return closest_point_segment(p, c.a, c.b).sq_distance <= c.radius * c.radius;
}

/// Closest point on the capsule's outline to p; on the core, the point to its left.
template <class T>
ClosestResult<T> closest_on(const Vec2<T>& p, const Capsule<T>& c) {
  detail::check_radius(c.radius, "capsule");
  if (!detail::finite_point(p)) return detail::planar_miss<T>();
  const auto q = closest_point_segment(p, c.a, c.b);
  const Vec2<T> d = p - q.point;
  const T len = std::hypot(d[0], d[1]);
  if (len == T(0)) {
    const Vec2<T> ab = c.b - c.a;
    const T ab_len = std::hypot(ab[0], ab[1]);
    const Vec2<T> dir = ab_len > T(0) ? detail::perp(ab / ab_len) : Vec2<T>{T(1), T(0)};
    return {q.point + dir * c.radius, c.radius * c.radius, -1, q.t};
  }
  const T gap = len - c.radius;
  return {q.point + (d / len) * c.radius, gap * gap, -1, q.t};
}

/// Closest point in the solid capsule to p: p itself when inside.
template <class T>
ClosestResult<T> closest_in(const Vec2<T>& p, const Capsule<T>& c) {
  if (detail::finite_point(p) && contains(p, c)) return detail::self_result(p);
  return closest_on(p, c);
}

}  // namespace prox::planar
