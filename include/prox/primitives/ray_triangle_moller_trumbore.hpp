// prox/primitives/ray_triangle_moller_trumbore.hpp — the Möller–Trumbore
// ray/triangle test (seed 002), at any finite scale.
//
// Möller–Trumbore (seed 002, without its absolute determinant epsilon of 0.0001):
// a parallel ray (determinant exactly 0) misses; culling is optional. Returns
// a RayTriangleHit: `hit`, `t` (in units of the caller's direction, never
// normalised), `u`, `v` (weights of b and c), `front_face` (dot(direction,
// (b - a) x (c - a)) < 0). A hit needs t in [ray.t_min, ray.t_max].
//
// Scale: the determinant is a product of three input magnitudes (an edge, the
// direction, an edge) and t's numerator too (an edge, the origin's offset, an
// edge), so in T's own arithmetic they overflow for corners ~1e13 (float) or
// ~1e103 (double) and lose their bits to underflow for tiny ones: a hit at
// t = NaN or inf, or a miss. Where the edges and the direction are within
// 2^+-32 (float; double 2^+-300) and the origin's offset from a below 2^32
// (2^300), every term of those products is finite and far above the
// subnormals, and the test runs in T as the seed writes it. Elsewhere (rare):
// float, the same test in double (every float input is in double's range),
// rounded; double, the offsets and the direction scaled by powers of two
// (exact), t scaled back. A hit whose t is not a finite T is no hit. The
// test's accuracy is Möller–Trumbore's own (t's error grows with the
// triangle's condition and with the origin's distance over the triangle's
// size); ray_triangle_watertight is the exact-edge test.
//
// Non-finite input: a miss. The GLSL twin (shaders/prox/ray_triangle.glsl)
// follows operation for operation, its rare path in double too.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "prox/core/ray.hpp"
#include "prox/primitives/ray_triangle_hit.hpp"

namespace prox {

namespace detail {

/// The seed's test on the offsets from a: tv = origin - a, e1 = b - a,
/// e2 = c - a, direction d, t range [t_min, t_max] (all in W).
template <class W>
RayTriangleHit<W> moller_trumbore_offsets(const Vec3<W>& d, Vec3<W> tv, const Vec3<W>& e1,
                                          const Vec3<W>& e2, W t_min, W t_max, Culling cull) {
  RayTriangleHit<W> r;
  const Vec3<W> pv = cross(d, e2);
  W det = dot(e1, pv);  // = -dot(direction, n): positive for a front face
  if (det == W(0)) return r;
  const bool front = det > W(0);
  if ((cull == Culling::back_faces && !front) || (cull == Culling::front_faces && front)) return r;
  if (!front) {  // work with a positive determinant, as the seed does
    tv = -tv;
    det = -det;
  }
  const W u = dot(tv, pv);
  if (u < W(0) || u > det) return r;
  const Vec3<W> qv = cross(tv, e1);
  const W v = dot(d, qv);
  if (v < W(0) || u + v > det) return r;
  // With tv and det both negated for a back face, qv is negated too, so
  // dot(e2, qv) / det is already the t of the unflipped formula: no sign fix.
  const W t = dot(e2, qv);
  // t / det in [t_min, t_max], tested before dividing (det > 0).
  if (t < t_min * det || t > t_max * det) return r;
  r.hit = true;
  r.t = t / det;
  r.u = u / det;
  r.v = v / det;
  r.front_face = front;
  return r;
}

/// The range of magnitudes Möller–Trumbore answers in T's own arithmetic:
/// edges and direction in [2^-exp, 2^exp], the origin's offset below 2^exp.
template <class T> struct MollerTrumboreScale {
  static constexpr int exp = 0;
};
template <> struct MollerTrumboreScale<float> {
  static constexpr int exp = 32;
};
template <> struct MollerTrumboreScale<double> {
  static constexpr int exp = 300;
};

template <class T>
T max_abs_component(const Vec3<T>& v) {
  using std::abs;
  return std::max(abs(v[0]), std::max(abs(v[1]), abs(v[2])));
}

/// The rare path: float in double, rounded; double scaled by powers of two.
/// Out of line: it runs on a few rays in a million, and the float path's
/// double -> float roundings then happen away from any inlined caller (GCC
/// 12.2's SLP vectorizer can fold an inlined round trip: prox::to_float).
template <class T>
[[gnu::noinline]] RayTriangleHit<T> moller_trumbore_rescaled(const Ray<T>& ray,
                                                             const Vec3<T>& a, const Vec3<T>& b,
                                                             const Vec3<T>& c, Culling cull) {
  RayTriangleHit<T> r;
  if constexpr (std::is_same_v<T, float>) {
    const Vec3<double> ad = a.template cast<double>();
    const RayTriangleHit<double> h = moller_trumbore_offsets<double>(
        ray.direction.template cast<double>(), ray.origin.template cast<double>() - ad,
        b.template cast<double>() - ad, c.template cast<double>() - ad, double(ray.t_min),
        double(ray.t_max), cull);
    if (!h.hit) return r;
    r.t = prox::to_float(h.t);
    if (!std::isfinite(r.t)) return RayTriangleHit<T>{};
    r.hit = true;
    r.u = prox::to_float(h.u);
    r.v = prox::to_float(h.v);
    r.front_face = h.front_face;
    return r;
  } else {
    // Positions scaled by 2^-kp, the direction by 2^-kd: o' + t' d' is
    // (o + t d) 2^-kp for t' = t 2^(kd - kp). Differences of coordinates
    // near the top of the range overflow: then the positions are quartered
    // first (exact, but for coordinates below 2^-1020, far beneath the others).
    Vec3<T> o = ray.origin, pa = a, pb = b, pc = c;
    int kp = 0;
    Vec3<T> e1 = pb - pa, e2 = pc - pa, tv = o - pa;
    if (!all_finite(e1) || !all_finite(e2) || !all_finite(tv)) {
      for (Vec3<T>* v : {&o, &pa, &pb, &pc})
        for (int i = 0; i < 3; ++i) (*v)[i] = std::ldexp((*v)[i], -2);
      kp = 2;
      e1 = pb - pa, e2 = pc - pa, tv = o - pa;
    }
    constexpr int E = MollerTrumboreScale<T>::exp;
    // The larger of the edges and the offset 2^-E: after scaling the edges are
    // at most 1 and the offset at most 2^E. (Only a triangle 2^-E times
    // smaller than its distance from the origin leaves its edges below 1,
    // where the test is noise in any arithmetic.)
    const T m = std::max(std::max(max_abs_component(e1), max_abs_component(e2)),
                         std::ldexp(max_abs_component(tv), -E));
    const T md = max_abs_component(ray.direction);
    if (!(m > T(0)) || !(md > T(0))) return r;  // no area, or no direction
    int ep = 0, ed = 0;
    std::frexp(m, &ep);
    std::frexp(md, &ed);
    kp += ep;
    auto scale = [](const Vec3<T>& v, int s) {
      return Vec3<T>{std::ldexp(v[0], s), std::ldexp(v[1], s), std::ldexp(v[2], s)};
    };
    const RayTriangleHit<T> h = moller_trumbore_offsets<T>(
        scale(ray.direction, -ed), scale(tv, -ep), scale(e1, -ep), scale(e2, -ep),
        std::ldexp(ray.t_min, ed - kp), std::ldexp(ray.t_max, ed - kp), cull);
    if (!h.hit) return r;
    r = h;
    r.t = std::ldexp(h.t, kp - ed);
    // The scaled range's own rounding (2^(ed - kp) under- or overflowing).
    if (!std::isfinite(r.t) || r.t < ray.t_min || r.t > ray.t_max) return RayTriangleHit<T>{};
    return r;
  }
}

}  // namespace detail

/// Möller–Trumbore ray/triangle test (both-sided unless `cull` says otherwise).
template <class T>
RayTriangleHit<T> ray_triangle_moller_trumbore(const Ray<T>& ray, const Vec3<T>& a,
                                               const Vec3<T>& b, const Vec3<T>& c,
                                               Culling cull = Culling::none) {
  if (!detail::ray_inputs_finite(ray, a, b, c)) return RayTriangleHit<T>{};
  const Vec3<T> e1 = b - a;
  const Vec3<T> e2 = c - a;
  const Vec3<T> tv = ray.origin - a;
  if constexpr (ScalarTraits<T>::is_ieee) {
    const T hi = detail::pow2_or_zero<T>(detail::MollerTrumboreScale<T>::exp);
    const T lo = detail::pow2_or_zero<T>(-detail::MollerTrumboreScale<T>::exp);
    const T me = std::max(detail::max_abs_component(e1), detail::max_abs_component(e2));
    const T md = detail::max_abs_component(ray.direction);
    if (!(me >= lo && me <= hi && md >= lo && md <= hi && detail::max_abs_component(tv) <= hi))
      return detail::moller_trumbore_rescaled(ray, a, b, c, cull);
  }
  return detail::moller_trumbore_offsets<T>(ray.direction, tv, e1, e2, ray.t_min, ray.t_max,
                                            cull);
}

}  // namespace prox
