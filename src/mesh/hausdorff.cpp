// src/mesh/hausdorff.cpp — certified Hausdorff distance (prox/mesh/hausdorff.hpp).
#include "prox/mesh/hausdorff.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <tbb/task_arena.h>

#include "prox/bvh/traverse.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/isa.hpp"
#include "prox/primitives/closest_point_triangle.hpp"

// The float prefilter is also built for AVX2 (target attribute on two entry
// points, everything under them inlined), chosen at run time like the engine's
// paths; the functions are local (anonymous namespace), so no symbol is shared.
#if defined(PROX_X86_64) && (defined(__GNUC__) || defined(__clang__)) && !defined(__AVX2__)
#define PROX_HAUSDORFF_AVX2 1
#else
#define PROX_HAUSDORFF_AVX2 0
#endif
#if defined(__GNUC__) || defined(__clang__)
#define PROX_LAMBDA_INLINE __attribute__((always_inline))
#else
#define PROX_LAMBDA_INLINE
#endif

// The 8-lane helpers below are force-inlined local functions: the ABI note
// GCC gives for a 256-bit vector passed without AVX concerns no real call.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace prox {
namespace {

using V = Vec3<double>;
constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kMaxRounds = 30;

template <class T>
V to_d(const Vec3<T>& v) {
  return V{static_cast<double>(v[0]), static_cast<double>(v[1]), static_cast<double>(v[2])};
}

/// A (sub-)triangle of A: corners, the closest triangle of B to each corner,
/// the best B triangle its parent's bound found, and the A triangle it is part of.
struct Item {
  V p[3];
  std::int32_t near[3];
  std::int32_t best;
  std::int32_t source;
};

/// A point of A evaluated against B: the certified lower value of d(p, B).
struct PointHit {
  double lower = 0;
  V closest{};
  std::int32_t triangle = -1;
  double guess = kInf;  ///< guess_point: an upper bound of d(p, B)
};

/// The worst point found so far.
struct Worst {
  double lower = -kInf;
  V point{}, closest{};
  std::int32_t triangle = -1, closest_triangle = -1;
  void offer(const PointHit& h, const V& p, std::int32_t source) {
    if (h.lower > lower) *this = Worst{h.lower, p, h.closest, source, h.triangle};
  }
};

/// Node test of the triangle bound search: min over B's triangles b of
/// max over the three corners of d(corner, b). Key of a box = the largest of
/// the corners' box lower bounds (squared); a box's farthest-corner distances
/// bound what any of its triangles can give, so they lower the bound too.
struct TriangleBoundTest {
  const bvh::PointQuery& q0;
  const bvh::PointQuery& q1;
  const bvh::PointQuery& q2;
  float bound;
  float limit() const { return bound; }
  void shrink(float b) { bound = b < bound ? b : bound; }
  unsigned children(const bvh::Node8& n, float* key) {
    using namespace simd;
    F8 l0, u0, l1, u1, l2, u2;
    bvh::box_distances8(n, q0, l0, u0);
    bvh::box_distances8(n, q1, l1, u1);
    bvh::box_distances8(n, q2, l2, u2);
    const F8 lb = max8(max8(l0, l1), l2);
    shrink(hmin8(max8(max8(u0, u1), u2)));
    store8(key, lb);
    return le_mask8(lb, set8(bound));
  }
};

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

/// Four triangles gathered by id from corners stored 9 floats per triangle
/// (n of them real; the others repeat the last).
PROX_FORCE_INLINE LeafPack<float> gather4(const std::array<float, 9>* corners, const std::int32_t* ids,
                               std::uint32_t n) {
  LeafPack<float> pk;
  for (std::uint32_t l = 0; l < 4; ++l) {
    const auto& c = corners[std::size_t(ids[l < n ? l : n - 1])];
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 3; ++j) pk.c[k][j][l] = c[3 * k + j];
  }
  return pk;
}

}  // namespace

/// B prepared once for any number of one-sided calls h(., B) (what does not
/// depend on A): kappa, B's corners in double and float, its vertex ->
/// triangle lists, the slot of each triangle and the float leaf packs. The
/// float copies are relative to the centre of B's own box (each call checks
/// that float's rounding there is small against its tolerance).
template <class T>
struct HausdorffTarget<T>::Data {
  const MeshIndex<T>& b;
  const TriangleMesh<T>& bm;
  FlatIndex<T> layout;
  Box3<T> box;
  double kappa = 1;
  V centre{};
  std::vector<std::uint32_t> adj_off, adj;
  std::vector<std::array<V, 3>> corners;
  std::vector<LeafPack<float>> fpacks;
  std::vector<std::array<float, 9>> fcorners;
  std::vector<std::uint32_t> slot_of;     // triangle id -> slot
  std::vector<std::uint8_t> pack_lanes;   // real lanes per pack (1..4)

  explicit Data(const MeshIndex<T>& index)
      : b(index), bm(index.mesh()), layout(index.layout()), box(index.mesh().bounds()) {
    for (std::size_t t = 0; t < bm.num_triangles(); ++t) {
      const V c0 = to_d(bm.corner(t, 0)), c1 = to_d(bm.corner(t, 1)), c2 = to_d(bm.corner(t, 2));
      const double n = std::sqrt(squared_norm(cross(c1 - c0, c2 - c0)));
      const double e = std::max({squared_distance(c0, c1), squared_distance(c1, c2),
                                 squared_distance(c2, c0)});
      if (n > 0) kappa = std::max(kappa, 2 * e / n);
    }
    // B's corners per triangle, in double, side by side (candidate triangles
    // are visited by id, scattered: one or two cache lines each, not four).
    corners.resize(bm.num_triangles());
    for (std::size_t t = 0; t < bm.num_triangles(); ++t)
      for (int k = 0; k < 3; ++k) corners[t][k] = to_d(bm.corner(t, k));
    // B's vertex -> triangles (CSR), for the local walk of bound_item.
    adj_off.assign(bm.num_vertices() + 1, 0);
    for (const auto& t : bm.triangles())
      for (int k = 0; k < 3; ++k) ++adj_off[t[k] + 1];
    for (std::size_t v = 0; v < bm.num_vertices(); ++v) adj_off[v + 1] += adj_off[v];
    adj.resize(adj_off.back());
    std::vector<std::uint32_t> fill(adj_off.begin(), adj_off.end() - 1);
    for (std::size_t t = 0; t < bm.num_triangles(); ++t)
      for (int k = 0; k < 3; ++k) adj[fill[bm.triangles()[t][k]]++] = static_cast<std::uint32_t>(t);
    // The float prefilter's frame: relative to the centre of B's box.
    for (int k = 0; k < 3; ++k) centre[k] = 0.5 * (double(box.lo[k]) + double(box.hi[k]));
    fcorners.resize(bm.num_triangles());
    for (std::size_t t = 0; t < bm.num_triangles(); ++t)
      for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 3; ++j) fcorners[t][3 * k + j] = static_cast<float>(corners[t][k][j] - centre[j]);
    // Slot of each triangle of B, and the real lanes of each pack.
    slot_of.assign(bm.num_triangles(), 0);
    pack_lanes.assign(layout.packs.size(), 0);
    for (std::size_t s = 0; s < layout.prims.size(); ++s)
      if (layout.prims[s] != bvh::kInvalid) {
        slot_of[layout.prims[s]] = static_cast<std::uint32_t>(s);
        ++pack_lanes[s / 4];
      }
    fpacks.resize(layout.packs.size());
    for (std::size_t q = 0; q < layout.packs.size(); ++q)
      for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 3; ++j)
          for (int l = 0; l < 4; ++l)
            fpacks[q].c[k][j][l] = static_cast<float>(double(layout.packs[q].c[k][j][l]) - centre[j]);
  }

  std::size_t memory_bytes() const {
    return sizeof(*this) + (adj_off.capacity() + adj.capacity() + slot_of.capacity()) * 4 +
           corners.capacity() * sizeof(corners[0]) + fpacks.capacity() * sizeof(fpacks[0]) +
           fcorners.capacity() * sizeof(fcorners[0]) + pack_lanes.capacity();
  }
};

namespace {

template <class T>
class OneSided {
 public:
  using Target = typename HausdorffTarget<T>::Data;
  /// box: A and B's joint bounding box (computed once by the caller).
  OneSided(const TriangleMesh<T>& a, const Target& tb, const Box3<T>& box, double tol,
           double scale, const HausdorffOptions& o)
      : a_(a), b_(tb.b), bm_(tb.bm), layout_(tb.layout), tol_(tol), s_(scale), opt_(o),
        adj_off_(tb.adj_off), adj_(tb.adj), corners_(tb.corners), fpacks_(tb.fpacks),
        centre_(tb.centre), fcorners_(tb.fcorners), slot_of_(tb.slot_of), pack_lanes_(tb.pack_lanes) {
    lower_margin_ = 32 * double(std::numeric_limits<T>::epsilon()) * s_ * tb.kappa;
    // The float prefilter works relative to the centre of B's box; it is used
    // where float's rounding there (~2^-24 of the largest offset of A and B's
    // box from it) is far below the tolerance, so that its picks settle what
    // double settles.
    {
      double half = 0;
      for (int k = 0; k < 3; ++k)
        half = std::max({half, double(box.hi[k]) - centre_[k], centre_[k] - double(box.lo[k])});
      use_float_ = std::isfinite(half) && half * 0x1p-20 < 0.01 * tol_;
    }
#if PROX_HAUSDORFF_AVX2
    avx2_ = active_isa() >= Isa::avx2;  // PROX_ISA / set_isa choose, as for the engine
#endif
    // One arena for the whole call (see in_arena): the loops run in the caller's.
    batch_.threads = o.threads == 1 ? 1 : 0;
    batch_.grain = 64;
  }

  HausdorffSide run();

 private:
  const V& corner_b(std::int32_t t, int k) const { return corners_[std::size_t(t)][k]; }

  /// d(p, B) through the index, recomputed in double, rounded down.
  PointHit eval_point(const V& p) const {
    const Vec3<T> pt{static_cast<T>(p[0]), static_cast<T>(p[1]), static_cast<T>(p[2])};
    const MeshClosestPoint<T> r = b_.closest_point(pt);
    PointHit h;
    h.triangle = r.triangle;
    if (!r.found()) return h;
    const auto c = closest_point_triangle(p, corner_b(r.triangle, 0), corner_b(r.triangle, 1),
                                          corner_b(r.triangle, 2));
    h.closest = c.point;
    h.lower = std::max(0.0, std::sqrt(c.sq_distance) * (1 - 4 * kEps) - lower_margin_);
    return h;
  }

  /// A near triangle of B by one greedy descent (nearest box at each level) and
  /// an upper bound of d(p, it), so of d(p, B), for the price of one leaf.
  PointHit guess_point(const V& p) const {
#if PROX_HAUSDORFF_AVX2
    if (avx2_) return guess_point_avx2(p);
#endif
    return guess_point_body<false>(p);
  }
#if PROX_HAUSDORFF_AVX2
  [[gnu::target("avx2")]] PointHit guess_point_avx2(const V& p) const { return guess_point_body<true>(p); }
#endif
  /// Wide: 8-lane calls (the AVX2 build); else 4-lane (the baseline build, where
  /// 256-bit vectors would be split): the same operations per lane, the same bits.
  template <bool Wide>
  PROX_FORCE_INLINE PointHit guess_point_body(const V& p) const {
    const bvh::PointQuery q(p);
    bvh::NearestTest<false> test{q, std::numeric_limits<float>::infinity()};
    std::int32_t tri = -1;
    PointHit h;
    h.lower = -1;  // not a lower bound: only guessed
    if (use_float_) {
      // Pick the leaf's nearest triangle in float; the guess is the distance to
      // the point its float weights name, in double and rounded up (it must be
      // a true upper bound: eval_points skips on it).
      const std::array<float, 3> fp = to_f(p);
      const F4 px = splat4(fp[0]), py = splat4(fp[1]), pz = splat4(fp[2]);
      float fbest = std::numeric_limits<float>::infinity();
      float bw[3] = {1, 0, 0};
      const F8 px8 = join8(px, px), py8 = join8(py, py), pz8 = join8(pz, pz);
      constexpr std::uint32_t kStep = Wide ? 8 : 4;
      bvh::descend_nearest(layout_.nodes, test, [&](std::uint32_t first, std::uint32_t count) PROX_LAMBDA_INLINE {
        // Wide: two packs per 8-lane call (the last one twice when the leaf has an odd number).
        for (std::uint32_t s = first; s < first + count; s += kStep) {
          std::conditional_t<Wide, F8, F4> w[3], d;
          if constexpr (Wide) {
            const std::uint32_t p0 = s / 4, p1 = s + 4 < first + count ? p0 + 1 : p0;
            d = sq_dist<F8>(prepare8(fpacks_[p0], fpacks_[p1]), px8, py8, pz8, w);
          } else {
            d = sq_dist4(prepare4(fpacks_[s / 4]), px, py, pz, w);
          }
          const std::uint32_t n = std::min<std::uint32_t>(kStep, first + count - s);
          for (std::uint32_t l = 0; l < n; ++l) {
            const auto t = static_cast<std::int32_t>(layout_.prims[s + l]);
            if (d[l] < fbest || (d[l] == fbest && t < tri)) {
              fbest = d[l];
              tri = t;
              for (int k = 0; k < 3; ++k) bw[k] = w[k][l];
            }
          }
        }
      });
      if (tri >= 0) h.guess = upper_weights(p, tri, bw[0], bw[1], bw[2]);
    } else {
      double best = kInf;
      bvh::descend_nearest(layout_.nodes, test, [&](std::uint32_t first, std::uint32_t count) {
        for (std::uint32_t s = first; s < first + count; ++s) {
          const auto t = static_cast<std::int32_t>(layout_.prims[s]);
          const double d = closest_point_triangle(p, to_d(layout_.corner(s, 0)), to_d(layout_.corner(s, 1)),
                                                  to_d(layout_.corner(s, 2)))
                               .sq_distance;
          if (d < best || (d == best && t < tri)) {
            best = d;
            tri = t;
          }
        }
      });
      // d(p, B) <= this (the distance, rounded up past any rounding).
      h.guess = std::sqrt(best) * (1 + 8 * kEps) + 16 * kEps * s_;
    }
    h.triangle = tri;
    return h;
  }

  /// p relative to the centre of A and B's box, in float (the prefilter's frame).
  std::array<float, 3> to_f(const V& p) const {
    return {static_cast<float>(p[0] - centre_[0]), static_cast<float>(p[1] - centre_[1]),
            static_cast<float>(p[2] - centre_[2])};
  }

  /// The float prefilter's bound search (bound_item_float); falls back to the
  /// double search bound_item where the float pick does not hold up in double.
  double bound_item_fast(Item& it, double threshold, double target, bool& searched) const {
#if PROX_HAUSDORFF_AVX2
    if (avx2_) return bound_item_avx2(it, threshold, target, searched);
#endif
    return bound_item_float<false>(it, threshold, target, searched);
  }
#if PROX_HAUSDORFF_AVX2
  /// The same code built for AVX2 (three-operand VEX forms of the same
  /// operations; no FMA contraction: -ffp-contract=off), so the same results.
  [[gnu::target("avx2")]] double bound_item_avx2(Item& it, double threshold, double target,
                                                 bool& searched) const {
    return bound_item_float<true>(it, threshold, target, searched);
  }
#endif
  template <bool Wide>
  PROX_FORCE_INLINE double bound_item_float(Item& it, double threshold, double target,
                                            bool& searched) const;

  /// Points of A to evaluate: every one gets a guess (a near triangle, for the
  /// upper bounds); those whose guessed distance could exceed `floor` (and the
  /// `top` largest guesses) also the exact query, the only ones that can raise
  /// the lower bound. Returns the number of exact queries.
  std::size_t eval_points(const std::vector<V>& pts, std::vector<PointHit>& out, double floor,
                          std::size_t top) const;

  /// A true upper bound of d(p, triangle t): a point of t, rebuilt from the
  /// kernel's barycentrics, and the distance to it rounded up.
  double upper_point(const V& p, std::int32_t t) const {
    const V a = corner_b(t, 0), b = corner_b(t, 1), c = corner_b(t, 2);
    const auto r = closest_point_triangle(p, a, b, c);
    double w0 = std::max(r.bary[0], 0.0), w1 = std::max(r.bary[1], 0.0),
           w2 = std::max(r.bary[2], 0.0);
    const double sum = w0 + w1 + w2;
    if (!(sum > 0)) {
      w0 = 1;
      w1 = w2 = 0;
    } else {
      w0 /= sum;
      w1 /= sum;
      w2 /= sum;
    }
    const V q = a * w0 + b * w1 + c * w2;
    return std::sqrt(squared_distance(p, q)) * (1 + 8 * kEps) + 16 * kEps * s_;
  }

  /// The same bound from given weights (found in float): any weights, clamped to
  /// >= 0 and normalised, name a point q of t, so |p - q| (rounded up) bounds d(p, t).
  double upper_weights(const V& p, std::int32_t t, double w0, double w1, double w2) const {
    const V a = corner_b(t, 0), b = corner_b(t, 1), c = corner_b(t, 2);
    w0 = std::max(w0, 0.0);
    w1 = std::max(w1, 0.0);
    w2 = std::max(w2, 0.0);
    const double sum = w0 + w1 + w2;
    if (!(sum > 0) || !std::isfinite(sum)) return upper_point(p, t);
    const V q = a * (w0 / sum) + b * (w1 / sum) + c * (w2 / sum);
    return std::sqrt(squared_distance(p, q)) * (1 + 8 * kEps) + 16 * kEps * s_;
  }

  /// max over the item's corners of d(corner, t)^2, stopping once above `stop`.
  double corner_max_sq(const Item& it, const V& a, const V& b, const V& c, double stop) const {
    double m = 0;
    for (int k = 0; k < 3; ++k) {
      m = std::max(m, closest_point_triangle(it.p[k], a, b, c).sq_distance);
      if (m > stop) break;
    }
    return m;
  }

  /// The item's upper bound (true, rounded up) and the B triangle that gives it.
  double bound_item(Item& it, double threshold, double target, bool& searched) const;

  const TriangleMesh<T>& a_;
  const MeshIndex<T>& b_;
  const TriangleMesh<T>& bm_;
  const FlatIndex<T>& layout_;
  double tol_, s_, lower_margin_ = 0;
  HausdorffOptions opt_;
  BatchOptions batch_;
  // B's prepared data (HausdorffTarget): see there.
  const std::vector<std::uint32_t>& adj_off_;
  const std::vector<std::uint32_t>& adj_;
  const std::vector<std::array<V, 3>>& corners_;
  const std::vector<LeafPack<float>>& fpacks_;
  const V& centre_;
  const std::vector<std::array<float, 9>>& fcorners_;
  const std::vector<std::uint32_t>& slot_of_;
  const std::vector<std::uint8_t>& pack_lanes_;
  bool use_float_ = false;
  bool avx2_ = false;  // the float prefilter's AVX2 build runs here
};

template <class T>
double OneSided<T>::bound_item(Item& it, double threshold, double target, bool& searched) const {
  (void)threshold;
  // Any triangle that settles the item will do (below the target with room
  // for the outward rounding of the bound): the first one found ends the search.
  const double stop = target * (1 - 1e-12) - 32 * kEps * s_;
  const double stop_sq = stop > 0 ? stop * stop : -1.0;
  double best_sq = kInf;
  std::int32_t best = -1;
  const std::int32_t cands[4] = {it.best, it.near[0], it.near[1], it.near[2]};
  for (int i = 0; i < 4 && !(best_sq <= stop_sq); ++i) {
    const std::int32_t t = cands[i];
    if (t < 0 || std::find(cands, cands + i, t) != cands + i) continue;
    const double v = corner_max_sq(it, corner_b(t, 0), corner_b(t, 1), corner_b(t, 2), best_sq);
    if (v < best_sq || (v == best_sq && t < best)) {
      best_sq = v;
      best = t;
    }
  }
  searched = false;
  if (!(best_sq <= stop_sq)) {
    // Next the triangle a greedy descent finds for the centroid (one leaf).
    const std::int32_t t = guess_point((it.p[0] + it.p[1] + it.p[2]) * (1.0 / 3)).triangle;
    if (t >= 0) {
      const double v = corner_max_sq(it, corner_b(t, 0), corner_b(t, 1), corner_b(t, 2), best_sq);
      if (v < best_sq || (v == best_sq && t < best)) {
        best_sq = v;
        best = t;
      }
    }
  }
  // A short walk: the triangles sharing a vertex with the best so far, twice.
  for (int step = 0; step < 2 && !(best_sq <= stop_sq) && best >= 0; ++step) {
    const std::int32_t from = best;
    for (int k = 0; k < 3 && !(best_sq <= stop_sq); ++k) {
      const std::uint32_t v = bm_.triangles()[std::size_t(from)][k];
      for (std::uint32_t j = adj_off_[v]; j < adj_off_[v + 1]; ++j) {
        const auto t = static_cast<std::int32_t>(adj_[j]);
        if (t == from) continue;
        const double val = corner_max_sq(it, corner_b(t, 0), corner_b(t, 1), corner_b(t, 2), best_sq);
        if (val < best_sq || (val == best_sq && t < best)) {
          best_sq = val;
          best = t;
          if (best_sq <= stop_sq) break;
        }
      }
    }
    if (best == from) break;
  }
  if (!(best_sq <= stop_sq)) {
    // Not enough: the smallest corner-max over all of B, through the BVH.
    searched = true;
    const bvh::PointQuery q0(it.p[0]), q1(it.p[1]), q2(it.p[2]);
    TriangleBoundTest test{q0, q1, q2, bvh::float_up(best_sq * (1 + 1e-6))};
    bvh::traverse(layout_.nodes, test, [&](std::uint32_t first, std::uint32_t count) {
      for (std::uint32_t s = first; s < first + count; ++s) {
        const auto t = static_cast<std::int32_t>(layout_.prims[s]);
        const V a = to_d(layout_.corner(s, 0)), b = to_d(layout_.corner(s, 1)),
                c = to_d(layout_.corner(s, 2));
        const double v = corner_max_sq(it, a, b, c, best_sq);
        if (v < best_sq || (v == best_sq && t < best)) {
          best_sq = v;
          best = t;
          test.shrink(bvh::float_up(v * (1 + 1e-6)));
          if (best_sq <= stop_sq) return true;
        }
      }
      return false;
    });
  }
  it.best = best;
  double u = 0;
  for (int k = 0; k < 3; ++k) u = std::max(u, upper_point(it.p[k], best));
  return u;
}

template <class T>
template <bool Wide>
PROX_FORCE_INLINE double OneSided<T>::bound_item_float(Item& it, double threshold, double target,
                                                       bool& searched) const {
  const double stop = target * (1 - 1e-12) - 32 * kEps * s_;
  if (!use_float_ || !(stop > 0)) return bound_item(it, threshold, target, searched);
  const float fstop = static_cast<float>(stop * stop);
  // The corners in the prefilter's frame, each splat over the lanes.
  F4 cx[3], cy[3], cz[3];
  for (int k = 0; k < 3; ++k) {
    const std::array<float, 3> f = to_f(it.p[k]);
    cx[k] = splat4(f[0]);
    cy[k] = splat4(f[1]);
    cz[k] = splat4(f[2]);
  }
  float best_f = std::numeric_limits<float>::infinity();
  std::int32_t best = -1;
  // The item's corner max against the four lanes of a pack (n of them real).
  // Corners 0 and 1 in one 8-lane call (the pack twice), corner 2 in another.
  const F8 x01 = join8(cx[0], cx[1]), y01 = join8(cy[0], cy[1]), z01 = join8(cz[0], cz[1]);
  const F8 x22 = join8(cx[2], cx[2]), y22 = join8(cy[2], cy[2]), z22 = join8(cz[2], cz[2]);
  auto offer = [&](const LeafPack<float>& pk, const std::int32_t* ids, std::uint32_t n) PROX_LAMBDA_INLINE {
    F4 m;
    // The max only grows: no lane can win if two corners already exceed the
    // best (padding lanes repeat a real one, so all four lanes may be tested).
    auto closed = [&]() PROX_LAMBDA_INLINE {
      const auto open = m <= splat4(best_f);
      return (open[0] | open[1] | open[2] | open[3]) == 0;
    };
    if constexpr (Wide) {
      const TriN<F8> tri = prepare8(pk, pk);
      const F8 d01 = sq_dist<F8>(tri, x01, y01, z01);
      m = lo4(d01);
      const F4 d1 = hi4(d01);
      m = m > d1 ? m : d1;
      if (closed()) return;
      const F4 d2 = lo4(sq_dist<F8>(tri, x22, y22, z22));
      m = m > d2 ? m : d2;
    } else {
      const Tri4 tri = prepare4(pk);
      m = sq_dist4(tri, cx[0], cy[0], cz[0]);
      const F4 d1 = sq_dist4(tri, cx[1], cy[1], cz[1]);
      m = m > d1 ? m : d1;
      if (closed()) return;
      const F4 d2 = sq_dist4(tri, cx[2], cy[2], cz[2]);
      m = m > d2 ? m : d2;
    }
    for (std::uint32_t l = 0; l < n; ++l)
      if (m[l] < best_f || (m[l] == best_f && ids[l] < best)) {
        best_f = m[l];
        best = ids[l];
      }
  };
  // Up to four triangles by id, gathered into a pack.
  auto offer_ids = [&](const std::int32_t* ids, std::uint32_t n) PROX_LAMBDA_INLINE {
    offer(gather4(fcorners_.data(), ids, n), ids, n);
  };
  auto settled = [&]() PROX_LAMBDA_INLINE { return best_f <= fstop; };
  auto offer_pack = [&](std::uint32_t q) PROX_LAMBDA_INLINE {
    offer(fpacks_[q], reinterpret_cast<const std::int32_t*>(&layout_.prims[4 * q]), pack_lanes_[q]);
  };
  {
    // The packs (four triangles of a leaf, side by side in slot order: no
    // gather) holding the parent's best triangle and the corners' near ones.
    std::uint32_t packs[4];
    std::uint32_t n = 0;
    for (const std::int32_t t : {it.best, it.near[0], it.near[1], it.near[2]}) {
      if (t < 0) continue;
      const std::uint32_t q = slot_of_[std::size_t(t)] / 4;
      if (std::find(packs, packs + n, q) != packs + n) continue;
      packs[n++] = q;
      offer_pack(q);
      if (settled()) break;
    }
  }
  auto offer_leaf = [&](std::uint32_t first, std::uint32_t count) PROX_LAMBDA_INLINE {
    for (std::uint32_t s = first; s < first + count; s += 4)
      offer(fpacks_[s / 4], reinterpret_cast<const std::int32_t*>(&layout_.prims[s]),
            std::min<std::uint32_t>(4, first + count - s));
  };
  if (!settled()) {
    // The leaf a greedy descent finds for the centroid.
    const bvh::PointQuery q((it.p[0] + it.p[1] + it.p[2]) * (1.0 / 3));
    bvh::NearestTest<false> test{q, std::numeric_limits<float>::infinity()};
    bvh::descend_nearest(layout_.nodes, test, offer_leaf);
  }
  // A short walk: the triangles sharing a vertex with the best so far, twice.
  for (int step = 0; step < 2 && !settled() && best >= 0; ++step) {
    const std::int32_t from = best;
    std::int32_t ids[4];
    std::uint32_t n = 0;
    for (int k = 0; k < 3 && !settled(); ++k) {
      const std::uint32_t v = bm_.triangles()[std::size_t(from)][k];
      for (std::uint32_t j = adj_off_[v]; j < adj_off_[v + 1] && !settled(); ++j) {
        const auto t = static_cast<std::int32_t>(adj_[j]);
        if (t == from) continue;
        ids[n++] = t;
        if (n == 4) {
          offer_ids(ids, n);
          n = 0;
        }
      }
    }
    if (n > 0 && !settled()) offer_ids(ids, n);
    if (best == from) break;
  }
  searched = false;
  if (!settled()) {
    searched = true;
    const bvh::PointQuery q0(it.p[0]), q1(it.p[1]), q2(it.p[2]);
    TriangleBoundTest test{q0, q1, q2, bvh::float_up(double(best_f) * (1 + 1e-5))};
    bvh::traverse(layout_.nodes, test, [&](std::uint32_t first, std::uint32_t count) PROX_LAMBDA_INLINE {
      offer_leaf(first, count);
      test.shrink(bvh::float_up(double(best_f) * (1 + 1e-5)));
      return settled();
    });
  }
  if (best < 0) return bound_item(it, threshold, target, searched);  // nothing comparable in float
  const bool float_settled = settled();
  // The certified bound: the points of `best` nearest to the corners, found in
  // float, rebuilt and measured in double (upper_weights).
  double u = 0;
  {
    // One call: the triangle in every lane, the three corners in lanes 0, 1, 2.
    const std::int32_t ids[1] = {best};
    const Tri4 tri = prepare4(gather4(fcorners_.data(), ids, 1));
    F4 w[3];
    sq_dist4(tri, F4{cx[0][0], cx[1][0], cx[2][0], cx[2][0]}, F4{cy[0][0], cy[1][0], cy[2][0], cy[2][0]},
             F4{cz[0][0], cz[1][0], cz[2][0], cz[2][0]}, w);
    for (int k = 0; k < 3; ++k) u = std::max(u, upper_weights(it.p[k], best, w[0][k], w[1][k], w[2][k]));
  }
  it.best = best;
  if (u <= threshold || !float_settled) return u;
  // The float pick settled the item but its double bound does not: the double search.
  bool s2 = false;
  const double v = bound_item(it, threshold, target, s2);
  searched = searched || s2;
  return v;
}

template <class T>
std::size_t OneSided<T>::eval_points(const std::vector<V>& pts, std::vector<PointHit>& out,
                                     double floor, std::size_t top) const {
  out.assign(pts.size(), PointHit{});
  std::vector<double> guess(pts.size());
  batch_for_each(pts.size(), batch_, [&](std::size_t i) {
    out[i] = guess_point(pts[i]);
    guess[i] = out[i].guess + lower_margin_;
  });
  if (top > 0 && pts.size() > 0) {  // the floor from the largest guesses, evaluated first
    std::vector<std::size_t> order(pts.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    top = std::min(top, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                      [&](std::size_t x, std::size_t y) {
                        return guess[x] > guess[y] || (guess[x] == guess[y] && x < y);
                      });
    std::vector<PointHit> first(top);
    batch_for_each(top, batch_, [&](std::size_t j) { first[j] = eval_point(pts[order[j]]); });
    for (std::size_t j = 0; j < top; ++j) {
      out[order[j]] = first[j];
      guess[order[j]] = -1;  // done
      floor = std::max(floor, first[j].lower);
    }
  }
  std::vector<std::size_t> exact;
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (guess[i] > floor) exact.push_back(i);
  batch_for_each(exact.size(), batch_, [&](std::size_t j) { out[exact[j]] = eval_point(pts[exact[j]]); });
  return exact.size() + top;
}

template <class T>
HausdorffSide OneSided<T>::run() {
  HausdorffSide side;
  const auto& tris = a_.triangles();
  const std::size_t nv = a_.num_vertices();
  // Round 0's points: every vertex used by a triangle (its first triangle names it).
  std::vector<std::int32_t> owner(nv, -1);
  for (std::size_t t = tris.size(); t-- > 0;)
    for (int k = 0; k < 3; ++k) owner[tris[t][k]] = static_cast<std::int32_t>(t);
  std::vector<std::uint32_t> used;
  std::vector<V> pts;
  for (std::size_t v = 0; v < nv; ++v)
    if (owner[v] >= 0) used.push_back(static_cast<std::uint32_t>(v));
  {
    // In Morton order of a 1024^3 grid over A's used vertices: consecutive
    // guesses descend to neighbouring leaves of B, found in cache.
    Box3<double> vb = Box3<double>::empty();
    for (std::uint32_t v : used) vb.extend(to_d(a_.vertices()[v]));
    auto spread = [](std::uint64_t x) {
      x &= 0x3ff;
      x = (x | (x << 16)) & 0x30000ff;
      x = (x | (x << 8)) & 0x300f00f;
      x = (x | (x << 4)) & 0x30c30c3;
      x = (x | (x << 2)) & 0x9249249;
      return x;
    };
    std::vector<std::pair<std::uint64_t, std::uint32_t>> code(used.size());
    for (std::size_t j = 0; j < used.size(); ++j) {
      const V p = to_d(a_.vertices()[used[j]]);
      std::uint64_t c = 0;
      for (int k = 0; k < 3; ++k) {
        const double ext = vb.hi[k] - vb.lo[k];
        const double f = ext > 0 ? (p[k] - vb.lo[k]) / ext * 1023.0 : 0.0;
        c |= spread(static_cast<std::uint64_t>(std::clamp(f, 0.0, 1023.0))) << k;
      }
      code[j] = {c, used[j]};
    }
    std::sort(code.begin(), code.end());
    for (std::size_t j = 0; j < used.size(); ++j) used[j] = code[j].second;
  }
  for (std::uint32_t v : used) pts.push_back(to_d(a_.vertices()[v]));
  std::vector<PointHit> hits;
  side.point_queries += eval_points(pts, hits, 0.0, 64);
  std::vector<PointHit> vh(nv);
  Worst worst;
  for (std::size_t j = 0; j < used.size(); ++j) {
    vh[used[j]] = hits[j];
    if (hits[j].lower >= 0) worst.offer(hits[j], pts[j], owner[used[j]]);
  }
  // The items in the order of B's leaf packs holding their first corner's near
  // triangle (a counting sort; those without one last): neighbouring items then
  // read the same packs of B, so the bound search finds them in cache (in A's
  // triangle order they were a random walk over B's packs). Sub-triangles
  // follow their parent, so every round keeps this order.
  std::vector<Item> items(tris.size());
  {
    const std::size_t packs = fpacks_.size();
    std::vector<std::uint32_t> start(packs + 2, 0), key(tris.size());
    for (std::size_t t = 0; t < tris.size(); ++t) {
      const std::int32_t n0 = vh[tris[t][0]].triangle;
      key[t] = n0 >= 0 ? slot_of_[std::size_t(n0)] / 4 : static_cast<std::uint32_t>(packs);
      ++start[key[t] + 1];
    }
    for (std::size_t q = 0; q <= packs; ++q) start[q + 1] += start[q];
    for (std::size_t t = 0; t < tris.size(); ++t) {
      Item& it = items[start[key[t]]++];
      for (int k = 0; k < 3; ++k) {
        it.p[k] = to_d(a_.vertices()[tris[t][k]]);
        it.near[k] = vh[tris[t][k]].triangle;
      }
      it.best = -1;
      it.source = static_cast<std::int32_t>(t);
    }
  }
  double settled = 0;
  std::vector<double> upper;
  std::vector<std::uint8_t> searched;
  std::vector<std::size_t> refine;
  std::vector<PointHit> mid;
  for (int round = 0;; ++round) {
    const double threshold = std::max(worst.lower, 0.0) + tol_;
    // tight: search on until a triangle bounds the item by the lower bound (+ tol / 64),
    // or the smallest bound over all of B; else stop at the first one within tolerance.
    const double target = opt_.tight ? std::max(worst.lower, 0.0) + tol_ / 64 : threshold;
    upper.assign(items.size(), 0);
    searched.assign(items.size(), 0);
    batch_for_each(items.size(), batch_, [&](std::size_t i) {
      bool s = false;
      upper[i] = bound_item_fast(items[i], threshold, target, s);
      searched[i] = s ? 1 : 0;
    });
    side.subtriangles += items.size();
    refine.clear();
    for (std::size_t i = 0; i < items.size(); ++i) {
      side.searches += searched[i];
      if (upper[i] <= threshold) {
        settled = std::max(settled, upper[i]);
      } else {
        refine.push_back(i);
      }
    }
    side.rounds = round;
    if (refine.empty()) {
      side.converged = true;
      break;
    }
    if (round >= kMaxRounds || side.subtriangles + 4 * refine.size() > opt_.max_subtriangles) {
      for (std::size_t i : refine) settled = std::max(settled, upper[i]);
      break;
    }
    // Split each remaining item at its edge midpoints; evaluate those points.
    pts.resize(3 * refine.size());
    for (std::size_t j = 0; j < refine.size(); ++j) {
      const Item& it = items[refine[j]];
      for (int k = 0; k < 3; ++k) pts[3 * j + k] = (it.p[k] + it.p[(k + 1) % 3]) * 0.5;
    }
    side.point_queries += eval_points(pts, mid, std::max(worst.lower, 0.0), 0);
    std::vector<Item> next(4 * refine.size());
    for (std::size_t j = 0; j < refine.size(); ++j) {
      const Item& it = items[refine[j]];
      V m[3];
      std::int32_t mn[3];
      for (int k = 0; k < 3; ++k) {
        m[k] = (it.p[k] + it.p[(k + 1) % 3]) * 0.5;  // m[0] on p0p1, m[1] on p1p2, m[2] on p2p0
        mn[k] = mid[3 * j + k].triangle;
        if (mid[3 * j + k].lower >= 0) worst.offer(mid[3 * j + k], m[k], it.source);
      }
      Item* c = &next[4 * j];
      c[0] = Item{{it.p[0], m[0], m[2]}, {it.near[0], mn[0], mn[2]}, it.best, it.source};
      c[1] = Item{{m[0], it.p[1], m[1]}, {mn[0], it.near[1], mn[1]}, it.best, it.source};
      c[2] = Item{{m[2], m[1], it.p[2]}, {mn[2], mn[1], it.near[2]}, it.best, it.source};
      c[3] = Item{{m[0], m[1], m[2]}, {mn[0], mn[1], mn[2]}, it.best, it.source};
    }
    items.swap(next);
  }
  side.lower = std::max(worst.lower, 0.0);
  side.upper = std::max(settled, side.lower);
  side.worst_point = worst.point;
  side.worst_closest = worst.closest;
  side.worst_triangle = worst.triangle;
  side.worst_closest_triangle = worst.closest_triangle;
  return side;
}

/// The largest |coordinate| of a mesh's (used) vertices, from its bounding
/// box: max |x| over a set is max(|min x|, |max x|), exactly.
template <class T>
double max_abs_coordinate(const Box3<T>& b) {
  double s = 0;
  for (int j = 0; j < 3; ++j) s = std::max({s, std::fabs(double(b.lo[j])), std::fabs(double(b.hi[j]))});
  return s;
}

template <class T>
Box3<T> joint_box(const Box3<T>& a, const Box3<T>& b) {
  Box3<T> box = a;
  box.extend(b.lo);
  box.extend(b.hi);
  return box;
}

template <class T>
double diagonal_of(const Box3<T>& box) {
  return std::sqrt(squared_norm(to_d(box.diagonal())));
}

double tolerance_for(const HausdorffOptions& o, double diagonal) {
  return o.tolerance > 0 ? o.tolerance : o.relative_tolerance * diagonal;
}

/// One direction, given both meshes' boxes (each mesh's bounds() is one pass
/// over its triangles: done once per call, not once per use).
template <class T>
HausdorffSide one_sided(const TriangleMesh<T>& a, const MeshIndex<T>& b, const Box3<T>& box_a,
                        const Box3<T>& box_b, double tol, const HausdorffOptions& options);

template <class T>
void check_inputs(const TriangleMesh<T>& a, const TriangleMesh<T>& b, const HausdorffOptions& o) {
  if (a.empty()) throw std::invalid_argument("hausdorff: mesh A has no triangles");
  if (b.empty()) throw std::invalid_argument("hausdorff: mesh B has no triangles");
  if (!(o.tolerance >= 0) || !(o.relative_tolerance >= 0) || std::isinf(o.tolerance) ||
      std::isinf(o.relative_tolerance))
    throw std::invalid_argument("hausdorff: the tolerance must be a finite number >= 0, not " +
                                std::to_string(o.tolerance) + " / relative " +
                                std::to_string(o.relative_tolerance));
  if (o.tolerance == 0 && o.relative_tolerance == 0)
    throw std::invalid_argument("hausdorff: give a tolerance > 0 (absolute or relative to the "
                                "diagonal); 0 can never be reached");
}

}  // namespace

/// Runs fn in one TBB arena of `threads` slots for the whole computation (0:
/// the caller's arena, 1: no pool at all). One arena per call, not one per
/// parallel loop: a fresh arena per loop makes the workers join every short
/// level anew, and on a busy machine the caller often finishes a loop before
/// they arrive (measured: 2 threads did 0.5% of the work on the worker).
template <class Fn>
void in_arena(int threads, Fn&& fn) {
  if (threads > 1) {
    tbb::task_arena arena(std::min(threads, tbb::this_task_arena::max_concurrency()));
    arena.execute(fn);
  } else {
    fn();
  }
}

namespace {
template <class T>
HausdorffSide one_sided(const TriangleMesh<T>& a, const typename HausdorffTarget<T>::Data& b,
                        const Box3<T>& box_a, double tol, const HausdorffOptions& options) {
  const double s = std::max(max_abs_coordinate(box_a), max_abs_coordinate(b.box));
  HausdorffSide side;
  in_arena(options.threads,
           [&] { side = OneSided<T>(a, b, joint_box(box_a, b.box), tol, s, options).run(); });
  return side;
}

template <class T>
HausdorffResult symmetric(const typename HausdorffTarget<T>::Data& a,
                          const typename HausdorffTarget<T>::Data& b, const HausdorffOptions& options) {
  check_inputs(a.bm, b.bm, options);
  HausdorffResult r;
  r.diagonal = diagonal_of(joint_box(a.box, b.box));
  r.tolerance = tolerance_for(options, r.diagonal);
  HausdorffOptions o = options;
  o.tolerance = r.tolerance;
  in_arena(options.threads, [&] {
    o.threads = options.threads == 1 ? 1 : 0;  // in this arena
    r.forward = one_sided(a.bm, b, a.box, r.tolerance, o);
    r.backward = one_sided(b.bm, a, b.box, r.tolerance, o);
  });
  r.lower = std::max(r.forward.lower, r.backward.lower);
  r.upper = std::max(r.forward.upper, r.backward.upper);
  return r;
}
}  // namespace

template <class T>
HausdorffTarget<T>::HausdorffTarget(const MeshIndex<T>& b) {
  if (b.mesh().empty()) throw std::invalid_argument("hausdorff: mesh B has no triangles");
  data_ = std::make_shared<const Data>(b);
}

template <class T>
const MeshIndex<T>& HausdorffTarget<T>::index() const {
  return data_->b;
}

template <class T>
std::size_t HausdorffTarget<T>::memory_bytes() const {
  return data_->memory_bytes();
}

template <class T>
double hausdorff_tolerance(const TriangleMesh<T>& a, const TriangleMesh<T>& b,
                           const HausdorffOptions& options) {
  check_inputs(a, b, options);
  if (options.tolerance > 0) return options.tolerance;
  return tolerance_for(options, diagonal_of(joint_box(a.bounds(), b.bounds())));
}

template <class T>
HausdorffSide hausdorff_one_sided(const TriangleMesh<T>& a, const HausdorffTarget<T>& b,
                                  const HausdorffOptions& options) {
  const auto& d = b.data();
  check_inputs(a, d.bm, options);
  const Box3<T> box_a = a.bounds();
  const double tol = tolerance_for(options, diagonal_of(joint_box(box_a, d.box)));
  return one_sided(a, d, box_a, tol, options);
}

template <class T>
HausdorffSide hausdorff_one_sided(const TriangleMesh<T>& a, const MeshIndex<T>& b,
                                  const HausdorffOptions& options) {
  check_inputs(a, b.mesh(), options);
  HausdorffSide side;
  // B's preparation is part of the call here (on the call's arena, like the rest).
  in_arena(options.threads, [&] {
    HausdorffOptions o = options;
    o.threads = options.threads == 1 ? 1 : 0;
    side = hausdorff_one_sided(a, HausdorffTarget<T>(b), o);
  });
  return side;
}

template <class T>
HausdorffResult hausdorff(const HausdorffTarget<T>& a, const HausdorffTarget<T>& b,
                          const HausdorffOptions& options) {
  return symmetric<T>(a.data(), b.data(), options);
}

template <class T>
HausdorffResult hausdorff(const MeshIndex<T>& a, const MeshIndex<T>& b,
                          const HausdorffOptions& options) {
  check_inputs(a.mesh(), b.mesh(), options);
  const typename HausdorffTarget<T>::Data ta(a), tb(b);
  return symmetric<T>(ta, tb, options);
}

template class HausdorffTarget<float>;
template class HausdorffTarget<double>;
template HausdorffSide hausdorff_one_sided(const TriangleMesh<float>&, const HausdorffTarget<float>&,
                                           const HausdorffOptions&);
template HausdorffSide hausdorff_one_sided(const TriangleMesh<double>&, const HausdorffTarget<double>&,
                                           const HausdorffOptions&);
template HausdorffResult hausdorff(const HausdorffTarget<float>&, const HausdorffTarget<float>&,
                                   const HausdorffOptions&);
template HausdorffResult hausdorff(const HausdorffTarget<double>&, const HausdorffTarget<double>&,
                                   const HausdorffOptions&);
template double hausdorff_tolerance(const TriangleMesh<float>&, const TriangleMesh<float>&,
                                    const HausdorffOptions&);
template double hausdorff_tolerance(const TriangleMesh<double>&, const TriangleMesh<double>&,
                                    const HausdorffOptions&);
template HausdorffSide hausdorff_one_sided(const TriangleMesh<float>&, const MeshIndex<float>&,
                                           const HausdorffOptions&);
template HausdorffSide hausdorff_one_sided(const TriangleMesh<double>&, const MeshIndex<double>&,
                                           const HausdorffOptions&);
template HausdorffResult hausdorff(const MeshIndex<float>&, const MeshIndex<float>&,
                                   const HausdorffOptions&);
template HausdorffResult hausdorff(const MeshIndex<double>&, const MeshIndex<double>&,
                                   const HausdorffOptions&);

}  // namespace prox
