// src/mesh/leaf_closest_simd.hpp — closest point in a leaf: lower bounds of
// eight triangles at once (two LeafPack<float>, 256-bit lanes, on the AVX2 /
// AVX-512 paths while more than four are left) or four (one pack, 128-bit:
// SSE2, or a leaf's last pack), then the scalar kernel on the triangles whose
// bound is within the best distance so far, nearest bound first.
//
// Why: the bound is the distance to the triangle itself (up to margins) in
// each of its Voronoi regions, so the scalar kernel (~200 instructions a call)
// runs on little more than the triangles that improve the answer or tie it.
// Box bounds alone let ~100 triangles per far query (bunny) through.
//
// Bounds, all conservative; a triangle's bound is their maximum, computed in
// stages (box, vertex, plane + edges), each only for a block with a live lane
// that the stages before left within the best distance (on far points the
// vertex bound rejects most blocks the box bound passes, see docs/engine.md):
// - box: the distance to the triangle's box (min and max of its float corners),
//   as bvh::box_lower_bound computes it.
// - plane + edges (face and edge regions): with n = ab x ac, h = |n.ap| / |n|
//   is the distance to the plane and s_e = (e x n).(p - e0) / (|e| |n|) the
//   signed distance of p's projection beyond edge e's line, so the distance
//   to the triangle is at least sqrt(h^2 + max(0, s_ab, s_bc, s_ca)^2) (exact
//   when the projection is inside or beside one edge, smaller in the vertex
//   regions).
//   Rounding: for a triangle whose sine |n| / (|ab| |ac|) is at least 1/8
//   every computed normal (n, e x n) is within ~90 u (5.4e-6) of its
//   direction, so each term is off by less than 6e-6 (|ap| + |ab| + |ac|);
//   five times that is subtracted (2^-15 of the L1 lengths), plus 2^-18 of
//   the coordinates' L1 size for the kernel's own rounding of the point it
//   returns, and the result shrunk by 2^-17 for the Newton-refined inverse
//   square roots (2^-20 each). Thinner triangles (and degenerate ones) skip
//   this bound.
// - vertex (vertex regions, any triangle): |p - c_k|^2 where the two dots
//   say p is in corner c_k's region, less their rounding (see pack_bounds).
// Every answer is still the kernel's (prox::closest_point_triangle): a
// triangle is skipped only when its bound exceeds the best distance found,
// widened by 2^-20 (ties still go to the lowest id whatever the order, see
// detail::offer_closest).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

#include "prox/bvh/traverse.hpp"
#include "prox/mesh/flat_index.hpp"

namespace prox::detail {

inline namespace PROX_ISA_NAMESPACE {

#ifdef PROX_SIMD_SSE2
/// The lane operations of the leaf bounds on one block of triangles: V is
/// __m128 (four triangles, one LeafPack) or, in the AVX2 / AVX-512 builds,
/// __m256 (eight, two consecutive LeafPacks: one coordinate of both packs per
/// register, as simd::load8_halves loads it). Overloads, so that one body
/// (pack_bounds) serves both widths with the same float operations per lane.
namespace lanes {
PROX_FORCE_INLINE __m128 add(__m128 a, __m128 b) { return _mm_add_ps(a, b); }
PROX_FORCE_INLINE __m128 sub(__m128 a, __m128 b) { return _mm_sub_ps(a, b); }
PROX_FORCE_INLINE __m128 mul(__m128 a, __m128 b) { return _mm_mul_ps(a, b); }
PROX_FORCE_INLINE __m128 max(__m128 a, __m128 b) { return _mm_max_ps(a, b); }
PROX_FORCE_INLINE __m128 min(__m128 a, __m128 b) { return _mm_min_ps(a, b); }
PROX_FORCE_INLINE __m128 band(__m128 a, __m128 b) { return _mm_and_ps(a, b); }
PROX_FORCE_INLINE __m128 le(__m128 a, __m128 b) { return _mm_cmple_ps(a, b); }
PROX_FORCE_INLINE __m128 ge(__m128 a, __m128 b) { return _mm_cmpge_ps(a, b); }
PROX_FORCE_INLINE __m128 sqrt(__m128 a) { return _mm_sqrt_ps(a); }
PROX_FORCE_INLINE __m128 rsqrt_approx(__m128 a) { return _mm_rsqrt_ps(a); }
PROX_FORCE_INLINE unsigned mask(__m128 a) { return unsigned(_mm_movemask_ps(a)); }
PROX_FORCE_INLINE void store(float* p, __m128 a) { _mm_storeu_ps(p, a); }
PROX_FORCE_INLINE void set(float s, __m128& a) { a = _mm_set1_ps(s); }
/// Coordinate `a` of corner `k` of the block's triangles (packs pk[0..]).
PROX_FORCE_INLINE void load(const LeafPack<float>* pk, int k, int a, __m128& v) {
  v = _mm_load_ps(pk[0].c[k][a]);
}
#ifdef PROX_SIMD_AVX2
PROX_FORCE_INLINE __m256 add(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
PROX_FORCE_INLINE __m256 sub(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }
PROX_FORCE_INLINE __m256 mul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
PROX_FORCE_INLINE __m256 max(__m256 a, __m256 b) { return _mm256_max_ps(a, b); }
PROX_FORCE_INLINE __m256 min(__m256 a, __m256 b) { return _mm256_min_ps(a, b); }
PROX_FORCE_INLINE __m256 band(__m256 a, __m256 b) { return _mm256_and_ps(a, b); }
PROX_FORCE_INLINE __m256 le(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
PROX_FORCE_INLINE __m256 ge(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
PROX_FORCE_INLINE __m256 sqrt(__m256 a) { return _mm256_sqrt_ps(a); }
PROX_FORCE_INLINE __m256 rsqrt_approx(__m256 a) { return _mm256_rsqrt_ps(a); }
PROX_FORCE_INLINE unsigned mask(__m256 a) { return unsigned(_mm256_movemask_ps(a)); }
PROX_FORCE_INLINE void store(float* p, __m256 a) { _mm256_storeu_ps(p, a); }
PROX_FORCE_INLINE void set(float s, __m256& a) { a = _mm256_set1_ps(s); }
PROX_FORCE_INLINE void load(const LeafPack<float>* pk, int k, int a, __m256& v) {
  v = simd::load8_halves(pk[0].c[k][a], pk[1].c[k][a]).v;
}
#endif
}  // namespace lanes

/// The bounds of one block (V: 4 or 8 lanes) of triangles, the packs from
/// pk, into lb[0 .. lanes); `live` masks the lanes that hold leaf slots.
/// Returns the live lanes whose bound is at most bound_now (where none is,
/// lb holds the stages computed so far, still lower bounds).
template <class V>
PROX_FORCE_INLINE unsigned pack_bounds(const bvh::PointQuery& q, const float p[3],
                                   const LeafPack<float>* pk, unsigned live, float bound_now,
                                   float* lb) {
  using namespace lanes;
  auto splat = [](float s) {
    V v;
    set(s, v);
    return v;
  };
  const V zero = splat(0.0f);
  const V absmask = splat(std::bit_cast<float>(0x7fffffffu));
  auto abs_sum = [&](const V* v) {
    return add(add(band(v[0], absmask), band(v[1], absmask)), band(v[2], absmask));
  };
  auto dot3 = [](const V* a, const V* b) {
    return add(add(mul(a[0], b[0]), mul(a[1], b[1])), mul(a[2], b[2]));
  };
  auto cross3 = [](const V* a, const V* b, V* r) {
    r[0] = sub(mul(a[1], b[2]), mul(a[2], b[1]));
    r[1] = sub(mul(a[2], b[0]), mul(a[0], b[2]));
    r[2] = sub(mul(a[0], b[1]), mul(a[1], b[0]));
  };
  // 1/sqrt(x): rsqrtps (relative error <= 1.5 * 2^-12) and one Newton step,
  // relative error below 2^-20; no division or square root on the way.
  auto rsqrt = [&](V x) {
    const V y = rsqrt_approx(x);
    const V yyx = mul(mul(y, y), x);
    return mul(mul(splat(0.5f), y), sub(splat(3.0f), yyx));
  };
  V Vc[3][3];  // Vc[corner][axis]: one aligned load each (structure of arrays)
  for (int k = 0; k < 3; ++k)
    for (int a = 0; a < 3; ++a) load(pk, k, a, Vc[k][a]);
  // Box bound (the corners' min and max are the float box exactly), with the
  // arithmetic of bvh::box_lower_bound.
  V box_sum = zero;
  for (int a = 0; a < 3; ++a) {
    const V lo = min(min(Vc[0][a], Vc[1][a]), Vc[2][a]);
    const V hi = max(max(Vc[0][a], Vc[1][a]), Vc[2][a]);
    const V dd = max(max(sub(lo, splat(q.hi[a])), sub(splat(q.lo[a]), hi)), zero);
    box_sum = add(box_sum, mul(dd, dd));
  }
  const V box_lb = mul(box_sum, splat(bvh::kShrink));
  store(lb, box_lb);
  const V limit = splat(bound_now);
  const unsigned pass = mask(le(box_lb, limit)) & live;
  // Nothing to gain where every box is already beyond the bound.
  if (pass == 0) return pass;
  const V P[3] = {splat(p[0]), splat(p[1]), splat(p[2])};
  V e[3][3], d[3][3];  // edges ab, bc, ca; p minus their first corner
  for (int k = 0; k < 3; ++k) {
    const int j = k == 2 ? 0 : k + 1;
    for (int a = 0; a < 3; ++a) {
      e[k][a] = sub(Vc[j][a], Vc[k][a]);
      d[k][a] = sub(P[a], Vc[k][a]);
    }
  }
  const V lab = abs_sum(e[0]), lac = abs_sum(e[2]);
  V vtx;
  {
    // Vertex regions: with d_k = p - c_k, e_k = c_{k+1} - c_k and j = k - 1,
    // corner k is the nearest point when d_k.e_k <= 0 and d_k.e_j >= 0
    // (d_k.e_j = d_j.e_j - e_j.e_j). The float dots are off by at most
    // delta = 6u (|d_0| + L) L (L1 norms, L the L1 perimeter, u = 2^-24), and
    // for true dots within delta of the region every point c_k + s e_k -
    // t e_j (s, t >= 0, s + t <= 1) of the triangle is at least
    // |d_k|^2 - 2 delta away: so |d_k|^2 (1 - 2^-18) - 2^-18 (|d_0| + L) L -
    // 2^-120 (subnormal products) is a lower bound for any triangle, thin or
    // not. |d_k|^2 in [2^-100, 2^100] only (no underflow or overflow).
    V t[3], ee[3];
    for (int k = 0; k < 3; ++k) {
      t[k] = dot3(d[k], e[k]);
      ee[k] = dot3(e[k], e[k]);
    }
    V vd = zero;
    for (int k = 0; k < 3; ++k) {
      const int j = k == 0 ? 2 : k - 1;
      const V in = band(le(t[k], zero), ge(sub(t[j], ee[j]), zero));
      vd = max(vd, band(in, dot3(d[k], d[k])));
    }
    const V per = add(add(lab, lac), abs_sum(e[1]));
    const V m = add(mul(mul(add(abs_sum(d[0]), per), per), splat(1.0f / 262144.0f)),
                    splat(0x1p-120f));
    const V vb = mul(sub(mul(vd, splat(1.0f - 1.0f / 262144.0f)), m), splat(bvh::kShrink));
    const V vok = band(band(ge(vd, splat(0x1p-100f)), le(vd, splat(0x1p100f))), ge(vb, zero));
    vtx = band(vok, vb);
  }
  V best = max(box_lb, vtx);
  // The vertex bound alone rejects most blocks of far queries: the plane +
  // edge bound is computed only when it does not.
  if ((mask(le(best, limit)) & live) == 0) {
    store(lb, best);
    return 0;
  }
  const V ac[3] = {sub(zero, e[2][0]), sub(zero, e[2][1]), sub(zero, e[2][2])};
  V nrm[3];
  cross3(e[0], ac, nrm);
  const V nn = dot3(nrm, nrm);
  // Usable when nn >= (|ab| |ac| / 8)^2; L1 >= L2, so compare with L1 / 8.
  const V scale = mul(mul(lab, lac), splat(1.0f / 8.0f));
  // And |n|^2 in [2^-100, 2^100]: a triangle far below or above float's
  // scale (|n|^2 ~ edge^4) would give a subnormal or infinite |n|^2, whose
  // inverse square root is no bound at all (prox's range, docs/reliability.md).
  const V usable = band(ge(nn, mul(scale, scale)),
                        band(ge(nn, splat(0x1p-100f)), le(nn, splat(0x1p100f))));
  const V inv_n = rsqrt(nn);
  const V h = mul(band(dot3(nrm, d[0]), absmask), inv_n);
  V lat = zero;
  for (int k = 0; k < 3; ++k) {
    V m[3];
    cross3(e[k], nrm, m);
    const V s = mul(mul(dot3(m, d[k]), inv_n), rsqrt(dot3(e[k], e[k])));
    lat = max(s, lat);  // a NaN s (zero-length edge) keeps lat
  }
  // Margin: 2^-15 of the local lengths, 2^-18 of the coordinates' size.
  V size = abs_sum(P);
  for (int k = 0; k < 3; ++k) size = add(size, abs_sum(Vc[k]));
  const V margin = add(mul(add(abs_sum(d[0]), add(lab, lac)), splat(1.0f / 32768.0f)),
                       mul(size, splat(1.0f / 262144.0f)));
  // dist = sqrt(h^2 + lat^2), shrunk by 2^-17 for the refined inverses.
  const V d2 = add(mul(h, h), mul(lat, lat));
  const V dist = mul(sqrt(d2), splat(1.0f - 1.0f / 131072.0f));
  const V safe = max(sub(dist, margin), zero);
  V bound = mul(mul(safe, safe), splat(bvh::kShrink));
  // Unusable lanes, NaN (compares false) and +inf keep the box bound: far
  // from a large triangle a dot product can overflow (e.g. (e x n).d ~ 2^131
  // for edges of 2^23 and a point 2^62 away), and inf is no bound.
  const V finite = le(bound, splat(std::numeric_limits<float>::max()));
  const V ok = band(usable, band(ge(bound, zero), finite));
  bound = band(ok, bound);
  best = max(best, bound);
  store(lb, best);
  return mask(le(best, limit)) & live;
}

/// lb[i] (i < n <= 16) = a lower bound of the squared distance from p (q: the
/// same as a float interval) to the leaf triangle in slot i of `packs` (the
/// leaf's packs, in order): its box bound, raised to the vertex and plane +
/// edge bounds where those are safe (see pack_bounds). Eight triangles (two packs) per
/// block in the AVX2 / AVX-512 builds while more than four are left, four
/// otherwise. lb has room for n rounded up to 4. Returns the mask of the slots
/// i < n whose bound is at most bound_now (bit i: slot i).
PROX_FORCE_INLINE unsigned leaf_triangle_bounds(const bvh::PointQuery& q, const float p[3],
                                            const LeafPack<float>* packs, unsigned n,
                                            float bound_now, float* lb) {
  unsigned pass = 0;
  for (unsigned g = 0; g < n;) {
    const unsigned left = n - g;
#ifdef PROX_SIMD_AVX2
    if (left > 4) {
      const unsigned live = left < 8 ? (1u << left) - 1u : 0xffu;
      pass |= pack_bounds<__m256>(q, p, packs + g / 4, live, bound_now, lb + g)
              << g;
      g += 8;
      continue;
    }
#endif
    const unsigned live = left < 4 ? (1u << left) - 1u : 0xfu;
    pass |= pack_bounds<__m128>(q, p, packs + g / 4, live, bound_now, lb + g) << g;
    g += 4;
  }
  return pass;
}
#endif

/// Calls test(i) for the records i in `pass` (a bit mask, i < 16) in
/// increasing order of lb[i], stopping at the first whose bound exceeds
/// `bound` (re-read after each call, since test lowers it). NaN bounds never
/// pass. Few records pass in a typical leaf, so the selection scans only them.
template <class Test>
PROX_FORCE_INLINE void visit_by_bound(const float* lb, unsigned pass, const float& bound,
                                      Test&& test) {
  while (pass != 0) {
    unsigned best = unsigned(std::countr_zero(pass));
    for (unsigned r = pass & (pass - 1); r != 0; r &= r - 1) {
      const unsigned i = unsigned(std::countr_zero(r));
      if (lb[i] < lb[best]) best = i;
    }
    if (!(lb[best] <= bound)) return;
    test(best);
    pass &= ~(1u << best);
  }
}

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::detail
