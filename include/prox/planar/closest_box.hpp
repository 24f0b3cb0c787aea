// prox/planar/closest_box.hpp — closest point on and in an axis-aligned box
// (prox::Box<T,2>) and a turned box (OrientedBox); inside tests.
//
// Algorithm: seed 004, "Closest Point in a Box": clamp each coordinate into
// the box (the solid answer, exact: no arithmetic but comparisons). For the
// outline, a point inside goes straight to the nearest side. A turned box is
// the seed FAQ's method: turn p into the box's frame, solve there, turn back.
//
// Edges: the corners in order lo, (hi.x, lo.y), hi, (lo.x, hi.y) (counter-
// clockwise in y-up axes); edge i runs from corner i to corner i+1 and `t` is
// the fraction along it, exactly as the box's corner polygon would report
// (a corner belongs to the lower-indexed of its two edges). Ties inside (p
// equally near two sides, e.g. the center) go to the lowest edge index, the
// same rule as polygons.
// Inside: lo <= p <= hi (the outline counts as inside).
// Degenerate: a zero-size box (lo == hi) is a point; a zero-width one is a
// segment (t is 0 along a zero-length edge). lo > hi or NaN corners throw
// std::invalid_argument; so does an OrientedBox whose axis has zero length.
// The OrientedBox axis must be a unit vector (from_angle makes one); its
// queries use dot products only, so they are exact for mpq_class given an
// exactly unit axis such as (3/5, 4/5). Non-finite p: a miss.
#pragma once

#include "prox/planar/shapes.hpp"

namespace prox::planar {
namespace detail {

template <class T>
void check_box(const Box<T, 2>& b) {
  if (!(b.lo[0] <= b.hi[0]) || !(b.lo[1] <= b.hi[1])) {
    invalid_shape("box needs lo <= hi in x and y (got an inverted box or NaN corner)");
  }
}

template <class T>
T fraction(const T& num, const T& len) {
  if (len > T(0)) return clamp01(T(num / len));
  return T(0);
}

/// The clamped point q (on the outline) with its edge index and fraction.
template <class T>
ClosestResult<T> box_outline_point(const Vec2<T>& p, const Vec2<T>& q, const Vec2<T>& lo,
                                   const Vec2<T>& hi) {
  const T w = hi[0] - lo[0];
  const T h = hi[1] - lo[1];
  int edge = 3;
  T t(0);
  if (q[1] == lo[1]) {
    edge = 0;
    t = fraction(T(q[0] - lo[0]), w);
  } else if (q[0] == hi[0]) {
    edge = 1;
    t = fraction(T(q[1] - lo[1]), h);
  } else if (q[1] == hi[1]) {
    edge = 2;
    t = fraction(T(hi[0] - q[0]), w);
  } else {
    t = fraction(T(hi[1] - q[1]), h);
  }
  return {q, squared_distance(p, q), edge, t};
}

/// Closest point of the box [lo, hi] (boundary or solid) in its own frame.
template <class T>
ClosestResult<T> box_closest(const Vec2<T>& p, const Vec2<T>& lo, const Vec2<T>& hi, Part part) {
  const bool inside = lo[0] <= p[0] && p[0] <= hi[0] && lo[1] <= p[1] && p[1] <= hi[1];
  if (inside && part == Part::solid) return self_result(p);
  const bool strictly = lo[0] < p[0] && p[0] < hi[0] && lo[1] < p[1] && p[1] < hi[1];
  if (!strictly) {
    Vec2<T> q = p;
    for (int i = 0; i < 2; ++i) {
      if (q[i] < lo[i]) q[i] = lo[i];
      if (q[i] > hi[i]) q[i] = hi[i];
    }
    return box_outline_point(p, q, lo, hi);
  }
  // Strictly inside, outline wanted: the nearest side, lowest index on ties.
  const T gaps[4] = {p[1] - lo[1], hi[0] - p[0], hi[1] - p[1], p[0] - lo[0]};
  int best = 0;
  for (int i = 1; i < 4; ++i)
    if (gaps[i] < gaps[best]) best = i;
  Vec2<T> q = p;
  if (best == 0) q[1] = lo[1];
  if (best == 1) q[0] = hi[0];
  if (best == 2) q[1] = hi[1];
  if (best == 3) q[0] = lo[0];
  ClosestResult<T> r = box_outline_point(p, q, lo, hi);
  r.edge = best;  // q is off every corner, so this only restates it
  r.sq_distance = gaps[best] * gaps[best];
  return r;
}

template <class T>
void check_obox(const OrientedBox<T>& b) {
  if (!(b.half[0] >= T(0)) || !(b.half[1] >= T(0))) invalid_shape("oriented box needs half sizes >= 0");
  if (!(squared_norm(b.axis) > T(0))) invalid_shape("oriented box axis has zero length");
}

template <class T>
ClosestResult<T> obox_closest(const Vec2<T>& p, const OrientedBox<T>& b, Part part) {
  check_obox(b);
  if (!finite_point(p)) return planar_miss<T>();
  const Vec2<T> d = p - b.center;
  const Vec2<T> v = perp(b.axis);
  const Vec2<T> local{dot(d, b.axis), dot(d, v)};
  ClosestResult<T> r = box_closest(local, -b.half, b.half, part);
  if (r.edge < 0) return self_result(p);
  r.point = b.center + b.axis * r.point[0] + v * r.point[1];
  return r;
}

}  // namespace detail

/// Whether p is in the solid box (the outline counts as inside).
template <class T>
bool contains(const Vec2<T>& p, const Box<T, 2>& b) {
  detail::check_box(b);
  return b.lo[0] <= p[0] && p[0] <= b.hi[0] && b.lo[1] <= p[1] && p[1] <= b.hi[1];
}

/// Closest point on the box's outline to p; inside, the nearest side (lowest edge on ties).
template <class T>
ClosestResult<T> closest_on(const Vec2<T>& p, const Box<T, 2>& b) {
  detail::check_box(b);
  if (!detail::finite_point(p)) return detail::planar_miss<T>();
  return detail::box_closest(p, b.lo, b.hi, Part::boundary);
}

/// Closest point in the solid box to p: p with each coordinate clamped.
template <class T>
ClosestResult<T> closest_in(const Vec2<T>& p, const Box<T, 2>& b) {
  detail::check_box(b);
  if (!detail::finite_point(p)) return detail::planar_miss<T>();
  return detail::box_closest(p, b.lo, b.hi, Part::solid);
}

/// Whether p is in the solid turned box (the outline counts as inside).
template <class T>
bool contains(const Vec2<T>& p, const OrientedBox<T>& b) {
  detail::check_obox(b);
  const Vec2<T> d = p - b.center;
  const T x = dot(d, b.axis);
  const T y = dot(d, detail::perp(b.axis));
  return -b.half[0] <= x && x <= b.half[0] && -b.half[1] <= y && y <= b.half[1];
}

/// Closest point on the turned box's outline to p (edges as for Box, in its frame).
template <class T>
ClosestResult<T> closest_on(const Vec2<T>& p, const OrientedBox<T>& b) {
  return detail::obox_closest(p, b, Part::boundary);
}

/// Closest point in the solid turned box to p.
template <class T>
ClosestResult<T> closest_in(const Vec2<T>& p, const OrientedBox<T>& b) {
  return detail::obox_closest(p, b, Part::solid);
}

}  // namespace prox::planar
