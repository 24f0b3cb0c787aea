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

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "prox/planar/orient.hpp"
#include "prox/planar/shapes.hpp"
#include "prox/primitives/closest_point_segment.hpp"

namespace prox::planar {

namespace detail {
/// The capsule moved to its end a and scaled so that its lengths neither
/// overflow nor underflow when squared (needs_rescale), or as it is: p, a, b,
/// r and the factor back (1, or 2^e).
template <class T>
struct CapsuleFrame {
  Vec2<T> p, a, b;
  T r, back;
  bool moved;  ///< to a and scaled: answers are back * x + c.a
};
template <class T>
CapsuleFrame<T> capsule_frame(const Vec2<T>& p, const Capsule<T>& c) {
  if constexpr (std::is_floating_point_v<T>) {
    using std::abs;
    const Vec2<T> pa = p - c.a, ba = c.b - c.a;
    const T m = std::max({abs(pa[0]), abs(pa[1]), abs(ba[0]), abs(ba[1]), c.radius});
    if (needs_rescale(m)) {
      const T s = rescale_factor(m);
      return {pa * s, Vec2<T>::zero(), ba * s, c.radius * s, T(1) / s, true};
    }
  }
  return {p, c.a, c.b, c.radius, T(1), false};
}
}  // namespace detail

/// Whether p is in the solid capsule (the outline counts as inside).
template <class T>
bool contains(const Vec2<T>& p, const Capsule<T>& c) {
  detail::check_radius(c.radius, "capsule");
  const detail::CapsuleFrame<T> f = detail::capsule_frame(p, c);
  return closest_point_segment(f.p, f.a, f.b).sq_distance <= f.r * f.r;
}

/// Closest point on the capsule's outline to p; on the core, the point to its left.
template <class T>
ClosestResult<T> closest_on(const Vec2<T>& p, const Capsule<T>& c) {
  detail::check_radius(c.radius, "capsule");
  if (!detail::finite_point(p)) return detail::planar_miss<T>();
  const detail::CapsuleFrame<T> f = detail::capsule_frame(p, c);
  const auto q = closest_point_segment(f.p, f.a, f.b);
  const Vec2<T> d = f.p - q.point;
  const T len = std::hypot(d[0], d[1]);
  const Vec2<T> ab = f.b - f.a;
  const T ab_len = std::hypot(ab[0], ab[1]);
  Vec2<T> dir;
  if (q.t > T(0) && q.t < T(1) && ab_len > T(0)) {
    // Beside the core's inside, p - q is perpendicular to the core: the unit
    // normal on p's side (exact orientation; the left one on the core). From
    // p - q itself the direction was rounding noise when p lies within
    // rounding of the core, and the answer an outline point up to r off
    // (found from outside, stop 40: 690 of 2,000 such points).
    const Vec2<T> n = detail::perp(ab / ab_len);
    dir = orient2d(f.a, f.b, f.p) < 0 ? n * T(-1) : n;
  } else if (len > T(0)) {
    dir = d / len;  // around an end: radial from it
  } else {
    dir = ab_len > T(0) ? detail::perp(ab / ab_len) : Vec2<T>{T(1), T(0)};
  }
  const T gap = len - f.r;
  const Vec2<T> point = q.point + dir * f.r;
  if (!f.moved) return {point, gap * gap, -1, q.t};
  const T g = gap * f.back;
  return {point * f.back + c.a, g * g, -1, q.t};
}

/// Closest point in the solid capsule to p: p itself when inside.
template <class T>
ClosestResult<T> closest_in(const Vec2<T>& p, const Capsule<T>& c) {
  if (detail::finite_point(p) && contains(p, c)) return detail::self_result(p);
  return closest_on(p, c);
}

}  // namespace prox::planar
