// src/mesh/query_common.hpp — pieces shared by MeshIndex and BruteForce, so the
// twin and the BVH decide ties, validity and merging in exactly the same way.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "prox/mesh/results.hpp"
#include "prox/mesh/triangle_mesh.hpp"
#include "prox/mesh/winding_number.hpp"
#include "prox/primitives/closest_point_triangle.hpp"
#include "prox/primitives/ray_triangle.hpp"

namespace prox::detail {

/// Replaces best by the kernel result r of triangle id when r is closer, or
/// equally close with a lower id (the tie rule).
template <class T>
inline bool offer_closest(MeshClosestPoint<T>& best, const ClosestPointTriangleResult<T>& r,
                          std::uint32_t id) {
  if (r.sq_distance < best.sq_distance ||
      (r.sq_distance == best.sq_distance && std::int32_t(id) < best.triangle)) {
    best.point = r.point;
    best.sq_distance = r.sq_distance;
    best.triangle = std::int32_t(id);
    best.bary = r.bary;
    best.feature = r.feature;
    return true;
  }
  return false;
}

/// Same for ray hits: smaller t, or equal t and lower id.
template <class T>
inline bool offer_hit(MeshRayHit<T>& best, const RayTriangleHit<T>& h, std::uint32_t id) {
  if (h.t < best.t || (h.t == best.t && std::int32_t(id) < best.triangle)) {
    best.t = h.t;
    best.triangle = std::int32_t(id);
    best.u = h.u;
    best.v = h.v;
    best.front_face = h.front_face;
    return true;
  }
  return false;
}

template <class T>
inline MeshRayHit<T> to_mesh_hit(const RayTriangleHit<T>& h, std::uint32_t id) {
  MeshRayHit<T> m;
  m.t = h.t;
  m.triangle = std::int32_t(id);
  m.u = h.u;
  m.v = h.v;
  m.front_face = h.front_face;
  return m;
}

/// A ray prox can trace: finite origin and direction, non-zero direction,
/// t_min and t_max not NaN, t_min <= t_max.
template <class T>
inline bool ray_is_valid(const Ray<T>& ray) {
  if (!CoordinateRange<T>::contains(ray.origin) || !all_finite(ray.direction)) return false;
  if (ray.direction == Vec3<T>::zero()) return false;
  if (std::isnan(ray.t_min) || std::isnan(ray.t_max)) return false;
  return ray.t_min <= ray.t_max;
}

/// Sorts crossings by t, then triangle id.
template <class T>
inline void sort_hits(std::vector<MeshRayHit<T>>& hits) {
  std::sort(hits.begin(), hits.end(), [](const MeshRayHit<T>& a, const MeshRayHit<T>& b) {
    return a.t < b.t || (a.t == b.t && a.triangle < b.triangle);
  });
}

/// Squared search radius; NaN or negative radius gives -1 (nothing qualifies).
template <class T>
inline T squared_radius(const T& r) {
  if (!(r >= T(0))) return T(-1);
  return r * r;
}

template <class T>
inline MeshSignedDistance<T> make_signed(const MeshClosestPoint<T>& cp, const T& w) {
  MeshSignedDistance<T> s;
  s.winding_number = w;
  if (!cp.found()) return s;
  const T d = std::sqrt(cp.sq_distance);
  s.signed_distance = std::abs(w) >= T(0.5) ? -d : d;
  return s;
}

template <class T>
inline void check_refit_count(std::size_t have, std::size_t got) {
  if (have != got)
    throw MeshError("refit: the mesh has " + std::to_string(have) + " vertices but " +
                    std::to_string(got) + " were given");
}

}  // namespace prox::detail
