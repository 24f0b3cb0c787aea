// prox/primitives/ray_triangle.hpp — ray against a triangle: Möller–Trumbore and
// the watertight test of Woop, Benthin and Wald (JCGT 2013).
//
// Both return a RayTriangleHit: `hit`, `t` (ray parameter, in units of the
// caller's direction, which is never normalised), `u`, `v` (weights of b and c;
// a's weight is 1 - u - v), `front_face` (the ray meets the side the normal
// n = (b - a) x (c - a) points to, i.e. dot(direction, n) < 0).
// A hit needs t in [ray.t_min, ray.t_max].
//
// Möller–Trumbore (seed 002, without its absolute 1e-4 determinant epsilon):
// a parallel ray (determinant exactly 0) misses; culling is optional.
// Watertight: edge functions in a ray-aligned sheared frame; an edge or vertex
// shared by two triangles is hit by at least one of them, never neither. Edge
// functions that round to exactly zero in float are recomputed in double, as
// the paper prescribes.
//
// Degenerate triangles (no area) are never hit. Non-finite input: a miss.
#pragma once

#include <cmath>

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

/// Möller–Trumbore ray/triangle test (both-sided unless `cull` says otherwise).
template <class T>
RayTriangleHit<T> ray_triangle_moller_trumbore(const Ray<T>& ray, const Vec3<T>& a,
                                               const Vec3<T>& b, const Vec3<T>& c,
                                               Culling cull = Culling::none) {
  RayTriangleHit<T> r;
  if (!detail::ray_inputs_finite(ray, a, b, c)) return r;
  const Vec3<T> e1 = b - a;
  const Vec3<T> e2 = c - a;
  const Vec3<T> pv = cross(ray.direction, e2);
  T det = dot(e1, pv);  // = -dot(direction, n): positive for a front face
  if (det == T(0)) return r;
  const bool front = det > T(0);
  if ((cull == Culling::back_faces && !front) || (cull == Culling::front_faces && front)) return r;
  Vec3<T> tv = ray.origin - a;
  if (!front) {  // work with a positive determinant, as the seed does
    tv = -tv;
    det = -det;
  }
  const T u = dot(tv, pv);
  if (u < T(0) || u > det) return r;
  const Vec3<T> qv = cross(tv, e1);
  const T v = dot(ray.direction, qv);
  if (v < T(0) || u + v > det) return r;
  // With tv and det both negated for a back face, qv is negated too, so
  // dot(e2, qv) / det is already the t of the unflipped formula: no sign fix.
  const T t = dot(e2, qv);
  // t / det in [t_min, t_max], tested before dividing (det > 0).
  if (t < ray.t_min * det || t > ray.t_max * det) return r;
  r.hit = true;
  r.t = t / det;
  r.u = u / det;
  r.v = v / det;
  r.front_face = front;
  return r;
}

/// Precomputed per-ray data of the watertight test: reuse it across triangles.
template <class T>
struct WatertightRay {
  int kx, ky, kz;  ///< axes; kz is the direction's dominant axis
  T sx, sy, sz;    ///< shear: dx/dz, dy/dz, 1/dz
  Ray<T> ray;

  explicit WatertightRay(const Ray<T>& r) : ray(r) {
    using std::abs;
    kz = 0;
    T best = abs(r.direction[0]);
    for (int k = 1; k < 3; ++k) {
      T m = abs(r.direction[k]);
      if (m > best) {
        best = m;
        kz = k;
      }
    }
    kx = kz == 2 ? 0 : kz + 1;
    ky = kx == 2 ? 0 : kx + 1;
    // Swap kx and ky to keep the triangle's winding (and so front_face).
    if (r.direction[kz] < T(0)) {
      int tmp = kx;
      kx = ky;
      ky = tmp;
    }
    sz = T(1) / r.direction[kz];
    sx = r.direction[kx] * sz;
    sy = r.direction[ky] * sz;
  }
};

/// Woop–Benthin–Wald watertight test with precomputed ray data.
template <class T>
RayTriangleHit<T> ray_triangle_watertight(const WatertightRay<T>& wr, const Vec3<T>& a,
                                          const Vec3<T>& b, const Vec3<T>& c) {
  RayTriangleHit<T> r;
  const Ray<T>& ray = wr.ray;
  const Vec3<T> A = a - ray.origin;
  const Vec3<T> B = b - ray.origin;
  const Vec3<T> C = c - ray.origin;
  const T ax = A[wr.kx] - wr.sx * A[wr.kz];
  const T ay = A[wr.ky] - wr.sy * A[wr.kz];
  const T bx = B[wr.kx] - wr.sx * B[wr.kz];
  const T by = B[wr.ky] - wr.sy * B[wr.kz];
  const T cx = C[wr.kx] - wr.sx * C[wr.kz];
  const T cy = C[wr.ky] - wr.sy * C[wr.kz];
  T U = cx * by - cy * bx;  // weight of a
  T V = ax * cy - ay * cx;  // weight of b
  T W = bx * ay - by * ax;  // weight of c
  if constexpr (std::is_same_v<T, float>) {
    if (U == 0.0f || V == 0.0f || W == 0.0f) {  // recompute exactly-zero edges in double
      U = float(double(cx) * double(by) - double(cy) * double(bx));
      V = float(double(ax) * double(cy) - double(ay) * double(cx));
      W = float(double(bx) * double(ay) - double(by) * double(ax));
    }
  }
  if ((U < T(0) || V < T(0) || W < T(0)) && (U > T(0) || V > T(0) || W > T(0))) return r;
  const T det = U + V + W;
  if (det == T(0)) return r;
  const T az = wr.sz * A[wr.kz];
  const T bz = wr.sz * B[wr.kz];
  const T cz = wr.sz * C[wr.kz];
  const T tn = U * az + V * bz + W * cz;
  // t = tn / det must lie in [t_min, t_max]; compare without dividing.
  if (det > T(0)) {
    if (tn < ray.t_min * det || tn > ray.t_max * det) return r;
  } else {
    if (tn > ray.t_min * det || tn < ray.t_max * det) return r;
  }
  r.hit = true;
  r.t = tn / det;
  // + 0 turns an edge function's -0 into +0 (a weight prints as 0, not -0).
  r.u = V / det + T(0);
  r.v = W / det + T(0);
  // det = U + V + W is dot(-direction, n) times a positive factor (1/|d_kz|;
  // the kx/ky swap for a negative d_kz keeps that sign), so det > 0 is a front
  // face: the same side Möller–Trumbore reports (its det is -dot(direction, n)).
  r.front_face = det > T(0);
  return r;
}

/// Watertight ray/triangle test (Woop, Benthin, Wald 2013), both-sided.
template <class T>
RayTriangleHit<T> ray_triangle_watertight(const Ray<T>& ray, const Vec3<T>& a, const Vec3<T>& b,
                                          const Vec3<T>& c) {
  if (!detail::ray_inputs_finite(ray, a, b, c)) return RayTriangleHit<T>{};
  if (ray.direction == Vec3<T>::zero()) return RayTriangleHit<T>{};
  return ray_triangle_watertight(WatertightRay<T>(ray), a, b, c);
}

}  // namespace prox
