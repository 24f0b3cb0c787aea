// prox/mesh/batch.hpp — batch queries: spans in, spans out, on a TBB pool.
//
// Shapes (libigl style): points #P, out #P; rays #R, out #R; sphere centers #S
// with radii #S (or 1: the same radius for every center), out #S. Queries with
// a variable number of answers (all_hits, sphere_triangles) return BatchLists:
// offsets #Q+1 and the answers of query i at items[offsets[i], offsets[i+1]).
// Each output slot depends only on its own input, so results are bit-identical
// for any thread count. `Index` is MeshIndex<T> or BruteForce<T> (anything with
// the same member functions; exact_winding_numbers needs MeshIndex). Throws
// std::invalid_argument when the sizes do not match. A non-finite query gives a
// miss in its own slot and disturbs nothing else.
//
// Every batch form is one line over batch_map / batch_lists, whose loop is a
// template (the query is inlined); the pool is entered once per chunk of at
// least options.grain queries, through one std::function call.
//
// Point queries (closest_points, signed_distances, winding_numbers, sphere
// forms) are visited in Morton (Z-curve) order of their points when
// options.spatial_order is set (the default) and the batch has at least
// detail::kSpatialOrderMin points: neighbouring queries then walk the same
// nodes and leaves while they are in cache. Only the order of the work
// changes; each answer is still written to its own slot from its own input,
// so the output is byte-identical with the option on or off. The order costs
// one 3-pass radix sort of 32-bit keys, in blocks of kSpatialOrderBlock
// points (about 0.07 µs a query; a closest point costs 1-5 µs). Rays are
// not reordered: sorting them by origin measured inconclusive here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "prox/core/platform.hpp"
#include "prox/core/ray.hpp"
#include "prox/core/vec.hpp"
#include "prox/mesh/results.hpp"

namespace prox {

/// How a batch runs.
struct BatchOptions {
  int threads = 0;  ///< 0 = all cores
  std::size_t grain = 256;  ///< queries per task at least
  /// Visit point queries in Morton order of their points (same answers, in the
  /// same slots; faster on scattered points). Off: visit them in the given order.
  bool spatial_order = true;
};

/// Variable-length answers of a batch (CSR): query i's are items[offsets[i], offsets[i+1]).
template <class Item>
struct BatchLists {
  std::vector<std::size_t> offsets{0};  ///< #Q+1, offsets[0] = 0, offsets[#Q] = items.size()
  std::vector<Item> items;              ///< every query's answers, query by query

  /// Number of queries.
  std::size_t size() const { return offsets.size() - 1; }
  /// The answers of query i.
  std::span<const Item> operator[](std::size_t i) const {
    return std::span<const Item>(items).subspan(offsets[i], offsets[i + 1] - offsets[i]);
  }
};

namespace detail {
/// Runs body(begin, end) over [0, n) in chunks on a TBB arena of options.threads.
void batch_for(std::size_t n, const BatchOptions& options,
               const std::function<void(std::size_t, std::size_t)>& body);

inline void check_batch_sizes(std::size_t in, std::size_t out, const char* what) {
  if (in != out)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(in) +
                                " queries but " + std::to_string(out) + " output slots");
}

inline void check_radii(std::size_t centers, std::size_t radii, const char* what) {
  if (radii != centers && radii != 1)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(centers) +
                                " centers but " + std::to_string(radii) +
                                " radii (give one per center, or one for all)");
}
}  // namespace detail

/// Calls fn(i) for every i in [0, n) on the pool; fn writes only what query i owns.
template <class Fn>
void batch_for_each(std::size_t n, const BatchOptions& options, Fn&& fn) {
  detail::batch_for(n, options, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) fn(i);
  });
}

namespace detail {
/// How many queries ahead, in the visiting order, a batch prefetches a
/// query's input and output slots. In spatial order the slots are scattered
/// over the caller's arrays (1M points: 12 MB in, 36 MB out), so each query
/// would otherwise wait on a TLB and cache miss for its point, and its result
/// store on another (perf, bunny cp-near, 10^6 points: 20% of the batch's time
/// in the loop around the query, on those two accesses).
inline constexpr std::size_t kPrefetchAhead = 4;
struct NoIndexPrefetch {
  void operator()(std::size_t) const {}
};
/// Prefetches points[i] and the lines of out[i].
template <class P, class Out>
PROX_FORCE_INLINE void prefetch_slots(std::span<const P> points, std::span<Out> out,
                                      std::size_t i) {
  ::prox::prefetch_l1(&points[i]);
  const char* o = reinterpret_cast<const char*>(&out[i]);
  ::prox::prefetch_l1(o);
  ::prox::prefetch_l1(o + sizeof(Out) - 1);
}
}  // namespace detail

/// Calls fn(order[k]) for every k in [0, n) on the pool (fn(k) when order is
/// empty): the same work as batch_for_each, in another order. prefetch(i),
/// when given, is called kPrefetchAhead queries before fn(i) in the order
/// (hints only: it must not change what fn computes).
template <class Fn, class PrefetchFn = detail::NoIndexPrefetch>
void batch_for_each_in(std::size_t n, std::span<const std::size_t> order,
                       const BatchOptions& options, Fn&& fn, PrefetchFn&& prefetch = PrefetchFn{}) {
  if (order.empty()) {
    batch_for_each(n, options, fn);
    return;
  }
  if (order.size() != n)
    throw std::invalid_argument("batch_for_each_in: " + std::to_string(n) + " queries but " +
                                std::to_string(order.size()) + " in the order");
  detail::batch_for(n, options, [&](std::size_t b, std::size_t e) {
    for (std::size_t k = b; k < e; ++k) {
      if (k + detail::kPrefetchAhead < e) prefetch(order[k + detail::kPrefetchAhead]);
      fn(order[k]);
    }
  });
}

namespace detail {
/// Batches smaller than this keep their order (a sort would not pay).
inline constexpr std::size_t kSpatialOrderMin = 1024;
/// Points are sorted in blocks of this many, each on its own (and in parallel):
/// the sort stays in cache, and a huge batch still writes its output in passes.
inline constexpr std::size_t kSpatialOrderBlock = std::size_t(1) << 20;
/// Key of a non-finite point: after every Morton code (those use 30 bits).
inline constexpr std::uint32_t kSpatialOrderLast = std::uint32_t(1) << 30;

/// The 30-bit Morton code of p's cell in a 1024^3 grid over the box whose
/// low corner is lo, cells 1/scale wide (clamped into the grid; NaN -> 0).
std::uint32_t morton_code(double x, double y, double z, const double lo[3],
                          const double scale[3]);
/// order[j] = first + (the j-th of the keys' indices in ascending key order,
/// ties in index order): a stable radix sort (order.size() == keys.size()).
void sort_block(std::span<const std::uint32_t> keys, std::size_t first,
                std::span<std::size_t> order);

/// The Morton order of the n points point(i) (a Vec<T, 3>), sorted block by
/// block; empty (meaning: the given order) when options.spatial_order is off,
/// n < kSpatialOrderMin, or no point is finite. Non-finite points go last in
/// their block. Deterministic: the same points give the same order.
template <class PointFn>
std::vector<std::size_t> spatial_order(std::size_t n, const BatchOptions& options,
                                       PointFn&& point) {
  std::vector<std::size_t> order;
  if (!options.spatial_order || n < kSpatialOrderMin) return order;
  double lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = ScalarTraits<double>::infinity();
    hi[a] = -ScalarTraits<double>::infinity();
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto p = point(i);
    const double c[3] = {double(p[0]), double(p[1]), double(p[2])};
    if (!(std::isfinite(c[0]) && std::isfinite(c[1]) && std::isfinite(c[2]))) continue;
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], c[a]);
      hi[a] = std::max(hi[a], c[a]);
    }
  }
  if (!(lo[0] <= hi[0])) return order;
  double scale[3];
  for (int a = 0; a < 3; ++a) {
    const double extent = hi[a] - lo[a];  // may overflow to inf: scale 0, one cell
    scale[a] = extent > 0 ? 1024.0 / extent : 0.0;
  }
  order.resize(n);
  const std::size_t blocks = (n + kSpatialOrderBlock - 1) / kSpatialOrderBlock;
  BatchOptions per_block = options;
  per_block.grain = 1;
  batch_for_each(blocks, per_block, [&](std::size_t k) {
    const std::size_t first = k * kSpatialOrderBlock;
    const std::size_t count = std::min(kSpatialOrderBlock, n - first);
    std::vector<std::uint32_t> keys(count);
    for (std::size_t j = 0; j < count; ++j) {
      const auto p = point(first + j);
      keys[j] = morton_code(double(p[0]), double(p[1]), double(p[2]), lo, scale);
    }
    sort_block(keys, first, std::span<std::size_t>(order).subspan(first, count));
  });
  return order;
}
}  // namespace detail

/// out[i] = fn(i) for every point query i, visited in the points' spatial
/// order (options.spatial_order); the slots and their values are batch_map's.
template <class T, class Out, class Fn>
void batch_map_points(std::span<const Vec3<T>> points, std::span<Out> out, Fn&& fn,
                      const BatchOptions& options = {}) {
  const std::vector<std::size_t> order =
      detail::spatial_order(points.size(), options, [&](std::size_t i) { return points[i]; });
  batch_for_each_in(out.size(), order, options, [&](std::size_t i) { out[i] = fn(i); },
                    [&](std::size_t i) { detail::prefetch_slots(points, out, i); });
}

/// Calls hint = fn(i, hint) for every point query i (point(i): its Vec<T, 3>),
/// visited in the points' spatial order (options.spatial_order), where hint
/// starts at -1 in every chunk and is what fn returned for the point visited
/// just before i: the triangle a nearby point found, for a query that can
/// start from it (MeshIndex::closest_point_from). In the given order (spatial
/// order off, or too few points to sort) consecutive points are no hint to
/// each other: fn always gets -1. fn's answers must not depend on the hint.
/// prefetch(i), when given, is called a few points ahead of fn(i) in the
/// spatial order (see batch_for_each_in).
template <class PointFn, class Fn, class PrefetchFn = detail::NoIndexPrefetch>
void batch_chain_points(std::size_t n, const BatchOptions& options, PointFn&& point, Fn&& fn,
                        PrefetchFn&& prefetch = PrefetchFn{}) {
  const std::vector<std::size_t> order = detail::spatial_order(n, options, point);
  if (order.empty()) {
    batch_for_each(n, options, [&](std::size_t i) { fn(i, std::int32_t(-1)); });
    return;
  }
  detail::batch_for(n, options, [&](std::size_t b, std::size_t e) {
    std::int32_t hint = -1;
    for (std::size_t k = b; k < e; ++k) {
      if (k + detail::kPrefetchAhead < e) prefetch(order[k + detail::kPrefetchAhead]);
      hint = fn(order[k], hint);
    }
  });
}

/// out[i] = fn(i) for every i in [0, out.size()): the loop behind every fixed-size batch form.
template <class Out, class Fn>
void batch_map(std::span<Out> out, Fn&& fn, const BatchOptions& options = {}) {
  batch_for_each(out.size(), options, [&](std::size_t i) { out[i] = fn(i); });
}

/// Lists of fn(i) (a std::vector<Item>) for i in [0, n), packed query by query.
/// Each query's list is computed on the pool into its own slot, then the lists
/// are packed in query order, so the result does not depend on the thread count.
/// order (optional, a permutation of [0, n)) is the order the lists are computed in.
template <class Item, class Fn>
BatchLists<Item> batch_lists(std::size_t n, Fn&& fn, const BatchOptions& options = {},
                             std::span<const std::size_t> order = {}) {
  std::vector<std::vector<Item>> each(n);
  batch_for_each_in(n, order, options, [&](std::size_t i) { each[i] = fn(i); });
  BatchLists<Item> lists;
  lists.offsets.resize(n + 1);
  for (std::size_t i = 0; i < n; ++i) lists.offsets[i + 1] = lists.offsets[i] + each[i].size();
  lists.items.resize(lists.offsets[n]);
  batch_for_each(n, options, [&](std::size_t i) {
    std::copy(each[i].begin(), each[i].end(), lists.items.begin() +
                                                  static_cast<std::ptrdiff_t>(lists.offsets[i]));
  });
  return lists;
}

/// out[i] = index.closest_point(points[i], max_distance).
template <class Index, class T>
void closest_points(const Index& index, std::span<const Vec3<T>> points,
                    std::span<MeshClosestPoint<T>> out,
                    T max_distance = ScalarTraits<T>::infinity(),
                    const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "closest_points");
  if constexpr (requires { index.closest_point_from(points[0], std::int32_t(0), max_distance); }) {
    // Each point starts from the answer of the point before it in the
    // spatial order (MeshIndex::closest_point_from: the same answer, sooner).
    batch_chain_points(
        points.size(), options, [&](std::size_t i) { return points[i]; },
        [&](std::size_t i, std::int32_t hint) {
          out[i] = index.closest_point_from(points[i], hint, max_distance);
          return out[i].triangle;  // -1 after a miss
        },
        [&](std::size_t i) { detail::prefetch_slots(points, out, i); });
  } else {
    batch_map_points(points, out,
                     [&](std::size_t i) { return index.closest_point(points[i], max_distance); },
                     options);
  }
}

/// out[i] = index.first_hit(rays[i]).
template <class Index, class T>
void first_hits(const Index& index, std::span<const Ray<T>> rays, std::span<MeshRayHit<T>> out,
                const BatchOptions& options = {}) {
  detail::check_batch_sizes(rays.size(), out.size(), "first_hits");
  if constexpr (requires { index.first_hits(rays, out); }) {
    // MeshIndex: a chunk at a time, so coherent rays go in packets (same answers).
    detail::batch_for(rays.size(), options, [&](std::size_t b, std::size_t e) {
      index.first_hits(rays.subspan(b, e - b), out.subspan(b, e - b));
    });
  } else {
    batch_map(out, [&](std::size_t i) { return index.first_hit(rays[i]); }, options);
  }
}

/// out[i] = index.any_hit(rays[i]) ? 1 : 0.
template <class Index, class T>
void any_hits(const Index& index, std::span<const Ray<T>> rays, std::span<std::uint8_t> out,
              const BatchOptions& options = {}) {
  detail::check_batch_sizes(rays.size(), out.size(), "any_hits");
  batch_map(out, [&](std::size_t i) { return std::uint8_t(index.any_hit(rays[i]) ? 1 : 0); },
            options);
}

/// out[i] = index.count_hits(rays[i]).
template <class Index, class T>
void count_hits(const Index& index, std::span<const Ray<T>> rays, std::span<std::uint32_t> out,
                const BatchOptions& options = {}) {
  detail::check_batch_sizes(rays.size(), out.size(), "count_hits");
  batch_map(
      out, [&](std::size_t i) { return static_cast<std::uint32_t>(index.count_hits(rays[i])); },
      options);
}

/// Query i's hits are index.all_hits(rays[i]) (sorted by t, then triangle id).
template <class Index, class T>
BatchLists<MeshRayHit<T>> all_hits(const Index& index, std::span<const Ray<T>> rays,
                                   const BatchOptions& options = {}) {
  return batch_lists<MeshRayHit<T>>(
      rays.size(), [&](std::size_t i) { return index.all_hits(rays[i]); }, options);
}

/// out[i] = index.sphere_overlaps(centers[i], radius i) ? 1 : 0.
template <class Index, class T>
void sphere_overlaps(const Index& index, std::span<const Vec3<T>> centers, std::span<const T> radii,
                     std::span<std::uint8_t> out, const BatchOptions& options = {}) {
  detail::check_batch_sizes(centers.size(), out.size(), "sphere_overlaps");
  detail::check_radii(centers.size(), radii.size(), "sphere_overlaps");
  const bool one = radii.size() == 1;
  batch_map_points(centers, out, [&](std::size_t i) {
    return std::uint8_t(index.sphere_overlaps(centers[i], radii[one ? 0 : i]) ? 1 : 0);
  }, options);
}

/// Query i's triangles are index.sphere_triangles(centers[i], radius i) (sorted ids).
template <class Index, class T>
BatchLists<std::uint32_t> sphere_triangles(const Index& index, std::span<const Vec3<T>> centers,
                                           std::span<const T> radii,
                                           const BatchOptions& options = {}) {
  detail::check_radii(centers.size(), radii.size(), "sphere_triangles");
  const bool one = radii.size() == 1;
  const std::vector<std::size_t> order = detail::spatial_order(
      centers.size(), options, [&](std::size_t i) { return centers[i]; });
  return batch_lists<std::uint32_t>(centers.size(), [&](std::size_t i) {
    return index.sphere_triangles(centers[i], radii[one ? 0 : i]);
  }, options, order);
}

/// out[i] = index.signed_distance(points[i]).
template <class Index, class T>
void signed_distances(const Index& index, std::span<const Vec3<T>> points,
                      std::span<MeshSignedDistance<T>> out, const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "signed_distances");
  batch_map_points(points, out, [&](std::size_t i) { return index.signed_distance(points[i]); },
                   options);
}

/// out[i] = index.winding_number(points[i]).
template <class Index, class T>
void winding_numbers(const Index& index, std::span<const Vec3<T>> points, std::span<T> out,
                     const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "winding_numbers");
  batch_map_points(points, out, [&](std::size_t i) { return index.winding_number(points[i]); },
                   options);
}

/// out[i] = index.exact_winding_number(points[i]) (MeshIndex: the exact O(n) sum).
template <class Index, class T>
void exact_winding_numbers(const Index& index, std::span<const Vec3<T>> points, std::span<T> out,
                           const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "exact_winding_numbers");
  batch_map(out, [&](std::size_t i) { return index.exact_winding_number(points[i]); }, options);
}

}  // namespace prox
