// src/mesh/mesh_index_rays.cpp — MeshIndex ray queries.
//
// first_hit / any_hit use the shared watertight kernel
// (prox::ray_triangle_watertight); all_hits / count_hits use its crossing
// variant (prox/mesh/ray_crossing.hpp) so that edge and vertex hits are
// counted once. Box tests are conservative (prox/bvh/traverse.hpp), so the
// BVH never loses a hit the kernel would report.
#include <bit>
#include <type_traits>

#include "prox/bvh/traverse.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/ray_crossing.hpp"
#include "query_common.hpp"
#include "ray_leaf_sse.hpp"

namespace prox {

template <class T>
MeshRayHit<T> MeshIndex<T>::first_hit(const Ray<T>& ray) const {
  MeshRayHit<T> best;
  if (!detail::ray_is_valid(ray)) return best;
  const WatertightRay<T> wr(ray);
  const bvh::RayQuery q(ray);
  const std::uint32_t* prims = bvh_.prims.data();
  const LeafTriangle* tris = leaf_tris_.data();
#ifdef PROX_SIMD_SSE2
  const bool simd = detail::simd_leaves();
  const detail::RayLeafSse sse(wr);
#endif
  bvh::traverse_ray(bvh_, q, bvh::float_down(ray.t_min), bvh::float_up(ray.t_max),
                    [&](std::uint32_t b, std::uint32_t n, float& t_max) {
                      auto test = [&](std::uint32_t j) {
                        const LeafTriangle& t = tris[j];
                        const RayTriangleHit<T> h =
                            ray_triangle_watertight(wr, t.c[0], t.c[1], t.c[2]);
                        if (h.hit && detail::offer_hit(best, h, prims[j]))
                          t_max = std::min(t_max, bvh::float_up(h.t));
                      };
#ifdef PROX_SIMD_SSE2
                      if constexpr (std::is_same_v<T, float>) {
                        if (simd) {
                          for (std::uint32_t g = b; g < b + n; g += 4) {
                            const unsigned m = std::min(4u, b + n - g);
                            unsigned keep = detail::ray_leaf_candidates(
                                sse, reinterpret_cast<const char*>(tris + g),
                                sizeof(LeafTriangle), m);
                            while (keep != 0) {
                              test(g + unsigned(std::countr_zero(keep)));
                              keep &= keep - 1;
                            }
                          }
                          return false;
                        }
                      }
#endif
                      for (std::uint32_t j = b; j < b + n; ++j) test(j);
                      return false;
                    },
                    bvh::PrefetchRecords<LeafTriangle>{tris});
  return best;
}

template <class T>
bool MeshIndex<T>::any_hit(const Ray<T>& ray) const {
  if (!detail::ray_is_valid(ray)) return false;
  bool found = false;
  const WatertightRay<T> wr(ray);
  const bvh::RayQuery q(ray);
  const LeafTriangle* tris = leaf_tris_.data();
#ifdef PROX_SIMD_SSE2
  const bool simd = detail::simd_leaves();
  const detail::RayLeafSse sse(wr);
#endif
  auto test = [&](std::uint32_t j) {
    const LeafTriangle& t = tris[j];
    return ray_triangle_watertight(wr, t.c[0], t.c[1], t.c[2]).hit;
  };
  bvh::traverse_ray(bvh_, q, bvh::float_down(ray.t_min), bvh::float_up(ray.t_max),
                    [&](std::uint32_t b, std::uint32_t n, float&) {
#ifdef PROX_SIMD_SSE2
                      if constexpr (std::is_same_v<T, float>) {
                        if (simd) {
                          for (std::uint32_t g = b; g < b + n; g += 4) {
                            unsigned keep = detail::ray_leaf_candidates(
                                sse, reinterpret_cast<const char*>(tris + g),
                                sizeof(LeafTriangle), std::min(4u, b + n - g));
                            for (; keep != 0; keep &= keep - 1)
                              if (test(g + unsigned(std::countr_zero(keep)))) return found = true;
                          }
                          return false;
                        }
                      }
#endif
                      for (std::uint32_t j = b; j < b + n; ++j)
                        if (test(j)) return found = true;
                      return false;
                    });
  return found;
}

template <class T>
std::vector<MeshRayHit<T>> MeshIndex<T>::all_hits(const Ray<T>& ray) const {
  std::vector<MeshRayHit<T>> hits;
  if (!detail::ray_is_valid(ray)) return hits;
  const WatertightRay<T> wr(ray);
  const bvh::RayQuery q(ray);
  bvh::traverse_ray(bvh_, q, bvh::float_down(ray.t_min), bvh::float_up(ray.t_max),
                    [&](std::uint32_t b, std::uint32_t n, float&) {
                      for (std::uint32_t j = b; j < b + n; ++j) {
                        const LeafTriangle& t = leaf_tris_[j];
                        const RayTriangleHit<T> h =
                            ray_triangle_crossing(wr, t.c[0], t.c[1], t.c[2]);
                        if (h.hit) hits.push_back(detail::to_mesh_hit(h, bvh_.prims[j]));
                      }
                      return false;
                    });
  detail::sort_hits(hits);
  return hits;
}

template <class T>
std::size_t MeshIndex<T>::count_hits(const Ray<T>& ray) const {
  if (!detail::ray_is_valid(ray)) return 0;
  std::size_t count = 0;
  const WatertightRay<T> wr(ray);
  const bvh::RayQuery q(ray);
  bvh::traverse_ray(bvh_, q, bvh::float_down(ray.t_min), bvh::float_up(ray.t_max),
                    [&](std::uint32_t b, std::uint32_t n, float&) {
                      for (std::uint32_t j = b; j < b + n; ++j) {
                        const LeafTriangle& t = leaf_tris_[j];
                        count += ray_triangle_crossing(wr, t.c[0], t.c[1], t.c[2]).hit ? 1 : 0;
                      }
                      return false;
                    });
  return count;
}

}  // namespace prox

namespace prox {
// The class is instantiated in mesh_index.cpp; these members live here.
#define PROX_MESH_RAY_MEMBERS(T)                                                   \
  template MeshRayHit<T> MeshIndex<T>::first_hit(const Ray<T>&) const;            \
  template bool MeshIndex<T>::any_hit(const Ray<T>&) const;                       \
  template std::vector<MeshRayHit<T>> MeshIndex<T>::all_hits(const Ray<T>&) const; \
  template std::size_t MeshIndex<T>::count_hits(const Ray<T>&) const;
PROX_MESH_RAY_MEMBERS(float)
PROX_MESH_RAY_MEMBERS(double)
#undef PROX_MESH_RAY_MEMBERS
}  // namespace prox
