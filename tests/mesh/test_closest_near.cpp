// MeshIndex::closest_point_near: the answer is closest_point's bit for bit, and
// its list of triangles beside the answer is exactly what sphere_triangles
// gives at the answer's distance + reach (less the answer), with each
// triangle's kernel result, on every ISA path, with and without the SIMD leaf
// filters and a hint, float and double, for points near and far, on vertices
// and edge midpoints, with reach 0, at the sign certificate's scale and far
// larger. A vertex of degree 64 overflows the list (flagged), and the signs
// SignedMesh then takes from sphere_triangles are the brute force's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "mesh_support.hpp"
#include "prox/mesh/engine_hooks.hpp"
#include "prox/mesh/isa.hpp"
#include "prox/mesh/sign.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;

struct Restore {
  Isa isa = active_isa();
  bool scalar = scalar_leaves();
  ~Restore() {
    set_isa(isa);
    set_scalar_leaves(scalar);
  }
};

template <class T>
bool same_bytes(const MeshClosestPoint<T>& a, const MeshClosestPoint<T>& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// Checks one point; returns the list's size (or -1 on overflow).
template <class T>
int check_point(const MeshIndex<T>& index, const Vec3<T>& p, double reach, std::int32_t hint,
                T max_distance, const std::string& what) {
  NearTriangles<T> near;
  const MeshClosestPoint<T> got = index.closest_point_near(p, reach, near, hint, max_distance);
  const MeshClosestPoint<T> want = index.closest_point(p, max_distance);
  EXPECT_TRUE(same_bytes(got, want)) << what << ": the answer differs from closest_point";
  if (!want.found()) return 0;
  if (near.overflow) return -1;
  std::size_t listed = 0;
  EXPECT_EQ(test::near_list_mismatch(index, p, near, want, reach, &listed), "") << what;
  return int(listed);
}

template <class T>
void check_mesh(const TriangleMesh<T>& mesh, const std::string& name) {
  SCOPED_TRACE(name);
  Restore restore;
  const MeshIndex<T> index(mesh);
  const std::size_t n = std::size_t(test::scaled_count(1200, 400));
  std::vector<Vec3<T>> points = test::query_points(mesh, n, 5);
  for (std::size_t t = 0; t < mesh.num_triangles() && points.size() < n + 200; t += 97)
    points.push_back((mesh.corner(t, 0) + mesh.corner(t, 1) + mesh.corner(t, 2)) / T(3));
  const double diag = double(test::diagonal_length(mesh));
  const double eps = double(std::numeric_limits<T>::epsilon());
  const double reaches[] = {0.0, 1024 * eps * diag, 1e-3 * diag};
  std::size_t listed = 0, overflows = 0;
  for (const Isa isa : available_isas()) {
    set_isa(isa);
    for (const bool scalar : {false, true}) {
      set_scalar_leaves(scalar);
      for (std::size_t i = 0; i < points.size(); ++i) {
        const double reach = reaches[i % 3];
        const std::int32_t hint = i % 2 == 0 ? -1 : std::int32_t(i * 31 % mesh.num_triangles());
        const std::string what = std::string(isa_name(isa)) + (scalar ? " scalar" : " simd") +
                                 " point " + std::to_string(i) + " reach " +
                                 std::to_string(reach);
        const int k = check_point(index, points[i], reach, hint, ScalarTraits<T>::infinity(), what);
        if (k < 0) ++overflows;
        else listed += std::size_t(k);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
  EXPECT_GT(listed, points.size()) << "the lists should not all be empty";
  EXPECT_LT(overflows, points.size() / 4);
}

TEST(ClosestNear, ListIsSphereTrianglesOnEveryPathDouble) {
  check_mesh(test::cgal_mesh("elephant.off"), "elephant double");
  check_mesh(test::icosphere(3), "icosphere double");
}

TEST(ClosestNear, ListIsSphereTrianglesOnEveryPathFloat) {
  check_mesh(test::to_float(test::cgal_mesh("knot1.off")), "knot1 float");
  check_mesh(test::bumpy_grid(12, 0.5f), "bumpy grid float");
}

TEST(ClosestNear, MaxDistanceDoesNotCutTheList) {
  // Points 1 above a grid: the answer within max_distance 1.0000001 lists the
  // triangles up to 1 + reach away, past max_distance; below the answer's
  // distance it is a miss with an empty list.
  const TriangleMesh<double> grid = [] {
    const TriangleMesh<float> g = test::bumpy_grid(6, 1.0f);
    std::vector<Vec3d> v;
    for (const Vec3f& q : g.vertices()) v.push_back(Vec3d{double(q[0]), double(q[1]), 0.0});
    return TriangleMesh<double>(std::move(v), g.triangles());
  }();
  const MeshIndex<double> index(grid);
  const Vec3d p{3.0, 3.0, 1.0};  // above a vertex shared by six triangles
  NearTriangles<double> near;
  const auto cp = index.closest_point_near(p, 0.5, near, -1, 1.0000001);
  ASSERT_TRUE(cp.found());
  EXPECT_EQ(near.count, std::size_t(index.sphere_triangles(p, 1.5).size() - 1));
  EXPECT_GE(near.count, std::size_t(5));
  check_point(index, p, 0.5, -1, 1.0000001, "vertex, reach 0.5");
  const auto miss = index.closest_point_near(p, 0.5, near, -1, 0.5);
  EXPECT_FALSE(miss.found());
  EXPECT_EQ(near.count, std::size_t(0));
  EXPECT_THROW(index.closest_point_near(p, -1.0, near), std::invalid_argument);
  EXPECT_THROW(index.closest_point_near(p, std::nan(""), near), std::invalid_argument);
}

/// A closed cone: apex above a regular polygon of `sides` corners, its base a
/// fan around the centre (outward).
TriangleMesh<double> cone(int sides) {
  std::vector<Vec3d> v{{0, 0, 1}, {0, 0, 0}};
  std::vector<TriangleMesh<double>::Triangle> t;
  for (int i = 0; i < sides; ++i) {
    const double a = 2 * std::numbers::pi * i / sides;
    v.push_back({std::cos(a), std::sin(a), 0});
  }
  for (int i = 0; i < sides; ++i) {
    const auto c = std::uint32_t(2 + i), d = std::uint32_t(2 + (i + 1) % sides);
    t.push_back({0, c, d});  // side, outward
    t.push_back({1, d, c});  // base, downward
  }
  return TriangleMesh<double>(std::move(v), std::move(t));
}

TEST(ClosestNear, OverflowIsFlaggedAndSignsStayTheBruteForces) {
  const TriangleMesh<double> mesh = cone(64);
  const MeshIndex<double> index(mesh);
  const BruteForce<double> brute(mesh);
  NearTriangles<double> near;
  // Above the apex: all 64 sides have the apex as their closest point.
  const Vec3d above{0, 0, 1.5};
  const auto cp = index.closest_point_near(above, 1e-9, near);
  ASSERT_TRUE(cp.found());
  EXPECT_TRUE(near.overflow);
  EXPECT_TRUE(same_bytes(cp, index.closest_point(above)));
  // Below the base's centre: its 64 triangles meet there.
  const Vec3d below{0, 0, -0.25};
  index.closest_point_near(below, 1e-9, near);
  EXPECT_TRUE(near.overflow);
  const SignedMesh<MeshIndex<double>> si(index);
  const SignedMesh<BruteForce<double>> sb(brute);
  ASSERT_EQ(si.method(), SignMethod::pseudonormal);
  for (const Vec3d& p : {above, below, Vec3d{0, 0, 0.5}, Vec3d{0, 0, 0.999}, Vec3d{0.1, 0, 0.2},
                         Vec3d{0, 0, 1e-3}, Vec3d{0, 0, -1e-3}}) {
    const auto a = si.query(p), b = sb.query(p);
    EXPECT_TRUE(same_bytes(a.closest, b.closest));
    EXPECT_EQ(std::memcmp(&a.signed_distance, &b.signed_distance, sizeof(double)), 0);
    EXPECT_EQ(a.confidence, b.confidence);
    EXPECT_EQ(a.method, b.method);
    EXPECT_EQ(a.confidence, SignConfidence::sure);
    EXPECT_EQ(a.inside(), p[2] > 0 && p[2] < 1 && p[0] < 0.5);
  }
}

TEST(ClosestNear, SignedQueryEqualsSignOfClosestPoint) {
  // query() (one traversal, the near list) against sign(p, closest_point(p))
  // (the sphere query): the same signed answers, near the surface included.
  for (const char* name : {"elephant.off", "knot1.off"}) {
    SCOPED_TRACE(name);
    const TriangleMesh<double> mesh = test::cgal_mesh(name);
    const MeshIndex<double> index(mesh);
    const SignedMesh<MeshIndex<double>> sm(index);
    ASSERT_EQ(sm.method(), SignMethod::pseudonormal);
    const std::size_t n = std::size_t(test::scaled_count(1500, 300));
    std::vector<Vec3d> points = test::query_points(mesh, n, 9);
    for (const Vec3d& q : test::offset_points(mesh, 1e-12, n / 4, 3)) points.push_back(q);
    std::size_t unsure = 0;
    for (const Vec3d& p : points) {
      const auto a = sm.query(p);
      const auto b = sm.sign(p, index.closest_point(p));
      ASSERT_TRUE(same_bytes(a.closest, b.closest));
      ASSERT_EQ(std::memcmp(&a.signed_distance, &b.signed_distance, sizeof(double)), 0);
      ASSERT_EQ(a.confidence, b.confidence);
      ASSERT_EQ(a.method, b.method);
      unsure += a.method != SignMethod::pseudonormal;
    }
    // Points on vertices and edges (distance 0) and within 1e-12 go to parity.
    EXPECT_GT(unsure, std::size_t(0));
  }
}

}  // namespace
