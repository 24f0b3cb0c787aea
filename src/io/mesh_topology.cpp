// src/io/mesh_topology.cpp — edge counts by sorting edge keys (see mesh_topology.hpp).
#include "prox/io/mesh_topology.hpp"

#include <algorithm>
#include <vector>

namespace prox::io {

MeshTopology analyze_topology(const MeshData& mesh) {
  MeshTopology t;
  std::vector<std::uint64_t> keys;
  keys.reserve(mesh.triangles.size() * 3);
  std::vector<bool> used(mesh.vertices.size(), false);
  for (const auto& tri : mesh.triangles) {
    for (int k = 0; k < 3; ++k) used[tri[static_cast<std::size_t>(k)]] = true;
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0]) {
      ++t.degenerate_triangles;
      continue;
    }
    const Vec3d& a = mesh.vertices[tri[0]];
    const Vec3d n = cross(mesh.vertices[tri[1]] - a, mesh.vertices[tri[2]] - a);
    if (n[0] == 0 && n[1] == 0 && n[2] == 0) ++t.degenerate_triangles;
    for (int k = 0; k < 3; ++k) {
      const std::uint64_t u = tri[static_cast<std::size_t>(k)];
      const std::uint64_t v = tri[static_cast<std::size_t>((k + 1) % 3)];
      keys.push_back(u < v ? (u << 32) | v : (v << 32) | u);
    }
  }
  std::sort(keys.begin(), keys.end());
  for (std::size_t i = 0; i < keys.size();) {
    std::size_t j = i + 1;
    while (j < keys.size() && keys[j] == keys[i]) ++j;
    ++t.edges;
    if (j - i == 1) ++t.boundary_edges;
    if (j - i >= 3) ++t.non_manifold_edges;
    i = j;
  }
  t.unused_vertices = static_cast<std::size_t>(std::count(used.begin(), used.end(), false));
  return t;
}

}  // namespace prox::io
