// prox/primitives/ray_box.hpp — ray against a solid axis-aligned box: the slab test.
//
// Algorithm: Kay & Kajiya slabs (Williams et al., "An efficient and robust
// ray-box intersection algorithm", JGT 2005): per axis, the ray is between the
// two planes for t in [(lo - o) / d, (hi - o) / d] (ends chosen by the sign of
// d, not by comparing them, so an empty box stays empty); the hit interval is
// the intersection of the three with [t_min, t_max].
//
// Inputs: ray (origin, direction — never normalised, so t is in units of
// |direction| — and [t_min, t_max]), box {lo, hi}. Output: `hit`, `t_near`,
// `t_far`: the interval of t for which the ray is in the closed box (t_near ==
// t_far for a touch). A ray starting inside has t_near = t_min.
//
// Robustness: a zero direction component is decided without dividing (the ray
// is in that slab for all t, or never), and inverse directions are kept finite
// (1/d that overflows becomes the largest finite value), so no 0 * inf NaN
// arises when the origin lies on a slab plane; the interval updates are
// ordered so that a NaN never widens it. Empty box (hi < lo): a miss.
// Non-finite origin or direction, NaN t_min/t_max or a NaN box: a miss.
// Infinite box bounds are allowed. Exact for exact scalar types.
#pragma once

#include <limits>

#include "prox/core/box.hpp"
#include "prox/core/ray.hpp"

namespace prox {

template <class T>
struct RayBoxHit {
  bool hit = false;
  T t_near = ScalarTraits<T>::infinity();   ///< entry parameter (inf on a miss)
  T t_far = -ScalarTraits<T>::infinity();   ///< exit parameter (-inf on a miss)
};

/// Slab test: the interval of t in [ray.t_min, ray.t_max] where the ray is inside the box.
template <class T>
RayBoxHit<T> ray_box(const Ray<T>& ray, const Box<T, 3>& box) {
  RayBoxHit<T> miss;
  if constexpr (ScalarTraits<T>::is_ieee) {
    if (!all_finite(ray.origin) || !all_finite(ray.direction) || ray.t_min != ray.t_min ||
        ray.t_max != ray.t_max)
      return miss;
  }
  T t_near = ray.t_min;
  T t_far = ray.t_max;
  for (int k = 0; k < 3; ++k) {
    const T& o = ray.origin[k];
    const T& d = ray.direction[k];
    const T& lo = box.lo[k];
    const T& hi = box.hi[k];
    if (!(lo <= hi)) return miss;  // empty or NaN
    if (d == T(0)) {
      if (o < lo || o > hi) return miss;
      continue;
    }
    T inv = T(1) / d;
    if constexpr (ScalarTraits<T>::is_ieee) {
      if (!is_finite(inv))
        inv = d > T(0) ? std::numeric_limits<T>::max() : -std::numeric_limits<T>::max();
    }
    const T t0 = ((d > T(0) ? lo : hi) - o) * inv;
    const T t1 = ((d > T(0) ? hi : lo) - o) * inv;
    // NaN-safe: a NaN bound fails the comparison and leaves the interval alone.
    if (t0 > t_near) t_near = t0;
    if (t1 < t_far) t_far = t1;
  }
  if (!(t_near <= t_far)) return miss;
  RayBoxHit<T> r;
  r.hit = true;
  r.t_near = t_near;
  r.t_far = t_far;
  return r;
}

}  // namespace prox
