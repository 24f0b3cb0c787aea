// Hand-computed cases: every one of the seven regions for the three
// closest-point-on-triangle methods (as Geometric Tools' tests do), Eberly's
// seven st-plane regions, the segment, box, plane and rectangle kernels, and
// the worked numbers of seed 003 (sphere vs triangle: |SQ|^2 = 1.48 > r^2 =
// 0.64 with Q on edge BC; the ray meets the plane at t = 2.4).
#include <gmpxx.h>
#include <gtest/gtest.h>

#include "prox/prox.hpp"

namespace {

using prox::Feature;
using prox::Vec3d;

struct Expected {
  Vec3d p;
  Vec3d point;
  double sq_distance;
  Vec3d bary;
  Feature feature;
};

using Method = prox::ClosestPointTriangleResult<double> (*)(const Vec3d&, const Vec3d&,
                                                            const Vec3d&, const Vec3d&);

const Method kMethods[] = {&prox::closest_point_triangle<double>,
                           &prox::closest_point_triangle_eberly<double>,
                           &prox::closest_point_triangle_projection<double>};
const char* kNames[] = {"Ericson", "Eberly", "projection"};

void expect_case(const Vec3d& a, const Vec3d& b, const Vec3d& c, const Expected& e) {
  for (int m = 0; m < 3; ++m) {
    SCOPED_TRACE(kNames[m]);
    const auto r = kMethods[m](e.p, a, b, c);
    for (int i = 0; i < 3; ++i) {
      EXPECT_DOUBLE_EQ(r.point[i], e.point[i]) << "coordinate " << i;
      EXPECT_NEAR(r.bary[i], e.bary[i], 1e-15) << "weight " << i;
    }
    EXPECT_DOUBLE_EQ(r.sq_distance, e.sq_distance);
    EXPECT_EQ(r.feature, e.feature) << prox::to_string(r.feature);
  }
}

// a = (0,0,0), b = (4,0,0), c = (0,4,0): one query in each Voronoi region,
// with the closest point, distance and weights worked out by hand.
TEST(ClosestPointTriangleHand, SevenRegions) {
  const Vec3d a{0, 0, 0}, b{4, 0, 0}, c{0, 4, 0};
  const Expected cases[] = {
      {{1, 1, 2}, {1, 1, 0}, 4, {0.5, 0.25, 0.25}, Feature::face},
      {{-1, -2, 1}, {0, 0, 0}, 6, {1, 0, 0}, Feature::v0},
      {{6, -1, 0}, {4, 0, 0}, 5, {0, 1, 0}, Feature::v1},
      {{-1, 7, -2}, {0, 4, 0}, 14, {0, 0, 1}, Feature::v2},
      {{1, -3, 4}, {1, 0, 0}, 25, {0.75, 0.25, 0}, Feature::e01},
      {{3, 3, 1}, {2, 2, 0}, 3, {0, 0.5, 0.5}, Feature::e12},  // (1,1) out of x + y = 4
      {{-2, 3, 0}, {0, 3, 0}, 4, {0.25, 0, 0.75}, Feature::e20},
  };
  for (const Expected& e : cases) {
    SCOPED_TRACE(prox::to_string(e.feature));
    expect_case(a, b, c, e);
  }
}

// A tilted triangle in the plane x + y + z = 3: corners (3,0,0), (0,3,0), (0,0,3).
TEST(ClosestPointTriangleHand, TiltedTriangle) {
  const Vec3d a{3, 0, 0}, b{0, 3, 0}, c{0, 0, 3};
  // Face: p = centroid + 2 (1,1,1) -> centroid (1,1,1), distance^2 = 12.
  expect_case(a, b, c, {{3, 3, 3}, {1, 1, 1}, 12, {1.0 / 3, 1.0 / 3, 1.0 / 3}, Feature::face});
  // Beyond a along (1,-1/2,-1/2)-ish: (5,-1,-1) -> a, distance^2 = 4 + 1 + 1.
  expect_case(a, b, c, {{5, -1, -1}, {3, 0, 0}, 6, {1, 0, 0}, Feature::v0});
  // Edge ab midpoint (1.5,1.5,0) pushed out by (1,1,-2): p = (2.5,2.5,-2).
  expect_case(a, b, c, {{2.5, 2.5, -2}, {1.5, 1.5, 0}, 6, {0.5, 0.5, 0}, Feature::e01});
}

// Eberly's figure 10.9: B = (0,0,0), e0 = (1,0,0), e1 = (0,1,0); one point per region 0..6.
TEST(ClosestPointTriangleHand, EberlyRegions) {
  const Vec3d a{0, 0, 0}, b{1, 0, 0}, c{0, 1, 0};
  const Expected cases[] = {
      {{0.25, 0.25, 1}, {0.25, 0.25, 0}, 1, {0.5, 0.25, 0.25}, Feature::face},  // region 0
      {{1, 1, 0}, {0.5, 0.5, 0}, 0.5, {0, 0.5, 0.5}, Feature::e12},             // region 1
      {{-0.5, 2, 0}, {0, 1, 0}, 1.25, {0, 0, 1}, Feature::v2},                  // region 2
      {{-1, 0.5, 2}, {0, 0.5, 0}, 5, {0.5, 0, 0.5}, Feature::e20},              // region 3
      {{-1, -1, 0}, {0, 0, 0}, 2, {1, 0, 0}, Feature::v0},                      // region 4
      {{0.5, -1, -3}, {0.5, 0, 0}, 10, {0.5, 0.5, 0}, Feature::e01},            // region 5
      {{2, -0.5, 0}, {1, 0, 0}, 1.25, {0, 1, 0}, Feature::v1},                  // region 6
  };
  for (const Expected& e : cases) expect_case(a, b, c, e);
}

// The exact kernels give the same answers as rationals: 1/3 is not a double.
TEST(ClosestPointTriangleHand, ExactRationalFace) {
  using Q = mpq_class;
  const prox::Vec3<Q> a{Q(3), Q(0), Q(0)}, b{Q(0), Q(3), Q(0)}, c{Q(0), Q(0), Q(3)};
  const prox::Vec3<Q> p{Q(1), Q(0), Q(0)};
  for (const auto& r : {prox::closest_point_triangle(p, a, b, c),
                        prox::closest_point_triangle_eberly(p, a, b, c),
                        prox::closest_point_triangle_projection(p, a, b, c)}) {
    // p - ((p.(1,1,1) - 3) / 3) (1,1,1) = (1,0,0) + (2/3)(1,1,1).
    EXPECT_EQ(r.point[0], Q(5, 3));
    EXPECT_EQ(r.point[1], Q(2, 3));
    EXPECT_EQ(r.point[2], Q(2, 3));
    EXPECT_EQ(r.sq_distance, Q(4, 3));
    EXPECT_EQ(r.bary[0], Q(5, 9));
    EXPECT_EQ(r.feature, Feature::face);
  }
}

// Seed 003, "sphere vs triangle": Q on edge BC, |SQ|^2 = 1.48 > r^2 = 0.64 -> apart.
TEST(SeedExamples, SphereTriangle) {
  const Vec3d a{0, 0, 0}, b{2, 0, 0}, c{0, 2, 0};
  // In-plane distance to the line x + y = 2 is 1/sqrt(2) (squared 0.5); z^2 = 0.49.
  const Vec3d s{1.5, 1.5, 0.7};
  const auto q = prox::closest_point_triangle(s, a, b, c);
  EXPECT_EQ(q.feature, Feature::e12);
  EXPECT_DOUBLE_EQ(q.point[0], 1.0);
  EXPECT_DOUBLE_EQ(q.point[1], 1.0);
  EXPECT_NEAR(q.sq_distance, 0.99, 1e-15);
  const Vec3d s2{1.5, 1.5, std::sqrt(0.98)};
  EXPECT_NEAR(prox::closest_point_triangle(s2, a, b, c).sq_distance, 1.48, 1e-15);
  EXPECT_FALSE(prox::sphere_triangle_overlap(s2, 0.8, a, b, c));   // 1.48 > 0.64
  EXPECT_TRUE(prox::sphere_triangle_overlap(s2, 1.3, a, b, c));    // 1.48 < 1.69
  // Touching counts: centre 1 above the face, radius 1.
  EXPECT_TRUE(prox::sphere_triangle_overlap(Vec3d{0.5, 0.5, 1}, 1.0, a, b, c));
  EXPECT_FALSE(prox::sphere_triangle_overlap(Vec3d{0.5, 0.5, 1}, 0.999, a, b, c));
}

// Seed 003, "ray vs triangle": the ray meets the plane at t = 2.4, inside -> hit.
TEST(SeedExamples, RayTriangle) {
  const Vec3d a{0, 0, 0}, b{2, 0, 0}, c{0, 2, 0};
  const prox::Rayd ray{{0.5, 0.5, 2.4}, {0, 0, -1}};
  for (const auto& h : {prox::ray_triangle_moller_trumbore(ray, a, b, c),
                        prox::ray_triangle_watertight(ray, a, b, c)}) {
    EXPECT_TRUE(h.hit);
    EXPECT_DOUBLE_EQ(h.t, 2.4);
    EXPECT_DOUBLE_EQ(h.u, 0.25);
    EXPECT_DOUBLE_EQ(h.v, 0.25);
    EXPECT_TRUE(h.front_face);
  }
  // Seed 002 (Möller–Trumbore): (1 - u - v) a + u b + v c is the hit point.
  const auto h = prox::ray_triangle_moller_trumbore(ray, a, b, c);
  const Vec3d q = a * (1 - h.u - h.v) + b * h.u + c * h.v;
  EXPECT_EQ(q, ray.at(h.t));
}

// Seed 003, "triangle normal and area" and "point in triangle".
TEST(SeedExamples, NormalAreaInside) {
  const Vec3d a{0, 0, 0}, b{3, 0, 0}, c{0, 4, 0};
  EXPECT_EQ(prox::triangle_normal(a, b, c), (Vec3d{0, 0, 12}));
  EXPECT_EQ(prox::triangle_normal(a, c, b), (Vec3d{0, 0, -12}));  // winding flips it
  EXPECT_DOUBLE_EQ(prox::triangle_area(a, b, c), 6.0);
  EXPECT_TRUE(prox::point_in_triangle(Vec3d{1, 1, 0}, a, b, c));
  EXPECT_TRUE(prox::point_in_triangle(Vec3d{1, 1, -50}, a, b, c));  // under the floor
  EXPECT_TRUE(prox::point_in_triangle(Vec3d{1.5, 2, 3}, a, b, c));  // over edge bc exactly
  EXPECT_FALSE(prox::point_in_triangle(Vec3d{2, 2, 0}, a, b, c));
  EXPECT_FALSE(prox::point_in_triangle(Vec3d{-0.001, 1, 0}, a, b, c));
  EXPECT_TRUE(prox::point_in_triangle(Vec3d{1, 1, 0}, a, c, b));  // either winding
}

TEST(ClosestPointSegmentHand, ClampAndInterior) {
  const Vec3d a{0, 0, 0}, b{4, 0, 0};
  auto r = prox::closest_point_segment(Vec3d{1, 2, 0}, a, b);
  EXPECT_EQ(r.point, (Vec3d{1, 0, 0}));
  EXPECT_EQ(r.t, 0.25);
  EXPECT_EQ(r.sq_distance, 4.0);
  r = prox::closest_point_segment(Vec3d{-3, 4, 0}, a, b);
  EXPECT_EQ(r.point, a);
  EXPECT_EQ(r.t, 0.0);
  EXPECT_EQ(r.sq_distance, 25.0);
  r = prox::closest_point_segment(Vec3d{7, 0, 4}, a, b);
  EXPECT_EQ(r.point, b);
  EXPECT_EQ(r.t, 1.0);
  EXPECT_EQ(r.sq_distance, 25.0);
  const auto r2 = prox::closest_point_segment(prox::Vec2d{1, 1}, prox::Vec2d{0, 0},
                                              prox::Vec2d{2, 0});
  EXPECT_EQ(r2.point, (prox::Vec2d{1, 0}));
  EXPECT_EQ(r2.t, 0.5);
}

TEST(ClosestPointBoxHand, InsideOutsideFaceEdgeCorner) {
  const prox::Box<double, 3> box{{0, 0, 0}, {1, 2, 3}};
  auto r = prox::closest_point_box(Vec3d{0.5, 1, 1}, box);
  EXPECT_TRUE(r.inside);
  EXPECT_EQ(r.sq_distance, 0.0);
  EXPECT_EQ(r.point, (Vec3d{0.5, 1, 1}));
  r = prox::closest_point_box(Vec3d{1, 2, 3}, box);  // a corner: boundary is inside
  EXPECT_TRUE(r.inside);
  r = prox::closest_point_box(Vec3d{0.5, 1, 5}, box);  // beyond a face
  EXPECT_EQ(r.point, (Vec3d{0.5, 1, 3}));
  EXPECT_EQ(r.sq_distance, 4.0);
  EXPECT_FALSE(r.inside);
  r = prox::closest_point_box(Vec3d{-1, 3, 1}, box);  // beyond an edge
  EXPECT_EQ(r.point, (Vec3d{0, 2, 1}));
  EXPECT_EQ(r.sq_distance, 2.0);
  r = prox::closest_point_box(Vec3d{2, -2, 4}, box);  // beyond a corner
  EXPECT_EQ(r.point, (Vec3d{1, 0, 3}));
  EXPECT_EQ(r.sq_distance, 6.0);
}

TEST(PlaneHand, SignedDistanceAndProjection) {
  // Plane z = 1 with unit normal, non-unit normal and the implicit form.
  EXPECT_EQ(prox::signed_distance_plane(Vec3d{4, 5, 3}, Vec3d{0, 0, 1}, Vec3d{0, 0, 1}), 2.0);
  EXPECT_EQ(prox::signed_distance_plane(Vec3d{4, 5, 3}, Vec3d{0, 0, 1}, Vec3d{0, 0, 5}), 2.0);
  EXPECT_EQ(prox::signed_distance_plane(Vec3d{4, 5, -3}, Vec3d{0, 0, 1}, Vec3d{0, 0, -5}), 4.0);
  EXPECT_EQ(prox::signed_distance_plane(Vec3d{4, 5, 3}, Vec3d{0, 0, 1}, -1.0), 2.0);
  // Tilted: plane x + y = 2 through (1,1,0), normal (1,1,0) (length sqrt 2).
  EXPECT_DOUBLE_EQ(prox::signed_distance_plane(Vec3d{2, 2, 7}, Vec3d{1, 1, 0}, Vec3d{1, 1, 0}),
                   std::sqrt(2.0));
  const auto r = prox::closest_point_plane(Vec3d{2, 2, 7}, Vec3d{1, 1, 0}, Vec3d{1, 1, 0});
  EXPECT_EQ(r.point, (Vec3d{1, 1, 7}));
  EXPECT_EQ(r.sq_distance, 2.0);
  EXPECT_EQ(r.side, 2.0);
}

// Seed 001's rectangle: the nine regions of its figure 10.13.
TEST(ClosestPointRectangleHand, NineRegions) {
  const Vec3d corner{1, 1, 0}, e0{2, 0, 0}, e1{0, 4, 0};  // [1,3] x [1,5] in z = 0
  struct Case {
    Vec3d q, point;
    double s, t;
  };
  const Case cases[] = {
      {{2, 3, 1}, {2, 3, 0}, 0.5, 0.5},  // 0: inside
      {{4, 3, 1}, {3, 3, 0}, 1, 0.5},    // beyond e0's far edge
      {{0, 3, 1}, {1, 3, 0}, 0, 0.5},    // before the corner's edge
      {{2, 6, 1}, {2, 5, 0}, 0.5, 1},    // beyond e1's far edge
      {{2, 0, 1}, {2, 1, 0}, 0.5, 0},    // before
      {{0, 0, 1}, {1, 1, 0}, 0, 0},      // corners
      {{4, 0, 1}, {3, 1, 0}, 1, 0},
      {{4, 6, 1}, {3, 5, 0}, 1, 1},
      {{0, 6, 1}, {1, 5, 0}, 0, 1},
  };
  for (const Case& c : cases) {
    const auto r = prox::closest_point_rectangle(c.q, corner, e0, e1);
    EXPECT_EQ(r.point, c.point);
    EXPECT_EQ(r.s, c.s);
    EXPECT_EQ(r.t, c.t);
    EXPECT_EQ(r.sq_distance, squared_distance(c.q, c.point));
  }
}

}  // namespace
