// prox/mesh/sdf_grid_lune_impl.hpp — the closest point of a grid node, pruned by the
// empty balls of already computed neighbours (the "lune" certificate).
//
// Used by signed_distance_grid (prox/mesh/sdf_grid.hpp) through
// lune_closest_point_isa: the template below compiled once per ISA path
// (src/mesh/sdf_grid_isa.cpp, as the engine's own objects) and called on the
// path the engine runs. With the grid's table (FloatBoundTable) a leaf tests
// eight triangles' distance lower bounds at once in float (float_bound8, on
// every path); without it, with AVX2, four triangles' box bounds and double
// lower bounds (lower_bound1 below) in 4-lane doubles (the same operations as
// the scalar path, so the same decisions). It walks the index's public layout
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
// For a neighbour along an axis (w = (w_a, 0, 0) and the like: the grid's
// neighbours (i-1, j, k), (i, j-1, k) and (i, j, k -+ 1)) it is a side of a
// clip box, x_a >= p_a + c_q / w_a (w_a > 0) or <= (w_a < 0), and a node box
// wholly outside the clip box holds no candidate: one exact compare of its
// float bound per side. Far from the surface, the half-spaces of a few
// neighbours on different sides cut the search cap of radius ~sqrt(2 d b) (b:
// leaf size, d: distance), which the box lower bounds alone cannot shrink,
// down to a patch about a cell wide. (The half-spaces of diagonal neighbours,
// tested at each node box's corner farthest along w, cut about 8% of node
// visits more but cost more than those visits: without them the search runs
// 13% fewer instructions and 6% less time, stop 38; a triangle's distance
// lower bound, in the leaf, does better than cuts on its corners.)
//
// Rounding. Kernel distances are the exact ones to within E = 2^14 eps_T S
// (S: the largest coordinate magnitude of the mesh box and the node, plus the
// box diagonal; docs/kernel-accuracy.md measures at most ~10^3 eps_T S,
// slivers included), so D_q is lowered and R raised by E; the clip box's
// sides by 2^-40 of the magnitudes they are computed from, outward; the
// triangle's lower bounds by their own margins (lower_bound1, float_bound8).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "prox/bvh/traverse.hpp"
#include "prox/core/platform.hpp"
#include "prox/mesh/flat_index.hpp"
#include "prox/mesh/results.hpp"
#include "prox/mesh/sdf_grid_bounds.hpp"
#include "prox/mesh/sdf_grid_lune.hpp"
#include "prox/primitives/closest_point_triangle.hpp"

namespace prox::sdf_detail {

inline namespace PROX_ISA_NAMESPACE {

/// Node test: box lower bound against the current bound, and the clip box
/// (the half-spaces of neighbours along an axis).
struct LuneTest {
  /// The walk needs no nearest-first order: R starts at the hint's distance,
  /// usually the answer.
  static constexpr bool kUnordered = true;
  const bvh::PointQuery& q;
  float bound;
  std::size_t* visited;
  /// Keep a child whose box has hi_a >= clip_lo[a] and lo_a <= clip_hi[a]
  /// (-inf / +inf on the sides no neighbour bounds).
  float clip_lo[3], clip_hi[3];
  float limit() const { return bound; }
  PROX_FORCE_INLINE unsigned children(const bvh::Node8& n, float* key) {
    using namespace prox::simd;
    ++*visited;
    F8 lb, ub;
    bvh::box_distances8(n, q, lb, ub);
    store8(key, lb);
    F8 keep = le8(lb, set8(bound));
    for (int a = 0; a < 3; ++a)
      keep = and8(keep, and8(le8(set8(clip_lo[a]), load8(n.hi[a])),
                             le8(load8(n.lo[a]), set8(clip_hi[a]))));
    return movemask8(keep);
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

#if defined(PROX_SIMD_AVX2)
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

/// TriangleTerms of four lanes in registers, computed from the edges (the same
/// operations as triangle_terms, lane by lane).
struct Terms4 {
  __m256d n[3], mk[3][3], el[3], pk[3], e3, n2, rn, gs, ne[3], ok;
};
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

/// The bound of lower_bound1 in float, for the 8 lanes of a chunk of the
/// grid's table (FloatTerms8, prox/mesh/sdf_grid_bounds.hpp), on every ISA
/// path (prox/bvh/simd8.hpp). The triangle's terms are unit vectors and
/// lengths rounded once from double, so the bound is in distance units and
/// its error is relative to the distances at hand, not to the triangle's shape:
/// with e_k = p - corner k (float, both relative to the table's origin),
/// h = n.e_0, t_k = m_k.e_k (> 0: outside edge line k), sigma_k = u_k.e_k
/// (the projection's position along edge k), the bound squared is
///   h^2 + max_k max(0, t_k)^2, raised where some t_k > tau (the projection is
///   clearly outside) to the least segment distance over the edges with
///   t_k > -tau: |e_k|^2 before the edge, |e_k+1|^2 past it, else h^2 + t_k^2,
/// which is the distance itself in the face, edge and corner regions (the
/// argument of lower_bound1, in unit terms).
///
/// Rounding. Let M be the largest 1-norm of e_k (reach below), and A =
/// 2^-23 (C + P), C and P the largest coordinate of corner - origin and of
/// p - origin. Then:
///  - each coordinate of e_k is within 2^-24 (C + P) + 2^-24 |e_k| of the
///    exact p - corner (two roundings to float, one float subtraction), so
///    |e_k - E_k| <= A + 2^-24 M;
///  - n, m_k, u_k are within 2^-23.9 of the exact unit vectors (one rounding
///    to float of a double within 2^-30 of it: set_float_lane's condition),
///    len_k within 2^-24 len_k <= 2^-23 M;
///  - so h, t_k, sigma_k (a dot product: 3 roundings, 2 where the path
///    fuses them (mul_add8_bound), of terms summing to at most |e| |unit|) are within eps1 = A + 2^-21 M of their exact values;
///    tau = 2A + 2^-19 M + 2^-60 exceeds eps1, so t_k > tau implies the exact
///    t_k > 0, and an edge with exact t_k > 0 has t_k > -tau (the argument of
///    lower_bound1 then holds with the computed decisions);
///  - sqrt(h^2 + t^2) is 1-Lipschitz in (h, t); a corner distance is off by
///    at most A + 2^-24 M; a wrong end decision (sigma within eps1 + 2^-23 M of
///    0 or len) costs at most that much; the squares and sums round by a
///    relative 2^-22 at most.
/// So sqrt(all) <= (d + 2.5 A + 2^-20 M)(1 + 2^-22), d the exact distance, and
/// a lane is above r (r >= 0, a float rounded up) when
///   all (1 - 2^-18) > x^2,  x = (r + k) + 2^-18 M,  k = 4A + 2^-60
/// (1.6x the margin needed on A, 4x on M and on the relative terms, which
/// also absorb rounding x and the product; 2^-60 covers underflowing
/// squares, and nothing is pruned where x^2 < 2^-100 or M > 2^60, where no
/// square overflows). Lanes not ok in the table have all-zero terms: their
/// bound is 0, never above. tests/mesh/test_sdf_lower_bound.cpp checks the
/// bound against the exact (GMP) distance on the kernel oracle's families.
struct FloatBound8 {
  simd::F8 all;    ///< the bound squared, as computed
  simd::F8 reach;  ///< M
};
PROX_FORCE_INLINE FloatBound8 float_bound8(const FloatTerms8& t, const simd::F8 (&pl)[3],
                                           const simd::F8& tau0) {
  using namespace prox::simd;
  F8 e[3][3];
  for (int k = 0; k < 3; ++k)
    for (int a = 0; a < 3; ++a) e[k][a] = sub8(pl[a], load8(t.c[k][a]));
  // Fused where the path has FMA (one rounding fewer a step: the margins
  // below hold for either; the bound may differ by path in its last bits,
  // so may which lanes reach the kernel, never the answer).
  auto dot = [](const F8* u, const F8* v) {
    return mul_add8_bound(u[2], v[2], mul_add8_bound(u[1], v[1], mul8(u[0], v[0])));
  };
  auto norm1 = [](const F8* u) { return add8(add8(abs8(u[0]), abs8(u[1])), abs8(u[2])); };
  F8 n[3];
  for (int a = 0; a < 3; ++a) n[a] = load8(t.n[a]);
  const F8 h = dot(n, e[0]);
  const F8 h2 = mul8(h, h);
  const F8 reach = max8(max8(norm1(e[0]), norm1(e[1])), norm1(e[2]));
  const F8 tau = add8(tau0, mul8(set8(0x1p-19f), reach));
  const F8 ntau = sub8(set8(0.0f), tau);
  F8 dd[3];
  for (int k = 0; k < 3; ++k) dd[k] = dot(e[k], e[k]);
  const F8 zero = set8(0.0f);
  F8 q = zero, nearest = set8(std::numeric_limits<float>::infinity()), clear = zero;
  for (int k = 0; k < 3; ++k) {
    F8 m[3], u[3];
    for (int a = 0; a < 3; ++a) {
      m[a] = load8(t.m[k][a]);
      u[a] = load8(t.u[k][a]);
    }
    const F8 tk = dot(m, e[k]);
    const F8 s = max8(tk, zero);
    const F8 sq = mul8(s, s);
    q = max8(q, sq);
    clear = or8(clear, gt8(tk, tau));
    const F8 sigma = dot(u, e[k]);
    F8 seg = add8(h2, sq);
    seg = select8(gt8(sigma, load8(t.len[k])), dd[(k + 1) % 3], seg);
    seg = select8(lt8(sigma, zero), dd[k], seg);
    nearest = select8(gt8(tk, ntau), min8(nearest, seg), nearest);
  }
  const F8 base = add8(h2, q);
  return {select8(clear, max8(base, nearest), base), reach};
}
/// The float bound's setup for point p (double) and a table with this origin
/// and reach (C of float_bound8): A = 2^-23 (C + P), P the largest coordinate
/// of p - origin; tau0 = 2A + 2^-60 and k = 4A + 2^-60, rounded up.
inline FloatBoundSetup float_bound_setup(const double (&origin)[3], double reach,
                                         const double (&p)[3]) {
  const double pl[3] = {p[0] - origin[0], p[1] - origin[1], p[2] - origin[2]};
  const double reach_p = std::max({std::fabs(pl[0]), std::fabs(pl[1]), std::fabs(pl[2])});
  const double slack = 0x1p-23 * (reach + reach_p);  // A
  return {{float(pl[0]), float(pl[1]), float(pl[2])},
          bvh::float_up(2 * slack + 0x1p-60),
          bvh::float_up(4 * slack + 0x1p-60)};
}
/// float_bound8 at the point of a setup.
PROX_FORCE_INLINE FloatBound8 float_bound8(const FloatTerms8& t, const FloatBoundSetup& s) {
  const simd::F8 pl[3] = {simd::set8(s.p[0]), simd::set8(s.p[1]), simd::set8(s.p[2])};
  return float_bound8(t, pl, simd::set8(s.tau0));
}

/// Lanes whose float bound is above r (see float_bound8): bit per lane.
PROX_FORCE_INLINE unsigned float_above8(const FloatBound8& b, float r, float k) {
  using namespace prox::simd;
  const F8 x = add8(set8(r + k), mul8(set8(0x1p-18f), b.reach));
  const F8 rhs = mul8(x, x);
  return movemask8(and8(and8(le8(set8(0x1p-100f), rhs), le8(b.reach, set8(0x1p60f))),
                        gt8(mul8(b.all, set8(1.0f - 0x1p-18f)), rhs)));
}
/// float_above8 for one lane.
inline bool float_above1(float all, float reach, float r, float k) {
  const float x = (r + k) + 0x1p-18f * reach;
  const float rhs = x * x;
  return rhs >= 0x1p-100f && reach <= 0x1p60f && all * (1.0f - 0x1p-18f) > rhs;
}

/// Whether slot `lane` of pk cannot be closer to pd than r, by its box and
/// lower_bound1 in double (the terms computed at this visit).
template <class T>
bool double_bound_above(const LeafPack<T>& pk, unsigned lane, const double (&pd)[3], double r) {
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
  if (l * (1.0 - 0x1p-40) > r * r) return true;
  return lower_bound1(dk, ed).above(r);
}

/// The closest point of p: the same answer as MeshIndex<T>::closest_point(p)
/// (see the file comment). hint: a triangle id whose kernel result bounds the
/// answer; balls: computed neighbours; scale: S of the file comment (the
/// caller's, for the mesh box; p's magnitude is added here); io_slot, if given:
/// in, the hint's slot (or bvh::kInvalid), out, the answer's slot (kInvalid
/// where the hint stayed the answer and its slot was not known).
///
/// near, if given: also lists every other triangle whose kernel squared
/// distance is within near_radius_sq(answer, near_reach) (prox/mesh/results.hpp),
/// as MeshIndex::closest_point_near does: the search radius R is raised by
/// near_reach (R = sqrt(best) + E + near_reach, rounded up), so a triangle left out is
/// farther than sqrt(best) + near_reach + E exactly and its kernel distance (within
/// E of that) beyond the listing radius; the empty balls hold no surface
/// whatever R, so the clip box, computed with the raised R, still keeps every
/// such triangle. The answer is unchanged (a larger R only offers more
/// triangles, which lose).
template <class T, class Tag = void>
MeshClosestPoint<T> lune_closest_point(const FlatIndex<T>& x, const Vec3<T>& p,
                                       std::uint32_t hint, const Vec3<T>& h0, const Vec3<T>& h1,
                                       const Vec3<T>& h2, std::span<const EmptyBall> balls,
                                       double scale, LuneStats* stats = nullptr,
                                       const FloatBoundTable* table = nullptr,
                                       std::uint32_t* io_slot = nullptr,
                                       NearTriangles<T>* near = nullptr, double near_reach = 0) {
  MeshClosestPoint<T> best;
  std::uint32_t best_slot = io_slot ? *io_slot : bvh::kInvalid;
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
  const double listed = near != nullptr ? near_reach : 0.0;  // R's extra reach (near: see above)
  auto radius_of = [&](T sq) { return ((std::sqrt(double(sq)) + e) + listed) * kUp; };
  // near: the listing radius of the best so far, and the triangles within it.
  T near_sq = T(0);
  auto note = [&](const ClosestPointTriangleResult<T>& r, std::int32_t id) {
    near->note({id, r.feature, r.sq_distance, r.point}, near_sq);
  };
  if (near != nullptr) {
    near->clear();
    near_sq = near_radius_sq(best.sq_distance, near_reach);
    note(hr, std::int32_t(hint));
  }
  double big_r = radius_of(best.sq_distance);
  float big_rf = bvh::float_up(big_r);  // big_r rounded up to float (the float bound's R)
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float clip_lo[3] = {-kInf, -kInf, -kInf}, clip_hi[3] = {kInf, kInf, kInf};
  for (const EmptyBall& b : balls) {
    const double w[3] = {pd[0] - b.q[0], pd[1] - b.q[1], pd[2] - b.q[2]};
    // Only a neighbour along an axis cuts (see the file comment): the
    // half-space of any other is left out, which only prunes less.
    const unsigned along =
        unsigned(w[0] != 0) | unsigned(w[1] != 0) << 1 | unsigned(w[2] != 0) << 2;
    if (!std::has_single_bit(along)) continue;
    const int axis = std::countr_zero(along);
    const double rho = std::sqrt(b.sq_distance) * kDown - e;
    if (!(rho > 0)) continue;
    const double w1 = std::fabs(w[axis]), w2 = w[axis] * w[axis];  // |w|_1, |w|^2
    const double cc = 0.5 * (rho * rho - big_r * big_r - w2);
    // The c of a far neighbour is very negative: it would cut nothing.
    if (!(cc > -big_r * w1)) continue;
    // The half-space is x_a >= p_a + c / w_a (w_a > 0) or x_a <= p_a + c / w_a
    // (w_a < 0), a side of the clip box, tested exactly against the float box
    // bounds. c is lowered by 2^-40 of the magnitudes it is computed from, and
    // the threshold's division and sum round by a few 2^-53 of |p_a| + |c / w_a|;
    // 2^-40 of that is taken off (towards keeping) before rounding to float.
    const double mag = std::fabs(cc) + 0.5 * (rho * rho + big_r * big_r + w2) + w1 * 2 * s;
    const double shift = (cc - mag * 0x1p-40) / w[axis];
    const double thr = pd[axis] + shift;
    const double slack = 0x1p-40 * (std::fabs(pd[axis]) + std::fabs(shift));
    if (w[axis] > 0)
      clip_lo[axis] = std::max(clip_lo[axis], bvh::float_down(thr - slack));
    else
      clip_hi[axis] = std::min(clip_hi[axis], bvh::float_up(thr + slack));
  }
  const bvh::PointQuery q(p);
  std::size_t visited = 0, tested = 0;
  LuneTest test{q,
                bvh::float_up(big_r * big_r) * bvh::kGrow,
                &visited,
                {clip_lo[0], clip_lo[1], clip_lo[2]},
                {clip_hi[0], clip_hi[1], clip_hi[2]}};
  auto offer = [&](const LeafPack<T>& pk, std::uint32_t s_offer, unsigned lane) {
    ++tested;
    const ClosestPointTriangleResult<T> r = detail::closest_point_triangle_tagged<T, Tag>(
        p, pk.corner(lane, 0), pk.corner(lane, 1), pk.corner(lane, 2));
    const std::int32_t id = std::int32_t(x.prims[s_offer]);
    if (r.sq_distance < best.sq_distance ||
        (r.sq_distance == best.sq_distance && id < best.triangle)) {
      const bool closer = r.sq_distance < best.sq_distance;
      best_slot = s_offer;
      best.point = r.point;
      best.sq_distance = r.sq_distance;
      best.triangle = id;
      best.bary = r.bary;
      best.feature = r.feature;
      if (closer) {
        big_r = radius_of(best.sq_distance);
        big_rf = bvh::float_up(big_r);
        test.bound = std::min(test.bound, bvh::float_up(big_r * big_r) * bvh::kGrow);
        if (near != nullptr) near_sq = near_radius_sq(best.sq_distance, near_reach);
      }
    }
    if (near != nullptr) note(r, id);
  };
  if (table != nullptr) {
    // With the grid's table: a leaf's chunks of 8 slots through the float
    // bound (float_bound8), on every ISA path; the lanes left, in order, run
    // the kernel (the bound tested again only once an offer has shrunk R).
    // Lanes the table could not set (slivers, far corners) take the double
    // bound instead.
    const FloatBoundSetup fs = float_bound_setup(table->origin, table->reach, pd);
    const simd::F8 pl[3] = {simd::set8(fs.p[0]), simd::set8(fs.p[1]), simd::set8(fs.p[2])};
    const simd::F8 tau0 = simd::set8(fs.tau0);  // broadcast once a search, not a chunk
    const float kf = fs.k;
    auto leaf = [&](std::uint32_t b, std::uint32_t n) {
      for (std::uint32_t s0 = b; s0 < b + n; s0 += 8) {
        const FloatTerms8& ft = table->chunk(s0);
        const std::uint32_t live = std::min(std::uint32_t(8), b + n - s0);
        const FloatBound8 fb = float_bound8(ft, pl, tau0);
        const unsigned mask = ~float_above8(fb, big_rf, kf) & ((1u << live) - 1u);
        if (mask == 0) continue;
        alignas(32) float all[8], reach[8];
        simd::store8(all, fb.all);
        simd::store8(reach, fb.reach);
        const double r_tested = big_r;
        for (unsigned m = mask; m != 0; m &= m - 1) {
          const unsigned lane = unsigned(std::countr_zero(m));
          const std::uint32_t slot = s0 + lane;
          const LeafPack<T>& pk = x.pack_of(slot);
          if ((ft.ok >> lane) & 1u) {
            if (big_r != r_tested && float_above1(all[lane], reach[lane], big_rf, kf))
              continue;
          } else if (double_bound_above(pk, FlatIndex<T>::lane_of(slot), pd, big_r)) {
            continue;
          }
          if (x.prims[slot] == hint) continue;  // best started from its kernel result
          offer(pk, slot, FlatIndex<T>::lane_of(slot));
        }
      }
      return false;
    };
    bvh::traverse(x.nodes, test, leaf);
  } else {
#if defined(PROX_SIMD_AVX2)
  // Without a table: one pack (4 slots) at a time in 4-lane doubles, the
  // terms computed at each visit; the same operations, in the same order, as
  // the scalar path below, for the pack's 4 lanes.
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
      // The triangle's lower bound (lower_bound4): a triangle within R of p
      // has a point outside every empty ball, so cuts on the triangle's
      // corners would prune only triangles farther than R, and the bound
      // prunes nearly all of those for fewer operations.
      const LowerBound4 lb = lower_bound4(dk, ed, terms4(ed));
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
  bvh::traverse(x.nodes, test, leaf);
#else
  auto leaf = [&](std::uint32_t b, std::uint32_t n) {
    for (std::uint32_t slot = b; slot < b + n; ++slot) {
      const LeafPack<T>& pk = x.pack_of(slot);
      const unsigned lane = FlatIndex<T>::lane_of(slot);
      if (double_bound_above(pk, lane, pd, big_r)) continue;  // as the AVX2 path above
      if (x.prims[slot] == hint) continue;
      offer(pk, slot, lane);
    }
    return false;
  };
  bvh::traverse(x.nodes, test, leaf);
#endif
  }
  if (near != nullptr) near->finish(near_sq, best.triangle);
  if (stats) {
    ++stats->queries;
    stats->nodes_visited += visited;
    stats->triangles_tested += tested;
  }
  if (io_slot) *io_slot = best_slot;
  return best;
}

}  // namespace PROX_ISA_NAMESPACE

}  // namespace prox::sdf_detail
