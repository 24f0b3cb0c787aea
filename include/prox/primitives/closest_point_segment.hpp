// prox/primitives/closest_point_segment.hpp — closest point on a segment, in 2D or 3D.
//
// Algorithm: project p onto the line a + t (b - a) and clamp t to [0, 1]
// (Ericson, Real-Time Collision Detection, 5.1.2). The clamp is decided on the
// numerator before dividing, so an endpoint answer is that endpoint exactly.
//
// Inputs: query p, endpoints a, b (Vec<T,N>, any N). Output: `point`,
// `sq_distance` (squared), `t` (clamped fraction along a -> b; point = a + t (b - a)).
// Degenerate segment (a == b exactly): its point, with t = 0.
// Non-finite input: a miss, every output NaN.
// Exact scalar types (mpq_class) give the exact answer.
#pragma once

#include "prox/core/vec.hpp"

namespace prox {

template <class T, int N>
struct ClosestPointSegmentResult {
  Vec<T, N> point;  ///< closest point of the segment
  T sq_distance;    ///< |p - point|^2
  T t;              ///< fraction along a -> b, in [0, 1]
};

/// Closest point on the segment [a, b] to p (2D or 3D).
template <class T, int N>
ClosestPointSegmentResult<T, N> closest_point_segment(const Vec<T, N>& p, const Vec<T, N>& a,
                                                      const Vec<T, N>& b) {
  if constexpr (ScalarTraits<T>::is_ieee) {
    if (!all_finite(p) || !all_finite(a) || !all_finite(b)) {
      const T nan = ScalarTraits<T>::quiet_nan();
      return {Vec<T, N>::splat(nan), nan, nan};
    }
  }
  ClosestPointSegmentResult<T, N> r;
  const Vec<T, N> d = b - a;
  const T num = dot(p - a, d);
  const T dd = dot(d, d);
  if (num <= T(0) || dd == T(0)) {
    r.point = a;
    r.t = T(0);
  } else if (num >= dd) {
    r.point = b;
    r.t = T(1);
  } else {
    r.t = num / dd;
    r.point = lerp(a, b, r.t);
  }
  r.sq_distance = squared_distance(p, r.point);
  return r;
}

}  // namespace prox
