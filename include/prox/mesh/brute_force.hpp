// prox/mesh/brute_force.hpp — the linear-scan twin of MeshIndex.
//
// Same API and same semantics as MeshIndex (see mesh_index.hpp), answered by
// testing every triangle in id order with the same kernels. It is the oracle
// of the tests and the floor of the benchmark; keep it obviously correct
// rather than fast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prox/core/ray.hpp"
#include "prox/mesh/results.hpp"
#include "prox/mesh/triangle_mesh.hpp"

namespace prox {

template <class T>
class BruteForce {
 public:
  using Scalar = T;

  /// Keeps the mesh; there is nothing to build.
  explicit BruteForce(TriangleMesh<T> mesh) : mesh_(std::move(mesh)) {}

  const TriangleMesh<T>& mesh() const { return mesh_; }

  /// Closest point of the mesh to p within max_distance (miss if none).
  MeshClosestPoint<T> closest_point(const Vec3<T>& p,
                                    T max_distance = ScalarTraits<T>::infinity()) const;
  /// Nearest hit in [t_min, t_max], lowest triangle id on equal t.
  MeshRayHit<T> first_hit(const Ray<T>& ray) const;
  /// Whether any triangle is hit in [t_min, t_max].
  bool any_hit(const Ray<T>& ray) const;
  /// Every crossing in [t_min, t_max], sorted by t then triangle id.
  std::vector<MeshRayHit<T>> all_hits(const Ray<T>& ray) const;
  /// Number of crossings in [t_min, t_max].
  std::size_t count_hits(const Ray<T>& ray) const;
  /// Ids (sorted) of every triangle within distance radius of center.
  std::vector<std::uint32_t> sphere_triangles(const Vec3<T>& center, T radius) const;
  /// Whether any triangle lies within distance radius of center.
  bool sphere_overlaps(const Vec3<T>& center, T radius) const;
  /// Generalized winding number at p (exact sum over all triangles).
  T winding_number(const Vec3<T>& p) const;
  /// Distance to the mesh, negative inside (|winding number| >= 0.5).
  MeshSignedDistance<T> signed_distance(const Vec3<T>& p) const;

  /// Moves the vertices (same count, same triangles).
  void refit(std::vector<Vec3<T>> moved_vertices);
  /// Bytes held (the mesh).
  std::size_t memory_bytes() const;

 private:
  TriangleMesh<T> mesh_;
};

extern template class BruteForce<float>;
extern template class BruteForce<double>;

}  // namespace prox
