// prox/io/mesh_topology.hpp — edge statistics for `prox info`: is the mesh closed?
//
// Edges are unordered vertex-index pairs. A boundary edge is used by one
// triangle, a non-manifold edge by three or more; the mesh is closed when
// every edge is used by exactly two. Degenerate triangles are those with a
// repeated index or a zero cross product of their edges (computed in double);
// triangles with a repeated index contribute no edges. Sort-based: O(n log n),
// no hashing, so results never depend on the platform.
#pragma once

#include <cstddef>

#include "prox/io/mesh_data.hpp"

namespace prox::io {

struct MeshTopology {
  std::size_t edges = 0;                  ///< distinct edges
  std::size_t boundary_edges = 0;         ///< used by exactly one triangle
  std::size_t non_manifold_edges = 0;     ///< used by three or more triangles
  std::size_t degenerate_triangles = 0;   ///< repeated index or zero area
  std::size_t unused_vertices = 0;        ///< referenced by no triangle
  bool closed() const { return edges > 0 && boundary_edges == 0 && non_manifold_edges == 0; }
};

/// Edge and triangle statistics of a triangle soup.
MeshTopology analyze_topology(const MeshData& mesh);

}  // namespace prox::io
