// MeshIndex::closest_point against BruteForce (same kernel, linear scan) on
// procedural and CGAL meshes, float and double, random, near-surface and
// adversarial (on vertices, on edges, max radius, NaN) queries.
// Tolerance: none — the BVH must return the same sq_distance bit for bit and
// the same triangle (the lowest id among equal distances), because its box
// pruning is conservative and the final test is the shared kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "mesh_support.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;
using prox::test::scaled_count;

template <class T>
void compare_closest(const TriangleMesh<T>& mesh, std::size_t n, std::uint64_t seed,
                     const std::string& what) {
  const MeshIndex<T> index(mesh);
  const BruteForce<T> brute(mesh);
  const auto points = test::query_points(mesh, n, seed);
  const T diag = test::diagonal_length(mesh);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    // Every 5th query also gets a max radius around the typical distance.
    const T radius = i % 5 == 4 ? T(0.01) * diag : ScalarTraits<T>::infinity();
    const auto a = index.closest_point(points[i], radius);
    const auto b = brute.closest_point(points[i], radius);
    const bool same = a.triangle == b.triangle && a.found() == b.found() &&
                      (!a.found() || (a.sq_distance == b.sq_distance && a.point == b.point &&
                                      a.feature == b.feature));
    if (!same && ++bad <= 5)
      ADD_FAILURE() << what << " query " << i << ": bvh tri " << a.triangle << " d2 "
                    << a.sq_distance << ", brute tri " << b.triangle << " d2 " << b.sq_distance;
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << points.size() << " disagree";
}

TEST(ClosestPoint, Icospheres) {
  for (int s : {0, 1, 3}) {
    const auto m = test::icosphere(s);
    compare_closest(m, scaled_count(4000), 1 + s, "icosphere d");
    compare_closest(test::to_float(m), scaled_count(4000), 1 + s, "icosphere f");
  }
}

TEST(ClosestPoint, TorusAndSoup) {
  const auto t = test::torus(1.0, 0.3, 48, 24);
  compare_closest(t, scaled_count(4000), 7, "torus d");
  compare_closest(test::to_float(t), scaled_count(4000), 7, "torus f");
  const auto s = test::random_soup(3000, 0.05, 3);
  compare_closest(s, scaled_count(4000), 8, "soup d");
  compare_closest(test::to_float(s), scaled_count(4000), 8, "soup f");
}

TEST(ClosestPoint, CgalMeshesWithBordersHolesDegenerates) {
  for (const char* name : {"mesh_with_border.off", "degtri_sliding.off", "cube-ouvert.off",
                           "hole.off", "elephant.off", "fandisk.off", "cube.off"}) {
    const auto m = test::cgal_mesh(name);
    compare_closest(m, scaled_count(2000, 200), 11, std::string(name) + " d");
    compare_closest(test::to_float(m), scaled_count(2000, 200), 11, std::string(name) + " f");
  }
}

TEST(ClosestPoint, BunnyAndArmadilloSubsample) {
  for (const char* name : {"bunny00.off", "armadillo.off"}) {
    const auto m = test::cgal_mesh(name);
    compare_closest(m, scaled_count(600, 40), 21, std::string(name) + " d");
    compare_closest(test::to_float(m), scaled_count(600, 40), 21, std::string(name) + " f");
  }
}

TEST(ClosestPoint, NonFiniteQueriesMissWithoutDisturbingOthers) {
  const MeshIndex<double> index(test::icosphere(2));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const Vec3d& p : {Vec3d{nan, 0, 0}, Vec3d{0, inf, 0}, Vec3d{0, 0, -inf}}) {
    const auto r = index.closest_point(p);
    EXPECT_FALSE(r.found());
    EXPECT_EQ(r.triangle, -1);
    EXPECT_TRUE(std::isnan(r.sq_distance));
  }
  const auto ok = index.closest_point(Vec3d{0, 0, 2});
  ASSERT_TRUE(ok.found());
  EXPECT_NEAR(ok.sq_distance, 1.0, 0.01);
  EXPECT_FALSE(index.closest_point(Vec3d{0, 0, 2}, nan).found());
  EXPECT_FALSE(index.closest_point(Vec3d{0, 0, 2}, -1.0).found());
  EXPECT_FALSE(index.closest_point(Vec3d{0, 0, 2}, 0.5).found());
  EXPECT_TRUE(index.closest_point(Vec3d{0, 0, 2}, 1.01).found());
}

TEST(ClosestPoint, EmptyMeshMisses) {
  const MeshIndex<float> index{TriangleMesh<float>()};
  EXPECT_FALSE(index.closest_point(Vec3f{0, 0, 0}).found());
  EXPECT_FALSE(index.first_hit(Rayf{{0, 0, 0}, {1, 0, 0}}).found());
  EXPECT_EQ(index.count_hits(Rayf{{0, 0, 0}, {1, 0, 0}}), 0u);
  EXPECT_FALSE(index.sphere_overlaps(Vec3f{0, 0, 0}, 10.0f));
}

TEST(ClosestPoint, TiesGoToLowestTriangleId) {
  // Four copies of one triangle in shuffled order, plus a far one: every query
  // ties between the copies; the answer must be the lowest id (1).
  std::vector<Vec3d> v = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {5, 5, 5}, {6, 5, 5}, {5, 6, 5}};
  std::vector<test::Tri> f = {{3, 4, 5}, {0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 1, 2}};
  const TriangleMesh<double> m(v, f);
  const MeshIndex<double> index(m, BuildOptions{1, 16, 1});
  for (const Vec3d& p : {Vec3d{0.2, 0.2, 1}, Vec3d{-1, -1, 0}, Vec3d{0.5, 0.5, -3}}) {
    EXPECT_EQ(index.closest_point(p).triangle, 1);
    EXPECT_EQ(BruteForce<double>(m).closest_point(p).triangle, 1);
  }
}

}  // namespace
