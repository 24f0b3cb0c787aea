// prox/primitives/closest_point_plane.hpp — orthogonal projection of a point onto a plane.
//
// Algorithm: q' = q - (n . (q - origin) / n . n) n (seed 001, 10.3.1; seed 003's
// "drop P onto the plane"). No square root, one division: exact for exact
// scalar types, and valid for normals of any non-zero length.
//
// Inputs: query q, plane point `origin`, normal n. Output: `point` (the
// projection), `sq_distance` (squared), `side` (n . (q - origin), whose sign
// says which side q is on: positive where n points).
// Degenerate plane (n == 0 exactly): a miss, every output NaN (for exact types:
// ScalarTraits::quiet_nan()). Non-finite input: the same miss.
#pragma once

#include "prox/core/vec.hpp"

namespace prox {

template <class T>
struct ClosestPointPlaneResult {
  Vec3<T> point;  ///< projection of q onto the plane
  T sq_distance;  ///< |q - point|^2
  T side;         ///< n . (q - origin): > 0 on the side n points to
};

/// Orthogonal projection of q onto the plane through `origin` with normal n.
template <class T>
ClosestPointPlaneResult<T> closest_point_plane(const Vec3<T>& q, const Vec3<T>& origin,
                                               const Vec3<T>& normal) {
  const T nn = squared_norm(normal);
  bool ok = nn > T(0);
  if constexpr (ScalarTraits<T>::is_ieee) {
    ok = ok && all_finite(q) && all_finite(origin) && all_finite(normal) && is_finite(nn);
  }
  if (!ok) {
    const T nan = ScalarTraits<T>::quiet_nan();
    return {Vec3<T>::splat(nan), nan, nan};
  }
  ClosestPointPlaneResult<T> r;
  r.side = dot(normal, q - origin);
  const T k = r.side / nn;
  r.point = q - normal * k;
  r.sq_distance = r.side * k;  // side^2 / |n|^2
  return r;
}

}  // namespace prox
