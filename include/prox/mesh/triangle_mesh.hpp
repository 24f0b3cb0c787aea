// prox/mesh/triangle_mesh.hpp — an indexed triangle mesh, validated on construction.
//
// Vertices (float or double) and triangles (three vertex indices each). The
// constructor checks every index against the vertex count and every vertex for
// NaN/Inf, and throws MeshError naming the first offender ("triangle 17 has
// vertex index 99, but the mesh has 40 vertices"; "vertex 3 is not finite:
// (nan, 0, 1)"). With NonFinitePolicy::drop_triangles, triangles that use a
// non-finite vertex are removed instead (the vertex array is kept as given, so
// indices stay valid). Degenerate triangles (repeated indices, collinear or
// coincident corners) are kept: DESIGN.md gives them segment/point semantics.
// The default-constructed mesh is empty and valid; every query on it misses.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "prox/core/box.hpp"
#include "prox/core/vec.hpp"

namespace prox {

/// Thrown on invalid mesh data (bad index, non-finite vertex, corrupt index file).
class MeshError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// What to do with non-finite vertices at construction.
enum class NonFinitePolicy {
  reject,          ///< throw MeshError naming the first non-finite vertex
  drop_triangles,  ///< silently remove every triangle that uses one
};

template <class T>
class TriangleMesh {
 public:
  using Triangle = std::array<std::uint32_t, 3>;

  /// The empty mesh: valid; every query on it misses.
  TriangleMesh() = default;

  /// Takes ownership of the arrays and validates them (throws MeshError).
  TriangleMesh(std::vector<Vec3<T>> vertices, std::vector<Triangle> triangles,
               NonFinitePolicy policy = NonFinitePolicy::reject)
      : vertices_(std::move(vertices)), triangles_(std::move(triangles)) {
    validate(policy);
  }

  const std::vector<Vec3<T>>& vertices() const { return vertices_; }
  const std::vector<Triangle>& triangles() const { return triangles_; }
  std::size_t num_vertices() const { return vertices_.size(); }
  std::size_t num_triangles() const { return triangles_.size(); }
  bool empty() const { return triangles_.empty(); }

  /// Corner k (0, 1, 2) of triangle tri.
  Vec3<T> corner(std::size_t tri, int k) const { return vertices_[triangles_[tri][k]]; }

  /// Bounding box of the vertices used by triangles (Box::empty() for no triangles).
  Box3<T> bounds() const {
    Box3<T> b = Box3<T>::empty();
    for (const Triangle& t : triangles_)
      for (int k = 0; k < 3; ++k) b.extend(vertices_[t[k]]);
    return b;
  }

 private:
  void validate(NonFinitePolicy policy) {
    if (vertices_.size() > std::size_t(UINT32_MAX))
      throw MeshError("mesh has " + std::to_string(vertices_.size()) +
                      " vertices; at most 2^32 - 1 are supported");
    if (triangles_.size() > std::size_t(INT32_MAX))
      throw MeshError("mesh has " + std::to_string(triangles_.size()) +
                      " triangles; at most 2^31 - 1 are supported");
    const std::size_t nv = vertices_.size();
    for (std::size_t i = 0; i < triangles_.size(); ++i)
      for (int k = 0; k < 3; ++k)
        if (triangles_[i][k] >= nv)
          throw MeshError("triangle " + std::to_string(i) + " has vertex index " +
                          std::to_string(triangles_[i][k]) + ", but the mesh has " +
                          std::to_string(nv) + " vertices");
    std::vector<char> bad(nv, 0);
    bool any_bad = false;
    for (std::size_t i = 0; i < nv; ++i) {
      if (all_finite(vertices_[i])) continue;
      if (policy == NonFinitePolicy::reject) {
        std::ostringstream os;
        os << "vertex " << i << " is not finite: (" << vertices_[i][0] << ", "
           << vertices_[i][1] << ", " << vertices_[i][2] << ")";
        throw MeshError(os.str());
      }
      bad[i] = 1;
      any_bad = true;
    }
    if (!any_bad) return;
    std::vector<Triangle> kept;
    kept.reserve(triangles_.size());
    for (const Triangle& t : triangles_)
      if (!bad[t[0]] && !bad[t[1]] && !bad[t[2]]) kept.push_back(t);
    triangles_ = std::move(kept);
  }

  std::vector<Vec3<T>> vertices_;
  std::vector<Triangle> triangles_;
};

}  // namespace prox
