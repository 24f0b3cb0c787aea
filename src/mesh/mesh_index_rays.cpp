// src/mesh/mesh_index_rays.cpp — MeshIndex ray queries.
//
// first_hit / any_hit run on the ISA path's engine (engine.hpp, queries.hpp)
// with the shared watertight kernel (prox::ray_triangle_watertight);
// all_hits / count_hits use its crossing variant (prox/mesh/ray_crossing.hpp)
// so that edge and vertex hits are counted once, on the same traversal loop.
// Box tests are conservative (prox/bvh/traverse.hpp), so the BVH never loses a
// hit the kernel would report.
#include "engine.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/bvh/traverse.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/ray_crossing.hpp"
#include "query_common.hpp"

namespace prox {
namespace {

/// Calls on_crossing(hit, triangle id) for every crossing of the ray (leaf order).
template <class T, class OnCrossing>
void visit_crossings(const FlatIndex<T>& x, const Ray<T>& ray, OnCrossing&& on_crossing) {
  if (!detail::ray_is_valid(ray)) return;
  const WatertightRay<T> wr(ray);  // boxes tested on its normalized ray, as the engine does
  const bvh::RayQuery q(wr.ray);
  bvh::RayTest test(q, bvh::float_down(wr.ray.t_min), bvh::float_up(wr.ray.t_max));
  bvh::traverse(x.nodes, test, [&](std::uint32_t b, std::uint32_t n) {
    for (std::uint32_t s = b; s < b + n; ++s) {
      const RayTriangleHit<T> h =
          ray_triangle_crossing(wr, x.corner(s, 0), x.corner(s, 1), x.corner(s, 2));
      if (h.hit) on_crossing(h, x.prims[s]);
    }
    return false;
  });
}

}  // namespace

template <class T>
MeshRayHit<T> MeshIndex<T>::first_hit(const Ray<T>& ray) const {
  return detail::engine_first_hit(layout(), ray, detail::simd_leaves());
}

template <class T>
void MeshIndex<T>::first_hits(std::span<const Ray<T>> rays, std::span<MeshRayHit<T>> out) const {
  detail::check_batch_sizes(rays.size(), out.size(), "first_hits");
  detail::engine_first_hits(layout(), rays.data(), rays.size(), out.data(), detail::simd_leaves());
}

template <class T>
bool MeshIndex<T>::any_hit(const Ray<T>& ray) const {
  return detail::engine_any_hit(layout(), ray, detail::simd_leaves());
}

template <class T>
std::vector<MeshRayHit<T>> MeshIndex<T>::all_hits(const Ray<T>& ray) const {
  std::vector<MeshRayHit<T>> hits;
  visit_crossings(layout(), ray, [&](const RayTriangleHit<T>& h, std::uint32_t id) {
    hits.push_back(detail::to_mesh_hit(h, id));
  });
  detail::sort_hits(hits);
  return hits;
}

template <class T>
std::size_t MeshIndex<T>::count_hits(const Ray<T>& ray) const {
  std::size_t count = 0;
  visit_crossings(layout(), ray, [&](const RayTriangleHit<T>&, std::uint32_t) { ++count; });
  return count;
}

}  // namespace prox

namespace prox {
// The class is instantiated in mesh_index.cpp; these members live here.
#define PROX_MESH_RAY_MEMBERS(T)                                                   \
  template MeshRayHit<T> MeshIndex<T>::first_hit(const Ray<T>&) const;            \
  template void MeshIndex<T>::first_hits(std::span<const Ray<T>>, std::span<MeshRayHit<T>>)  \
      const;                                                                       \
  template bool MeshIndex<T>::any_hit(const Ray<T>&) const;                       \
  template std::vector<MeshRayHit<T>> MeshIndex<T>::all_hits(const Ray<T>&) const; \
  template std::size_t MeshIndex<T>::count_hits(const Ray<T>&) const;
PROX_MESH_RAY_MEMBERS(float)
PROX_MESH_RAY_MEMBERS(double)
#undef PROX_MESH_RAY_MEMBERS
}  // namespace prox
