// prox/planar/validate.hpp — checks that a shape means what its type says.
//
// The queries accept degenerate shapes (see shapes.hpp) and reject only
// inputs they cannot answer (negative radius, inverted box, no points). The
// promises they cannot check cheaply are checked here, once, at the boundary
// (scene files, the CLI, Python): finite coordinates, a unit OrientedBox
// axis, a ConvexPolygon that is convex and winds once (its side test is wrong
// otherwise), a Polygon that does not cross itself (its winding number would
// then count some regions twice). Each failure throws std::invalid_argument
// naming the shape and the point or edges at fault.
// Convexity: every turn (cross product of consecutive non-zero edges) has one
// sign, straight continuations allowed but not doubling back, and the edge
// directions change x-sign at most twice (so a pentagram, whose turns all
// agree, is rejected). Simplicity: no two non-adjacent edges touch (exact
// segment tests on the pairs whose x ranges overlap, found by a sweep). Every
// turn and crossing sign is orient2d's exact sign, for float and double as for
// mpq_class.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "prox/planar/orient.hpp"
#include "prox/planar/shapes.hpp"

namespace prox::planar {
namespace detail {

template <class T>
void check_finite_points(const std::vector<Vec2<T>>& pts, const char* shape) {
  check_points(pts, shape);
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (!finite_point(pts[i]))
      invalid_shape(join({shape, " point ", std::to_string(i), " is not finite"}));
}

template <class T>
int sign_of(const T& x) {
  return x > T(0) ? 1 : (x < T(0) ? -1 : 0);
}

/// Whether p is within the bounding box of a-b (p known to be on their line).
template <class T>
bool on_segment_box(const Vec2<T>& p, const Vec2<T>& a, const Vec2<T>& b) {
  const bool in_x = (a[0] <= p[0] && p[0] <= b[0]) || (b[0] <= p[0] && p[0] <= a[0]);
  const bool in_y = (a[1] <= p[1] && p[1] <= b[1]) || (b[1] <= p[1] && p[1] <= a[1]);
  return in_x && in_y;
}

/// Whether closed segments p1-p2 and q1-q2 share a point (exact for exact T).
template <class T>
bool segments_touch(const Vec2<T>& p1, const Vec2<T>& p2, const Vec2<T>& q1, const Vec2<T>& q2) {
  const int d1 = orient2d(p1, p2, q1);
  const int d2 = orient2d(p1, p2, q2);
  const int d3 = orient2d(q1, q2, p1);
  const int d4 = orient2d(q1, q2, p2);
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  if (d1 == 0 && on_segment_box(q1, p1, p2)) return true;
  if (d2 == 0 && on_segment_box(q2, p1, p2)) return true;
  if (d3 == 0 && on_segment_box(p1, q1, q2)) return true;
  if (d4 == 0 && on_segment_box(p2, q1, q2)) return true;
  return false;
}

}  // namespace detail

/// Whether the closed path through pts is convex and winds once (collinear and
/// repeated points allowed: turns are taken between consecutive non-zero edges).
template <class T>
bool is_convex(const std::vector<Vec2<T>>& pts) {
  const std::size_t n = pts.size();
  std::vector<std::size_t> starts;  // first points of the non-zero edges
  for (std::size_t i = 0; i < n; ++i)
    if (!(pts[(i + 1) % n] == pts[i])) starts.push_back(i);
  const std::size_t m = starts.size();
  if (m < 3) return true;  // a point or a doubled segment
  int turn = 0;
  int x_flips = 0;
  int prev_x = 0;
  int first_x = 0;
  bool doubles_back = false;
  for (std::size_t i = 0; i < m; ++i) {
    // Edge i runs from a to b, the next non-zero edge from b to c.
    const Vec2<T>& a = pts[starts[i]];
    const Vec2<T>& b = pts[(starts[i] + 1) % n];
    const Vec2<T>& c = pts[(starts[(i + 1) % m] + 1) % n];
    const int s = orient2d(a, b, c);
    if (s != 0) {
      if (turn != 0 && s != turn) return false;
      turn = s;
    } else if (dot(b - a, c - b) < T(0)) {
      doubles_back = true;  // a spike: fine only for a flat (all collinear) path
    }
    const int sx = detail::sign_of(T(b[0] - a[0]));
    if (sx != 0) {
      if (first_x == 0) first_x = sx;
      if (prev_x != 0 && sx != prev_x) ++x_flips;
      prev_x = sx;
    }
  }
  if (turn == 0) return true;  // flat: every point on one line; its solid is a segment
  if (doubles_back) return false;
  if (prev_x != 0 && first_x != 0 && prev_x != first_x) ++x_flips;
  return x_flips <= 2;
}

/// Index pair (lowest first, then lowest second) of two non-adjacent edges of the
/// closed path that touch, or {-1, -1} if the path is simple. Edges are swept
/// in order of their smallest x, and only pairs whose x ranges overlap are
/// tested, so typical outlines cost about n log n, the worst case n^2.
template <class T>
std::pair<int, int> first_self_contact(const std::vector<Vec2<T>>& pts) {
  const std::size_t n = pts.size();
  auto lo_x = [&](std::size_t e) { const T& a = pts[e][0]; const T& b = pts[(e + 1) % n][0]; return a < b ? a : b; };
  auto hi_x = [&](std::size_t e) { const T& a = pts[e][0]; const T& b = pts[(e + 1) % n][0]; return a < b ? b : a; };
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return lo_x(a) < lo_x(b); });
  std::pair<int, int> best{-1, -1};
  for (std::size_t oi = 0; oi < n; ++oi) {
    const std::size_t e = order[oi];
    const T right = hi_x(e);
    for (std::size_t oj = oi + 1; oj < n && !(right < lo_x(order[oj])); ++oj) {
      std::size_t i = e, j = order[oj];
      if (j < i) std::swap(i, j);
      if (j == i + 1 || (i == 0 && j + 1 == n)) continue;  // adjacent edges share a corner
      if (!detail::segments_touch(pts[i], pts[(i + 1) % n], pts[j], pts[(j + 1) % n])) continue;
      const std::pair<int, int> hit{static_cast<int>(i), static_cast<int>(j)};
      if (best.first < 0 || hit < best) best = hit;
    }
  }
  return best;
}

/// Throws std::invalid_argument unless the segment's ends are finite.
template <class T>
void validate(const Segment<T>& s) {
  if (!detail::finite_point(s.a) || !detail::finite_point(s.b))
    detail::invalid_shape("segment end is not finite");
}

/// Throws unless the circle's center is finite and its radius finite and >= 0.
template <class T>
void validate(const Circle<T>& c) {
  if (!detail::finite_point(c.center)) detail::invalid_shape("circle center is not finite");
  detail::check_radius(c.radius, "circle");
  if (!is_finite(c.radius)) detail::invalid_shape("circle radius is not finite");
}

/// Throws unless the box's corners are finite and lo <= hi.
template <class T>
void validate(const Box<T, 2>& b) {
  if (!detail::finite_point(b.lo) || !detail::finite_point(b.hi))
    detail::invalid_shape("box corner is not finite");
  if (!(b.lo[0] <= b.hi[0]) || !(b.lo[1] <= b.hi[1]))
    detail::invalid_shape("box needs lo <= hi in x and y");
}

/// Throws unless the turned box is finite, its half sizes >= 0 and its axis a unit vector.
template <class T>
void validate(const OrientedBox<T>& b) {
  if (!detail::finite_point(b.center) || !detail::finite_point(b.half) ||
      !detail::finite_point(b.axis))
    detail::invalid_shape("oriented box has a non-finite value");
  if (!(b.half[0] >= T(0)) || !(b.half[1] >= T(0)))
    detail::invalid_shape("oriented box needs half sizes >= 0");
  const T n2 = squared_norm(b.axis);
  if constexpr (ScalarTraits<T>::is_ieee) {
    if (!(std::abs(n2 - T(1)) <= T(8) * std::numeric_limits<T>::epsilon()))
      detail::invalid_shape("oriented box axis must have unit length");
  } else {
    if (!(n2 == T(1))) detail::invalid_shape("oriented box axis must have unit length");
  }
}

/// Throws unless the capsule is finite with radius >= 0.
template <class T>
void validate(const Capsule<T>& c) {
  if (!detail::finite_point(c.a) || !detail::finite_point(c.b))
    detail::invalid_shape("capsule end is not finite");
  detail::check_radius(c.radius, "capsule");
  if (!is_finite(c.radius)) detail::invalid_shape("capsule radius is not finite");
}

/// Throws unless the points are finite and the polygon convex, winding once.
template <class T>
void validate(const ConvexPolygon<T>& poly) {
  detail::check_finite_points(poly.points, "convex polygon");
  if (!is_convex(poly.points))
    detail::invalid_shape("convex polygon is not convex (use Polygon for concave shapes)");
}

/// Throws unless the points are finite and no two non-adjacent edges touch
/// (repeated consecutive points are allowed: their zero-length edges are skipped).
template <class T>
void validate(const Polygon<T>& poly) {
  detail::check_finite_points(poly.points, "polygon");
  std::vector<Vec2<T>> distinct;
  std::vector<int> index;  // original index of each kept point
  for (std::size_t i = 0; i < poly.points.size(); ++i) {
    if (!distinct.empty() && distinct.back() == poly.points[i]) continue;
    distinct.push_back(poly.points[i]);
    index.push_back(static_cast<int>(i));
  }
  while (distinct.size() > 1 && distinct.back() == distinct.front()) {
    distinct.pop_back();
    index.pop_back();
  }
  if (distinct.size() < 4) return;  // a triangle or less cannot cross itself
  const auto [i, j] = first_self_contact(distinct);
  if (i >= 0)
    detail::invalid_shape(detail::join({"polygon is not simple: edges ", std::to_string(index[i]),
                                        " and ", std::to_string(index[j]), " touch"}));
}

/// Throws unless the polyline has at least one point, all finite.
template <class T>
void validate(const Polyline<T>& l) {
  detail::check_finite_points(l.points, "polyline");
}

}  // namespace prox::planar
