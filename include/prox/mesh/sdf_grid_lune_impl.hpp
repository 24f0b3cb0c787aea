// prox/mesh/sdf_grid_lune_impl.hpp — the closest point of a grid node, pruned by the
// empty balls of already computed neighbours (the "lune" certificate).
//
// Used by signed_distance_grid (prox/mesh/sdf_grid.hpp) through
// lune_closest_point_isa: the template below compiled once per ISA path
// (src/mesh/sdf_grid_isa.cpp, as the engine's own objects) and called on the
// path the engine runs; with AVX2 the leaf tests four triangles' box bounds
// and distance lower bounds (lower_bound1 below) at once in 4-lane doubles
// (the same operations as the scalar path, so the same decisions). It walks the index's public layout
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
// A node box entirely below it holds no candidate: it is tested at its
// corner farthest along w. (Triangles were tested at their three corners
// too; the triangle's distance lower bound does better, see the leaf.) Far
// from the
// surface, the half-spaces of a few neighbours on different sides cut the
// search cap of radius ~sqrt(2 d b) (b: leaf size, d: distance), which the
// box lower bounds alone cannot shrink, down to a patch about a cell wide.
//
// Rounding. Kernel distances are the exact ones to within E = 2^14 eps_T S
// (S: the largest coordinate magnitude of the mesh box and the node, plus the
// box diagonal; docs/kernel-accuracy.md measures at most ~10^3 eps_T S,
// slivers included), so D_q is lowered and R raised by E; the float SIMD box
// tests are loosened by 2^-18 of their magnitude (~30 float roundings), the
// cut's double offset by 2^-40; the triangle's lower bound by its own margin
// (lower_bound1).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
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
#include "prox/mesh/sdf_grid_bounds.hpp"
#include "prox/mesh/sdf_grid_lune.hpp"
#include "prox/primitives/closest_point_triangle.hpp"

namespace prox::sdf_detail {

inline namespace PROX_ISA_NAMESPACE {

/// One prepared half-space: keep x where (x - p) . w >= c (c already lowered).
struct Cut {
  double w[3];
  float wf[3];
  float c_box;     ///< for the float box test: keep a box where sum_a sel_a wf_a >= c_box
  unsigned off[3];  ///< byte offset in a Node8 of the bound row farthest along w, per axis
};

/// Node test: box lower bound against the current bound, and every cut.
struct LuneTest {
  const bvh::PointQuery& q;
  float bound;
  const Cut* cuts;
  int ncuts;
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
      const char* base = reinterpret_cast<const char*>(&n);
      F8 lin = set8(0.0f);
      for (int a = 0; a < 3; ++a) {
        const F8 sel = load8(reinterpret_cast<const float*>(base + c.off[a]));
        lin = add8(lin, mul8(sel, set8(c.wf[a])));
      }
      mask &= le_mask8(set8(c.c_box), lin);
    }
    return mask;
  }
};

/// A lower bound of the exact distance from p to a triangle, cheap enough to
/// spare the kernel most candidates that cannot win: dk[k]: corner k minus p,
/// ed[k]: corner k + 1 minus corner k (mod 3). With n = ed[2] x ed[0] (the
/// normal), m_k = ed[k] x n (outward in the plane, |m_k| = |ed[k]| |n|), t_k =
/// -m_k.dk[k] (> 0: p's projection is outside edge line k):
///  - the triangle lies in its plane and inside every edge line, so the
///    distance is at least sqrt(h^2 + s_k^2) for every k: h = n.dk[0] / |n|,
///    s_k = max(0, t_k) / (|ed[k]| |n|);
///  - when the projection is outside the triangle, the closest point x is on
///    an edge k with t_k > 0 (x on an edge's inside: p - x is along m_k; x a
///    corner: p - x is in the cone of its two edges' m, so one of them has
///    (p - x).m > 0), so the distance is the smallest segment distance over
///    those edges: the distance to the line (sqrt(h^2 + s_k^2)) when p
///    projects onto the segment, else to the corner it passes. Used only where
///    some t_k > tau_k (clearly outside, tau_k above t_k's rounding), over
///    every edge with t_k > -tau_k (more edges only lower the minimum).
/// So the bound is exact in the face, edge and corner regions, less the
/// margins. All in num = distance * |n| (squared, times |ed[0]|^2 |ed[1]|^2
/// |ed[2]|^2: one division). Rounding: every term is a sum of a few products,
/// off by at most ~60 eps G M / |n| in distance (G: the squared sum of the
/// edges' 1-norms, at least |ed[0]| |ed[2]|; M: the largest 1-norm of dk); a
/// wrong segment-end decision (p within rounding of the end's perpendicular)
/// adds at most a few eps M. 2^-36 G M / |n| (about 2^10 times that) is taken
/// off, the root lowered by 2^-40 (the squaring, roots and the division), and
/// 2^-150 more covers subnormal terms; tau_k = 2^-36 G M |ed[k]|_1. Outside
/// |n|^2 >= 2^-100, G <= 2^100, M <= 2^50 (where no term overflows and an
/// underflow costs less than 2^-150) nothing is pruned (tiny or degenerate
/// triangles: the kernel decides).
///
/// Returned squared, without a root or a division: the bound (in distance) is
/// (sqrt(all / e3) (1 - 2^-40) - gm) / rn - 2^-150, rn = |n|, and a triangle is
/// skipped when it exceeds R = (sqrt(best) + E) (1 + 2^-40), i.e. when
/// sqrt(all / e3) (1 - 2^-40) > x = (R + 2^-150) rn + gm, both sides >= 0:
/// when a = all (1 - 2^-39) > x^2 e3. The square's margin 2^-39 is the root's
/// 2^-40 doubled (and covers the few roundings of x^2 e3, ~2^-50 relative);
/// x^2 e3 below 2^-900 (where a subnormal product could lose its relative
/// accuracy) prunes nothing. The kernel distance of a skipped triangle
/// (within E of the exact one) exceeds the best's, so the skip never changes
/// the answer (ties included). (Before: sqrt(all / e3) and sqrt(n^2) per
/// triangle; the root and the division were the leaf's slowest instructions.)
struct LowerBound1 {
  double a, e3, rn, gm;
  bool above(double r) const {
    const double x = (r + 0x1p-150) * rn + gm;
    const double rhs = (x * x) * e3;
    return rhs >= 0x1p-900 && a > rhs;
  }
  /// The bound in distance (for messages; not used to prune).
  double distance() const { return (std::sqrt(a / e3) - gm) / rn; }
};
/// lower_bound1 from its triangle's terms (TriangleTerms, prox/mesh/sdf_grid_bounds.hpp:
/// every product that does not depend on p, computed once per triangle).
inline LowerBound1 lower_bound1(const double (&dk)[3][3], const double (&ed)[3][3],
                                const TriangleTerms& tt) {
  auto dot = [](const double* a, const double* b) { return (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]; };
  auto norm1 = [](const double* a) { return (std::fabs(a[0]) + std::fabs(a[1])) + std::fabs(a[2]); };
  const double m1 = std::max(std::max(norm1(dk[0]), norm1(dk[1])), norm1(dk[2]));
  if (!(tt.ok && m1 <= 0x1p50)) return {-std::numeric_limits<double>::infinity(), 1.0, 1.0, 0.0};
  const double h = dot(tt.n, dk[0]);
  const double he = (h * h) * tt.e3;
  const double gm = tt.gs * m1;
  double dd[3];
  for (int k = 0; k < 3; ++k) dd[k] = (dot(dk[k], dk[k]) * tt.n2) * tt.e3;
  double q = 0, nearest = std::numeric_limits<double>::infinity();
  bool clear = false;
  for (int k = 0; k < 3; ++k) {
    const double t = 0.0 - dot(tt.mk[k], dk[k]);
    const double u = std::max(t, 0.0);
    const double a = (u * u) * tt.pk[k];
    q = std::max(q, a);
    const double tau = gm * tt.ne[k];
    clear = clear || t > tau;
    const double sigma = 0.0 - dot(dk[k], ed[k]);
    const double seg = sigma < 0.0 ? dd[k] : sigma > tt.el[k] ? dd[(k + 1) % 3] : he + a;
    if (t > 0.0 - tau) nearest = std::min(nearest, seg);
  }
  const double all = clear ? std::max(he + q, nearest) : he + q;
  return {all * (1.0 - 0x1p-39), tt.e3, tt.rn, gm};
}
inline LowerBound1 lower_bound1(const double (&dk)[3][3], const double (&ed)[3][3]) {
  return lower_bound1(dk, ed, triangle_terms(ed));
}

#if defined(__AVX2__)
/// lower_bound1 for the four lanes of a pack: the same operations in the same order.
struct LowerBound4 {
  __m256d a, e3, rn, gm;
  PROX_FORCE_INLINE unsigned above(double r) const {
    const __m256d x = _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(r + 0x1p-150), rn), gm);
    const __m256d rhs = _mm256_mul_pd(_mm256_mul_pd(x, x), e3);
    return unsigned(_mm256_movemask_pd(
        _mm256_and_pd(_mm256_cmp_pd(rhs, _mm256_set1_pd(0x1p-900), _CMP_GE_OQ),
                      _mm256_cmp_pd(a, rhs, _CMP_GT_OQ))));
  }
};
/// 4-lane double arithmetic for the bound below, in lower_bound1's order.
namespace pd4 {
PROX_FORCE_INLINE __m256d mul(__m256d a, __m256d b) { return _mm256_mul_pd(a, b); }
PROX_FORCE_INLINE __m256d sub(__m256d a, __m256d b) { return _mm256_sub_pd(a, b); }
PROX_FORCE_INLINE __m256d add(__m256d a, __m256d b) { return _mm256_add_pd(a, b); }
PROX_FORCE_INLINE __m256d dot(const __m256d* a, const __m256d* b) {
  return add(add(mul(a[0], b[0]), mul(a[1], b[1])), mul(a[2], b[2]));
}
PROX_FORCE_INLINE __m256d norm1(const __m256d* a) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  return add(add(_mm256_andnot_pd(sign, a[0]), _mm256_andnot_pd(sign, a[1])),
             _mm256_andnot_pd(sign, a[2]));
}
}  // namespace pd4

/// TriangleTerms of four lanes in registers: loaded from a table entry, or
/// computed from the edges (the same operations as triangle_terms, lane by lane).
struct Terms4 {
  __m256d n[3], mk[3][3], el[3], pk[3], e3, n2, rn, gs, ne[3], ok;
};
PROX_FORCE_INLINE Terms4 load_terms4(const TriangleTerms4& t) {
  Terms4 r;
  for (int a = 0; a < 3; ++a) {
    r.n[a] = _mm256_load_pd(t.n[a]);
    r.el[a] = _mm256_load_pd(t.el[a]);
    r.pk[a] = _mm256_load_pd(t.pk[a]);
    r.ne[a] = _mm256_load_pd(t.ne[a]);
    for (int b = 0; b < 3; ++b) r.mk[a][b] = _mm256_load_pd(t.mk[a][b]);
  }
  r.e3 = _mm256_load_pd(t.e3);
  r.n2 = _mm256_load_pd(t.n2);
  r.rn = _mm256_load_pd(t.rn);
  r.gs = _mm256_load_pd(t.gs);
  r.ok = _mm256_cmp_pd(_mm256_load_pd(t.ok), _mm256_setzero_pd(), _CMP_NEQ_OQ);
  return r;
}
PROX_FORCE_INLINE Terms4 terms4(const __m256d (&ed)[3][3]) {
  using namespace pd4;
  Terms4 t;
  t.n[0] = sub(mul(ed[2][1], ed[0][2]), mul(ed[2][2], ed[0][1]));
  t.n[1] = sub(mul(ed[2][2], ed[0][0]), mul(ed[2][0], ed[0][2]));
  t.n[2] = sub(mul(ed[2][0], ed[0][1]), mul(ed[2][1], ed[0][0]));
  t.n2 = dot(t.n, t.n);
  for (int k = 0; k < 3; ++k) t.ne[k] = norm1(ed[k]);
  const __m256d g1 = add(add(t.ne[0], t.ne[1]), t.ne[2]);
  const __m256d g = mul(g1, g1);
  t.ok = _mm256_and_pd(_mm256_cmp_pd(t.n2, _mm256_set1_pd(0x1p-100), _CMP_GE_OQ),
                       _mm256_cmp_pd(g, _mm256_set1_pd(0x1p100), _CMP_LE_OQ));
  for (int k = 0; k < 3; ++k) t.el[k] = dot(ed[k], ed[k]);
  t.pk[0] = mul(t.el[1], t.el[2]);
  t.pk[1] = mul(t.el[2], t.el[0]);
  t.pk[2] = mul(t.el[0], t.el[1]);
  t.e3 = mul(t.pk[0], t.el[0]);
  t.gs = mul(_mm256_set1_pd(0x1p-36), g);
  for (int k = 0; k < 3; ++k) {
    t.mk[k][0] = sub(mul(ed[k][1], t.n[2]), mul(ed[k][2], t.n[1]));
    t.mk[k][1] = sub(mul(ed[k][2], t.n[0]), mul(ed[k][0], t.n[2]));
    t.mk[k][2] = sub(mul(ed[k][0], t.n[1]), mul(ed[k][1], t.n[0]));
  }
  t.rn = _mm256_sqrt_pd(t.n2);
  return t;
}
/// lower_bound1 (the form with TriangleTerms) on four lanes.
PROX_FORCE_INLINE LowerBound4 lower_bound4(const __m256d (&dk)[3][3], const __m256d (&ed)[3][3],
                                           const Terms4& tt) {
  using namespace pd4;
  const __m256d zero = _mm256_setzero_pd();
  const __m256d m1 = _mm256_max_pd(_mm256_max_pd(norm1(dk[0]), norm1(dk[1])), norm1(dk[2]));
  const __m256d ok = _mm256_and_pd(tt.ok, _mm256_cmp_pd(m1, _mm256_set1_pd(0x1p50), _CMP_LE_OQ));
  const __m256d h = dot(tt.n, dk[0]);
  const __m256d he = mul(mul(h, h), tt.e3);
  const __m256d gm = mul(tt.gs, m1);
  __m256d dd[3];
  for (int k = 0; k < 3; ++k) dd[k] = mul(mul(dot(dk[k], dk[k]), tt.n2), tt.e3);
  __m256d q = zero, nearest = _mm256_set1_pd(std::numeric_limits<double>::infinity());
  __m256d clear = zero;  // all bits set where an edge is clearly outside
  for (int k = 0; k < 3; ++k) {
    const __m256d t = sub(zero, dot(tt.mk[k], dk[k]));
    const __m256d u = _mm256_max_pd(t, zero);
    const __m256d a = mul(mul(u, u), tt.pk[k]);
    q = _mm256_max_pd(q, a);
    const __m256d tau = mul(gm, tt.ne[k]);
    clear = _mm256_or_pd(clear, _mm256_cmp_pd(t, tau, _CMP_GT_OQ));
    const __m256d sigma = sub(zero, dot(dk[k], ed[k]));
    __m256d seg = add(he, a);
    seg = _mm256_blendv_pd(seg, dd[(k + 1) % 3], _mm256_cmp_pd(sigma, tt.el[k], _CMP_GT_OQ));
    seg = _mm256_blendv_pd(seg, dd[k], _mm256_cmp_pd(sigma, zero, _CMP_LT_OQ));
    nearest = _mm256_blendv_pd(nearest, _mm256_min_pd(nearest, seg),
                               _mm256_cmp_pd(t, sub(zero, tau), _CMP_GT_OQ));
  }
  const __m256d base = add(he, q);
  const __m256d all = _mm256_blendv_pd(base, _mm256_max_pd(base, nearest), clear);
  // Lanes outside the safe range (degenerate triangles included): a = -inf,
  // no pruning (e3 1, rn 1, gm 0 there, as lower_bound1 returns).
  const __m256d one = _mm256_set1_pd(1.0);
  return {_mm256_blendv_pd(_mm256_set1_pd(-std::numeric_limits<double>::infinity()),
                           mul(all, _mm256_set1_pd(1.0 - 0x1p-39)), ok),
          _mm256_blendv_pd(one, tt.e3, ok), _mm256_blendv_pd(one, tt.rn, ok),
          _mm256_blendv_pd(zero, gm, ok)};
}
#endif

/// The closest point of p: the same answer as MeshIndex<T>::closest_point(p)
/// (see the file comment). hint: a triangle id whose kernel result bounds the
/// answer; balls: computed neighbours; scale: S of the file comment (the
/// caller's, for the mesh box; p's magnitude is added here).
template <class T, class Tag = void>
MeshClosestPoint<T> lune_closest_point(const FlatIndex<T>& x, const Vec3<T>& p,
                                       std::uint32_t hint, const Vec3<T>& h0, const Vec3<T>& h1,
                                       const Vec3<T>& h2, std::span<const EmptyBall> balls,
                                       double scale, LuneStats* stats = nullptr,
                                       const TriangleTerms4* terms = nullptr) {
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
      // The hi row where w_a >= 0, else the lo row (the box's corner farthest along w).
      c.off[a] = unsigned(c.w[a] >= 0 ? offsetof(bvh::Node8, hi) : offsetof(bvh::Node8, lo)) +
                 32u * unsigned(a);
    }
    if (w2 == 0) continue;
    const double cc = 0.5 * (rho * rho - big_r * big_r - w2);
    // The c of a far neighbour is very negative: it would cut nothing.
    if (!(cc > -big_r * std::sqrt(w2))) continue;
    const double mag = std::fabs(cc) + 0.5 * (rho * rho + big_r * big_r + w2) + w1 * 2 * s;
    // Float box test: sum_a sel_a wf_a >= c_box, the p . w term moved to the
    // threshold (three subtractions fewer per cut and node); w rounded to
    // float, box corners float (|sel_a| <= s): the sum is off by a few float
    // roundings of sum_a |sel_a| |w_a| <= s w1 (about 2^-21 s w1), p . w (in
    // double) by far less, and c_box is rounded down; the margin 2^-18 (4 s
    // w1 + |cc|) covers both with room.
    const double pw = (pd[0] * c.w[0] + pd[1] * c.w[1]) + pd[2] * c.w[2];
    const double loose = cc - mag * 0x1p-40 - 0x1p-18 * (w1 * 4 * s + std::fabs(cc));
    c.c_box = bvh::float_down(loose + pw);
    ++ncuts;
  }
  const bvh::PointQuery q(p);
  std::size_t visited = 0, tested = 0;
  LuneTest test{q, bvh::float_up(big_r * big_r) * bvh::kGrow, cuts, ncuts, &visited};
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
  // with_table: the terms come from the grid's table (a loop-invariant
  // choice, made once per query: a select inside the leaf cost 4% of the
  // search's instructions).
  auto leaf_for = [&](auto with_table) {
  return [&, with_table](std::uint32_t b, std::uint32_t n) {
    for (std::uint32_t s0 = b; s0 < b + n; s0 += bvh::kLeafAlign) {
      const LeafPack<T>& pk = x.pack_of(s0);
      const std::uint32_t live = std::min(std::uint32_t(bvh::kLeafAlign), b + n - s0);  // a copy: no odr-use of the global (no weak symbol in the ISA objects)
      __m256d dk[3][3], l = _mm256_setzero_pd();  // dk[k][a]: corner k minus p, axis a
      __m256d ed[3][3];  // ed[k][a]: edge k (corner k to k + 1), axis a
      for (int a = 0; a < 3; ++a) {
        const __m256d x0 = load4(pk.c[0][a]), x1 = load4(pk.c[1][a]), x2 = load4(pk.c[2][a]);
        ed[0][a] = _mm256_sub_pd(x1, x0);
        ed[1][a] = _mm256_sub_pd(x2, x1);
        ed[2][a] = _mm256_sub_pd(x0, x2);
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
      if (mask == 0) continue;
      // The triangle's lower bound (lower_bound4). It replaces the cuts on
      // the triangle's corners that were here: a triangle within R of p has a
      // point outside every empty ball, so the cuts prune only triangles
      // farther than R, and the bound prunes nearly all of those for fewer
      // operations (bunny at 128^3: 3.2 kernel calls a node instead of 13.4).
      // The triangles' own terms from the grid's table when it has one.
      LowerBound4 lb;
      if constexpr (decltype(with_table)::value)
        lb = lower_bound4(dk, ed, load_terms4(terms[s0 / bvh::kLeafAlign]));
      else
        lb = lower_bound4(dk, ed, terms4(ed));
      mask &= ~lb.above(big_r);
      if (mask == 0) continue;
      alignas(32) double lv[4], lba[4], lbe[4], lbr[4], lbg[4];
      _mm256_store_pd(lv, l);
      _mm256_store_pd(lba, lb.a);
      _mm256_store_pd(lbe, lb.e3);
      _mm256_store_pd(lbr, lb.rn);
      _mm256_store_pd(lbg, lb.gm);
      // The lanes left, in order; the two tests again only once an offer has
      // shrunk the bound (the 4-lane tests above used this R).
      const double r_tested = big_r;
      for (unsigned m = mask; m != 0; m &= m - 1) {
        const unsigned lane = unsigned(std::countr_zero(m));
        if (big_r != r_tested) {
          if (lv[lane] * kDown > big_r * big_r) continue;
          if (LowerBound1{lba[lane], lbe[lane], lbr[lane], lbg[lane]}.above(big_r)) continue;  // it cannot win
        }
        if (x.prims[s0 + lane] == hint) continue;  // best started from its kernel result
        offer(pk, s0 + lane, lane);
      }
    }
    return false;
  };
  };
  if (terms)
    bvh::traverse(x.nodes, test, leaf_for(std::true_type{}));
  else
    bvh::traverse(x.nodes, test, leaf_for(std::false_type{}));
#else
  auto leaf = [&](std::uint32_t b, std::uint32_t n) {
    for (std::uint32_t slot = b; slot < b + n; ++slot) {
      const LeafPack<T>& pk = x.pack_of(slot);
      const unsigned lane = FlatIndex<T>::lane_of(slot);
      // Box of the triangle against the current radius.
      double l = 0;
      double dk[3][3];  // corner k minus p, axis a
      double ed[3][3];  // edge k (corner k to k + 1), axis a
      for (int a = 0; a < 3; ++a) {
        const double x0 = double(pk.c[0][a][lane]), x1 = double(pk.c[1][a][lane]),
                     x2 = double(pk.c[2][a][lane]);
        ed[0][a] = x1 - x0;
        ed[1][a] = x2 - x1;
        ed[2][a] = x0 - x2;
        const double lo = std::min(x0, std::min(x1, x2));
        const double hi = std::max(x0, std::max(x1, x2));
        const double d = std::max(std::max(lo - pd[a], pd[a] - hi), 0.0);
        l += d * d;
        dk[0][a] = x0 - pd[a];
        dk[1][a] = x1 - pd[a];
        dk[2][a] = x2 - pd[a];
      }
      if (l * kDown > big_r * big_r) continue;
      const TriangleTerms tt =
          terms ? lane_terms(terms[slot / bvh::kLeafAlign], lane) : triangle_terms(ed);
      if (lower_bound1(dk, ed, tt).above(big_r)) continue;  // as the AVX2 path above
      if (x.prims[slot] == hint) continue;
      offer(pk, slot, lane);
    }
    return false;
  };
  bvh::traverse(x.nodes, test, leaf);
#endif
  if (stats) {
    ++stats->queries;
    stats->nodes_visited += visited;
    stats->triangles_tested += tested;
  }
  return best;
}

}  // namespace PROX_ISA_NAMESPACE

}  // namespace prox::sdf_detail
