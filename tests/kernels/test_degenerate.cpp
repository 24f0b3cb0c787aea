// Degenerate input, one family per test (DESIGN.md): collinear, coincident and
// sliver triangles are their segment or point for closest-point queries (no
// NaN, no epsilon) and have no area for rays and point-in-triangle; NaN/Inf
// input is a defined miss for every kernel.
#include <gmpxx.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>

#include "prox/prox.hpp"

namespace {

using prox::Feature;
using prox::Vec3d;
using Result = prox::ClosestPointTriangleResult<double>;

Result (*const kMethods[])(const Vec3d&, const Vec3d&, const Vec3d&, const Vec3d&) = {
    &prox::closest_point_triangle<double>, &prox::closest_point_triangle_eberly<double>,
    &prox::closest_point_triangle_projection<double>};

void expect_point(const Vec3d& p, const Vec3d& a, const Vec3d& b, const Vec3d& c,
                  const Vec3d& expected) {
  for (auto* method : kMethods) {
    const Result r = method(p, a, b, c);
    EXPECT_EQ(r.point, expected);
    EXPECT_EQ(r.sq_distance, squared_distance(p, expected));
    // The weights still describe the point: bary . (a, b, c) == point.
    const Vec3d q = a * r.bary[0] + b * r.bary[1] + c * r.bary[2];
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(q[i], expected[i], 1e-15);
    EXPECT_DOUBLE_EQ(r.bary[0] + r.bary[1] + r.bary[2], 1.0);
  }
}

TEST(Degenerate, CollinearTriangle) {
  // c between a and b, and every other order: the triangle is the segment [0, 4] on x.
  const Vec3d x0{0, 0, 0}, x2{2, 0, 0}, x4{4, 0, 0};
  const Vec3d orders[][3] = {{x0, x4, x2}, {x0, x2, x4}, {x2, x0, x4},
                             {x2, x4, x0}, {x4, x0, x2}, {x4, x2, x0}};
  for (const auto& t : orders) {
    expect_point(Vec3d{1, 3, 0}, t[0], t[1], t[2], Vec3d{1, 0, 0});
    expect_point(Vec3d{3, 0, -2}, t[0], t[1], t[2], Vec3d{3, 0, 0});
    expect_point(Vec3d{-5, 1, 1}, t[0], t[1], t[2], x0);
    expect_point(Vec3d{9, 0, 0}, t[0], t[1], t[2], x4);
    expect_point(Vec3d{2, 0, 0}, t[0], t[1], t[2], x2);  // on a corner
  }
  // Exactly, too.
  using Q = mpq_class;
  const prox::Vec3<Q> a{Q(0), Q(0), Q(0)}, b{Q(3), Q(3), Q(3)}, c{Q(1), Q(1), Q(1)};
  const prox::Vec3<Q> p{Q(1), Q(0), Q(0)};  // projects to t = 1/9 along a -> b
  const auto r = prox::closest_point_triangle(p, a, b, c);
  EXPECT_EQ(r.point, (prox::Vec3<Q>{Q(1, 3), Q(1, 3), Q(1, 3)}));
  EXPECT_EQ(r.sq_distance, Q(2, 3));
}

TEST(Degenerate, CoincidentCorners) {
  const Vec3d x{1, 2, 3}, y{5, 2, 3};
  // All three the same point.
  expect_point(Vec3d{1, 2, 5}, x, x, x, x);
  expect_point(Vec3d{1, 2, 3}, x, x, x, x);
  // Two the same: the segment [x, y], in every arrangement.
  const Vec3d arrangements[][3] = {{x, x, y}, {x, y, x}, {y, x, x}};
  for (const auto& t : arrangements) {
    expect_point(Vec3d{2, 7, 3}, t[0], t[1], t[2], Vec3d{2, 2, 3});
    expect_point(Vec3d{0, 2, 3}, t[0], t[1], t[2], x);
    expect_point(Vec3d{9, 2, 4}, t[0], t[1], t[2], y);
  }
  const Result r = prox::closest_point_triangle(Vec3d{0, 0, 0}, x, x, x);
  EXPECT_TRUE(r.feature == Feature::v0 || r.feature == Feature::v1 || r.feature == Feature::v2);
}

TEST(Degenerate, SliverTriangle) {
  // Not exactly degenerate, but as thin as double allows: c is 1e-300 off the line.
  const Vec3d a{0, 0, 0}, b{1, 0, 0}, c{0.5, 1e-300, 0};
  for (auto* method : kMethods) {
    const Result r = method(Vec3d{0.25, 3, 0}, a, b, c);
    EXPECT_TRUE(all_finite(r.point));
    EXPECT_NEAR(r.point[0], 0.25, 1e-16);
    EXPECT_NEAR(r.point[1], 0.0, 1e-16);
    EXPECT_NEAR(r.sq_distance, 9.0, 1e-15);
    // Off the plane of a sliver, whose normal rounds to garbage: still the segment.
    const Result s = method(Vec3d{0.75, 0, 2}, a, b, c);
    EXPECT_NEAR(s.point[0], 0.75, 1e-16);
    EXPECT_NEAR(s.sq_distance, 4.0, 1e-15);
  }
  // Float, 1e-7 relative: the float normal is noise; the face check in double holds.
  const prox::Vec3f af{-0.384184837f, -0.773157656f, -0.805500925f},
      bf{0.0968855023f, 0.567958176f, -0.393845022f}, cf{0.0807962641f, 0.522311866f, -0.407684922f};
  const prox::Vec3f pf{-0.130302265f, -0.0650378987f, -0.587528288f};
  using Q = mpq_class;
  const auto exact = prox::closest_point_triangle(pf.cast<Q>(), af.cast<Q>(), bf.cast<Q>(),
                                                  cf.cast<Q>());
  const auto rf = prox::closest_point_triangle(pf, af, bf, cf);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(rf.point[i], exact.point[i].get_d(), 1e-3);
  // A sliver has area: a ray through it hits; its collinear neighbour has none.
  EXPECT_TRUE(prox::ray_triangle_watertight(prox::Rayd{{0.5, 1e-301, 1}, {0, 0, -1}}, a, b, c).hit);
  EXPECT_FALSE(prox::point_in_triangle(Vec3d{0.5, 0, 0}, a, b, Vec3d{2, 0, 0}));
}

TEST(Degenerate, RaysMissDegenerateTriangles) {
  const Vec3d a{0, 0, 0}, b{2, 0, 0}, mid{1, 0, 0};
  const prox::Rayd through{{1, 0, 1}, {0, 0, -1}};  // through the segment's middle
  for (const auto& t : {std::array<Vec3d, 3>{a, b, mid}, std::array<Vec3d, 3>{a, a, a},
                        std::array<Vec3d, 3>{a, a, b}}) {
    EXPECT_FALSE(prox::ray_triangle_moller_trumbore(through, t[0], t[1], t[2]).hit);
    EXPECT_FALSE(prox::ray_triangle_watertight(through, t[0], t[1], t[2]).hit);
    EXPECT_FALSE(prox::point_in_triangle(Vec3d{1, 0, 0}, t[0], t[1], t[2]));
    EXPECT_EQ(prox::triangle_area(t[0], t[1], t[2]), 0.0);
  }
  // Zero-length segment: its point, t = 0.
  const auto s = prox::closest_point_segment(Vec3d{1, 1, 1}, a, a);
  EXPECT_EQ(s.point, a);
  EXPECT_EQ(s.t, 0.0);
  EXPECT_EQ(s.sq_distance, 3.0);
  // Zero-size box (a point) and a flat box.
  const auto bx = prox::closest_point_box(Vec3d{1, 1, 1}, prox::Box<double, 3>{a, a});
  EXPECT_EQ(bx.point, a);
  EXPECT_EQ(bx.sq_distance, 3.0);
  // Zero plane normal: no plane.
  EXPECT_TRUE(std::isnan(prox::closest_point_plane(Vec3d{1, 1, 1}, a, a).sq_distance));
  EXPECT_TRUE(std::isnan(prox::signed_distance_plane(Vec3d{1, 1, 1}, a, a)));
  // Rectangle with a zero edge is its segment.
  const auto rc = prox::closest_point_rectangle(Vec3d{1, 5, 0}, a, Vec3d{2, 0, 0}, a);
  EXPECT_EQ(rc.point, (Vec3d{1, 0, 0}));
  EXPECT_EQ(rc.t, 0.0);
}

TEST(Degenerate, NonFiniteInputIsAMiss) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Vec3d a{0, 0, 0}, b{1, 0, 0}, c{0, 1, 0};
  for (const double bad : {nan, inf, -inf}) {
    const Vec3d p{0.2, bad, 0.1};
    for (auto* method : kMethods) {
      for (const auto& r : {method(p, a, b, c), method(a, p, b, c), method(a, b, p, c),
                            method(a, b, c, p)}) {
        EXPECT_TRUE(std::isnan(r.sq_distance));
        EXPECT_TRUE(std::isnan(r.point[0]));
      }
    }
    EXPECT_TRUE(std::isnan(prox::closest_point_segment(p, a, b).sq_distance));
    EXPECT_TRUE(std::isnan(prox::closest_point_segment(a, p, b).sq_distance));
    EXPECT_TRUE(std::isnan(prox::closest_point_box(p, prox::Box<double, 3>{a, b}).sq_distance));
    EXPECT_FALSE(prox::closest_point_box(p, prox::Box<double, 3>{a, b}).inside);
    EXPECT_TRUE(std::isnan(prox::closest_point_plane(p, a, c).sq_distance));
    EXPECT_TRUE(std::isnan(prox::closest_point_rectangle(p, a, b, c).sq_distance));
    EXPECT_FALSE(prox::point_in_triangle(p, a, b, c));
    EXPECT_FALSE(prox::sphere_triangle_overlap(p, 1.0, a, b, c));
    EXPECT_FALSE(prox::sphere_triangle_overlap(Vec3d{0, 0, 0}, bad, a, b, c));
    const prox::Rayd bad_origin{p, {0, 0, -1}};
    const prox::Rayd bad_dir{{0.2, 0.2, 1}, {0, bad, -1}};
    for (const auto& ray : {bad_origin, bad_dir}) {
      EXPECT_FALSE(prox::ray_triangle_moller_trumbore(ray, a, b, c).hit);
      EXPECT_FALSE(prox::ray_triangle_watertight(ray, a, b, c).hit);
      EXPECT_FALSE(prox::ray_box(ray, prox::Box<double, 3>{a, Vec3d{1, 1, 1}}).hit);
    }
    const prox::Rayd good{{0.2, 0.2, 1}, {0, 0, -1}};
    EXPECT_FALSE(prox::ray_triangle_moller_trumbore(good, a, p, c).hit);
    EXPECT_FALSE(prox::ray_triangle_watertight(good, a, p, c).hit);
  }
  // NaN ray range, NaN box, empty box.
  prox::Rayd r{{0.2, 0.2, 1}, {0, 0, -1}};
  r.t_max = nan;
  EXPECT_FALSE(prox::ray_triangle_moller_trumbore(r, a, b, c).hit);
  EXPECT_FALSE(prox::ray_triangle_watertight(r, a, b, c).hit);
  EXPECT_FALSE(prox::ray_box(r, prox::Box<double, 3>{a, Vec3d{1, 1, 1}}).hit);
  const prox::Rayd r2{{0.2, 0.2, 1}, {0, 0, -1}};
  EXPECT_FALSE(prox::ray_box(r2, prox::Box<double, 3>{a, Vec3d{1, nan, 1}}).hit);
  EXPECT_FALSE(prox::ray_box(r2, prox::Box<double, 3>::empty()).hit);
  EXPECT_FALSE(prox::closest_point_box(a, prox::Box<double, 3>::empty()).inside);
  EXPECT_TRUE(std::isnan(prox::closest_point_box(a, prox::Box<double, 3>::empty()).sq_distance));
  // A zero direction never hits a triangle.
  EXPECT_FALSE(prox::ray_triangle_watertight(prox::Rayd{{0.2, 0.2, 0}, {0, 0, 0}}, a, b, c).hit);
  EXPECT_FALSE(prox::ray_triangle_moller_trumbore(prox::Rayd{{0.2, 0.2, 0}, {0, 0, 0}}, a, b, c).hit);
}

}  // namespace
