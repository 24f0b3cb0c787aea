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
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "prox/core/ray.hpp"
#include "prox/mesh/results.hpp"

namespace prox {

/// How a batch runs.
struct BatchOptions {
  int threads = 0;  ///< 0 = all cores
  std::size_t grain = 256;  ///< queries per task at least
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

/// out[i] = fn(i) for every i in [0, out.size()): the loop behind every fixed-size batch form.
template <class Out, class Fn>
void batch_map(std::span<Out> out, Fn&& fn, const BatchOptions& options = {}) {
  batch_for_each(out.size(), options, [&](std::size_t i) { out[i] = fn(i); });
}

/// Lists of fn(i) (a std::vector<Item>) for i in [0, n), packed query by query.
/// Each query's list is computed on the pool into its own slot, then the lists
/// are packed in query order, so the result does not depend on the thread count.
template <class Item, class Fn>
BatchLists<Item> batch_lists(std::size_t n, Fn&& fn, const BatchOptions& options = {}) {
  std::vector<std::vector<Item>> each(n);
  batch_for_each(n, options, [&](std::size_t i) { each[i] = fn(i); });
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
  batch_map(out, [&](std::size_t i) { return index.closest_point(points[i], max_distance); },
            options);
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
  batch_map(out, [&](std::size_t i) {
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
  return batch_lists<std::uint32_t>(centers.size(), [&](std::size_t i) {
    return index.sphere_triangles(centers[i], radii[one ? 0 : i]);
  }, options);
}

/// out[i] = index.signed_distance(points[i]).
template <class Index, class T>
void signed_distances(const Index& index, std::span<const Vec3<T>> points,
                      std::span<MeshSignedDistance<T>> out, const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "signed_distances");
  batch_map(out, [&](std::size_t i) { return index.signed_distance(points[i]); }, options);
}

/// out[i] = index.winding_number(points[i]).
template <class Index, class T>
void winding_numbers(const Index& index, std::span<const Vec3<T>> points, std::span<T> out,
                     const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "winding_numbers");
  batch_map(out, [&](std::size_t i) { return index.winding_number(points[i]); }, options);
}

/// out[i] = index.exact_winding_number(points[i]) (MeshIndex: the exact O(n) sum).
template <class Index, class T>
void exact_winding_numbers(const Index& index, std::span<const Vec3<T>> points, std::span<T> out,
                           const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "exact_winding_numbers");
  batch_map(out, [&](std::size_t i) { return index.exact_winding_number(points[i]); }, options);
}

}  // namespace prox
