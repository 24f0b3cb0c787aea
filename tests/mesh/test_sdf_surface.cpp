// tests/mesh/test_sdf_surface.cpp — the zero level set of an SDF grid
// (prox/mesh/sdf_surface.hpp): closed, consistently oriented, outward, and
// near the true surface.
//
// Oracles: directed-edge counts (every edge used once in each direction, so
// closed and consistent), the signed volume against the mesh's, and each
// vertex's exact distance to the source mesh (MeshIndex) against a bound in
// cells; a hand-made grid whose inside touches the boundary (capped, closed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "../support/closed_mesh.hpp"
#include "../support/scale.hpp"
#include "mesh_support.hpp"
#include "prox/mesh/sdf_surface.hpp"

namespace prox {
namespace {

// Every directed edge once, and its reverse once: closed and consistent.
void expect_closed_oriented(const LevelSetMesh& m) {
  EXPECT_EQ(test::unpaired_directed_edges(m.triangles), 0u)
      << "edges not used exactly once each way";
}

double signed_volume(const LevelSetMesh& m) {
  double v = 0;
  for (const auto& t : m.triangles) {
    const Vec3d& a = m.vertices[t[0]];
    const Vec3d& b = m.vertices[t[1]];
    const Vec3d& c = m.vertices[t[2]];
    v += dot(a, cross(b, c)) / 6;
  }
  return v;
}

double mesh_volume(const TriangleMesh<double>& m) {
  double v = 0;
  for (std::size_t t = 0; t < m.num_triangles(); ++t)
    v += dot(m.corner(t, 0), cross(m.corner(t, 1), m.corner(t, 2))) / 6;
  return v;
}

void check_surface(const TriangleMesh<double>& mesh, std::size_t res, double max_cells) {
  const MeshIndex<double> index(mesh);
  const SignedMesh<MeshIndex<double>> s(index);
  const GridSpec g = grid_over_box(mesh.bounds(), 0.1, res);
  const SdfGrid<double> grid = signed_distance_grid(s, g);
  const LevelSetMesh m = extract_zero_level_set(g, std::span<const double>(grid.values));
  ASSERT_GT(m.triangles.size(), 100u);
  expect_closed_oriented(m);
  const double vol = signed_volume(m), want = mesh_volume(mesh);
  EXPECT_GT(vol, 0) << "outward";
  EXPECT_NEAR(vol, want, 0.05 * want);
  double worst = 0;
  for (const Vec3d& v : m.vertices)
    worst = std::max(worst, std::sqrt(index.closest_point(v).sq_distance));
  EXPECT_LE(worst, max_cells * g.spacing[0]) << "vertex off the surface: " << worst / g.spacing[0] << " cells";
  // Float values give the same topology guarantees.
  std::vector<float> f(grid.values.begin(), grid.values.end());
  expect_closed_oriented(extract_zero_level_set(g, std::span<const float>(f)));
}

TEST(SdfSurface, SphereIsClosedOutwardAndClose) {
  check_surface(test::icosphere(3), test::test_scale() >= 1 ? 40 : 16, 0.1);
}

TEST(SdfSurface, TorusIsClosedOutwardAndClose) {
  check_surface(test::torus(1.0, 0.4, 48, 24), test::test_scale() >= 1 ? 48 : 20, 0.2);
}

TEST(SdfSurface, CubeIsClosedOutwardAndClose) {
  // Sharp edges and corners: the interpolant cuts them, within a cell's tenth.
  const auto cube = test::cgal_mesh("cube.off");
  check_surface(cube, test::test_scale() >= 1 ? 24 : 12, 0.1);
}

TEST(SdfSurface, InsideTouchingTheBoundaryIsCapped) {
  GridSpec g;
  g.dims = {4, 3, 3};
  g.spacing = {1, 1, 1};
  std::vector<double> v(g.nodes(), 1.0);
  // Inside everywhere on the x = 0 face and at one interior node, 0 at another
  // (0 counts as outside).
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t j = 0; j < 3; ++j) v[g.index(0, j, k)] = -0.5;
  v[g.index(2, 1, 1)] = -1.0;
  v[g.index(1, 1, 1)] = 0.0;
  const LevelSetMesh m = extract_zero_level_set(g, std::span<const double>(v));
  ASSERT_FALSE(m.triangles.empty());
  expect_closed_oriented(m);
  EXPECT_GT(signed_volume(m), 0);
  // The cap lies one cell beyond the grid at most.
  for (const Vec3d& p : m.vertices) EXPECT_GE(p[0], -1.0);
  // All outside: nothing; wrong sizes and NaN: errors.
  const std::vector<double> out(g.nodes(), 2.0);
  EXPECT_TRUE(extract_zero_level_set(g, std::span<const double>(out)).triangles.empty());
  EXPECT_THROW(extract_zero_level_set(g, std::span<const double>(v.data(), 3)),
               std::invalid_argument);
  v[5] = std::nan("");
  EXPECT_THROW(extract_zero_level_set(g, std::span<const double>(v)), std::invalid_argument);
}

}  // namespace
}  // namespace prox
