// prox/primitives/ray_triangle_hit.hpp — what the ray/triangle tests share:
// RayTriangleHit (their answer), Culling, the finiteness test of their inputs
// and exact power-of-two scaling (ray_triangle.hpp's NormalizedRay, the
// Möller–Trumbore test's rescaled path).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "prox/core/ray.hpp"

namespace prox {

template <class T>
struct RayTriangleHit {
  bool hit = false;
  T t = ScalarTraits<T>::infinity();  ///< ray parameter of the hit (inf on a miss)
  T u = T(0);                          ///< weight of b
  T v = T(0);                          ///< weight of c
  bool front_face = false;             ///< dot(direction, (b-a)x(c-a)) < 0
};

enum class Culling : unsigned char {
  none,        ///< hit both sides
  back_faces,  ///< only front faces (dot(direction, n) < 0) are hit
  front_faces, ///< only back faces are hit
};

namespace detail {
template <class T>
bool ray_inputs_finite(const Ray<T>& ray, const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
  if constexpr (ScalarTraits<T>::is_ieee) {
    return all_finite(ray.origin) && all_finite(ray.direction) && all_finite(a) &&
           all_finite(b) && all_finite(c) && !std::isnan(ray.t_min) && !std::isnan(ray.t_max);
  } else {
    return true;
  }
}
}  // namespace detail

namespace detail {
/// 2^e as a T (float, double) when it is a normal number, else 0: built from
/// its bits, so the hot paths multiply (exact) instead of calling ldexp.
template <class T>
inline T pow2_or_zero(int e) {
  if constexpr (std::is_same_v<T, double>) {
    if (e < -1022 || e > 1023) return 0.0;
    return std::bit_cast<double>(std::uint64_t(e + 1023) << 52);
  } else {
    if (e < -126 || e > 127) return 0.0f;
    return std::bit_cast<float>(std::uint32_t(e + 127) << 23);
  }
}
/// x 2^e, exactly as std::ldexp rounds it (a multiplication by a power of two
/// when 2^e is normal; ldexp otherwise).
template <class T>
inline T times_pow2(T x, int e) {
  const T f = pow2_or_zero<T>(e);
  return f != T(0) ? x * f : std::ldexp(x, e);
}
}  // namespace detail

}  // namespace prox
