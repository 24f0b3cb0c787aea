// prox/mesh/ray_crossing.hpp — watertight ray/triangle test with a consistent
// rule for rays through edges and vertices, for counting surface crossings.
//
// Algorithm: the maths of prox::ray_triangle_watertight (Woop, Benthin, Wald,
// JCGT 2013), through the same code (detail::shear_triangle, detail::sheared_hit
// in prox/primitives/ray_triangle.hpp), so it
// returns bit-identical results whenever no edge function is exactly zero
// (each edge function's sign is exact: see shear_triangle)
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
  const detail::ShearedTriangle<T> s = detail::shear_triangle(wr, a, b, c);
  if (s.outside()) return RayTriangleHit<T>{};
  if (s.U == T(0) || s.V == T(0) || s.W == T(0)) {
    const T det = s.U + s.V + s.W;
    // All three zero: no area, or (a triangle far below T's scale) edge
    // functions that underflowed: sheared_hit's rare path tells them apart.
    if (det == T(0)) return detail::sheared_hit(wr, s, a, b, c);
    const int sign = det > T(0) ? 1 : -1;
    if (s.U == T(0) && detail::perturbed_sign<T>(s.bx - s.cx, s.by - s.cy) != sign) return {};
    if (s.V == T(0) && detail::perturbed_sign<T>(s.cx - s.ax, s.cy - s.ay) != sign) return {};
    if (s.W == T(0) && detail::perturbed_sign<T>(s.ax - s.bx, s.ay - s.by) != sign) return {};
  }
  return detail::sheared_hit(wr, s, a, b, c);
}

}  // namespace prox
