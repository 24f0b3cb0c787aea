// prox/primitives/ray_triangle.hpp — ray against a triangle: Möller–Trumbore and
// the watertight test of Woop, Benthin and Wald (JCGT 2013).
//
// Both return a RayTriangleHit: `hit`, `t` (ray parameter, in units of the
// caller's direction, which is never normalised), `u`, `v` (weights of b and c;
// a's weight is 1 - u - v), `front_face` (the ray meets the side the normal
// n = (b - a) x (c - a) points to, i.e. dot(direction, n) < 0).
// A hit needs t in [ray.t_min, ray.t_max].
//
// Möller–Trumbore (seed 002, without its absolute determinant epsilon of 0.0001):
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

namespace detail {

/// A triangle in the ray's sheared frame: the corners relative to the origin,
/// their sheared x/y, and the edge functions U, V, W (weights of a, b, c, times
/// det). Shared by the watertight test and the mesh engine's crossing test
/// (prox/mesh/ray_crossing.hpp), so the two cannot drift apart.
template <class T>
struct ShearedTriangle {
  Vec3<T> A, B, C;
  T ax, ay, bx, by, cx, cy;
  T U, V, W;

  /// True when the edge functions have mixed signs: the ray passes outside.
  bool outside() const {
    return (U < T(0) || V < T(0) || W < T(0)) && (U > T(0) || V > T(0) || W > T(0));
  }
};

template <class T>
ShearedTriangle<T> shear_triangle(const WatertightRay<T>& wr, const Vec3<T>& a, const Vec3<T>& b,
                                  const Vec3<T>& c) {
  ShearedTriangle<T> s;
  s.A = a - wr.ray.origin;
  s.B = b - wr.ray.origin;
  s.C = c - wr.ray.origin;
  s.ax = s.A[wr.kx] - wr.sx * s.A[wr.kz];
  s.ay = s.A[wr.ky] - wr.sy * s.A[wr.kz];
  s.bx = s.B[wr.kx] - wr.sx * s.B[wr.kz];
  s.by = s.B[wr.ky] - wr.sy * s.B[wr.kz];
  s.cx = s.C[wr.kx] - wr.sx * s.C[wr.kz];
  s.cy = s.C[wr.ky] - wr.sy * s.C[wr.kz];
  s.U = s.cx * s.by - s.cy * s.bx;  // weight of a; edge b -> c
  s.V = s.ax * s.cy - s.ay * s.cx;  // weight of b; edge c -> a
  s.W = s.bx * s.ay - s.by * s.ax;  // weight of c; edge a -> b
  if constexpr (std::is_same_v<T, float>) {
    if (s.U == 0.0f || s.V == 0.0f || s.W == 0.0f) {  // recompute exactly-zero edges in double
      s.U = float(double(s.cx) * double(s.by) - double(s.cy) * double(s.bx));
      s.V = float(double(s.ax) * double(s.cy) - double(s.ay) * double(s.cx));
      s.W = float(double(s.bx) * double(s.ay) - double(s.by) * double(s.ax));
    }
  }
  return s;
}

/// The hit of a sheared triangle whose edge functions passed: t in
/// [t_min, t_max] (compared without dividing), weights, side.
template <class T>
RayTriangleHit<T> sheared_hit(const WatertightRay<T>& wr, const ShearedTriangle<T>& s) {
  RayTriangleHit<T> r;
  const T det = s.U + s.V + s.W;
  if (det == T(0)) return r;  // no area in the ray's view: never hit
  const T az = wr.sz * s.A[wr.kz];
  const T bz = wr.sz * s.B[wr.kz];
  const T cz = wr.sz * s.C[wr.kz];
  const T tn = s.U * az + s.V * bz + s.W * cz;
  if (det > T(0)) {
    if (tn < wr.ray.t_min * det || tn > wr.ray.t_max * det) return r;
  } else {
    if (tn > wr.ray.t_min * det || tn < wr.ray.t_max * det) return r;
  }
  r.hit = true;
  r.t = tn / det;
  // + 0 turns an edge function's -0 into +0 (a weight prints as 0, not -0).
  r.u = s.V / det + T(0);
  r.v = s.W / det + T(0);
  // det = U + V + W is dot(-direction, n) times a positive factor (1/|d_kz|;
  // the kx/ky swap for a negative d_kz keeps that sign), so det > 0 is a front
  // face: the same side Möller–Trumbore reports (its det is -dot(direction, n)).
  r.front_face = det > T(0);
  return r;
}

}  // namespace detail

/// Woop–Benthin–Wald watertight test with precomputed ray data.
template <class T>
RayTriangleHit<T> ray_triangle_watertight(const WatertightRay<T>& wr, const Vec3<T>& a,
                                          const Vec3<T>& b, const Vec3<T>& c) {
  const detail::ShearedTriangle<T> s = detail::shear_triangle(wr, a, b, c);
  if (s.outside()) return RayTriangleHit<T>{};
  return detail::sheared_hit(wr, s);
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
