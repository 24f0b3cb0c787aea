// prox/crossing.glsl — the watertight ray/triangle test with prox's rule for
// rays exactly through an edge or a vertex, for counting surface crossings.
//
// The GLSL twin of prox::ray_triangle_crossing (prox/mesh/ray_crossing.hpp):
// the watertight test (prox_ray_triangle_watertight_pre, ray_triangle.glsl)
// accepts a zero edge function, so a ray through an edge shared by two
// triangles hits both; here a zero edge function is resolved by the same
// symbolic perturbation as C++ (the ray moved to (x + eps, y + eps^2) in the
// sheared frame): the triangle keeps the hit only when the perturbed edge
// function's sign, sign(-w.y) if w.y != 0 else sign(w.x) for the edge vector
// w, matches the sign of det = U + V + W. Shared corners have the same
// sheared coordinates in every triangle, so the decision is the same in all of
// them: a ray crossing a closed mesh at an edge or vertex counts once, one
// grazing it 0 or 2 times. A hit of this test is always a hit of the plain
// test with the same t, u, v and side (C++ computes both through one
// sheared_hit), so the plain test runs first and only its hits are checked
// for the rule, on the plain test's sheared triangle.
#ifndef PROX_CROSSING_GLSL
#define PROX_CROSSING_GLSL
#include "ray_triangle.glsl"

/// detail::perturbed_sign: +1, -1, or 0 for an edge without extent.
int prox_perturbed_sign(float wx, float wy) {
  if (wy != 0.0) return wy < 0.0 ? 1 : -1;
  if (wx != 0.0) return wx > 0.0 ? 1 : -1;
  return 0;
}

/// Crossing test with precomputed ray data (inputs assumed finite).
ProxRayTriangleHit prox_ray_triangle_crossing_pre(ProxWatertightRay w, vec3 a, vec3 b, vec3 c) {
  // detail::shear_triangle's edge functions: the plain test's own (one copy of
  // the shear and its exact edges in the shader).
  ProxShearedTriangle t;
  ProxRayTriangleHit h = prox_ray_triangle_watertight_sheared(w, a, b, c, t);
  if (!h.hit) return h;
  if (t.U != 0.0 && t.V != 0.0 && t.W != 0.0) return h;
  precise float det = t.U + t.V + t.W;
  if (det == 0.0) return h;  // all three zero: the plain test's rare path decided
  int s = det > 0.0 ? 1 : -1;
  precise float bcx = t.bx - t.cx, bcy = t.by - t.cy, cax = t.cx - t.ax, cay = t.cy - t.ay,
                abx = t.ax - t.bx, aby = t.ay - t.by;
  if (t.U == 0.0 && prox_perturbed_sign(bcx, bcy) != s) return prox_ray_miss();
  if (t.V == 0.0 && prox_perturbed_sign(cax, cay) != s) return prox_ray_miss();
  if (t.W == 0.0 && prox_perturbed_sign(abx, aby) != s) return prox_ray_miss();
  return h;
}
#endif
