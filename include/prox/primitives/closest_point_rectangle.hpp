// prox/primitives/closest_point_rectangle.hpp — closest point of a solid 3D rectangle.
//
// Algorithm: Schneider & Eberly, Geometric Tools for Computer Graphics, 10.3.3
// (seed 001). The rectangle is R(s, t) = corner + s e0 + t e1, (s, t) in [0,1]^2,
// with e0 and e1 orthogonal. Because they are, the closest point's parameters
// are the projections s = (q - corner) . e0 / |e0|^2 and t likewise, each
// clamped to [0, 1] on its own (the nine regions of the seed's figure 10.13).
// Each clamp is decided before dividing, so edges and corners are exact.
//
// Inputs: query q, `corner`, edge vectors e0, e1 (orthogonal; the caller's
// responsibility — for a general parallelogram use two triangles). Output:
// `point`, `sq_distance` (squared), `s`, `t` in [0, 1].
// Degenerate rectangles: a zero edge (exactly) gets parameter 0, so the
// rectangle is its segment or its corner point. Non-finite input: a miss
// (every output NaN). Exact scalar types (mpq_class) give the exact answer.
#pragma once

#include "prox/core/vec.hpp"

namespace prox {

template <class T>
struct ClosestPointRectangleResult {
  Vec3<T> point;  ///< closest point of the rectangle
  T sq_distance;  ///< |q - point|^2
  T s;            ///< parameter along e0, in [0, 1]
  T t;            ///< parameter along e1, in [0, 1]
};

namespace detail {
/// Projection parameter of d on e, clamped to [0, 1]; 0 for a zero e.
template <class T>
T clamped_parameter(const Vec3<T>& d, const Vec3<T>& e) {
  const T num = dot(d, e);
  const T ee = dot(e, e);
  if (num <= T(0) || ee == T(0)) return T(0);
  if (num >= ee) return T(1);
  const T s = num / ee;
  return s;
}
}  // namespace detail

/// Closest point on the solid rectangle corner + [0,1] e0 + [0,1] e1 (e0 . e1 = 0) to q.
template <class T>
ClosestPointRectangleResult<T> closest_point_rectangle(const Vec3<T>& q, const Vec3<T>& corner,
                                                       const Vec3<T>& e0, const Vec3<T>& e1) {
  if constexpr (ScalarTraits<T>::is_ieee) {
    if (!all_finite(q) || !all_finite(corner) || !all_finite(e0) || !all_finite(e1)) {
      const T nan = ScalarTraits<T>::quiet_nan();
      return {Vec3<T>::splat(nan), nan, nan, nan};
    }
  }
  ClosestPointRectangleResult<T> r;
  const Vec3<T> d = q - corner;
  r.s = detail::clamped_parameter(d, e0);
  r.t = detail::clamped_parameter(d, e1);
  r.point = corner + e0 * r.s + e1 * r.t;
  r.sq_distance = squared_distance(q, r.point);
  return r;
}

}  // namespace prox
