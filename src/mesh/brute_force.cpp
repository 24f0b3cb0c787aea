// src/mesh/brute_force.cpp — BruteForce: every triangle, in id order.
#include "prox/mesh/brute_force.hpp"

#include "prox/mesh/ray_crossing.hpp"
#include "query_common.hpp"

namespace prox {

template <class T>
MeshClosestPoint<T> BruteForce<T>::closest_point(const Vec3<T>& p, T max_distance) const {
  MeshClosestPoint<T> best;
  if (!CoordinateRange<T>::contains(p)) return best;  // NaN, Inf or out of range: a miss
  const T r2 = detail::squared_radius(max_distance);
  best.sq_distance = ScalarTraits<T>::infinity();
  for (std::size_t i = 0; i < mesh_.num_triangles(); ++i) {
    const auto r = closest_point_triangle(p, mesh_.corner(i, 0), mesh_.corner(i, 1),
                                          mesh_.corner(i, 2));
    if (r.sq_distance <= r2) detail::offer_closest(best, r, std::uint32_t(i));
  }
  if (!best.found()) return MeshClosestPoint<T>{};
  return best;
}

template <class T>
MeshRayHit<T> BruteForce<T>::first_hit(const Ray<T>& ray) const {
  MeshRayHit<T> best;
  if (!detail::ray_is_valid(ray)) return best;
  const WatertightRay<T> wr(ray);
  for (std::size_t i = 0; i < mesh_.num_triangles(); ++i) {
    const auto h = ray_triangle_watertight(wr, mesh_.corner(i, 0), mesh_.corner(i, 1),
                                           mesh_.corner(i, 2));
    if (h.hit) detail::offer_hit(best, h, std::uint32_t(i));
  }
  return best;
}

template <class T>
bool BruteForce<T>::any_hit(const Ray<T>& ray) const {
  return first_hit(ray).found();
}

template <class T>
std::vector<MeshRayHit<T>> BruteForce<T>::all_hits(const Ray<T>& ray) const {
  std::vector<MeshRayHit<T>> hits;
  if (!detail::ray_is_valid(ray)) return hits;
  const WatertightRay<T> wr(ray);
  for (std::size_t i = 0; i < mesh_.num_triangles(); ++i) {
    const auto h = ray_triangle_crossing(wr, mesh_.corner(i, 0), mesh_.corner(i, 1),
                                         mesh_.corner(i, 2));
    if (h.hit) hits.push_back(detail::to_mesh_hit(h, std::uint32_t(i)));
  }
  detail::sort_hits(hits);
  return hits;
}

template <class T>
std::size_t BruteForce<T>::count_hits(const Ray<T>& ray) const {
  return all_hits(ray).size();
}

template <class T>
std::vector<std::uint32_t> BruteForce<T>::sphere_triangles(const Vec3<T>& center,
                                                           T radius) const {
  std::vector<std::uint32_t> ids;
  if (!CoordinateRange<T>::contains(center)) return ids;
  const T r2 = detail::squared_radius(radius);
  for (std::size_t i = 0; i < mesh_.num_triangles(); ++i) {
    const auto r = closest_point_triangle(center, mesh_.corner(i, 0), mesh_.corner(i, 1),
                                          mesh_.corner(i, 2));
    if (r.sq_distance <= r2) ids.push_back(std::uint32_t(i));
  }
  return ids;
}

template <class T>
bool BruteForce<T>::sphere_overlaps(const Vec3<T>& center, T radius) const {
  return !sphere_triangles(center, radius).empty();
}

template <class T>
T BruteForce<T>::winding_number(const Vec3<T>& p) const {
  if (!CoordinateRange<T>::contains(p)) return ScalarTraits<T>::quiet_nan();
  T sum = T(0);
  for (std::size_t i = 0; i < mesh_.num_triangles(); ++i)
    sum += triangle_solid_angle(p, mesh_.corner(i, 0), mesh_.corner(i, 1), mesh_.corner(i, 2));
  return sum * inverse_four_pi<T>();
}

template <class T>
MeshSignedDistance<T> BruteForce<T>::signed_distance(const Vec3<T>& p) const {
  if (!CoordinateRange<T>::contains(p)) return MeshSignedDistance<T>{};
  return detail::make_signed(closest_point(p), winding_number(p));
}

template <class T>
void BruteForce<T>::refit(std::vector<Vec3<T>> moved_vertices) {
  detail::check_refit_count<T>(mesh_.num_vertices(), moved_vertices.size());
  std::vector<typename TriangleMesh<T>::Triangle> tris = mesh_.triangles();
  mesh_ = TriangleMesh<T>(std::move(moved_vertices), std::move(tris));
}

template <class T>
std::size_t BruteForce<T>::memory_bytes() const {
  return mesh_.vertices().capacity() * sizeof(Vec3<T>) +
         mesh_.triangles().capacity() * sizeof(typename TriangleMesh<T>::Triangle);
}

template class BruteForce<float>;
template class BruteForce<double>;

}  // namespace prox
