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

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
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

/// The coordinates prox answers exactly (docs/reliability.md). Mesh vertices
/// with a |coordinate| above max_abs are rejected (MeshError); a query point,
/// sphere center or ray origin beyond it is a miss, as NaN input is. A mesh
/// whose extent (largest side of its bounding box) is above 0 but below
/// min_extent is rejected. Inside the range every squared distance between a
/// query and the mesh is a finite, normal T, the float BVH boxes of a double
/// mesh are finite, and the kernels rescale triangles whose own squares would
/// leave T's range (closest_point_triangle, triangle_solid_angle), so MeshIndex
/// and BruteForce agree and match the exact answer to rounding.
template <class T>
struct CoordinateRange {
  /// 2^62 (4.6e18) for float, 2^120 (1.3e36, below float's 3.4e38, so BVH boxes stay finite) for double.
  static constexpr T max_abs = std::is_same_v<T, float> ? T(0x1p62) : T(0x1p120);
  /// 2^-50 (8.9e-16) for float, 2^-450 (3.5e-136) for double.
  static constexpr T min_extent = std::is_same_v<T, float> ? T(0x1p-50) : T(0x1p-450);
  /// Every |coordinate| of p at most max_abs (false for NaN and infinities).
  static bool contains(const Vec3<T>& p) {
    return std::abs(p[0]) <= max_abs && std::abs(p[1]) <= max_abs && std::abs(p[2]) <= max_abs;
  }
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
    // One pass over the triangles checks every index and marks the vertices
    // in use (an index past the end marks the extra last byte); the loop that
    // names the first bad index runs only when there is one. Two passes (a
    // check, then check_range's marking) read 14 MB twice on a 1.2M-triangle
    // mesh.
    std::vector<unsigned char> used(nv + 1, 0);
    for (const Triangle& t : triangles_)
      for (int k = 0; k < 3; ++k) used[std::min<std::size_t>(t[k], nv)] = 1;
    if (used[nv] != 0) {
      for (std::size_t i = 0; i < triangles_.size(); ++i)
        for (int k = 0; k < 3; ++k)
          if (triangles_[i][k] >= nv)
            throw MeshError("triangle " + std::to_string(i) + " has vertex index " +
                            std::to_string(triangles_[i][k]) + ", but the mesh has " +
                            std::to_string(nv) + " vertices");
    }
    bool any_bad = false;
    for (std::size_t i = 0; i < nv; ++i) {
      if (all_finite(vertices_[i])) continue;
      if (policy == NonFinitePolicy::reject) {
        std::ostringstream os;
        os << "vertex " << i << " is not finite: (" << vertices_[i][0] << ", "
           << vertices_[i][1] << ", " << vertices_[i][2] << ")";
        throw MeshError(os.str());
      }
      any_bad = true;
    }
    if (any_bad) {
      // Rare (NonFinitePolicy::drop_triangles with a non-finite vertex): the
      // triangles change, so the marks are made again for what is kept.
      auto bad = [&](std::uint32_t v) { return !all_finite(vertices_[v]); };
      std::vector<Triangle> kept;
      kept.reserve(triangles_.size());
      for (const Triangle& t : triangles_)
        if (!bad(t[0]) && !bad(t[1]) && !bad(t[2])) kept.push_back(t);
      triangles_ = std::move(kept);
      std::fill(used.begin(), used.end(), 0);
      for (const Triangle& t : triangles_) used[t[0]] = used[t[1]] = used[t[2]] = 1;
    }
    check_range(used);
  }

  /// The vertices used by triangles (used[v] != 0) inside CoordinateRange<T>
  /// (float, double).
  void check_range(const std::vector<unsigned char>& used) const {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      using R = CoordinateRange<T>;
      const char* type = std::is_same_v<T, float> ? "float" : "double";
      // validate's pass over the triangles marked the used vertices (byte
      // writes, in cache); one pass over the vertices in order checks and
      // boxes them: a corner-by-corner walk reads 12 or 24 scattered bytes
      // per corner, twice (~10 ms on 1.2M triangles). The walk below only
      // runs to name the first offending corner in triangle order.
      Box3<T> b = Box3<T>::empty();
      bool in_range = true;
      for (std::size_t i = 0; i < vertices_.size(); ++i) {
        if (!used[i]) continue;
        in_range = in_range && R::contains(vertices_[i]);
        b.extend(vertices_[i]);
      }
      if (!in_range) {
        for (const Triangle& t : triangles_)
          for (int k = 0; k < 3; ++k)
            if (!R::contains(vertices_[t[k]])) {
              const Vec3<T>& v = vertices_[t[k]];
              std::ostringstream os;
              os.precision(17);
              os << "vertex " << t[k] << " (" << v[0] << ", " << v[1] << ", " << v[2]
                 << ") is outside prox's " << type << " range: |coordinate| <= "
                 << double(R::max_abs) << (std::is_same_v<T, float> ? " (2^62)" : " (2^120)");
              throw MeshError(os.str());
            }
      }
      if (b.is_empty()) return;
      T extent = T(0);
      for (int a = 0; a < 3; ++a) extent = std::max(extent, b.hi[a] - b.lo[a]);
      if (extent > T(0) && extent < R::min_extent) {
        std::ostringstream os;
        os.precision(17);
        os << "the mesh's extent " << double(extent) << " is below prox's " << type
           << " range: at least " << double(R::min_extent)
           << (std::is_same_v<T, float> ? " (2^-50; use a double mesh or scale it up)"
                                        : " (2^-450; scale it up)");
        throw MeshError(os.str());
      }
    }
  }

  std::vector<Vec3<T>> vertices_;
  std::vector<Triangle> triangles_;
};

/// S of the closest-point kernel's error bounds (kernel_error_bound in
/// prox/mesh/sdf_grid_lune.hpp, SignedMesh::rounding_reach): the box's
/// largest |coordinate| plus its diagonal, in double.
template <class T>
double kernel_scale(const Box3<T>& b) {
  double s = 0, diag2 = 0;
  for (int a = 0; a < 3; ++a) {
    s = std::max({s, std::fabs(double(b.lo[a])), std::fabs(double(b.hi[a]))});
    diag2 += (double(b.hi[a]) - double(b.lo[a])) * (double(b.hi[a]) - double(b.lo[a]));
  }
  return s + std::sqrt(diag2);
}

}  // namespace prox
