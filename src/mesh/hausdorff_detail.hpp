// src/mesh/hausdorff_detail.hpp — what the certified Hausdorff search shares
// between its files (private to src/mesh): the items and points it evaluates,
// B's prepared data (HausdorffTarget<T>::Data) and the one-sided search
// (OneSided<T>). Its members are defined in hausdorff_bound.cpp (the upper
// bound of a sub-triangle, the float prefilter and the greedy guesses: the only
// code built twice, baseline and AVX2) and hausdorff_search.cpp (the points'
// evaluation and the rounds of subdivision); hausdorff.cpp holds the API.
// The method and its rounding are described in prox/mesh/hausdorff.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "prox/core/platform.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/hausdorff.hpp"
#include "prox/mesh/isa.hpp"
#include "prox/primitives/closest_point_triangle.hpp"

// The float prefilter is also built for AVX2 (target attribute on two entry
// points, everything under them inlined), chosen at run time like the engine's
// paths; the kernel's functions are local to hausdorff_bound.cpp (anonymous
// namespace), so no symbol is shared between the two builds.
#if defined(PROX_TARGET_ATTRIBUTES) && !defined(PROX_SIMD_AVX2)
#define PROX_HAUSDORFF_AVX2 1
#else
#define PROX_HAUSDORFF_AVX2 0
#endif

namespace prox {
namespace hausdorff_detail {

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

}  // namespace hausdorff_detail


/// B prepared once for any number of one-sided calls h(., B) (what does not
/// depend on A): kappa, its vertex -> triangle lists, the slot of each
/// triangle and B's leaf packs in float (the triangles gathered by id are
/// read from them too: a second per-triangle float copy cost more CPU time
/// in cache misses than it saved). The float packs are relative to the
/// centre of B's own box (each call checks that float's rounding there is
/// small against its tolerance).
template <class T>
struct HausdorffTarget<T>::Data {
  using V = hausdorff_detail::V;
  const MeshIndex<T>& b;
  const TriangleMesh<T>& bm;
  FlatIndex<T> layout;
  Box3<T> box;
  double kappa = 1;
  V centre{};
  std::vector<std::uint32_t> adj_off, adj;
  std::vector<LeafPack<float>> fpacks;
  std::vector<std::uint32_t> slot_of;     // triangle id -> slot
  std::vector<std::uint8_t> pack_lanes;   // real lanes per pack (1..4)

  explicit Data(const MeshIndex<T>& index)
      : b(index), bm(index.mesh()), layout(index.layout()), box(index.mesh().bounds()) {
    using hausdorff_detail::to_d;
    for (std::size_t t = 0; t < bm.num_triangles(); ++t) {
      const V c0 = to_d(bm.corner(t, 0)), c1 = to_d(bm.corner(t, 1)), c2 = to_d(bm.corner(t, 2));
      const double n = std::sqrt(squared_norm(cross(c1 - c0, c2 - c0)));
      const double e = std::max({squared_distance(c0, c1), squared_distance(c1, c2),
                                 squared_distance(c2, c0)});
      if (n > 0) kappa = std::max(kappa, 2 * e / n);
    }
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
           fpacks.capacity() * sizeof(fpacks[0]) + pack_lanes.capacity();
  }
};

namespace hausdorff_detail {

template <class T>
class OneSided {
 public:
  using Target = typename HausdorffTarget<T>::Data;
  /// box: A and B's joint bounding box (computed once by the caller).
  OneSided(const TriangleMesh<T>& a, const Target& tb, const Box3<T>& box, double tol,
           double scale, const HausdorffOptions& o)
      : a_(a), b_(tb.b), bm_(tb.bm), layout_(tb.layout), tol_(tol), s_(scale), opt_(o),
        adj_off_(tb.adj_off), adj_(tb.adj), fpacks_(tb.fpacks),
        centre_(tb.centre), slot_of_(tb.slot_of), pack_lanes_(tb.pack_lanes) {
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
  /// B's corners in double, read from the mesh (a per-triangle copy, 72 bytes
  /// a triangle, took fewer instructions but more CPU time: the mesh's
  /// vertices are 5.4 MB smaller on bunny, so they stay in cache).
  PROX_FORCE_INLINE V corner_b(std::int32_t t, int k) const {
    return to_d(bm_.corner(std::size_t(t), k));
  }

  /// d(p, B) through the index, recomputed in double, rounded down. `bound`:
  /// a true upper bound of d(p, B) (the guess): the query searches within it,
  /// widened past the index's rounding (twice the lower margin, which covers
  /// p rounded to T and the kernel's error), so it prunes more and finds the
  /// same nearest triangle; if rounding still leaves nothing inside, the
  /// query runs again unbounded.
  PointHit eval_point(const V& p, double bound = kInf) const {
    const Vec3<T> pt{static_cast<T>(p[0]), static_cast<T>(p[1]), static_cast<T>(p[2])};
    MeshClosestPoint<T> r;
    const double reach = bound * (1 + 1e-6) + 2 * lower_margin_;
    if (reach < double(std::numeric_limits<T>::max()) / 2)
      r = b_.closest_point(pt, static_cast<T>(reach));
    if (!r.found()) r = b_.closest_point(pt);
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
  PointHit guess_point(const V& p) const;
#if PROX_HAUSDORFF_AVX2
  [[gnu::target("avx2")]] PointHit guess_point_avx2(const V& p) const;
#endif
  /// Wide: 8-lane calls (the AVX2 build); else 4-lane (the baseline build, where
  /// 256-bit vectors would be split): the same operations per lane, the same bits.
  template <bool Wide>
  PointHit guess_point_body(const V& p) const;

  /// p relative to the centre of A and B's box, in float (the prefilter's frame).
  std::array<float, 3> to_f(const V& p) const {
    return {static_cast<float>(p[0] - centre_[0]), static_cast<float>(p[1] - centre_[1]),
            static_cast<float>(p[2] - centre_[2])};
  }

  /// The float prefilter's bound search (bound_item_float); falls back to the
  /// double search bound_item where the float pick does not hold up in double.
  double bound_item_fast(Item& it, double threshold, double target, bool& searched) const;
#if PROX_HAUSDORFF_AVX2
  /// The same code built for AVX2 (three-operand VEX forms of the same
  /// operations; no FMA contraction: -ffp-contract=off), so the same results.
  [[gnu::target("avx2")]] double bound_item_avx2(Item& it, double threshold, double target,
                                                 bool& searched) const;
#endif
  template <bool Wide>
  double bound_item_float(Item& it, double threshold, double target,
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
  PROX_FORCE_INLINE double upper_weights(const V& p, std::int32_t t, double w0, double w1,
                                         double w2) const {
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
  const std::vector<LeafPack<float>>& fpacks_;
  const V& centre_;
  const std::vector<std::uint32_t>& slot_of_;
  const std::vector<std::uint8_t>& pack_lanes_;
  bool use_float_ = false;
  bool avx2_ = false;  // the float prefilter's AVX2 build runs here
};

extern template class OneSided<float>;
extern template class OneSided<double>;

}  // namespace hausdorff_detail
}  // namespace prox
