// prox/planar/closest_polygon.hpp — closest point on and in a convex or a
// general (simple, possibly concave) polygon; inside tests.
//
// Algorithm (seed 004, "Closest Point on a Polygon"): the outline's answer is
// the nearest of the edges' answers (the shared segment kernel), comparing
// squared distances; strict < keeps the LOWEST edge index on ties, so a point
// inside equally near two edges (the seed's creases, e.g. the triangle's
// (677, 483)) always gets the same edge. Edge i runs from points[i] to
// points[(i + 1) % n]; `t` is the fraction along it.
//
// Inside tests (the outline counts as inside, as in the seed):
//  - ConvexPolygon: the seed's side test — p is on one side of every edge
//    (either winding accepted). It is WRONG for concave polygons (seed:
//    "some points inside are on the far side of a dented edge's line"), so
//  - Polygon uses the winding number (Sunday 2001: signed crossings of the
//    upward/downward edges; non-zero = inside), with an explicit on-edge test
//    first so outline points count as inside.
// Both decide with orient2d (prox/planar/orient.hpp), the exact sign of the
// cross product for float, double and exact types alike, so inside/outside and
// on-the-outline are exact for every input (barring overflow/underflow).
// Solid: p itself when inside, else the outline's answer (seed closestInPolygon).
//
// Degenerate: repeated points make zero-length edges (their point), collinear
// points are fine; 1 point is that point, 2 points a doubled segment. A
// polygon with no area (fewer than 3 distinct points, or all collinear)
// contains exactly its outline. No point at all throws std::invalid_argument.
// Non-finite p: a miss.
#pragma once

#include <cstddef>

#include "prox/planar/closest_segment.hpp"

namespace prox::planar {
namespace detail {

/// Whether p is on the closed path through pts.
template <class T>
bool on_closed_path(const Vec2<T>& p, const std::vector<Vec2<T>>& pts) {
  const std::size_t n = pts.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2<T>& a = pts[i];
    const Vec2<T>& b = pts[i + 1 == n ? 0 : i + 1];
    if (on_segment(p, a, b, orient2d(a, b, p))) return true;
  }
  return false;
}

}  // namespace detail

/// Whether p is in the solid convex polygon, by the seed's side test (outline counts).
template <class T>
bool contains(const Vec2<T>& p, const ConvexPolygon<T>& poly) {
  detail::check_points(poly.points, "convex polygon");
  const std::vector<Vec2<T>>& pts = poly.points;
  const std::size_t n = pts.size();
  bool left = false;
  bool right = false;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2<T>& a = pts[i];
    const Vec2<T>& b = pts[i + 1 == n ? 0 : i + 1];
    const int side = orient2d(a, b, p);
    if (side > 0) left = true;
    if (side < 0) right = true;
    if (left && right) return false;
  }
  // Every side test zero: the polygon has no area and p is on its line; the
  // side test alone would accept the whole line, so ask for the outline itself.
  if (!left && !right) return detail::on_closed_path(p, pts);
  return true;
}

/// Whether p is in the solid simple polygon, by the winding number (outline counts).
template <class T>
bool contains(const Vec2<T>& p, const Polygon<T>& poly) {
  detail::check_points(poly.points, "polygon");
  const std::vector<Vec2<T>>& pts = poly.points;
  const std::size_t n = pts.size();
  int winding = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2<T>& a = pts[i];
    const Vec2<T>& b = pts[i + 1 == n ? 0 : i + 1];
    const int side = orient2d(a, b, p);
    if (detail::on_segment(p, a, b, side)) return true;
    if (a[1] <= p[1]) {
      if (b[1] > p[1] && side > 0) ++winding;  // upward crossing, p to its left
    } else {
      if (b[1] <= p[1] && side < 0) --winding;  // downward crossing, p to its right
    }
  }
  return winding != 0;
}

/// Closest point on the convex polygon's outline to p (lowest edge index on ties).
template <class T>
ClosestResult<T> closest_on(const Vec2<T>& p, const ConvexPolygon<T>& poly) {
  detail::check_points(poly.points, "convex polygon");
  if (!detail::finite_point(p)) return detail::planar_miss<T>();
  return detail::closest_on_path(p, poly.points, true);
}

/// Closest point on the polygon's outline to p (lowest edge index on ties).
template <class T>
ClosestResult<T> closest_on(const Vec2<T>& p, const Polygon<T>& poly) {
  detail::check_points(poly.points, "polygon");
  if (!detail::finite_point(p)) return detail::planar_miss<T>();
  return detail::closest_on_path(p, poly.points, true);
}

/// Closest point in the solid convex polygon to p: p itself when inside.
template <class T>
ClosestResult<T> closest_in(const Vec2<T>& p, const ConvexPolygon<T>& poly) {
  if (detail::finite_point(p) && contains(p, poly)) return detail::self_result(p);
  return closest_on(p, poly);
}

/// Closest point in the solid polygon to p: p itself when inside.
template <class T>
ClosestResult<T> closest_in(const Vec2<T>& p, const Polygon<T>& poly) {
  if (detail::finite_point(p) && contains(p, poly)) return detail::self_result(p);
  return closest_on(p, poly);
}

}  // namespace prox::planar
