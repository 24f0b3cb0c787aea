// prox/mesh/sdf_surface.hpp — the zero level set of a signed distance grid as
// a closed, consistently oriented triangle mesh (`prox sdf --surface`).
//
// Method: marching tetrahedra on the Kuhn (Freudenthal) triangulation of the
// grid: every cell is split into 6 tetrahedra around its main diagonal, the
// same split in every cell, so neighbouring cells share their faces' diagonals
// and the grid becomes one conforming tetrahedral mesh. On it the piecewise
// linear interpolant of the node values has a level set that is a closed
// 2-manifold, with no ambiguous case (marching cubes' 33-case problem does not
// arise):
// - a node counts as inside when its value is < 0 and outside otherwise (a
//   value of exactly 0 is outside: a symbolic perturbation), so every
//   tetrahedron has 0..4 inside corners and 0, 1 or 2 triangles;
// - a surface vertex lies on a tetrahedron edge with one inside and one
//   outside end, at the linear zero, and is shared by every tetrahedron that
//   holds that edge (one vertex per edge), so the mesh is watertight;
// - triangles are oriented from the tetrahedra's own orientation (known
//   combinatorially, no geometric test), so every edge is used once in each
//   direction and normals point from inside (< 0) to outside: outward;
// - the grid is closed off by one virtual layer of outside nodes around it, so
//   an inside region that reaches the grid's boundary is capped one cell
//   beyond it, rather than left open.
// A vertex whose outside end has value exactly 0 lies on that node, so
// several vertices may coincide there (zero-area triangles, the topology stays
// a manifold). Accuracy: on a smooth surface, vertices lie within O(h^2 / R)
// of it (h the cell size, R the curvature radius); on flat parts exactly on it
// (the distance is linear there).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "prox/core/vec.hpp"
#include "prox/mesh/sdf_grid.hpp"

namespace prox {

/// A triangle mesh with double vertices (indices into vertices).
struct LevelSetMesh {
  std::vector<Vec3d> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
};

/// The zero level set of values (grid's layout, x fastest, negative inside).
/// Throws std::invalid_argument when values.size() != grid.nodes() or a value
/// is NaN. Deterministic (single pass in node order).
LevelSetMesh extract_zero_level_set(const GridSpec& grid, std::span<const double> values);
LevelSetMesh extract_zero_level_set(const GridSpec& grid, std::span<const float> values);

}  // namespace prox
