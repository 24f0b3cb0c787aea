// src/mesh/queries.hpp — the engine's hot queries as free functions over the
// flat layout (prox/mesh/flat_index.hpp): closest point, first hit, any hit.
//
// Each is the shared traversal loop (prox/bvh/traverse.hpp) with a node test
// and a leaf function; the leaf runs the shared scalar kernel in the mesh's
// precision T on every triangle the SIMD filters keep, so answers equal
// BruteForce<T> bit for bit (ties to the lowest triangle id, see
// query_common.hpp) whatever the ISA. Compiled once per ISA path
// (engine_isa.cpp), so everything is in the ISA's inline namespace.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernel_instances.hpp"
#include "leaf_closest_simd.hpp"
#include "leaf_ray_simd.hpp"
#include "prox/bvh/traverse.hpp"
#include "prox/mesh/flat_index.hpp"
#include "query_common.hpp"

namespace prox::detail {
inline namespace PROX_ISA_NAMESPACE {

/// Prefetches the first two cache lines of a leaf's packs, and its slot-map
/// entry, when it is selected.
template <class T>
struct PrefetchPacks {
  const LeafPack<T>* packs;
  const std::uint32_t* prims;
  PROX_FORCE_INLINE void operator()(std::uint32_t slot) const {
    const char* p = reinterpret_cast<const char*>(packs + slot / bvh::kLeafAlign);
    prefetch_l1(p);
    prefetch_l1(p + 64);
    prefetch_l1(prims + slot);
  }
};

/// Squared distance lower bound from p to the box of slot s's triangle, in T
/// (shrunk by 2^-40 in double, 2^-20 in float: far beyond its few roundings;
/// 1 - 2^-40 would round to 1 in float): a cheap, conservative skip.
template <class T>
PROX_FORCE_INLINE T slot_box_lower_bound(const LeafPack<T>& pk, unsigned lane, const Vec3<T>& p) {
  T l = T(0);
  for (int a = 0; a < 3; ++a) {
    const T x0 = pk.c[0][a][lane], x1 = pk.c[1][a][lane], x2 = pk.c[2][a][lane];
    const T lo = std::min(x0, std::min(x1, x2)), hi = std::max(x0, std::max(x1, x2));
    const T d = std::max(lo - p[a], p[a] - hi);
    if (d > T(0)) l += d * d;
  }
  constexpr T kShrink = std::is_same_v<T, float> ? T(bvh::kShrink)  // 1 - 2^-20
                                                  : T(1.0 - 1.0 / 1099511627776.0);
  static_assert(kShrink < T(1), "the shrink factor must not round to 1");
  return l * kShrink;
}

/// hint (optional): the three corners of a triangle likely near p and its id
/// (a nearby point's answer): its kernel result seeds the search, which then
/// skips the greedy first descent. The answer is the same bit for bit: the
/// hint is one of the triangles the search offers anyway (same kernel, same
/// tie rule), so seeding only lowers the bound earlier.
///
/// near (kNear): also lists in *near every other triangle whose kernel squared
/// distance is within near_radius_sq(answer, reach) (prox/mesh/results.hpp),
/// whatever max_distance: the search bound is kept at that radius rather than
/// the best distance (farthest-corner bounds off), so every such triangle
/// reaches the kernel (the leaf and box filters are conservative for the
/// kernel's result), and the list is filtered by the final answer at the end.
/// The answer itself is the plain query's bit for bit (the same offers in the
/// same order; a larger bound only lets more triangles be offered, which lose).
template <class T, bool kNear = false>
PROX_FORCE_INLINE MeshClosestPoint<T> closest_point_query(const FlatIndex<T>& x, const Vec3<T>& p,
                                                          T max_distance, bool simd,
                                                          const Vec3<T>* hint = nullptr,
                                                          std::uint32_t hint_id = 0,
                                                          NearTriangles<T>* near = nullptr,
                                                          double reach = 0) {
  MeshClosestPoint<T> best;
  if constexpr (kNear) near->clear();
  if (!CoordinateRange<T>::contains(p)) return best;  // NaN, Inf or out of range: a miss
  const T r2 = squared_radius(max_distance);
  if (r2 < T(0)) return best;
  best.sq_distance = ScalarTraits<T>::infinity();
  const bvh::PointQuery q(p);
  // kNear: near_sq is the listing radius of the best so far (of max_distance
  // before any), and the search bound that radius.
  T near_sq = kNear ? near_radius_sq(r2, reach) : T(0);
  bvh::NearestTest<true> test{q, bvh::float_up(kNear ? near_sq : r2) * bvh::kGrow};
  if constexpr (kNear) test.upper = false;
  auto note = [&](const ClosestPointTriangleResult<T>& r, std::uint32_t id) {
    if constexpr (kNear) near->note({std::int32_t(id), r.feature, r.sq_distance, r.point}, near_sq);
  };
  auto offered = [&](const ClosestPointTriangleResult<T>& r, std::uint32_t id) {
    if (r.sq_distance <= r2 && offer_closest(best, r, id)) {
      if constexpr (kNear) {
        near_sq = near_radius_sq(r.sq_distance, reach);
        test.shrink(bvh::float_up(near_sq) * bvh::kGrow);
      } else {
        test.shrink(bvh::float_up(r.sq_distance) * bvh::kGrow);
      }
    }
    note(r, id);
  };
  auto test_slot = [&](std::uint32_t s) {
    // The pack looked up once (three x.corner() calls cost far queries 4% more
    // instructions: GCC recomputes the address after the kernel call setup).
    const LeafPack<T>& pk = x.pack_of(s);
    const unsigned lane = FlatIndex<T>::lane_of(s);
    const ClosestPointTriangleResult<T> r = closest_point_triangle_tagged<T, IsaTag>(
        p, pk.corner(lane, 0), pk.corner(lane, 1), pk.corner(lane, 2));
    offered(r, x.prims[s]);
  };
  auto leaf = [&](std::uint32_t b, std::uint32_t n) {
#ifdef PROX_SIMD_SSE2
        if constexpr (std::is_same_v<T, float>) {
          if (simd) {
            // Bounds of 8 (AVX2 / AVX-512) or 4 triangles at a time, then the
            // kernel on those within the bound, nearest bound first.
            alignas(16) float lb[bvh::kMaxLeafSize + 3];
            const LeafPack<float>* pk = &x.pack_of(b);
            const unsigned pass = leaf_triangle_bounds(q, &p[0], pk, n, test.bound, lb);
            visit_by_bound(lb, pass, test.bound, [&](unsigned i) { test_slot(b + i); });
            return false;
          }
        }
#endif
        for (std::uint32_t s = b; s < b + n; ++s) {
          if (n > 1 && slot_box_lower_bound(x.pack_of(s), FlatIndex<T>::lane_of(s), p) >
                           T(test.bound))
            continue;
          test_slot(s);
        }
        return false;
      };
  // Greedy first descent: follow the nearest child down to one leaf and test
  // it, so the search starts with a real distance rather than box bounds
  // (what pays on far queries, where many boxes have similar lower bounds).
  // The full traversal then skips that leaf (its first slot is unique): each
  // of its triangles was either offered already or skipped on a bound above
  // the search bound then, which has only shrunk since, so testing it again
  // could not change the answer (it cost a leaf's bounds and a kernel call or
  // two per query).
  std::uint32_t first_leaf = bvh::kInvalid;
  if (hint) {
    const ClosestPointTriangleResult<T> r =
        closest_point_triangle_tagged<T, IsaTag>(p, hint[0], hint[1], hint[2]);
    offered(r, hint_id);
  }
  if (!best.found())
    bvh::descend_nearest(x.nodes, test, [&](std::uint32_t b, std::uint32_t n) {
      first_leaf = b;
      return leaf(b, n);
    });
  // Once that leaf gave a real distance, the boxes' farthest-corner bounds
  // rarely lower the bound further: dropping them costs fewer instructions
  // than they save (callgrind, bunny float: -3.5% cp-near, -2.4% cp-far).
  if (best.found()) test.upper = false;
  bvh::traverse(
      x.nodes, test,
      [&](std::uint32_t b, std::uint32_t n) { return b != first_leaf && leaf(b, n); },
      PrefetchPacks<T>{x.packs.data(), x.prims.data()});
  if (!best.found()) {
    if constexpr (kNear) near->count = 0;  // a miss has no neighbours
    return MeshClosestPoint<T>{};
  }
  if constexpr (kNear) near->finish(near_sq, best.triangle);  // the hint may come again from its leaf
  return best;
}

#ifdef PROX_SIMD_SSE2
/// The SIMD watertight filter of one ray (r) over leaf [b, b + n), eight
/// triangles (two packs) per filter call, a leaf's last pack alone (four)
/// given twice: calls on_hit(s, d, i) for each slot s the filter decided to be
/// a hit (lane i of d: see leaf_hit) and on_slot(s) where the scalar kernel
/// must decide, in slot order; stops when either returns true and returns true
/// then. The single-ray leaf and a packet's leaf traced ray by ray share it.
template <class OnSlot, class OnHit>
PROX_FORCE_INLINE bool ray_leaf_filter(const FlatIndex<float>& x, const RayLeafSimd& r,
                                       std::uint32_t b, std::uint32_t n, OnSlot&& on_slot,
                                       OnHit&& on_hit) {
  LeafDecision d;
  for (std::uint32_t g = b; g < b + n; g += 8) {
    const std::uint32_t left = b + n - g;
    ray_pack_pair_decide(r, x.pack_of(g), x.pack_of(left > 4 ? g + 4 : g), std::min(8u, left), d);
    for (unsigned all = d.kernel | d.hit; all != 0; all &= all - 1) {
      const unsigned i = unsigned(std::countr_zero(all));
      if (d.hit >> i & 1u ? on_hit(g + i, d, i) : on_slot(g + i)) return true;
    }
  }
  return false;
}
#endif

/// Decides the watertight test for each slot of leaf [b, b + n): calls
/// on_hit(s, hit) for each slot hit, in slot order, where the SIMD filter
/// decided the hit itself (leaf_ray_simd.hpp: the kernel's normal path, the
/// same bits), and on_slot(s) where the scalar kernel must decide (every slot
/// on the scalar path); stops when either returns true and returns true then.
template <class T, class OnSlot, class OnHit>
PROX_FORCE_INLINE bool ray_leaf_decide(const FlatIndex<T>& x, [[maybe_unused]] const void* sse,
                                           [[maybe_unused]] const WatertightRay<T>& wr, bool simd,
                                           std::uint32_t b, std::uint32_t n, OnSlot&& on_slot,
                                           [[maybe_unused]] OnHit&& on_hit) {
#ifdef PROX_SIMD_SSE2
  if constexpr (std::is_same_v<T, float>) {
    if (simd)
      return ray_leaf_filter(x, *static_cast<const RayLeafSimd*>(sse), b, n, on_slot,
                             [&](std::uint32_t s, const LeafDecision& d, unsigned i) {
                               return on_hit(s, leaf_hit(d, i, wr));
                             });
  }
#endif
  (void)simd;
  for (std::uint32_t s = b; s < b + n; ++s)
    if (on_slot(s)) return true;
  return false;
}

template <class T>
PROX_FORCE_INLINE RayTriangleHit<T> slot_watertight(const FlatIndex<T>& x, const WatertightRay<T>& wr,
                                                    std::uint32_t s) {
  return ray_triangle_watertight(wr, x.corner(s, 0), x.corner(s, 1), x.corner(s, 2));
}

/// Traces a valid ray over the index: calls on_slot(s, hit) for every slot
/// the watertight test hits, in traversal order (the node test's t_max is
/// `test`, which on_slot may shrink); stops when on_slot returns true.
template <class T, class OnHit>
PROX_FORCE_INLINE void trace_watertight(const FlatIndex<T>& x, const Ray<T>& ray, bool simd,
                                        OnHit&& on_hit) {
  // The box tests run on the kernel's normalized ray (prox::NormalizedRay: the
  // direction scaled by a power of two), whose t is t' = t 2^t_exp.
  const WatertightRay<T> wr(ray);
  const bvh::RayQuery q(wr.ray);
  bvh::RayTest test(q, bvh::float_down(wr.ray.t_min), bvh::float_up(wr.ray.t_max));
#ifdef PROX_SIMD_SSE2
  const RayLeafSimd sse(wr);
  const void* filter = &sse;
#else
  const void* filter = nullptr;
#endif
  bvh::traverse(
      x.nodes, test,
      [&](std::uint32_t b, std::uint32_t n) {
        return ray_leaf_decide(
            x, filter, wr, simd, b, n,
            [&](std::uint32_t s) {
              const RayTriangleHit<T> h = slot_watertight(x, wr, s);
              return h.hit && on_hit(s, h, test, wr);
            },
            [&](std::uint32_t s, const RayTriangleHit<float>& h) {
              if constexpr (std::is_same_v<T, float>) return on_hit(s, h, test, wr);
              else return false;
            });
      },
      PrefetchPacks<T>{x.packs.data(), x.prims.data()});
}

template <class T>
PROX_FORCE_INLINE MeshRayHit<T> first_hit_query(const FlatIndex<T>& x, const Ray<T>& ray,
                                                bool simd) {
  MeshRayHit<T> best;
  if (!ray_is_valid(ray)) return best;
  trace_watertight(x, ray, simd,
                   [&](std::uint32_t s, const RayTriangleHit<T>& h, auto& test,
                       const WatertightRay<T>& wr) {
                     if (offer_hit(best, h, x.prims[s]))
                       test.shrink(bvh::float_up(wr.scaled_t(h.t)));
                     return false;
                   });
  return best;
}

template <class T>
PROX_FORCE_INLINE bool any_hit_query(const FlatIndex<T>& x, const Ray<T>& ray, bool simd) {
  if (!ray_is_valid(ray)) return false;
  bool found = false;
  trace_watertight(x, ray, simd,
                   [&](std::uint32_t, const RayTriangleHit<T>&, auto&, const WatertightRay<T>&) {
    return found = true;
  });
  return found;
}

}  // namespace PROX_ISA_NAMESPACE
}  // namespace prox::detail
