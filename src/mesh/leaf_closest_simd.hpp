// src/mesh/leaf_closest_simd.hpp — closest point in a leaf: lower bounds of
// four triangles at once (one LeafPack<float>, 128-bit lanes: SSE2, or VEX in
// the AVX2 / AVX-512 builds), then the scalar kernel, nearest bound first.
//
// Why: on far queries ~50 triangles per query had a box nearer than the best
// distance so far and went through the scalar kernel (~200 instructions each);
// a box says little about a triangle seen from afar.
//
// Bounds, both conservative:
// - box: the distance to the triangle's box (min and max of its float corners),
//   as bvh::box_lower_bound computes it.
// - plane + edges (float meshes): with n = ab x ac, h = |n.ap| / |n| is the
//   distance to the plane and s_e = (e x n).(p - e0) / (|e| |n|) the signed
//   distance of p's projection beyond edge e's line, so the distance to the
//   triangle is at least sqrt(h^2 + max(0, s_ab, s_bc, s_ca)^2) (exact when
//   the projection is inside, smaller in the vertex regions).
//   Rounding: for a triangle whose sine |n| / (|ab| |ac|) is at least 1/8
//   every computed normal (n, e x n) is within ~90 u (5.4e-6) of its
//   direction, so each term is off by less than 6e-6 (|ap| + |ab| + |ac|);
//   five times that is subtracted (2^-15 of the L1 lengths), plus 2^-18 of
//   the coordinates' L1 size for the kernel's own rounding of the point it
//   returns, and the result shrunk by 2^-17 for the Newton-refined inverse
//   square roots (2^-20 each). Thinner triangles (and
//   degenerate ones) keep the box bound only.
// Every answer is still the kernel's (prox::closest_point_triangle): a
// triangle is skipped only when its bound exceeds the best distance found,
// widened by 2^-20 (ties still go to the lowest id whatever the order, see
// detail::offer_closest).
#pragma once

#include <cstdint>

#include "prox/bvh/traverse.hpp"
#include "prox/mesh/flat_index.hpp"

namespace prox::detail {

inline constexpr float kNearFactor = 8.0f;

inline namespace PROX_ISA_NAMESPACE {

#ifdef PROX_SIMD_SSE2
/// Whether the plane + edge bounds can pay: the search radius (sqrt(bound))
/// is within kNearFactor times the L1 size of the leaf's first triangle box.
/// From farther away the box bound is nearly as tight and the extra bound
/// costs more than the kernel calls it saves (measured on bunny cp-far).
PROX_FORCE_INLINE bool near_regime(const LeafPack<float>& pk, float bound) {
  float size = 0.0f;
  for (int a = 0; a < 3; ++a) {
    const float x0 = pk.c[0][a][0], x1 = pk.c[1][a][0], x2 = pk.c[2][a][0];
    const float lo = x0 < x1 ? (x0 < x2 ? x0 : x2) : (x1 < x2 ? x1 : x2);
    const float hi = x0 > x1 ? (x0 > x2 ? x0 : x2) : (x1 > x2 ? x1 : x2);
    size += hi - lo;
  }
  const float reach = kNearFactor * size;
  return bound <= reach * reach;
}

/// lb[i] (i < n <= 16) = a lower bound of the squared distance from p (q: the
/// same as a float interval) to the leaf triangle in slot i of `packs` (the
/// leaf's packs, in order): its box bound, raised to the plane + edge bound
/// (when `plane_bound`) where that is safe.
PROX_FORCE_INLINE void leaf_triangle_bounds(const bvh::PointQuery& q, const float p[3],
                                            const LeafPack<float>* packs, unsigned n,
                                            float bound_now, bool plane_bound, float* lb) {
  const __m128 zero = _mm_setzero_ps();
  const __m128 absmask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  auto abs_sum = [&](const __m128* v) {
    return _mm_add_ps(_mm_add_ps(_mm_and_ps(v[0], absmask), _mm_and_ps(v[1], absmask)),
                      _mm_and_ps(v[2], absmask));
  };
  auto dot3 = [](const __m128* a, const __m128* b) {
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(a[0], b[0]), _mm_mul_ps(a[1], b[1])),
                      _mm_mul_ps(a[2], b[2]));
  };
  auto cross3 = [](const __m128* a, const __m128* b, __m128* r) {
    r[0] = _mm_sub_ps(_mm_mul_ps(a[1], b[2]), _mm_mul_ps(a[2], b[1]));
    r[1] = _mm_sub_ps(_mm_mul_ps(a[2], b[0]), _mm_mul_ps(a[0], b[2]));
    r[2] = _mm_sub_ps(_mm_mul_ps(a[0], b[1]), _mm_mul_ps(a[1], b[0]));
  };
  // 1/sqrt(x): rsqrtps (relative error <= 1.5 * 2^-12) and one Newton step,
  // relative error below 2^-20; no division or square root on the way.
  auto rsqrt = [](__m128 x) {
    const __m128 y = _mm_rsqrt_ps(x);
    const __m128 yyx = _mm_mul_ps(_mm_mul_ps(y, y), x);
    return _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), y), _mm_sub_ps(_mm_set1_ps(3.0f), yyx));
  };
  const __m128 P[3] = {_mm_set1_ps(p[0]), _mm_set1_ps(p[1]), _mm_set1_ps(p[2])};
  const __m128 qlo[3] = {_mm_set1_ps(q.lo[0]), _mm_set1_ps(q.lo[1]), _mm_set1_ps(q.lo[2])};
  const __m128 qhi[3] = {_mm_set1_ps(q.hi[0]), _mm_set1_ps(q.hi[1]), _mm_set1_ps(q.hi[2])};
  const __m128 p_size = abs_sum(P);
  for (unsigned g = 0; g < n; g += 4) {
    const LeafPack<float>& pk = packs[g / 4];
    __m128 V[3][3];  // V[corner][axis]: one aligned load each (structure of arrays)
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) V[k][a] = _mm_load_ps(pk.c[k][a]);
    // Box bound (the corners' min and max are the float box exactly), with the
    // arithmetic of bvh::box_lower_bound.
    __m128 box_sum = zero;
    for (int a = 0; a < 3; ++a) {
      const __m128 lo = _mm_min_ps(_mm_min_ps(V[0][a], V[1][a]), V[2][a]);
      const __m128 hi = _mm_max_ps(_mm_max_ps(V[0][a], V[1][a]), V[2][a]);
      const __m128 dd = _mm_max_ps(_mm_max_ps(_mm_sub_ps(lo, qhi[a]), _mm_sub_ps(qlo[a], hi)),
                                   zero);
      box_sum = _mm_add_ps(box_sum, _mm_mul_ps(dd, dd));
    }
    const __m128 box_lb = _mm_mul_ps(box_sum, _mm_set1_ps(bvh::kShrink));
    _mm_storeu_ps(lb + g, box_lb);
    // Nothing to gain where every box is already beyond the bound.
    const unsigned live = n - g < 4 ? (1u << (n - g)) - 1u : 0xfu;
    if (!plane_bound ||
        (unsigned(_mm_movemask_ps(_mm_cmple_ps(box_lb, _mm_set1_ps(bound_now)))) & live) == 0)
      continue;
    __m128 e[3][3], d[3][3];  // edges ab, bc, ca; p minus their first corner
    for (int k = 0; k < 3; ++k) {
      const int j = k == 2 ? 0 : k + 1;
      for (int a = 0; a < 3; ++a) {
        e[k][a] = _mm_sub_ps(V[j][a], V[k][a]);
        d[k][a] = _mm_sub_ps(P[a], V[k][a]);
      }
    }
    const __m128 ac[3] = {_mm_sub_ps(zero, e[2][0]), _mm_sub_ps(zero, e[2][1]),
                          _mm_sub_ps(zero, e[2][2])};
    __m128 nrm[3];
    cross3(e[0], ac, nrm);
    const __m128 nn = dot3(nrm, nrm);
    const __m128 lab = abs_sum(e[0]), lac = abs_sum(e[2]);
    // Usable when nn >= (|ab| |ac| / 8)^2; L1 >= L2, so compare with L1 / 8.
    const __m128 scale = _mm_mul_ps(_mm_mul_ps(lab, lac), _mm_set1_ps(1.0f / 8.0f));
    // And |n|^2 in [2^-100, 2^100]: a triangle far below or above float's
    // scale (|n|^2 ~ edge^4) would give a subnormal or infinite |n|^2, whose
    // inverse square root is no bound at all (prox's range, docs/reliability.md).
    const __m128 usable = _mm_and_ps(
        _mm_cmpge_ps(nn, _mm_mul_ps(scale, scale)),
        _mm_and_ps(_mm_cmpge_ps(nn, _mm_set1_ps(0x1p-100f)), _mm_cmple_ps(nn, _mm_set1_ps(0x1p100f))));
    const __m128 inv_n = rsqrt(nn);
    const __m128 h = _mm_mul_ps(_mm_and_ps(dot3(nrm, d[0]), absmask), inv_n);
    __m128 lat = zero;
    for (int k = 0; k < 3; ++k) {
      __m128 m[3];
      cross3(e[k], nrm, m);
      const __m128 s = _mm_mul_ps(_mm_mul_ps(dot3(m, d[k]), inv_n), rsqrt(dot3(e[k], e[k])));
      lat = _mm_max_ps(s, lat);  // a NaN s (zero-length edge) keeps lat
    }
    // Margin: 2^-15 of the local lengths, 2^-18 of the coordinates' size.
    __m128 size = p_size;
    for (int k = 0; k < 3; ++k) size = _mm_add_ps(size, abs_sum(V[k]));
    const __m128 margin =
        _mm_add_ps(_mm_mul_ps(_mm_add_ps(abs_sum(d[0]), _mm_add_ps(lab, lac)),
                              _mm_set1_ps(1.0f / 32768.0f)),
                   _mm_mul_ps(size, _mm_set1_ps(1.0f / 262144.0f)));
    // dist = sqrt(h^2 + lat^2), shrunk by 2^-17 for the refined inverses.
    const __m128 d2 = _mm_add_ps(_mm_mul_ps(h, h), _mm_mul_ps(lat, lat));
    const __m128 dist = _mm_mul_ps(_mm_sqrt_ps(d2), _mm_set1_ps(1.0f - 1.0f / 131072.0f));
    const __m128 safe = _mm_max_ps(_mm_sub_ps(dist, margin), zero);
    __m128 bound = _mm_mul_ps(_mm_mul_ps(safe, safe), _mm_set1_ps(bvh::kShrink));
    // Unusable lanes, and NaN (compares false), keep the box bound.
    const __m128 ok = _mm_and_ps(usable, _mm_cmpge_ps(bound, zero));
    bound = _mm_and_ps(ok, bound);
    _mm_storeu_ps(lb + g, _mm_max_ps(box_lb, bound));
  }
}
#endif

/// Calls test(i) for the records i < n in increasing order of lb[i], stopping
/// at the first whose bound exceeds `bound` (re-read after each call, since
/// test lowers it). NaN bounds never pass.
template <class Test>
PROX_FORCE_INLINE void visit_by_bound(float* lb, unsigned n, const float& bound, Test&& test) {
  unsigned idx[bvh::kMaxLeafSize];
  for (unsigned i = 0; i < n; ++i) idx[i] = i;
  unsigned left = n;
  while (left > 0) {
    unsigned best = 0;
    for (unsigned i = 1; i < left; ++i)
      if (lb[i] < lb[best]) best = i;
    if (!(lb[best] <= bound)) return;
    test(idx[best]);
    --left;  // the tested record leaves the list: the last one takes its place
    lb[best] = lb[left];
    idx[best] = idx[left];
  }
}

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::detail
