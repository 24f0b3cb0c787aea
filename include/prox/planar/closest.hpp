// prox/planar/closest.hpp — the uniform boundary/solid switch, distances and
// signed distance for every planar shape.
//
// closest(p, shape, Part::boundary) is closest_on, Part::solid is closest_in,
// for every shape (a segment and a polyline answer the same either way).
// distance(p, shape, part) = sqrt of its squared distance.
// signed_distance(p, shape) for every closed shape (circle, boxes, capsule,
// polygons): the outline's distance, negative when p is strictly inside
// (contains() and not on the outline: points on it give +0). Circle and
// capsule use |p - c| - r directly (one square root, no cancellation of
// squares). Float and double only (square roots). Non-finite p: NaN.
#pragma once

#include <cmath>

#include "prox/planar/closest_box.hpp"
#include "prox/planar/closest_capsule.hpp"
#include "prox/planar/closest_circle.hpp"
#include "prox/planar/closest_polygon.hpp"
#include "prox/planar/closest_segment.hpp"

namespace prox::planar {

/// Closest point of the shape's outline (Part::boundary) or solid (Part::solid) to p.
template <class T, class Shape>
ClosestResult<T> closest(const Vec2<T>& p, const Shape& shape, Part part) {
  return part == Part::solid ? closest_in(p, shape) : closest_on(p, shape);
}

/// Distance from p to the shape's outline or solid.
template <class T, class Shape>
T distance(const Vec2<T>& p, const Shape& shape, Part part) {
  using std::sqrt;
  return sqrt(closest(p, shape, part).sq_distance);
}

/// Signed distance to a closed shape's outline: negative inside, 0 on the outline.
template <class T, class Shape>
T signed_distance(const Vec2<T>& p, const Shape& shape) {
  using std::sqrt;
  const T d = sqrt(closest_on(p, shape).sq_distance);
  return d > T(0) && contains(p, shape) ? -d : d;
}

/// Signed distance to a polygon: as above, but a point exactly on the outline
/// (exact orientation, detail::on_closed_path) is +0 whatever rounding left
/// in its distance (found from outside, stop 40: -2.8e-17 for such points).
template <class T, class Poly>
T polygon_signed_distance(const Vec2<T>& p, const Poly& poly) {
  using std::sqrt;
  const T d = sqrt(closest_on(p, poly).sq_distance);
  if (!(d > T(0)) || !contains(p, poly)) return d;
  return detail::on_closed_path(p, poly.points) ? T(0) : -d;
}
template <class T>
T signed_distance(const Vec2<T>& p, const ConvexPolygon<T>& poly) {
  return polygon_signed_distance(p, poly);
}
template <class T>
T signed_distance(const Vec2<T>& p, const Polygon<T>& poly) {
  return polygon_signed_distance(p, poly);
}

/// Signed distance to a circle: |p - center| - radius.
template <class T>
T signed_distance(const Vec2<T>& p, const Circle<T>& c) {
  detail::check_radius(c.radius, "circle");
  const Vec2<T> d = p - c.center;
  return std::hypot(d[0], d[1]) - c.radius;
}

/// Signed distance to a capsule: distance to its core segment minus its radius.
template <class T>
T signed_distance(const Vec2<T>& p, const Capsule<T>& c) {
  detail::check_radius(c.radius, "capsule");
  using std::sqrt;
  // In a frame where the squares neither overflow nor underflow (at 1e-170
  // the core distance squared to 0 and the sign came out negative, stop 40).
  const detail::CapsuleFrame<T> f = detail::capsule_frame(p, c);
  return (sqrt(closest_point_segment(f.p, f.a, f.b).sq_distance) - f.r) * f.back;
}

}  // namespace prox::planar
