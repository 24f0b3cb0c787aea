// tests/gpu/exact_shapes.hpp — closed meshes with exact (small dyadic)
// coordinates for the GPU tests: a cube, an L-shaped block, a thin wedge, so
// that grid points tie exactly and axis-aligned rays pass exactly through
// edges and vertices. Header-only (each GPU test executable has one source).
#pragma once

#include <utility>
#include <vector>

#include "mesh/mesh_support.hpp"
#include "prox/mesh/diagnostics.hpp"

namespace prox::test {

inline TriangleMesh<double> flipped(const TriangleMesh<double>& m) {
  std::vector<Tri> f = m.triangles();
  for (Tri& t : f) std::swap(t[1], t[2]);
  return TriangleMesh<double>(m.vertices(), std::move(f));
}

inline TriangleMesh<double> outward(TriangleMesh<double> m) {
  return diagnose(m).outward() ? m : flipped(m);
}

/// The unit cube [0, 1]^3, outward, exact coordinates.
inline TriangleMesh<double> cube() {
  std::vector<Vec3d> v;
  for (int i = 0; i < 8; ++i) v.push_back({double(i & 1), double((i >> 1) & 1), double((i >> 2) & 1)});
  const std::vector<Tri> f = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                              {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  return outward(TriangleMesh<double>(std::move(v), f));
}

/// A prism: the polygon `l` of the xz plane (counter-clockwise, seen by a fan
/// from its first corner) extruded along y over [0, 1], outward.
inline TriangleMesh<double> prism(const std::vector<std::pair<double, double>>& l) {
  std::vector<Vec3d> v;
  for (double y : {0.0, 1.0})
    for (const auto& [x, z] : l) v.push_back({x, y, z});
  const auto n = std::uint32_t(l.size());
  std::vector<Tri> f;
  for (std::uint32_t i = 0; i < n; ++i) {  // sides
    const std::uint32_t j = (i + 1) % n;
    f.push_back({i, j, j + n});
    f.push_back({i, j + n, i + n});
  }
  // Caps: a fan from corner 0.
  for (std::uint32_t k = 1; k + 1 < n; ++k) {
    f.push_back({0, k + 1, k});
    f.push_back({n, n + k, n + k + 1});
  }
  return outward(TriangleMesh<double>(std::move(v), std::move(f)));
}

/// An L-shaped block (the unit cube less the quarter x > 1/2, z > 1/2): concave
/// edges and saddle vertices, exact coordinates.
inline TriangleMesh<double> notched_block() {
  return prism({{0, 0}, {1, 0}, {1, 0.5}, {0.5, 0.5}, {0.5, 1}, {0, 1}});
}

/// A thin wedge (apex angle 2 atan(1/6), about 19 degrees): outside its sharp
/// edges the normal cone is wider than 90 degrees, so the edge and vertex
/// pseudonormals give other signs than either face's normal would.
inline TriangleMesh<double> wedge() { return prism({{0, 0}, {1, 0}, {0.5, 3}}); }

}  // namespace prox::test
