// Sphere overlap against BruteForce; winding number and signed distance on
// closed and open meshes (exact reference values where they are known).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "mesh_support.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;

template <class T>
void compare_spheres(const TriangleMesh<T>& mesh, std::size_t n, const std::string& what) {
  const MeshIndex<T> index(mesh);
  const BruteForce<T> brute(mesh);
  const auto points = test::query_points(mesh, n, 4);
  const T diag = test::diagonal_length(mesh);
  std::size_t bad = 0, nonempty = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const T r = diag * T(i % 3 == 0 ? 0.002 : (i % 3 == 1 ? 0.02 : 0.1));
    const auto a = index.sphere_triangles(points[i], r);
    const auto b = brute.sphere_triangles(points[i], r);
    nonempty += !b.empty();
    if ((a != b || index.sphere_overlaps(points[i], r) != !b.empty()) && ++bad <= 3)
      ADD_FAILURE() << what << " query " << i << ": " << a.size() << " vs " << b.size();
  }
  EXPECT_EQ(bad, 0u) << what;
  EXPECT_GT(nonempty, points.size() / 4) << what;
}

TEST(Sphere, MatchesBruteForce) {
  const auto t = test::torus(1.0, 0.3, 48, 24);
  compare_spheres(t, test::scaled_count(2000, 200), "torus d");
  compare_spheres(test::to_float(t), test::scaled_count(2000, 200), "torus f");
  const auto e = test::cgal_mesh("degtri_sliding.off");
  compare_spheres(e, test::scaled_count(1000, 100), "degtri d");
  const auto s = test::random_soup(2000, 0.05, 9);
  compare_spheres(test::to_float(s), test::scaled_count(1000, 100), "soup f");
}

TEST(Sphere, EdgeCases) {
  const MeshIndex<double> index(test::icosphere(1));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(index.sphere_triangles(Vec3d{nan, 0, 0}, 1.0).empty());
  EXPECT_TRUE(index.sphere_triangles(Vec3d{0, 0, 0}, nan).empty());
  EXPECT_TRUE(index.sphere_triangles(Vec3d{0, 0, 0}, -1.0).empty());
  EXPECT_TRUE(index.sphere_triangles(Vec3d{0, 0, 0}, 0.5).empty());
  EXPECT_EQ(index.sphere_triangles(Vec3d{0, 0, 0}, 1.0).size(), 80u);
  EXPECT_EQ(index.sphere_triangles(Vec3d{0, 0, 0},
                                   std::numeric_limits<double>::infinity()).size(), 80u);
  // Radius zero at a vertex: exactly the triangles around it (5 or 6).
  const Vec3d v = index.mesh().vertices()[0];
  const auto fan = index.sphere_triangles(v, 0.0);
  EXPECT_EQ(fan.size(), 5u);
}

TEST(Winding, ClosedMeshesInsideOutside) {
  for (const char* name : {"elephant.off", "knot1.off"}) {
    const auto m = test::cgal_mesh(name);
    const MeshIndex<double> index(m);
    const BruteForce<double> brute(m);
    const auto pts = test::query_points(m, 200, 3);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      if (i % 4 >= 2) continue;  // near-surface and box points, not points on the surface
      const double w = index.exact_winding_number(pts[i]);
      EXPECT_EQ(w, brute.winding_number(pts[i]));
      // The far-field approximation: within its documented error.
      EXPECT_NEAR(index.winding_number(pts[i]), w, 0.03) << name << " point " << i;
      // Closed mesh: integer up to rounding; parity of a ray agrees with it.
      const double k = std::round(w);
      if (std::abs(w - k) > 1e-6) ++bad;
      const std::size_t c = index.count_hits(Rayd{pts[i], {0.123, 0.456, 0.789}});
      if ((c % 2 == 1) != (std::abs(k) == 1.0)) ++bad;
      const auto sd = index.signed_distance(pts[i]);
      EXPECT_DOUBLE_EQ(sd.signed_distance * sd.signed_distance,
                       index.closest_point(pts[i]).sq_distance);
      EXPECT_EQ(sd.signed_distance < 0, std::abs(k) == 1.0);
      EXPECT_EQ(sd.signed_distance < 0, brute.signed_distance(pts[i]).signed_distance < 0);
    }
    EXPECT_EQ(bad, 0u) << name;
  }
}

TEST(Winding, OpenMeshHalfAndNaN) {
  // A single square (two triangles) seen from close above its center: the
  // solid angle approaches 2 pi, the winding number 1/2.
  const TriangleMesh<double> sq({{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}},
                                {{0, 1, 2}, {0, 2, 3}});
  const MeshIndex<double> index(sq);
  EXPECT_NEAR(index.winding_number(Vec3d{0.1, 0.2, 1e-9}), -0.5, 1e-6);
  EXPECT_NEAR(index.winding_number(Vec3d{0.1, 0.2, -1e-9}), 0.5, 1e-6);
  // Exact value above the center of a square of side 2 at height 1: 4 * (pi/6) / (4 pi).
  EXPECT_NEAR(std::abs(index.exact_winding_number(Vec3d{0, 0, 1})), 1.0 / 6.0, 1e-12);
  EXPECT_NEAR(std::abs(index.winding_number(Vec3d{0, 0, 1})), 1.0 / 6.0, 1e-12);  // near: exact
  // Far away the expansion is used: still close to the exact value.
  const Vec3d far{30, -20, 40};
  EXPECT_NEAR(index.winding_number(far), index.exact_winding_number(far), 1e-6);
  EXPECT_TRUE(std::isnan(index.winding_number(Vec3d{0, std::nan(""), 0})));
  EXPECT_TRUE(std::isnan(index.signed_distance(Vec3d{0, std::nan(""), 0}).signed_distance));
}

}  // namespace
