// prox/primitives/closest_point_triangle.hpp — closest point on a solid 3D triangle.
//
// Algorithm: Ericson, Real-Time Collision Detection, 5.1.5 (seed 000): classify
// p into one of the seven Voronoi regions with six dot products; a vertex or
// edge region gives that vertex or the projection on that edge. The face region
// (detail::face_or_edges) drops p onto the plane along n = ab x ac and
// re-checks that the projection is inside, in double for float input; that is
// the same point as the seed's a + v ab + w ac exactly, but it does not let a
// sliver's rounding move the answer along the sliver (docs/kernel-accuracy.md).
// No square roots.
//
// Inputs: query p, corners a, b, c. Output: `point`, `sq_distance` (squared),
// `bary` (weights of a, b, c; they sum to 1 and point = bary . (a, b, c)),
// `feature` (the smallest feature holding the point: a vertex, an open edge or
// the face).
//
// Degenerate triangles (collinear or coincident corners, detected exactly:
// |ab x ac|^2 == 0) are the segment or point they collapse to: the nearest of
// the closest points of the three edges (whose union is that segment), an
// edge's interior point beating an endpoint of it that another edge clamped to
// (detail::closest_on_edges); never NaN. Slivers that are not exactly
// degenerate take the ordinary path; a face answer that rounding put outside
// the triangle falls back to the edges.
// Non-finite input (NaN/Inf in any coordinate): a miss — every output NaN,
// feature face. Exact scalar types (mpq_class) give the exact answer.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <bit>
#include <limits>
#include <type_traits>
#include <utility>

#include "prox/core/vec.hpp"
#include "prox/primitives/expansion.hpp"
#include "prox/primitives/feature.hpp"

namespace prox {

template <class T>
struct ClosestPointTriangleResult {
  Vec3<T> point;     ///< closest point of the triangle
  T sq_distance;     ///< |p - point|^2
  Vec3<T> bary;      ///< weights of a, b, c
  Feature feature;   ///< region of the triangle that holds `point`
};

namespace detail {

template <class T>
ClosestPointTriangleResult<T> triangle_miss() {
  const T nan = ScalarTraits<T>::quiet_nan();
  return {Vec3<T>::splat(nan), nan, Vec3<T>::splat(nan), Feature::face};
}

template <class T>
bool all_finite(const Vec3<T>& p, const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
  if constexpr (ScalarTraits<T>::is_ieee) {
    return prox::all_finite(p) && prox::all_finite(a) && prox::all_finite(b) &&
           prox::all_finite(c);
  } else {
    return true;
  }
}

// The helpers take a Tag type that only names the instance: the mesh engine's
// ISA builds pass their own, so each ISA's copy of the kernel is a distinct
// symbol (see src/mesh/kernel_instances.hpp); everyone else gets void.

/// Result on edge (i, j) with parameter s along it (0 at corner i).
template <class T, class Tag = void>
ClosestPointTriangleResult<T> on_edge(const Vec3<T>& p, const Vec3<T>* corners, int i, int j,
                                      const T& s) {
  static constexpr Feature edge_of[3][3] = {{Feature::v0, Feature::e01, Feature::e20},
                                            {Feature::e01, Feature::v1, Feature::e12},
                                            {Feature::e20, Feature::e12, Feature::v2}};
  ClosestPointTriangleResult<T> r;
  r.bary = Vec3<T>::zero();
  if (s <= T(0)) {
    r.point = corners[i];
    r.bary[i] = T(1);
    r.feature = edge_of[i][i];
  } else if (s >= T(1)) {
    r.point = corners[j];
    r.bary[j] = T(1);
    r.feature = edge_of[j][j];
  } else {
    r.point = lerp(corners[i], corners[j], s);
    r.bary[i] = T(1) - s;
    r.bary[j] = s;
    r.feature = edge_of[i][j];
  }
  r.sq_distance = squared_distance(p, r.point);
  return r;
}

/// Closest point of segment (corners[i], corners[j]) as a triangle result.
template <class T, class Tag = void>
ClosestPointTriangleResult<T> closest_on_edge(const Vec3<T>& p, const Vec3<T>* corners, int i,
                                              int j) {
  const Vec3<T> d = corners[j] - corners[i];
  const T dd = dot(d, d);
  if (dd == T(0)) return on_edge<T, Tag>(p, corners, i, j, T(0));
  const T s = dot(p - corners[i], d) / dd;
  return on_edge<T, Tag>(p, corners, i, j, s);
}

/// closest_on_edge for the far-corner path (closest_point_from_nearest): an
/// answer inside the edge is p minus its offset from the line, computed as
/// d x ((p - ci) x d) / |d|^2 (d = cj - ci) with the cross product
/// (p - ci) x d from exact expansions (detail::xp), so the offset's error is
/// a few ulps of its own length (the distance), not eps times the distance
/// from p to the edge's ends. The point's error is then a few ulps of
/// |p| + distance, the squared distance's relative error about that over
/// the distance (before: ~ eps |p - ci| / distance, e.g. 0.875 for an exact
/// 0.3125 on an edge whose ends are 3.7e22 and 3.9e23 away). The region
/// (which end, or the inside) and the weights are the ordinary ones.
template <class T, class Tag = void>
ClosestPointTriangleResult<T> closest_on_edge_far(const Vec3<T>& p, const Vec3<T>* corners,
                                                  int i, int j) {
  ClosestPointTriangleResult<T> r = closest_on_edge<T, Tag>(p, corners, i, j);
  if constexpr (ScalarTraits<T>::is_ieee) {
    if (r.feature == Feature::v0 || r.feature == Feature::v1 || r.feature == Feature::v2)
      return r;
    const Vec3<double> pw = p.template cast<double>();
    const Vec3<double> a = corners[i].template cast<double>();
    const Vec3<double> b = corners[j].template cast<double>();
    Vec3<double> x;
    xp::cross_of_differences(&pw[0], &a[0], &b[0], &x[0]);
    const Vec3<double> d = b - a;
    const Vec3<double> off = cross(d, x) * (1.0 / dot(d, d));
    const Vec3<T> point = (pw - off).template cast<T>();
    if (prox::all_finite(point)) {
      r.point = point;
      r.sq_distance = squared_distance(p, r.point);
    }
  }
  return r;
}

/// True when r is a corner result, q a result inside edge (i, j), and r's
/// point is corner i or j (by position: coincident corners count): then q is
/// strictly nearer than r, whatever the rounded distances say.
template <class T, class Tag = void>
bool beaten_by_interior(const ClosestPointTriangleResult<T>& r,
                        const ClosestPointTriangleResult<T>& q, const Vec3<T>* corners) {
  if (r.feature != Feature::v0 && r.feature != Feature::v1 && r.feature != Feature::v2)
    return false;
  int i = 0, j = 1;
  switch (q.feature) {
    case Feature::e01: break;
    case Feature::e12: i = 1, j = 2; break;
    case Feature::e20: i = 2, j = 0; break;
    default: return false;
  }
  return r.point == corners[i] || r.point == corners[j];
}

/// Nearest of the three edges; ties go to the first edge in the order ab, bc, ca.
/// An edge's interior point beats an endpoint of that edge that another edge
/// clamped to, whatever the rounded distances say: exactly, it is strictly
/// nearer, and near a corner the two distances agree to rounding while the
/// points differ by about sqrt(epsilon) of the edge length.
/// kNearFirst (corners ordered by distance to p, nearest first): edge ca is
/// parametrized from a, so that every edge is, from its nearer end.
template <class T, class Tag = void, bool kNearFirst = false>
ClosestPointTriangleResult<T> closest_on_edges(const Vec3<T>& p, const Vec3<T>* corners) {
  const ClosestPointTriangleResult<T> cand[3] = {
      kNearFirst ? closest_on_edge_far<T, Tag>(p, corners, 0, 1)
                 : closest_on_edge<T, Tag>(p, corners, 0, 1),
      kNearFirst ? closest_on_edge_far<T, Tag>(p, corners, 1, 2)
                 : closest_on_edge<T, Tag>(p, corners, 1, 2),
      kNearFirst ? closest_on_edge_far<T, Tag>(p, corners, 0, 2)
                 : closest_on_edge<T, Tag>(p, corners, 2, 0)};
  int best = 0;
  for (int i = 1; i < 3; ++i) {
    if (beaten_by_interior<T, Tag>(cand[i], cand[best], corners)) continue;
    if (beaten_by_interior<T, Tag>(cand[best], cand[i], corners) ||
        cand[i].sq_distance < cand[best].sq_distance)
      best = i;
  }
  return cand[best];
}

/// Float inputs are evaluated in double here: products of floats are exact in
/// double, so a float sliver's plane is still well determined.
template <class T> struct WideScalar { using type = T; };
template <> struct WideScalar<float> { using type = double; };

/// The face answer when p's projection is strictly inside the triangle (seed
/// 003's three edge signs), else the nearest edge. This is where the region
/// methods end up for the face: a + v ab + w ac is the same point exactly, but
/// v and w carry the rounding of va + vb + vc, which a sliver amplifies as
/// 1/sin^2 of its smallest angle (and in float can make the region test itself
/// noise); projecting p along n, and re-checking that the projection is inside,
/// costs an error growing only as 1/sin, and nothing for a well-shaped triangle.
template <class T, class Tag = void, bool kNearFirst = false>
ClosestPointTriangleResult<T> face_or_edges(const Vec3<T>& p, const Vec3<T>* corners) {
  using W = typename WideScalar<T>::type;
  const Vec3<W> pw = p.template cast<W>();
  const Vec3<W> a = corners[0].template cast<W>();
  const Vec3<W> b = corners[1].template cast<W>();
  const Vec3<W> c = corners[2].template cast<W>();
  const Vec3<W> n = cross(b - a, c - a);
  const W nn = dot(n, n);
  const W wc = dot(cross(b - a, pw - a), n);  // nn times the weight of c
  const W wa = dot(cross(c - b, pw - b), n);
  // Weight of b: the same (a - c) x (p - c) = (p - a) x (c - a) exactly; from
  // the nearest corner a in kNearFirst order, where p - c would lose p.
  const W wb = kNearFirst ? dot(cross(pw - a, c - a), n) : dot(cross(a - c, pw - c), n);
  if (!(nn > W(0) && wa > W(0) && wb > W(0) && wc > W(0)))
    return closest_on_edges<T, Tag, kNearFirst>(p, corners);
  const W k = dot(n, pw - a) / nn;
  ClosestPointTriangleResult<T> r;
  r.point = (pw - n * k).template cast<T>();
  r.bary[1] = T(W(wb / nn));
  r.bary[2] = T(W(wc / nn));
  r.bary[0] = T(1) - r.bary[1] - r.bary[2];
  r.feature = Feature::face;
  r.sq_distance = squared_distance(p, r.point);
  return r;
}

template <class T, class Tag>
ClosestPointTriangleResult<T> closest_point_triangle_tagged(const Vec3<T>& p, const Vec3<T>& a,
                                                            const Vec3<T>& b, const Vec3<T>& c);

/// A float triangle's answer from the double kernel (exact inputs: a float
/// is a double), rounded to float: the rare paths where float's own
/// arithmetic is not accurate enough (closest_point_rescaled,
/// closest_point_from_nearest; far_solve keeps its float answer from
/// expansions, which the GLSL kernel's sliver answers match bit for bit,
/// tests/gpu/test_gpu_kernels.cpp). Its error is then the final rounding: within
/// about half a float ulp of max(distance, |p|) on edges passing 1e-3 .. 3
/// from p with ends 1e5 .. 1e15 away (tests/mesh/test_far_slivers.cpp; the
/// float nearest-corner path measured such edges in float: up to 1.9e7 ulps).
/// Out of line: a rare path, and the widening of the float inputs then
/// happens on values read from memory, never on a caller's inlined
/// double -> float rounding, which GCC 12.2's SLP vectorizer can fold away
/// (docs/kernel-accuracy.md).
template <class Tag>
[[gnu::noinline]] ClosestPointTriangleResult<float> closest_point_in_double(const Vec3<float>& p,
                                                          const Vec3<float>& a,
                                                          const Vec3<float>& b,
                                                          const Vec3<float>& c) {
  const ClosestPointTriangleResult<double> w = closest_point_triangle_tagged<double, Tag>(
      p.template cast<double>(), a.template cast<double>(), b.template cast<double>(),
      c.template cast<double>());
  ClosestPointTriangleResult<float> r;
  r.point = w.point.template cast<float>();
  r.sq_distance = float(w.sq_distance);
  r.bary = w.bary.template cast<float>();
  r.feature = w.feature;
  return r;
}

/// The answer for a triangle whose corners are all far from p compared with
/// the answer (far_answer), from exact expansions (detail::xp): n = ab x ac
/// and the three weights (c - b) x (p - b) . n, ... with each cross product's
/// components nearly rounded, so the inside test is right unless p's
/// projection is within a few ulps (relative) of an edge's line; inside:
/// p minus its offset from the plane, n det[b - a, c - a, p - a] / |n|^2
/// (the determinant exact, rounded once); outside: the nearest of the three
/// edges by closest_on_edge_far. Error: a few ulps of max(distance, |p|),
/// not eps times the corners' distance.
template <class T, class Tag = void>
[[gnu::noinline]] ClosestPointTriangleResult<T> far_solve(const Vec3<T>& p,
                                                          const Vec3<T>* corners) {
  const Vec3<double> pw = p.template cast<double>();
  const Vec3<double> a = corners[0].template cast<double>();
  const Vec3<double> b = corners[1].template cast<double>();
  const Vec3<double> c = corners[2].template cast<double>();
  Vec3<double> n, xa, xb, xc;
  xp::cross_of_differences(&b[0], &a[0], &c[0], &n[0]);   // (b - a) x (c - a)
  xp::cross_of_differences(&pw[0], &b[0], &c[0], &xa[0]); // (p - b) x (c - b)
  xp::cross_of_differences(&pw[0], &c[0], &a[0], &xb[0]); // (p - c) x (a - c)
  xp::cross_of_differences(&pw[0], &a[0], &b[0], &xc[0]); // (p - a) x (b - a)
  // (c - b) x (p - b) = -(p - b) x (c - b): the weights, times |n|^2.
  const double wa = -dot(xa, n), wb = -dot(xb, n), wc = -dot(xc, n);
  const double nn = dot(n, n);
  ClosestPointTriangleResult<T> r;
  if (nn > 0 && wa > 0 && wb > 0 && wc > 0) {
    double rows[3][3][2];
    for (int i = 0; i < 3; ++i) {
      xp::two_sum(b[i], -a[i], rows[0][i][1], rows[0][i][0]);
      xp::two_sum(c[i], -a[i], rows[1][i][1], rows[1][i][0]);
      xp::two_sum(pw[i], -a[i], rows[2][i][1], rows[2][i][0]);
    }
    r.point = (pw - n * (xp::det3(rows) / nn)).template cast<T>();
    r.bary[1] = T(wb / nn);
    r.bary[2] = T(wc / nn);
    r.bary[0] = T(1) - r.bary[1] - r.bary[2];
    r.feature = Feature::face;
    r.sq_distance = squared_distance(p, r.point);
    if (prox::all_finite(r.point)) return r;
  }
  return closest_on_edges<T, Tag, true>(p, corners);
}

/// Whether an edge or face answer at squared distance d2 may have lost its
/// accuracy to far corners: m, the squared distance the answer was measured
/// from (the ordinary path: the sum over the three corners; the nearest
/// corner path: the feature's nearest corner), more than 2^20 times both d2
/// and |p|^2, i.e. the corners 2^10 times farther than the answer and p. The
/// answer's error is about eps sqrt(m) (over the sine of the angles
/// there); past the ratio it is redone from exact expansions (far_solve),
/// whose error is a few ulps of max(distance, |p|). Below it the error is at
/// most about 2^10 eps max(distance, |p|) over the sine. Five flops and a
/// compare on the edge and face exits.
template <class T>
inline __attribute__((always_inline)) bool far_answer(const T& d2, const T& m, const Vec3<T>& p) {
  return m * T(0x1p-20) > d2 + squared_norm(p);
}

/// The triangle sizes the kernel answers in T's own arithmetic: m, the largest
/// |component| of b - a and c - a, in [2^min_exp, 2^max_exp]. There the
/// squares and fourth powers of the edges (|ab x ac|^2 ~ m^4) and their
/// products with the query's offset stay finite and normal. A triangle outside
/// it is rescaled by a power of two (exact) by closest_point_rescaled.
template <class T> struct KernelScale {
  static constexpr int min_exp = 0, max_exp = 0;
};
template <> struct KernelScale<double> {
  static constexpr int min_exp = -200, max_exp = 200;
};
template <> struct KernelScale<float> {
  static constexpr int min_exp = -16, max_exp = 16;
};

template <class T, class Tag>
ClosestPointTriangleResult<T> closest_point_triangle_tagged(const Vec3<T>& p, const Vec3<T>& a,
                                                            const Vec3<T>& b, const Vec3<T>& c);

/// The answer for p so far from a tiny triangle (relative to its size) that
/// the triangle is one point at T's precision: the nearest corner (ties to the
/// first), its squared distance measured with p - corner scaled by a power of
/// two to about 1 (exact) so that it neither overflows nor flushes to zero
/// before it is rounded once, back in p's units. (Tag: only to give each ISA
/// object its own copy, as for every out-of-line kernel piece.)
template <class T, class Tag>
[[gnu::noinline]] ClosestPointTriangleResult<T> nearest_corner_far(const Vec3<T>& p,
                                                                   const Vec3<T>* corners) {
  Vec3<T> d[3];
  T big = T(0);
  for (int i = 0; i < 3; ++i) {
    d[i] = p - corners[i];
    for (int j = 0; j < 3; ++j) big = std::max(big, std::abs(d[i][j]));
  }
  int e = 0;
  std::frexp(big, &e);
  int best = 0;
  T best_s = ScalarTraits<T>::infinity();
  for (int i = 0; i < 3; ++i) {
    const Vec3<T> v{std::ldexp(d[i][0], -e), std::ldexp(d[i][1], -e), std::ldexp(d[i][2], -e)};
    const T s = squared_norm(v);
    if (s < best_s) best_s = s, best = i;
  }
  ClosestPointTriangleResult<T> r = on_edge<T, Tag>(p, corners, best, best, T(0));  // the corner
  r.sq_distance = std::ldexp(best_s, 2 * e);
  return r;
}

/// The rare path of a triangle too small or too large for T's arithmetic (see
/// KernelScale). Float: the whole kernel in double, where every float
/// triangle is in range. Double: p, a, b, c scaled by 2^k (exact: the answer is
/// the scaled problem's, scaled back, bit for bit), or when that would
/// overflow a coordinate (a tiny triangle far from the origin), p, b, c taken
/// relative to a first (one rounding, as the kernel's own b - a, p - a).
template <class T, class Tag>
ClosestPointTriangleResult<T> closest_point_rescaled(const Vec3<T>& p, const Vec3<T>& a,
                                                     const Vec3<T>& b, const Vec3<T>& c, T m) {
  if constexpr (std::is_same_v<T, float>) {
    (void)m;
    return closest_point_in_double<Tag>(p, a, b, c);
  } else {
    int e = 0;
    std::frexp(m, &e);
    const int k = -e;  // m 2^k in [0.5, 1)
    T big = T(0);
    for (const Vec3<T>* v : {&p, &a, &b, &c})
      for (int i = 0; i < 3; ++i) big = std::max(big, std::abs((*v)[i]));
    auto scale = [](const Vec3<T>& v, int s) {
      return Vec3<T>{std::ldexp(v[0], s), std::ldexp(v[1], s), std::ldexp(v[2], s)};
    };
    if (k < 0 || std::ldexp(big, k) <= std::ldexp(T(1), KernelScale<T>::max_exp)) {
      ClosestPointTriangleResult<T> r = closest_point_triangle_tagged<T, Tag>(
          scale(p, k), scale(a, k), scale(b, k), scale(c, k));
      r.point = scale(r.point, -k);
      r.sq_distance = std::ldexp(r.sq_distance, -2 * k);
      return r;
    }
    const Vec3<T> pa = scale(p - a, k);
    const Vec3<T> corners[3] = {a, b, c};
    // p more than 2^max_exp triangle sizes away (or farther than T can
    // scale): the kernel would square |pa| past T's range (inf, a finding of
    // fuzz_read_mesh). At that ratio the triangle is a point at T's precision
    // (every point of it is within 2^-max_exp relative of the same distance),
    // so the nearest corner is the answer.
    if (!(std::max({std::abs(pa[0]), std::abs(pa[1]), std::abs(pa[2])}) <=
          std::ldexp(T(1), KernelScale<T>::max_exp)))
      return nearest_corner_far<T, Tag>(p, corners);
    ClosestPointTriangleResult<T> r = closest_point_triangle_tagged<T, Tag>(
        pa, Vec3<T>::zero(), scale(b - a, k), scale(c - a, k));
    switch (r.feature) {
      case Feature::v0: r.point = a; break;
      case Feature::v1: r.point = b; break;
      case Feature::v2: r.point = c; break;
      default: r.point = a + scale(r.point, -k); break;
    }
    r.sq_distance = std::ldexp(r.sq_distance, -2 * k);
    return r;
  }
}

/// Whether one corner is about 2^16 times nearer to p than another (s: the
/// three squared distances from p to the corners; their sum stands for the
/// largest, within a factor 3). Branch-free: three compares or-ed.
template <class T>
inline bool far_corners(const T* s) {
  // A corner exactly at p (s = 0) is left to the regions below, as before
  // this path existed, so that the GLSL kernel (shaders/prox), which does not
  // have this path yet, gives the same answer there (distance 0 either way).
  const T t = T(0x1p-32) * (s[0] + s[1] + s[2]);
  return ((s[0] < t) & (s[0] > T(0))) | ((s[1] < t) & (s[1] > T(0))) |
         ((s[2] < t) & (s[2] > T(0)));
}

template <class T, class Tag>
[[gnu::noinline]] ClosestPointTriangleResult<T> closest_point_from_nearest(
    const Vec3<T>& p, const Vec3<T>* corners, const T* s);

/// Whether the sign of one of Ericson's region products v = d_i d_j - d_k d_l
/// is in doubt: the four dot products pair the edges ab, ac with the corner
/// offsets q1, q2, so v's rounding (the differences' own included) is at most
/// about 20 eps_T |ab| |ac| |q1| |q2|, while v itself can be far smaller (a
/// needle: v ~ |ab|^2 |ac| |ap| times two small sines; a point on the face of
/// a 1e9 x 2 triangle got v = 0 and the answer snapped to an edge 0.5 away,
/// found from outside in stop 40). In doubt when |v| <= 64 eps_T |ab| |ac|
/// |q1| |q2|, compared squared in double (no root or division: the GLSL
/// kernel makes the same decision bit for bit). Every factor is first
/// multiplied by 2^-e, e the exponent of |ab|^2 (exact), so the products
/// neither overflow nor underflow on the kernel's range and the decision is
/// the same at every power-of-two scale of the problem (whose answers scale
/// exactly, tests/mesh/test_scale.cpp). The caller then takes the
/// face-or-edges path, whose weights are triple products in the wide type.
template <class T>
inline __attribute__((always_inline)) bool region_product_unsure(const T& v, const T& ab2,
                                                                  const T& ac2, const T& q1sq,
                                                                  const T& q2sq) {
  constexpr double eps = double(std::numeric_limits<T>::epsilon());
  constexpr double k2 = 4096.0 * eps * eps;  // (64 eps)^2
  const double a2 = double(ab2);  // > 0 and normal: the triangle is not degenerate
  const int e = int((std::bit_cast<std::uint64_t>(a2) >> 52) & 0x7ffu) - 1023;
  const double down = std::bit_cast<double>(std::uint64_t(1023 - e) << 52);  // 2^-e
  const double vw = (double(v) * down) * down;
  const double rhs = (((k2 * (a2 * down)) * (double(ac2) * down)) * (double(q1sq) * down)) *
                     (double(q2sq) * down);
  return !(vw * vw > rhs);
}

/// Ericson's seven Voronoi regions, measured from corner a (ab = b - a,
/// ac = c - a, ap = p - a) of a triangle that is not exactly degenerate.
template <class T, class Tag>
inline __attribute__((always_inline)) ClosestPointTriangleResult<T> ericson_regions(const Vec3<T>& p, const Vec3<T>* corners,
                                              const Vec3<T>& ab, const Vec3<T>& ac,
                                              const Vec3<T>& ap) {
  const Vec3<T>& b = corners[1];
  const Vec3<T>& c = corners[2];
  ClosestPointTriangleResult<T> r;
  r.bary = Vec3<T>::zero();
  const T d1 = dot(ab, ap);
  const T d2 = dot(ac, ap);
  if (d1 <= T(0) && d2 <= T(0)) {  // vertex region a
    r.point = corners[0];
    r.bary[0] = T(1);
    r.feature = Feature::v0;
    r.sq_distance = squared_distance(p, r.point);
    return r;
  }
  const Vec3<T> bp = p - b;
  const Vec3<T> cp = p - c;
  // The squared distances from p to the corners (IEEE types only).
  [[maybe_unused]] T sc[3];
  if constexpr (ScalarTraits<T>::is_ieee) {
    sc[0] = squared_norm(ap);
    sc[1] = squared_norm(bp);
    sc[2] = squared_norm(cp);
    // A corner about 2^16 times nearer to p than another: the regions below
    // measure from a and parametrize edge bc from b, with an error ~ eps
    // times the distance from p to those corners (over the sine of the angle
    // there), which may exceed the answer itself (at most the nearest
    // corner's distance). Then the answer is computed from the nearest corner
    // (closest_point_from_nearest). A few flops and one compare on the hot
    // path, after the vertex region of a (where p is not nearer to b or c).
    if (far_corners(sc)) [[unlikely]]
      return closest_point_from_nearest<T, Tag>(p, corners, sc);
  }
  const T d3 = dot(ab, bp);
  const T d4 = dot(ac, bp);
  if (d3 >= T(0) && d4 <= d3) {  // vertex region b
    r.point = b;
    r.bary[1] = T(1);
    r.feature = Feature::v1;
    r.sq_distance = squared_distance(p, r.point);
    return r;
  }
  // Face region (va, vb, vc > 0), or an edge region whose product's sign is
  // in doubt: the projection of p, computed and re-checked by
  // detail::face_or_edges, which falls back to the nearest of the three edges
  // when p is outside (or a sliver's rounding sent it here by mistake).
  auto face = [&]() {
    ClosestPointTriangleResult<T> f = face_or_edges<T, Tag>(p, corners);
    if constexpr (ScalarTraits<T>::is_ieee) {
      // The plane offset is measured from a along n, whose direction is known
      // to eps over the sine at a: m over sine^2 = m |ab|^2 |ac|^2 / |n|^2.
      using W = typename WideScalar<T>::type;
      const Vec3<W> abw = ab.template cast<W>(), acw = ac.template cast<W>();
      const W nn = squared_norm(cross(abw, acw));
      const W m = W(sc[0] + sc[1] + sc[2]) * (squared_norm(abw) * squared_norm(acw));
      if (m * W(0x1p-20) > (W(f.sq_distance) + W(squared_norm(p))) * nn)
        return far_solve<T, Tag>(p, corners);
    }
    return f;
  };
  const T vc = d1 * d4 - d3 * d2;
  if (vc <= T(0) && d1 >= T(0) && d3 <= T(0)) {  // edge region ab
    if constexpr (ScalarTraits<T>::is_ieee)
      if (region_product_unsure(vc, dot(ab, ab), dot(ac, ac), sc[0], sc[1])) return face();
    const T s = d1 / (d1 - d3);
    r = on_edge<T, Tag>(p, corners, 0, 1, s);
    if constexpr (ScalarTraits<T>::is_ieee)
      if (far_answer(r.sq_distance, sc[0] + sc[1] + sc[2], p))
        return far_solve<T, Tag>(p, corners);
    return r;
  }
  const T d5 = dot(ab, cp);
  const T d6 = dot(ac, cp);
  if (d6 >= T(0) && d5 <= d6) {  // vertex region c
    r.point = c;
    r.bary[2] = T(1);
    r.feature = Feature::v2;
    r.sq_distance = squared_distance(p, r.point);
    return r;
  }
  const T vb = d5 * d2 - d1 * d6;
  if (vb <= T(0) && d2 >= T(0) && d6 <= T(0)) {  // edge region ca
    if constexpr (ScalarTraits<T>::is_ieee)
      if (region_product_unsure(vb, dot(ab, ab), dot(ac, ac), sc[0], sc[2])) return face();
    const T s = d2 / (d2 - d6);  // from a towards c
    r = on_edge<T, Tag>(p, corners, 0, 2, s);
    if constexpr (ScalarTraits<T>::is_ieee)
      if (far_answer(r.sq_distance, sc[0] + sc[1] + sc[2], p))
        return far_solve<T, Tag>(p, corners);
    return r;
  }
  const T va = d3 * d6 - d5 * d4;
  const T d43 = d4 - d3;
  const T d56 = d5 - d6;
  if (va <= T(0) && d43 >= T(0) && d56 >= T(0)) {  // edge region bc
    if constexpr (ScalarTraits<T>::is_ieee)
      if (region_product_unsure(va, dot(ab, ab), dot(ac, ac), sc[1], sc[2])) return face();
    const T s = d43 / (d43 + d56);
    r = on_edge<T, Tag>(p, corners, 1, 2, s);
    if constexpr (ScalarTraits<T>::is_ieee)
      if (far_answer(r.sq_distance, sc[0] + sc[1] + sc[2], p))
        return far_solve<T, Tag>(p, corners);
    return r;
  }
  return face();
}

/// The rare path of a query with one corner 2^16 times nearer than another
/// (e.g. a sliver reaching from near p to 1e30; s: the squared distances
/// from p to the corners): the same answer computed from the corner nearest
/// to p. The corners are ordered by their distance to p (nearest
/// first; any order of a triangle's corners is the same triangle), so the
/// face's plane offset is measured from the nearest corner and each edge is
/// parametrized from its nearer end: the error is then ~ eps times the
/// distance from p to the nearest corner, not to the farthest. The face
/// answer when p's projection is strictly inside, else the nearest edge
/// (detail::face_or_edges), then the features and weights mapped back to
/// the caller's corner order.
template <class T, class Tag>
[[gnu::noinline]] ClosestPointTriangleResult<T> closest_point_from_nearest(
    const Vec3<T>& p, const Vec3<T>* corners, const T* s) {
  if constexpr (std::is_same_v<T, float>) {
    // Float: the whole triangle by the double kernel (closest_point_in_double):
    // the nearest-corner edges below would be parametrized and compared in
    // float, an error ~ eps times the far ends' distance (1.9e7 float ulps of
    // the distance on tests/mesh/test_far_slivers.cpp's float family).
    return detail::closest_point_in_double<Tag>(p, corners[0], corners[1], corners[2]);
  }
  int o[3] = {0, 1, 2};  // o[k]: the caller's index of the k-th nearest corner
  if (s[o[1]] < s[o[0]]) std::swap(o[0], o[1]);
  if (s[o[2]] < s[o[1]]) std::swap(o[1], o[2]);
  if (s[o[1]] < s[o[0]]) std::swap(o[0], o[1]);
  const Vec3<T> q[3] = {corners[o[0]], corners[o[1]], corners[o[2]]};
  ClosestPointTriangleResult<T> r;
  if (squared_norm(cross(q[1] - q[0], q[2] - q[0])) == T(0)) {
    r = closest_on_edges<T, Tag, true>(p, q);
  } else {
    r = face_or_edges<T, Tag, true>(p, q);
    if (r.feature != Feature::v0 && r.feature != Feature::v1 && r.feature != Feature::v2) {
      // Measured from the nearest corner, along n known to eps over the sine
      // there (a sliver reaching both ways from near p has a sine ~ 0).
      T m = s[o[0]];
      if (r.feature == Feature::e12) m = s[o[1]];
      using W = typename WideScalar<T>::type;
      const Vec3<W> u1 = (q[1] - q[0]).template cast<W>(), u2 = (q[2] - q[0]).template cast<W>();
      const W nn = squared_norm(cross(u1, u2));
      if (W(m) * (squared_norm(u1) * squared_norm(u2)) * W(0x1p-20) >
          (W(r.sq_distance) + W(squared_norm(p))) * nn)
        r = far_solve<T, Tag>(p, q);
    }
  }
  static constexpr Feature vertex[3] = {Feature::v0, Feature::v1, Feature::v2};
  static constexpr Feature edge_of[3][3] = {{Feature::v0, Feature::e01, Feature::e20},
                                            {Feature::e01, Feature::v1, Feature::e12},
                                            {Feature::e20, Feature::e12, Feature::v2}};
  switch (r.feature) {
    case Feature::v0: r.feature = vertex[o[0]]; break;
    case Feature::v1: r.feature = vertex[o[1]]; break;
    case Feature::v2: r.feature = vertex[o[2]]; break;
    case Feature::e01: r.feature = edge_of[o[0]][o[1]]; break;
    case Feature::e12: r.feature = edge_of[o[1]][o[2]]; break;
    case Feature::e20: r.feature = edge_of[o[2]][o[0]]; break;
    default: break;
  }
  Vec3<T> bary;
  for (int k = 0; k < 3; ++k) bary[o[k]] = r.bary[k];
  r.bary = bary;
  return r;
}

/// closest_point_triangle, instance named by Tag (see above). With Tag other
/// than void the caller promises finite inputs (the mesh engine validates the
/// mesh once and each query point once), so the twelve finiteness checks are
/// skipped; for finite inputs every other operation is the same, hence the
/// same bits.
template <class T, class Tag>
ClosestPointTriangleResult<T> closest_point_triangle_tagged(const Vec3<T>& p, const Vec3<T>& a,
                                                            const Vec3<T>& b, const Vec3<T>& c) {
  if constexpr (std::is_void_v<Tag>)
    if (!detail::all_finite(p, a, b, c)) return detail::triangle_miss<T>();
  const Vec3<T> corners[3] = {a, b, c};
  const Vec3<T> ab = b - a;
  const Vec3<T> ac = c - a;
  const Vec3<T> n = cross(ab, ac);
  const T nn = squared_norm(n);
  if constexpr (ScalarTraits<T>::is_ieee) {
    // |n|^2 ~ m^4 outside [2^(4 min_exp), 2^(4 max_exp)]: either a sliver or
    // degenerate triangle of ordinary size (go on) or one too small or too
    // large for T's squares (rescale). One test on the hot path.
    constexpr T nn_lo = T(0x1p-64) * (std::is_same_v<T, double> ? T(0x1p-736) : T(1));
    constexpr T nn_hi = T(0x1p64) * (std::is_same_v<T, double> ? T(0x1p736) : T(1));
    if (!(nn >= nn_lo && nn <= nn_hi)) {
      using std::abs;
      T m = T(0);
      for (int i = 0; i < 3; ++i) m = std::max(m, std::max(abs(ab[i]), abs(ac[i])));
      if (m > T(0) && (m < std::ldexp(T(1), KernelScale<T>::min_exp) ||
                       m > std::ldexp(T(1), KernelScale<T>::max_exp)))
        return closest_point_rescaled<T, Tag>(p, a, b, c, m);
    }
  }
  const Vec3<T> ap = p - a;
  if (nn == T(0)) {
    if constexpr (ScalarTraits<T>::is_ieee) {
      const T s[3] = {squared_norm(ap), squared_distance(p, b), squared_distance(p, c)};
      if (far_corners(s)) return closest_point_from_nearest<T, Tag>(p, corners, s);
    }
    return closest_on_edges<T, Tag>(p, corners);
  }
  return ericson_regions<T, Tag>(p, corners, ab, ac, ap);
}

/// The reference kernels (Eberly's regions, seed 003's projection) square
/// and cube their inputs like Ericson's (det = |n|^2 ~ m^4, the weights
/// ~ m^3 |p - a|, m the edges' size), so they answer in T's own arithmetic
/// only where m is in KernelScale's range and |p - a| below 2^ap_exp; there
/// every product stays finite and normal. Elsewhere reference_rescaled.
template <class T> struct ReferenceScale {
  static constexpr int ap_exp = 0;
};
template <> struct ReferenceScale<double> {
  static constexpr int ap_exp = 400;
};
template <> struct ReferenceScale<float> {
  static constexpr int ap_exp = 60;
};

/// The edges' size m (largest |component| of ab, ac) and p's offset r
/// (largest |component| of ap) that reference_in_range and
/// reference_rescaled measure.
template <class T>
std::pair<T, T> reference_sizes(const Vec3<T>& ab, const Vec3<T>& ac, const Vec3<T>& ap) {
  using std::abs;
  T m = T(0), r = T(0);
  for (int i = 0; i < 3; ++i) {
    m = std::max(m, std::max(abs(ab[i]), abs(ac[i])));
    r = std::max(r, abs(ap[i]));
  }
  return {m, r};
}

template <class T>
bool reference_in_range(const Vec3<T>& ab, const Vec3<T>& ac, const Vec3<T>& ap) {
  if constexpr (!ScalarTraits<T>::is_ieee) {
    return true;
  } else {
    const auto [m, r] = reference_sizes(ab, ac, ap);
    return m >= std::ldexp(T(1), KernelScale<T>::min_exp) &&
           m <= std::ldexp(T(1), KernelScale<T>::max_exp) &&
           r <= std::ldexp(T(1), ReferenceScale<T>::ap_exp);
  }
}

/// A reference kernel's answer outside reference_in_range (rare). Float: the
/// same kernel in double (every float input is in its range), rounded.
/// Double: p, b, c taken relative to a (the kernels' own first roundings)
/// and scaled by 2^k (exact) so that the edges are below 1 and |p - a| below
/// 2^ap_exp, the answer scaled back; a corner feature answers the corner
/// itself. (Only a triangle 2^-ap_exp times smaller than its distance from p
/// keeps edges below 1/2 there, where it is a point at T's precision.) p - a
/// not finite: the nearest of the edges, as Ericson's kernel answers it.
/// `kernel(p, a, b, c)` is generic over the scalar type.
template <class T, class Kernel>
[[gnu::noinline]] ClosestPointTriangleResult<T> reference_rescaled(const Vec3<T>& p,
                                                                   const Vec3<T>& a,
                                                                   const Vec3<T>& b,
                                                                   const Vec3<T>& c,
                                                                   Kernel kernel) {
  if constexpr (std::is_same_v<T, float>) {
    const ClosestPointTriangleResult<double> w =
        kernel(p.template cast<double>(), a.template cast<double>(), b.template cast<double>(),
               c.template cast<double>());
    ClosestPointTriangleResult<float> r;
    r.point = w.point.template cast<float>();
    r.sq_distance = prox::to_float(w.sq_distance);
    r.bary = w.bary.template cast<float>();
    r.feature = w.feature;
    return r;
  } else {
    const Vec3<T> corners[3] = {a, b, c};
    const Vec3<T> ab = b - a, ac = c - a, ap = p - a;
    if (!all_finite(ap) || !all_finite(ab) || !all_finite(ac))
      return closest_on_edges<T, void>(p, corners);
    const auto [edges, r] = reference_sizes(ab, ac, ap);
    const T m = std::max(edges, std::ldexp(r, -ReferenceScale<T>::ap_exp));
    if (!(m > T(0))) return closest_on_edges<T, void>(p, corners);  // p = a = b = c
    int e = 0;
    std::frexp(m, &e);
    auto scale = [](const Vec3<T>& v, int s) {
      return Vec3<T>{std::ldexp(v[0], s), std::ldexp(v[1], s), std::ldexp(v[2], s)};
    };
    ClosestPointTriangleResult<T> res =
        kernel(scale(ap, -e), Vec3<T>::zero(), scale(ab, -e), scale(ac, -e));
    switch (res.feature) {
      case Feature::v0: res.point = a; break;
      case Feature::v1: res.point = b; break;
      case Feature::v2: res.point = c; break;
      default: res.point = a + scale(res.point, e); break;
    }
    res.sq_distance = std::ldexp(res.sq_distance, 2 * e);
    return res;
  }
}

}  // namespace detail

/// Closest point on the solid triangle (a, b, c) to p (Ericson's Voronoi regions).
template <class T>
ClosestPointTriangleResult<T> closest_point_triangle(const Vec3<T>& p, const Vec3<T>& a,
                                                     const Vec3<T>& b, const Vec3<T>& c) {
  return detail::closest_point_triangle_tagged<T, void>(p, a, b, c);
}

}  // namespace prox
