// prox/mesh/ray_crossing.hpp — watertight ray/triangle test with a consistent
// rule for rays through edges and vertices, for counting surface crossings.
//
// Algorithm: exactly the maths of prox::ray_triangle_watertight (Woop, Benthin,
// Wald, JCGT 2013; same sheared frame, same edge functions U, V, W, same
// double-precision recomputation of exactly-zero float edge functions), so it
// returns bit-identical results whenever no edge function is exactly zero
// (tests/mesh/test_ray_crossing.cpp checks this against the kernel).
// The plain test accepts a zero edge function, so a ray through an edge shared
// by two triangles hits both. Here a zero edge function is resolved by
// symbolic perturbation (Edelsbrunner–Mücke's "simulation of simplicity"):
// the ray is moved to (x + eps, y + eps^2) in the sheared frame, so an edge
// function E = cross(w, .) with edge vector w becomes E + (-w.y eps + w.x eps^2),
// whose sign is sign(-w.y) if w.y != 0 else sign(w.x). The triangle counts
// the point as inside when that sign matches the sign of det = U + V + W.
// Shared vertices have identical sheared coordinates in every triangle, so the
// decision is the same in all of them: a ray crossing a closed surface at an
// edge or vertex counts exactly once, a ray grazing it 0 or 2 times — the
// count of a generic ray, so parity (inside/outside) counting is reliable.
// Degenerate triangles (det == 0) are never hit; t is as in the kernel.
#pragma once

#include <type_traits>

#include "prox/primitives/ray_triangle.hpp"

namespace prox {

namespace detail {
/// Sign of the perturbed edge function with edge vector (wx, wy): +1, -1, or 0
/// when the edge has no extent in the sheared plane.
template <class T>
inline int perturbed_sign(const T& wx, const T& wy) {
  if (wy != T(0)) return wy < T(0) ? 1 : -1;
  if (wx != T(0)) return wx > T(0) ? 1 : -1;
  return 0;
}
}  // namespace detail

/// Watertight test where edge/vertex hits are owned by exactly one side
/// (symbolic perturbation); counts crossings consistently across a mesh.
template <class T>
RayTriangleHit<T> ray_triangle_crossing(const WatertightRay<T>& wr, const Vec3<T>& a,
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
  T U = cx * by - cy * bx;  // weight of a; edge b -> c: U(p) = cross(b - c, p) + const
  T V = ax * cy - ay * cx;  // weight of b; edge c -> a
  T W = bx * ay - by * ax;  // weight of c; edge a -> b
  if constexpr (std::is_same_v<T, float>) {
    if (U == 0.0f || V == 0.0f || W == 0.0f) {
      U = float(double(cx) * double(by) - double(cy) * double(bx));
      V = float(double(ax) * double(cy) - double(ay) * double(cx));
      W = float(double(bx) * double(ay) - double(by) * double(ax));
    }
  }
  if ((U < T(0) || V < T(0) || W < T(0)) && (U > T(0) || V > T(0) || W > T(0))) return r;
  const T det = U + V + W;
  if (det == T(0)) return r;
  if (U == T(0) || V == T(0) || W == T(0)) {
    const int s = det > T(0) ? 1 : -1;
    if (U == T(0) && detail::perturbed_sign<T>(bx - cx, by - cy) != s) return r;
    if (V == T(0) && detail::perturbed_sign<T>(cx - ax, cy - ay) != s) return r;
    if (W == T(0) && detail::perturbed_sign<T>(ax - bx, ay - by) != s) return r;
  }
  const T az = wr.sz * A[wr.kz];
  const T bz = wr.sz * B[wr.kz];
  const T cz = wr.sz * C[wr.kz];
  const T tn = U * az + V * bz + W * cz;
  if (det > T(0)) {
    if (tn < ray.t_min * det || tn > ray.t_max * det) return r;
  } else {
    if (tn > ray.t_min * det || tn < ray.t_max * det) return r;
  }
  r.hit = true;
  r.t = tn / det;
  r.u = V / det;
  r.v = W / det;
  r.front_face = det > T(0);  // as the kernel: det > 0 is a front face
  return r;
}

}  // namespace prox
