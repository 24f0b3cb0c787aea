// prox/planar/closest_segment.hpp — closest point on a 2D segment and on a polyline.
//
// Algorithm: seed 004, "Closest Point on a Segment": project onto the line,
// clamp the fraction to [0, 1]. The 2D and 3D cases are one kernel,
// prox::closest_point_segment (prox/primitives/closest_point_segment.hpp),
// templated on the dimension; this header only names the result for the
// planar API. A polyline is the nearest of its segments' answers.
//
// Output: ClosestResult with `edge` = 0 for a segment, the segment index i
// (points[i] -> points[i+1]) for a polyline, and `t` the fraction along it.
// Ties (points equally near two segments of a polyline) go to the lowest
// index. A segment and a polyline have no inside, so closest_on, closest_in
// and closest(p, s, part) all give the same answer, and contains(p, s) is
// true only for points exactly on them (exact: orient2d).
// Degenerate input: a zero-length segment is its point (t = 0); a polyline of
// one point is that point (edge 0, t 0); a polyline with no point throws
// std::invalid_argument. Non-finite p: a miss (NaN point and distance, edge -1).
#pragma once

#include <cstddef>

#include "prox/planar/orient.hpp"
#include "prox/planar/shapes.hpp"
#include "prox/primitives/closest_point_segment.hpp"

namespace prox::planar {
namespace detail {

/// Whether p lies on segment a-b, given orient = orient2d(a, b, p) (exact).
template <class T>
bool on_segment(const Vec2<T>& p, const Vec2<T>& a, const Vec2<T>& b, int orient) {
  if (orient != 0) return false;
  const bool in_x = (a[0] <= p[0] && p[0] <= b[0]) || (b[0] <= p[0] && p[0] <= a[0]);
  const bool in_y = (a[1] <= p[1] && p[1] <= b[1]) || (b[1] <= p[1] && p[1] <= a[1]);
  return in_x && in_y;
}

}  // namespace detail

/// Closest point on segment s to p (a segment has no inside).
template <class T>
ClosestResult<T> closest_on(const Vec2<T>& p, const Segment<T>& s) {
  if (!detail::finite_point(p)) return detail::planar_miss<T>();
  const auto r = closest_point_segment(p, s.a, s.b);
  return {r.point, r.sq_distance, 0, r.t};
}

/// Same as closest_on: a segment has no inside.
template <class T>
ClosestResult<T> closest_in(const Vec2<T>& p, const Segment<T>& s) {
  return closest_on(p, s);
}

/// Whether p lies on the segment (exactly, in T's arithmetic; a segment has no inside).
template <class T>
bool contains(const Vec2<T>& p, const Segment<T>& s) {
  return detail::on_segment(p, s.a, s.b, orient2d(s.a, s.b, p));
}

namespace detail {

/// Nearest of the segments points[i] -> points[i+1] (and the closing one when
/// `closed`); strict < keeps the lowest edge index on ties.
template <class T>
ClosestResult<T> closest_on_path(const Vec2<T>& p, const std::vector<Vec2<T>>& pts, bool closed) {
  const std::size_t n = pts.size();
  if (n == 1) return {pts[0], squared_distance(p, pts[0]), 0, T(0)};
  const std::size_t edges = closed ? n : n - 1;
  ClosestResult<T> best{pts[0], T(0), -1, T(0)};
  for (std::size_t i = 0; i < edges; ++i) {
    const Vec2<T>& a = pts[i];
    const Vec2<T>& b = pts[i + 1 == n ? 0 : i + 1];
    const auto r = closest_point_segment(p, a, b);
    if (best.edge < 0 || r.sq_distance < best.sq_distance) {
      best = {r.point, r.sq_distance, static_cast<int>(i), r.t};
    }
  }
  return best;
}

}  // namespace detail

/// Closest point on polyline l to p: the nearest of its segments, lowest index on ties.
template <class T>
ClosestResult<T> closest_on(const Vec2<T>& p, const Polyline<T>& l) {
  detail::check_points(l.points, "polyline");
  if (!detail::finite_point(p)) return detail::planar_miss<T>();
  return detail::closest_on_path(p, l.points, false);
}

/// Same as closest_on: a polyline has no inside.
template <class T>
ClosestResult<T> closest_in(const Vec2<T>& p, const Polyline<T>& l) {
  return closest_on(p, l);
}

/// Whether p lies on one of the polyline's segments (it has no inside).
template <class T>
bool contains(const Vec2<T>& p, const Polyline<T>& l) {
  detail::check_points(l.points, "polyline");
  if (l.points.size() == 1) return p == l.points[0];
  for (std::size_t i = 0; i + 1 < l.points.size(); ++i)
    if (contains(p, Segment<T>{l.points[i], l.points[i + 1]})) return true;
  return false;
}

}  // namespace prox::planar
