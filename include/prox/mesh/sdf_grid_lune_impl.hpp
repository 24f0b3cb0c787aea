// prox/mesh/sdf_grid_lune_impl.hpp — the closest point of a grid node, pruned by the
// empty balls of already computed neighbours (the "lune" certificate).
//
// Used by signed_distance_grid (prox/mesh/sdf_grid.hpp) through
// lune_closest_point_isa: the template below compiled once per ISA path
// (src/mesh/sdf_grid_isa.cpp, as the engine's own objects) and called on the
// path the engine runs; with AVX2 the leaf tests four triangles' box bounds
// and cuts at once in 4-lane doubles (the same operations as the scalar
// path, so the same decisions). It walks the index's public layout
// (MeshIndex::layout(), prox/mesh/flat_index.hpp) with the shared traversal
// loop (prox/bvh/traverse.hpp) and runs the public kernel
// (closest_point_triangle) with the engine's tie rule (smaller squared
// distance, then lower triangle id), so its answer is the engine's
// MeshIndex::closest_point bit for bit: the pruning below only ever skips
// triangles whose computed squared distance is provably larger than the
// answer's, it never approximates.
//
// The certificate. A neighbour q whose closest distance D_q is known has no
// surface point in its open ball B(q, D_q). Every triangle that can be
// closest to p has a point x with |x - p| <= R (R: an upper bound of p's
// distance, from the hint triangle) and |x - q| >= D_q; subtracting the two
// squared inequalities leaves a half-space, linear in x:
//   (x - p) . w >= c_q = (D_q^2 - R^2 - |w|^2) / 2,   w = p - q.
// A box (or triangle) entirely below it holds no candidate: a node box is
// tested at its corner farthest along w, a triangle at its three corners (the
// largest of a linear function over a triangle is at a corner; tighter than
// the triangle's box, with terms of the same magnitudes, so the same rounding
// bound). Far from the
// surface, the half-spaces of a few neighbours on different sides cut the
// search cap of radius ~sqrt(2 d b) (b: leaf size, d: distance), which the
// box lower bounds alone cannot shrink, down to a patch about a cell wide.
//
// Rounding. Kernel distances are the exact ones to within E = 2^14 eps_T S
// (S: the largest coordinate magnitude of the mesh box and the node, plus the
// box diagonal; docs/kernel-accuracy.md measures at most ~10^3 eps_T S,
// slivers included), so D_q is lowered and R raised by E; the float SIMD box
// tests are loosened by 2^-18 of their magnitude (~30 float roundings), the
// double triangle tests by 2^-40.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "prox/bvh/traverse.hpp"
#include "prox/mesh/flat_index.hpp"
#include "prox/mesh/results.hpp"
#include "prox/mesh/sdf_grid_lune.hpp"
#include "prox/primitives/closest_point_triangle.hpp"

namespace prox::sdf_detail {

inline namespace PROX_ISA_NAMESPACE {

/// One prepared half-space: keep x where (x - p) . w >= c (c already lowered).
struct Cut {
  double w[3];
  double c_tri;  ///< for the double triangle test
  float wf[3];
  float c_box;   ///< for the float box test
  bool w_pos[3];
};

/// Node test: box lower bound against the current bound, and every cut.
struct LuneTest {
  const bvh::PointQuery& q;
  float bound;
  const Cut* cuts;
  int ncuts;
  prox::simd::F8 vp[3];
  std::size_t* visited;
  float limit() const { return bound; }
  PROX_FORCE_INLINE unsigned children(const bvh::Node8& n, float* key) {
    using namespace prox::simd;
    ++*visited;
    F8 lb, ub;
    bvh::box_distances8(n, q, lb, ub);
    store8(key, lb);
    unsigned mask = le_mask8(lb, set8(bound));
    for (int i = 0; i < ncuts && mask != 0; ++i) {
      const Cut& c = cuts[i];
      F8 lin = set8(0.0f);
      for (int a = 0; a < 3; ++a) {
        const F8 sel = load8(c.w_pos[a] ? n.hi[a] : n.lo[a]);
        lin = add8(lin, mul8(sub8(sel, vp[a]), set8(c.wf[a])));
      }
      mask &= le_mask8(set8(c.c_box), lin);
    }
    return mask;
  }
};

/// The closest point of p: the same answer as MeshIndex<T>::closest_point(p)
/// (see the file comment). hint: a triangle id whose kernel result bounds the
/// answer; balls: computed neighbours; scale: S of the file comment (the
/// caller's, for the mesh box; p's magnitude is added here).
template <class T, class Tag = void>
MeshClosestPoint<T> lune_closest_point(const FlatIndex<T>& x, const Vec3<T>& p,
                                       std::uint32_t hint, const Vec3<T>& h0, const Vec3<T>& h1,
                                       const Vec3<T>& h2, std::span<const EmptyBall> balls,
                                       double scale, LuneStats* stats = nullptr) {
  MeshClosestPoint<T> best;
  const ClosestPointTriangleResult<T> hr = detail::closest_point_triangle_tagged<T, Tag>(p, h0, h1, h2);
  best.point = hr.point;
  best.sq_distance = hr.sq_distance;
  best.triangle = std::int32_t(hint);
  best.bary = hr.bary;
  best.feature = hr.feature;
  const double pd[3] = {double(p[0]), double(p[1]), double(p[2])};
  const double s = std::max({scale, std::fabs(pd[0]), std::fabs(pd[1]), std::fabs(pd[2])});
  const double e = kernel_error_bound<T>(s);
  constexpr double kUp = 1.0 + 0x1p-40, kDown = 1.0 - 0x1p-40;
  auto radius_of = [&](T sq) { return (std::sqrt(double(sq)) + e) * kUp; };
  double big_r = radius_of(best.sq_distance);
  Cut cuts[kMaxCuts];
  int ncuts = 0;
  for (const EmptyBall& b : balls) {
    if (ncuts == kMaxCuts) break;
    const double rho = std::sqrt(b.sq_distance) * kDown - e;
    if (!(rho > 0)) continue;
    Cut& c = cuts[ncuts];
    double w2 = 0, w1 = 0;
    for (int a = 0; a < 3; ++a) {
      c.w[a] = pd[a] - b.q[a];
      w2 += c.w[a] * c.w[a];
      w1 += std::fabs(c.w[a]);
      c.wf[a] = float(c.w[a]);
      c.w_pos[a] = c.w[a] >= 0;
    }
    if (w2 == 0) continue;
    const double cc = 0.5 * (rho * rho - big_r * big_r - w2);
    // The c of a far neighbour is very negative: it would cut nothing.
    if (!(cc > -big_r * std::sqrt(w2))) continue;
    const double mag = std::fabs(cc) + 0.5 * (rho * rho + big_r * big_r + w2) + w1 * 2 * s;
    c.c_tri = cc - mag * 0x1p-40;
    // Float box test: w and p rounded to float, box corners float; each term
    // (sel - p_a) w_a off by a few float roundings of |w_a| (|sel| + |p_a|).
    const double loose = cc - mag * 0x1p-40 - 0x1p-18 * (w1 * 4 * s + std::fabs(cc));
    c.c_box = bvh::float_down(loose);
    ++ncuts;
  }
  const bvh::PointQuery q(p);
  std::size_t visited = 0, tested = 0;
  LuneTest test{q, bvh::float_up(big_r * big_r) * bvh::kGrow, cuts, ncuts, {}, &visited};
  for (int a = 0; a < 3; ++a) test.vp[a] = prox::simd::set8(float(pd[a]));
  auto offer = [&](const LeafPack<T>& pk, std::uint32_t slot, unsigned lane) {
    ++tested;
    const ClosestPointTriangleResult<T> r = detail::closest_point_triangle_tagged<T, Tag>(
        p, pk.corner(lane, 0), pk.corner(lane, 1), pk.corner(lane, 2));
    const std::int32_t id = std::int32_t(x.prims[slot]);
    if (r.sq_distance < best.sq_distance ||
        (r.sq_distance == best.sq_distance && id < best.triangle)) {
      const bool closer = r.sq_distance < best.sq_distance;
      best.point = r.point;
      best.sq_distance = r.sq_distance;
      best.triangle = id;
      best.bary = r.bary;
      best.feature = r.feature;
      if (closer) {
        big_r = radius_of(best.sq_distance);
        test.bound = std::min(test.bound, bvh::float_up(big_r * big_r) * bvh::kGrow);
      }
    }
  };
#if defined(__AVX2__)
  // One pack (4 slots) at a time in 4-lane doubles: the same operations, in
  // the same order, as the scalar path below, for the pack's 4 lanes.
  const __m256d vpd[3] = {_mm256_set1_pd(pd[0]), _mm256_set1_pd(pd[1]), _mm256_set1_pd(pd[2])};
  auto load4 = [](const T* v) {
    if constexpr (std::is_same_v<T, double>) {
      return _mm256_loadu_pd(v);
    } else {
      return _mm256_cvtps_pd(_mm_loadu_ps(v));
    }
  };
  auto leaf = [&](std::uint32_t b, std::uint32_t n) {
    for (std::uint32_t s0 = b; s0 < b + n; s0 += bvh::kLeafAlign) {
      const LeafPack<T>& pk = x.pack_of(s0);
      const std::uint32_t live = std::min(std::uint32_t(bvh::kLeafAlign), b + n - s0);  // a copy: no odr-use of the global (no weak symbol in the ISA objects)
      __m256d dk[3][3], l = _mm256_setzero_pd();  // dk[k][a]: corner k minus p, axis a
      for (int a = 0; a < 3; ++a) {
        const __m256d x0 = load4(pk.c[0][a]), x1 = load4(pk.c[1][a]), x2 = load4(pk.c[2][a]);
        const __m256d lo = _mm256_min_pd(x0, _mm256_min_pd(x1, x2));
        const __m256d hi = _mm256_max_pd(x0, _mm256_max_pd(x1, x2));
        const __m256d d = _mm256_max_pd(_mm256_sub_pd(lo, vpd[a]), _mm256_sub_pd(vpd[a], hi));
        const __m256d dp = _mm256_max_pd(d, _mm256_setzero_pd());
        l = _mm256_add_pd(l, _mm256_mul_pd(dp, dp));
        dk[0][a] = _mm256_sub_pd(x0, vpd[a]);
        dk[1][a] = _mm256_sub_pd(x1, vpd[a]);
        dk[2][a] = _mm256_sub_pd(x2, vpd[a]);
      }
      const __m256d r2 = _mm256_set1_pd(big_r * big_r);
      unsigned mask = unsigned(_mm256_movemask_pd(
                          _mm256_cmp_pd(_mm256_mul_pd(l, _mm256_set1_pd(kDown)), r2, _CMP_NGT_UQ))) &
                      ((1u << live) - 1u);
      // Each cut on the triangle's corners: the largest (x - p) . w over the
      // triangle is at a corner (tighter than the box's corner).
      for (int i = 0; i < ncuts && mask != 0; ++i) {
        const Cut& c = cuts[i];
        const __m256d w0 = _mm256_set1_pd(c.w[0]), w1 = _mm256_set1_pd(c.w[1]),
                      w2 = _mm256_set1_pd(c.w[2]);
        __m256d lin[3];
        for (int k = 0; k < 3; ++k)
          lin[k] = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_setzero_pd(),
                                                             _mm256_mul_pd(w0, dk[k][0])),
                                               _mm256_mul_pd(w1, dk[k][1])),
                                 _mm256_mul_pd(w2, dk[k][2]));
        const __m256d top = _mm256_max_pd(_mm256_max_pd(lin[0], lin[1]), lin[2]);
        mask &= unsigned(
            _mm256_movemask_pd(_mm256_cmp_pd(top, _mm256_set1_pd(c.c_tri), _CMP_NLT_UQ)));
      }
      if (mask == 0) continue;
      alignas(32) double lv[4];
      _mm256_store_pd(lv, l);
      for (unsigned lane = 0; lane < live; ++lane) {
        if (!(mask >> lane & 1u)) continue;
        if (lv[lane] * kDown > big_r * big_r) continue;  // the bound may have shrunk
        offer(pk, s0 + lane, lane);
      }
    }
    return false;
  };
#else
  auto leaf = [&](std::uint32_t b, std::uint32_t n) {
    for (std::uint32_t slot = b; slot < b + n; ++slot) {
      const LeafPack<T>& pk = x.pack_of(slot);
      const unsigned lane = FlatIndex<T>::lane_of(slot);
      // Box of the triangle against the current radius.
      double l = 0;
      double dk[3][3];  // corner k minus p, axis a
      for (int a = 0; a < 3; ++a) {
        const double x0 = double(pk.c[0][a][lane]), x1 = double(pk.c[1][a][lane]),
                     x2 = double(pk.c[2][a][lane]);
        const double lo = std::min(x0, std::min(x1, x2));
        const double hi = std::max(x0, std::max(x1, x2));
        const double d = std::max(std::max(lo - pd[a], pd[a] - hi), 0.0);
        l += d * d;
        dk[0][a] = x0 - pd[a];
        dk[1][a] = x1 - pd[a];
        dk[2][a] = x2 - pd[a];
      }
      if (l * kDown > big_r * big_r) continue;
      // Each cut on the triangle's corners (as the AVX2 path above).
      bool cut = false;
      for (int i = 0; i < ncuts && !cut; ++i) {
        const Cut& c = cuts[i];
        double lin[3];
        for (int k = 0; k < 3; ++k)
          lin[k] = ((0.0 + c.w[0] * dk[k][0]) + c.w[1] * dk[k][1]) + c.w[2] * dk[k][2];
        const double top = std::max(std::max(lin[0], lin[1]), lin[2]);
        cut = top < c.c_tri;
      }
      if (cut) continue;
      offer(pk, slot, lane);
    }
    return false;
  };
#endif
  bvh::traverse(x.nodes, test, leaf);
  if (stats) {
    ++stats->queries;
    stats->nodes_visited += visited;
    stats->triangles_tested += tested;
  }
  return best;
}

}  // namespace PROX_ISA_NAMESPACE

}  // namespace prox::sdf_detail
