// src/mesh/hausdorff_bound.cpp — the certified upper bound of one (sub-)triangle
// of A against B (OneSided::bound_item_fast: the float prefilter picks a
// triangle of B, double bounds with it; OneSided::bound_item: the double
// search) and the greedy one-leaf guesses of points (OneSided::guess_point).
// The only code of the Hausdorff search built twice (baseline and AVX2,
// hausdorff_detail.hpp); see prox/mesh/hausdorff.hpp for the method.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "hausdorff_detail.hpp"
#include "hausdorff_simd.hpp"
#include "prox/bvh/traverse.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define PROX_LAMBDA_INLINE __attribute__((always_inline))
#else
#define PROX_LAMBDA_INLINE
#endif

namespace prox::hausdorff_detail {
namespace {

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
    simd::F8 l0, u0, l1, u1, l2, u2;
    bvh::box_distances8(n, q0, l0, u0);
    bvh::box_distances8(n, q1, l1, u1);
    bvh::box_distances8(n, q2, l2, u2);
    const simd::F8 lb = max8(max8(l0, l1), l2);
    shrink(hmin8(max8(max8(u0, u1), u2)));
    store8(key, lb);
    return le_mask8(lb, set8(bound));
  }
};

}  // namespace

/// A near triangle of B by one greedy descent (nearest box at each level) and
/// an upper bound of d(p, it), so of d(p, B), for the price of one leaf.
template <class T>
PointHit OneSided<T>::guess_point(const V& p) const {
#if PROX_HAUSDORFF_AVX2
  if (avx2_) return guess_point_avx2(p);
#endif
  return guess_point_body<false>(p);
}

#if PROX_HAUSDORFF_AVX2
template <class T>
PointHit OneSided<T>::guess_point_avx2(const V& p) const {
  return guess_point_body<true>(p);
}
#endif

template <class T>
template <bool Wide>
PROX_FORCE_INLINE PointHit OneSided<T>::guess_point_body(const V& p) const {
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

/// The float prefilter's bound search (bound_item_float); falls back to the
/// double search bound_item where the float pick does not hold up in double.
template <class T>
double OneSided<T>::bound_item_fast(Item& it, double threshold, double target, bool& searched) const {
#if PROX_HAUSDORFF_AVX2
  if (avx2_) return bound_item_avx2(it, threshold, target, searched);
#endif
  return bound_item_float<false>(it, threshold, target, searched);
}

#if PROX_HAUSDORFF_AVX2
template <class T>
double OneSided<T>::bound_item_avx2(Item& it, double threshold, double target, bool& searched) const {
  return bound_item_float<true>(it, threshold, target, searched);
}
#endif

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
    offer(gather4(fpacks_.data(), slot_of_.data(), ids, n), ids, n);
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
    const Tri4 tri = prepare4(gather4(fpacks_.data(), slot_of_.data(), ids, 1));
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

template class OneSided<float>;
template class OneSided<double>;

}  // namespace prox::hausdorff_detail
