// src/mesh/hausdorff_simd.hpp — the Hausdorff search's float prefilter kernel:
// squared distances from points to four (F4) or eight (F8) triangles of B at
// once, and the weights of the nearest points. Included by hausdorff_bound.cpp
// only: everything is local (anonymous namespace) and force-inlined, so the
// baseline and AVX2 builds of its callers share no symbol.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "prox/core/platform.hpp"
#include "prox/mesh/flat_index.hpp"

// The 8-lane helpers below are force-inlined local functions: the ABI note
// GCC gives for a 256-bit vector passed without AVX concerns no real call.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace prox::hausdorff_detail {
namespace {


/// The float prefilter: squared distances from points to four triangles of B
/// at once, approximate (float, no care for slivers). It only picks which
/// triangle of B to try: every bound prox reports is recomputed in double on
/// the triangle picked, at a point of it named by the weights found here
/// (upper_weights), so a wrong pick or a rounded weight costs time (a
/// refinement or the double search), never a wrong bracket.
/// Branch-free over the lanes so the compiler can vectorize it.
using F4 = float __attribute__((vector_size(16)));
/// Eight lanes: two packs side by side, or one pack twice (two points against
/// the same four triangles). Built for AVX2 one 256-bit operation each; the
/// baseline build splits them in two 4-lane halves. Lane by lane the same IEEE
/// operations either way (no FMA: -ffp-contract=off), so the same bits.
using F8 = float __attribute__((vector_size(32)));

PROX_FORCE_INLINE F4 load4(const float* x) {
  F4 v;
  std::memcpy(&v, x, sizeof v);
  return v;
}

PROX_FORCE_INLINE F4 splat4(float x) { return F4{x, x, x, x}; }
template <class F>
PROX_FORCE_INLINE F splat(float x) {
  return F{} + x;
}
PROX_FORCE_INLINE F8 join8(F4 lo, F4 hi) { return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7); }
PROX_FORCE_INLINE F4 lo4(const F8& v) { return __builtin_shufflevector(v, v, 0, 1, 2, 3); }
PROX_FORCE_INLINE F4 hi4(const F8& v) { return __builtin_shufflevector(v, v, 4, 5, 6, 7); }

/// Four (F4) or eight (F8) triangles prepared once for several points (the
/// three corners of a sub-triangle): the corners, the edges, the normal n =
/// ab x ac, the edges' inward normals in the plane (n x edge, so that n .
/// (edge x (p - start)) = (n x edge) . (p - start)) and the reciprocals of
/// |edge|^2 and |n|^2 (1 where those are 0).
template <class F>
struct TriN {
  F a[3], b[3], c[3];
  F ab[3], bc[3], ca[3];
  F n[3], m0[3], m1[3], m2[3];
  F iab, ibc, ica, inn;
  F flat;  // all bits set where n != 0 (the plane test applies)
};
using Tri4 = TriN<F4>;

template <class F>
PROX_FORCE_INLINE F dot3(const F* u, const F* v) {
  return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}
template <class F>
PROX_FORCE_INLINE void cross3(const F* u, const F* v, F* out) {
  out[0] = u[1] * v[2] - u[2] * v[1];
  out[1] = u[2] * v[0] - u[0] * v[2];
  out[2] = u[0] * v[1] - u[1] * v[0];
}
template <class F>
PROX_FORCE_INLINE F safe_inv(const F& x) {
  const F zero = splat<F>(0), one = splat<F>(1);
  return one / (x > zero ? x : one);
}

/// The derived fields of s from its corners.
template <class F>
PROX_FORCE_INLINE void finish_prepare(TriN<F>& s) {
  for (int j = 0; j < 3; ++j) {
    s.ab[j] = s.b[j] - s.a[j];
    s.bc[j] = s.c[j] - s.b[j];
    s.ca[j] = s.a[j] - s.c[j];
  }
  cross3(s.ca, s.ab, s.n);  // ca x ab = ab x ac
  cross3(s.n, s.ab, s.m0);
  cross3(s.n, s.bc, s.m1);
  cross3(s.n, s.ca, s.m2);
  s.iab = safe_inv(dot3(s.ab, s.ab));
  s.ibc = safe_inv(dot3(s.bc, s.bc));
  s.ica = safe_inv(dot3(s.ca, s.ca));
  const F nn = dot3(s.n, s.n);
  s.inn = safe_inv(nn);
  s.flat = reinterpret_cast<F>(nn > splat<F>(0));
}

PROX_FORCE_INLINE Tri4 prepare4(const LeafPack<float>& k) {
  Tri4 s;
  for (int j = 0; j < 3; ++j) {
    s.a[j] = load4(k.c[0][j]);
    s.b[j] = load4(k.c[1][j]);
    s.c[j] = load4(k.c[2][j]);
  }
  finish_prepare(s);
  return s;
}

/// Packs k0 (lanes 0-3) and k1 (lanes 4-7) in one.
PROX_FORCE_INLINE TriN<F8> prepare8(const LeafPack<float>& k0, const LeafPack<float>& k1) {
  TriN<F8> s;
  for (int j = 0; j < 3; ++j) {
    s.a[j] = join8(load4(k0.c[0][j]), load4(k1.c[0][j]));
    s.b[j] = join8(load4(k0.c[1][j]), load4(k1.c[1][j]));
    s.c[j] = join8(load4(k0.c[2][j]), load4(k1.c[2][j]));
  }
  finish_prepare(s);
  return s;
}

/// Squared distance from q (minus a corner) to the segment corner + t e, t in
/// [0, 1] (ie = 1 / |e|^2), and t.
template <class F>
PROX_FORCE_INLINE F seg_sq(const F* e, const F& ie, const F& qx, const F& qy, const F& qz, F& t) {
  const F zero = splat<F>(0), one = splat<F>(1);
  t = (qx * e[0] + qy * e[1] + qz * e[2]) * ie;
  t = t > zero ? t : zero;
  t = t < one ? t : one;
  const F dx = qx - t * e[0], dy = qy - t * e[1], dz = qz - t * e[2];
  return dx * dx + dy * dy + dz * dz;
}

/// Squared distances from points (px, py, pz: per lane) to the triangles;
/// and, when w is not null, the weights (of corners a, b, c) of the nearest
/// point found per lane.
template <class F>
PROX_FORCE_INLINE F sq_dist(const TriN<F>& s, const F& px, const F& py, const F& pz, F* w = nullptr) {
  const F zero = splat<F>(0), one = splat<F>(1);
  const F apx = px - s.a[0], apy = py - s.a[1], apz = pz - s.a[2];
  const F bpx = px - s.b[0], bpy = py - s.b[1], bpz = pz - s.b[2];
  const F cpx = px - s.c[0], cpy = py - s.c[1], cpz = pz - s.c[2];
  // Inside the prism over the triangle: p on the inner side of all three edges.
  const F s0 = s.m0[0] * apx + s.m0[1] * apy + s.m0[2] * apz;
  const F s1 = s.m1[0] * bpx + s.m1[1] * bpy + s.m1[2] * bpz;
  const F s2 = s.m2[0] * cpx + s.m2[1] * cpy + s.m2[2] * cpz;
  const F dn = apx * s.n[0] + apy * s.n[1] + apz * s.n[2];
  const F plane = dn * dn * s.inn;
  using I = decltype(s0 >= zero);
  const I inside = reinterpret_cast<I>(s.flat) & (s0 >= zero) & (s1 >= zero) & (s2 >= zero);
  F t0, t1, t2;
  const F e0 = seg_sq(s.ab, s.iab, apx, apy, apz, t0);
  const F e1 = seg_sq(s.bc, s.ibc, bpx, bpy, bpz, t1);
  const F e2 = seg_sq(s.ca, s.ica, cpx, cpy, cpz, t2);
  F e = e0 < e1 ? e0 : e1;
  e = e < e2 ? e : e2;
  const F r = inside ? plane : e;
  if (w == nullptr) return r;
  // Inside, s0 : s1 : s2 are the weights of c, a, b (sub-triangle areas, over
  // |n|^2); else the nearest edge's parameter.
  const I on0 = (e0 <= e1) & (e0 <= e2), on1 = ~on0 & (e1 <= e2);
  w[0] = inside ? s1 * s.inn : on0 ? one - t0 : on1 ? zero : t2;
  w[1] = inside ? s2 * s.inn : on0 ? t0 : on1 ? one - t1 : zero;
  w[2] = inside ? s0 * s.inn : on0 ? zero : on1 ? t1 : one - t2;
  return r;
}
PROX_FORCE_INLINE F4 sq_dist4(const Tri4& s, F4 px, F4 py, F4 pz, F4* w = nullptr) {
  return sq_dist<F4>(s, px, py, pz, w);
}

/// Four triangles gathered by id from B's float leaf packs (the lane of each
/// triangle's slot; n of them real, the others repeat the last).
PROX_FORCE_INLINE LeafPack<float> gather4(const LeafPack<float>* packs, const std::uint32_t* slot_of,
                                          const std::int32_t* ids, std::uint32_t n) {
  LeafPack<float> pk;
  for (std::uint32_t l = 0; l < 4; ++l) {
    const std::uint32_t s = slot_of[std::size_t(ids[l < n ? l : n - 1])];
    const LeafPack<float>& from = packs[s / 4];
    const std::uint32_t m = s % 4;
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 3; ++j) pk.c[k][j][l] = from.c[k][j][m];
  }
  return pk;
}

}  // namespace
}  // namespace prox::hausdorff_detail
