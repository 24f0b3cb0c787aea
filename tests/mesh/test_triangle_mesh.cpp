// TriangleMesh validation: clear errors for bad indices and non-finite
// vertices, the drop policy, empty meshes, bounds.
#include <gtest/gtest.h>

#include <limits>

#include "prox/mesh.hpp"

namespace {

using namespace prox;
using Tri = std::array<std::uint32_t, 3>;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const MeshError& e) {
    return e.what();
  }
  return "";
}

TEST(TriangleMesh, OutOfRangeIndexNamed) {
  const std::string e = error_of([] {
    TriangleMesh<double>({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{0, 1, 2}, {0, 1, 99}});
  });
  EXPECT_EQ(e, "triangle 1 has vertex index 99, but the mesh has 3 vertices");
}

TEST(TriangleMesh, NanVertexNamed) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::string e = error_of([&] {
    TriangleMesh<float>({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {nan, 0, 1}}, {{0, 1, 2}});
  });
  EXPECT_EQ(e, "vertex 3 is not finite: (nan, 0, 1)");
  const std::string e2 = error_of([] {
    TriangleMesh<double>({{0, 0, 0}, {std::numeric_limits<double>::infinity(), 0, 0}},
                         {});
  });
  EXPECT_EQ(e2, "vertex 1 is not finite: (inf, 0, 0)");
}

TEST(TriangleMesh, DropPolicyRemovesOnlyTouchedTriangles) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const TriangleMesh<double> m({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {nan, 0, 0}, {0, 0, 1}},
                               {{0, 1, 2}, {0, 3, 2}, {0, 1, 4}, {3, 3, 3}},
                               NonFinitePolicy::drop_triangles);
  ASSERT_EQ(m.num_triangles(), 2u);
  EXPECT_EQ(m.triangles()[0], (Tri{0, 1, 2}));
  EXPECT_EQ(m.triangles()[1], (Tri{0, 1, 4}));
  EXPECT_EQ(m.num_vertices(), 5u);
  const MeshIndex<double> index(m);
  EXPECT_EQ(index.closest_point(Vec3d{0, 0, 3}).triangle, 1);
}

TEST(TriangleMesh, EmptyMeshIsValid) {
  const TriangleMesh<float> a;
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(a.bounds().is_empty());
  const TriangleMesh<float> b({{0, 0, 0}}, {});
  EXPECT_EQ(b.num_triangles(), 0u);
  const MeshIndex<float> index(b);
  EXPECT_FALSE(index.closest_point(Vec3f{0, 0, 0}).found());
  EXPECT_EQ(index.build_stats().nodes, 0u);
}

TEST(TriangleMesh, DegenerateTrianglesKeptAndBounds) {
  const TriangleMesh<double> m({{0, 0, 0}, {1, 2, 3}, {-1, 0, 5}, {9, 9, 9}},
                               {{0, 0, 0}, {0, 1, 1}, {0, 1, 2}});
  EXPECT_EQ(m.num_triangles(), 3u);
  const Box3<double> b = m.bounds();  // vertex 3 is unused: not in the bounds
  EXPECT_EQ(b.lo, (Vec3d{-1, 0, 0}));
  EXPECT_EQ(b.hi, (Vec3d{1, 2, 5}));
  EXPECT_EQ(m.corner(2, 2), (Vec3d{-1, 0, 5}));
  // The point triangle 0 answers at its point; the segment triangle 1 on its segment.
  const MeshIndex<double> index(m);
  const auto r = index.closest_point(Vec3d{0, 0, -1});
  EXPECT_EQ(r.triangle, 0);
  EXPECT_EQ(r.sq_distance, 1.0);
}

}  // namespace
