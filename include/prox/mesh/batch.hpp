// prox/mesh/batch.hpp — batch queries: spans in, spans out, on a TBB pool.
//
// Shapes (libigl style): points  #P, out #P; rays #R, out #R. Each output slot
// depends only on its own input, so results are bit-identical for any thread
// count. `Index` is MeshIndex<T> or BruteForce<T> (anything with the same
// member functions). Throws std::invalid_argument when out.size() != in.size().
// A non-finite query gives a miss in its own slot and disturbs nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>

#include "prox/core/ray.hpp"
#include "prox/mesh/results.hpp"

namespace prox {

/// How a batch runs.
struct BatchOptions {
  int threads = 0;  ///< 0 = all cores
  std::size_t grain = 256;  ///< queries per task at least
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
}  // namespace detail

/// out[i] = index.closest_point(points[i], max_distance).
template <class Index, class T>
void closest_points(const Index& index, std::span<const Vec3<T>> points,
                    std::span<MeshClosestPoint<T>> out,
                    T max_distance = ScalarTraits<T>::infinity(),
                    const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "closest_points");
  detail::batch_for(points.size(), options, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out[i] = index.closest_point(points[i], max_distance);
  });
}

/// out[i] = index.first_hit(rays[i]).
template <class Index, class T>
void first_hits(const Index& index, std::span<const Ray<T>> rays, std::span<MeshRayHit<T>> out,
                const BatchOptions& options = {}) {
  detail::check_batch_sizes(rays.size(), out.size(), "first_hits");
  detail::batch_for(rays.size(), options, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out[i] = index.first_hit(rays[i]);
  });
}

/// out[i] = index.any_hit(rays[i]) ? 1 : 0.
template <class Index, class T>
void any_hits(const Index& index, std::span<const Ray<T>> rays, std::span<std::uint8_t> out,
              const BatchOptions& options = {}) {
  detail::check_batch_sizes(rays.size(), out.size(), "any_hits");
  detail::batch_for(rays.size(), options, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out[i] = index.any_hit(rays[i]) ? 1 : 0;
  });
}

/// out[i] = index.count_hits(rays[i]).
template <class Index, class T>
void count_hits(const Index& index, std::span<const Ray<T>> rays, std::span<std::uint32_t> out,
                const BatchOptions& options = {}) {
  detail::check_batch_sizes(rays.size(), out.size(), "count_hits");
  detail::batch_for(rays.size(), options, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i)
      out[i] = static_cast<std::uint32_t>(index.count_hits(rays[i]));
  });
}

/// out[i] = index.signed_distance(points[i]).
template <class Index, class T>
void signed_distances(const Index& index, std::span<const Vec3<T>> points,
                      std::span<MeshSignedDistance<T>> out, const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "signed_distances");
  detail::batch_for(points.size(), options, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out[i] = index.signed_distance(points[i]);
  });
}

/// out[i] = index.winding_number(points[i]).
template <class Index, class T>
void winding_numbers(const Index& index, std::span<const Vec3<T>> points, std::span<T> out,
                     const BatchOptions& options = {}) {
  detail::check_batch_sizes(points.size(), out.size(), "winding_numbers");
  detail::batch_for(points.size(), options, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out[i] = index.winding_number(points[i]);
  });
}

}  // namespace prox
