// prox/primitives/closest_point_box.hpp — closest point of a solid axis-aligned box.
//
// Algorithm: clamp each coordinate of p to [lo, hi] (Ericson, Real-Time
// Collision Detection, 5.1.3). A point inside the solid box is its own closest
// point (distance 0, `inside` true); the boundary counts as inside.
//
// Inputs: query p, box {lo, hi} (Vec<T,N>, any N). Output: `point`,
// `sq_distance` (squared), `inside`.
// Degenerate boxes (lo == hi on some axes: a rectangle, segment or point) are
// handled by the same clamp. An empty box (hi < lo on some axis, e.g.
// Box::empty()) has no points: a miss. Non-finite p or a NaN box corner: a miss
// (point and sq_distance NaN, inside false); infinite box bounds are allowed.
// Exact scalar types (mpq_class) give the exact answer.
#pragma once

#include "prox/core/box.hpp"

namespace prox {

template <class T, int N>
struct ClosestPointBoxResult {
  Vec<T, N> point;  ///< closest point of the solid box
  T sq_distance;    ///< |p - point|^2 (0 inside)
  bool inside;      ///< p is in the closed box
};

/// Closest point of the solid box `box` to p (2D or 3D).
template <class T, int N>
ClosestPointBoxResult<T, N> closest_point_box(const Vec<T, N>& p, const Box<T, N>& box) {
  bool ok = true;
  for (int i = 0; i < N; ++i) {
    // Written so that a NaN anywhere (p, lo, hi) fails the test.
    if (!(box.lo[i] <= box.hi[i])) ok = false;
    if constexpr (ScalarTraits<T>::is_ieee) {
      if (!is_finite(p[i])) ok = false;
    }
  }
  if (!ok) {
    const T nan = ScalarTraits<T>::quiet_nan();
    return {Vec<T, N>::splat(nan), nan, false};
  }
  ClosestPointBoxResult<T, N> r;
  r.inside = true;
  for (int i = 0; i < N; ++i) {
    if (p[i] < box.lo[i]) {
      r.point[i] = box.lo[i];
      r.inside = false;
    } else if (p[i] > box.hi[i]) {
      r.point[i] = box.hi[i];
      r.inside = false;
    } else {
      r.point[i] = p[i];
    }
  }
  r.sq_distance = squared_distance(p, r.point);
  return r;
}

}  // namespace prox
