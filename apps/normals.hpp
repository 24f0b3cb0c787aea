// apps/normals.hpp — the surface normal at a closest point, for `prox closest`.
//
// On a face: the unit face normal (corners in order, right hand). On an edge:
// the normalised sum of the unit normals of the triangles that share it; at a
// vertex: the angle-weighted pseudonormal (Thürmer & Wüthrich 1998; Bærentzen
// & Aanæs 2005), the normalised sum over its triangles of the unit face normal
// times the corner angle. NaN where nothing is defined (a miss, a degenerate
// triangle, a feature whose normals cancel). Computed once per mesh: O(F).
#pragma once

#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "prox/mesh/results.hpp"
#include "prox/mesh/triangle_mesh.hpp"
#include "prox/core/vec.hpp"
#include "prox/primitives/feature.hpp"

namespace prox::cli {

class SurfaceNormals {
 public:
  template <class T>
  explicit SurfaceNormals(const TriangleMesh<T>& mesh) {
    const auto& tris = mesh.triangles();
    face_.resize(tris.size());
    vertex_.assign(mesh.num_vertices(), Vec3d{0, 0, 0});
    edge_.reserve(tris.size() * 3 / 2 + 1);
    for (std::size_t t = 0; t < tris.size(); ++t) {
      Vec3d c[3];
      for (int k = 0; k < 3; ++k) c[k] = cast(mesh.corner(t, k));
      const Vec3d n = unit(cross(c[1] - c[0], c[2] - c[0]));
      face_[t] = n;
      if (!std::isfinite(n[0])) continue;
      for (int k = 0; k < 3; ++k) {
        const Vec3d e1 = unit(c[(k + 1) % 3] - c[k]), e2 = unit(c[(k + 2) % 3] - c[k]);
        const double angle = std::acos(std::fmax(-1.0, std::fmin(1.0, dot(e1, e2))));
        vertex_[tris[t][k]] = vertex_[tris[t][k]] + n * angle;
        Vec3d& e = edge_[key(tris[t][k], tris[t][(k + 1) % 3])];
        e = e + n;
      }
    }
  }

  /// Unit normal of triangle t (NaN if degenerate).
  Vec3d face(std::int32_t t) const { return t < 0 ? nan3() : face_[std::size_t(t)]; }

  /// The surface normal at a closest point (see the file comment).
  template <class T, class Mesh>
  Vec3d at(const MeshClosestPoint<T>& r, const Mesh& mesh) const {
    if (!r.found()) return nan3();
    const auto& tri = mesh.triangles()[std::size_t(r.triangle)];
    switch (r.feature) {
      case Feature::v0: return unit(vertex_[tri[0]]);
      case Feature::v1: return unit(vertex_[tri[1]]);
      case Feature::v2: return unit(vertex_[tri[2]]);
      case Feature::e01: return edge(tri[0], tri[1]);
      case Feature::e12: return edge(tri[1], tri[2]);
      case Feature::e20: return edge(tri[2], tri[0]);
      default: return face_[std::size_t(r.triangle)];
    }
  }

 private:
  static Vec3d nan3() { return Vec3d::splat(std::nan("")); }
  template <class T>
  static Vec3d cast(const Vec3<T>& v) {
    return Vec3d{double(v[0]), double(v[1]), double(v[2])};
  }
  static Vec3d unit(const Vec3d& v) {
    const double l = std::sqrt(dot(v, v));
    return l > 0 && std::isfinite(l) ? v / l : nan3();
  }
  static std::uint64_t key(std::uint32_t a, std::uint32_t b) {
    return a < b ? (std::uint64_t(a) << 32) | b : (std::uint64_t(b) << 32) | a;
  }
  Vec3d edge(std::uint32_t a, std::uint32_t b) const {
    const auto it = edge_.find(key(a, b));
    return it == edge_.end() ? nan3() : unit(it->second);
  }
  std::vector<Vec3d> face_, vertex_;
  std::unordered_map<std::uint64_t, Vec3d> edge_;
};

}  // namespace prox::cli
