// Every worked example of seed 004 (2D closest points), with its numbers, plus
// its tie rules, its jumps and its boundary-or-solid traps.
#include <gtest/gtest.h>

#include <cmath>

#include "prox/planar.hpp"

namespace {

using namespace prox;
using namespace prox::planar;

const Segment<double> magnet_segment{{150, 160}, {400, 120}};
const Circle<double> magnet_circle{{720, 200}, 95};
const Box<double, 2> magnet_box{{150, 420}, {340, 580}};
const Polygon<double> magnet_triangle{{{560, 430}, {780, 410}, {690, 610}}};
const ConvexPolygon<double> magnet_convex{magnet_triangle.points};

template <class T>
class PlanarSeedTyped : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PlanarSeedTyped, Scalars);

TYPED_TEST(PlanarSeedTyped, SegmentWorkedExample) {
  using T = TypeParam;
  const Segment<T> s{{T(0), T(0)}, {T(10), T(0)}};
  // P (3, 5): fraction 0.3, the foot (3, 0), 5 away.
  auto r = closest_on(Vec2<T>{T(3), T(5)}, s);
  EXPECT_FLOAT_EQ(r.t, T(0.3));
  EXPECT_FLOAT_EQ(r.point[0], T(3));
  EXPECT_EQ(r.point[1], T(0));
  EXPECT_FLOAT_EQ(r.sq_distance, T(25));
  EXPECT_EQ(r.edge, 0);
  // P (-2, 4): fraction -0.2 clamps to A, sqrt(20) ~ 4.47 away.
  r = closest_on(Vec2<T>{T(-2), T(4)}, s);
  EXPECT_EQ(r.t, T(0));
  EXPECT_EQ(r.point, (Vec2<T>{T(0), T(0)}));
  EXPECT_EQ(r.sq_distance, T(20));
  EXPECT_NEAR(std::sqrt(r.sq_distance), 4.47, 0.005);
  // P (13, 3): fraction 1.3 clamps to B.
  r = closest_on(Vec2<T>{T(13), T(3)}, s);
  EXPECT_EQ(r.t, T(1));
  EXPECT_EQ(r.point, (Vec2<T>{T(10), T(0)}));
  EXPECT_EQ(r.sq_distance, T(18));
}

// "Why the Clamp Is Right": the squared distance to the point at fraction t is
// ((t - f) |B - A|)^2 + h^2, so the nearest allowed t is f clamped.
TEST(PlanarSeed, ClampIsRightByPythagoras) {
  const Vec2d a{0, 0}, b{10, 0};
  struct Case { Vec2d p; double f, h2, best; };
  // P (3, 5): f 0.3, h 5: 25 at t = 0.3.  P (-2, 4): f -0.2, h 4: 4 + 16 = 20 at t = 0.
  for (const Case& c : {Case{{3, 5}, 0.3, 25, 25}, Case{{-2, 4}, -0.2, 16, 20}}) {
    for (int i = 0; i <= 100; ++i) {
      const double t = i / 100.0;
      const double along = (t - c.f) * 10;
      EXPECT_NEAR(squared_distance(c.p, lerp(a, b, t)), along * along + c.h2, 1e-9);
      EXPECT_GE(squared_distance(c.p, lerp(a, b, t)), c.best - 1e-9);
    }
    EXPECT_NEAR(closest_on(c.p, Segment<double>{a, b}).sq_distance, c.best, 1e-12);
  }
}

TYPED_TEST(PlanarSeedTyped, CircleWorkedExample) {
  using T = TypeParam;
  const Circle<T> c{{T(100), T(100)}, T(50)};
  const auto r = closest_on(Vec2<T>{T(160), T(180)}, c);  // out = (60, 80), 100 long
  EXPECT_FLOAT_EQ(r.point[0], T(130));
  EXPECT_FLOAT_EQ(r.point[1], T(140));
  EXPECT_FLOAT_EQ(r.sq_distance, T(2500));  // 100 - 50
  EXPECT_EQ(r.edge, -1);
}

TYPED_TEST(PlanarSeedTyped, CircleCenterTieGoesToPlusX) {
  using T = TypeParam;
  const Circle<T> c{{T(100), T(100)}, T(50)};
  const auto r = closest_on(Vec2<T>{T(100), T(100)}, c);
  EXPECT_EQ(r.point, (Vec2<T>{T(150), T(100)}));
  EXPECT_EQ(r.sq_distance, T(2500));
  // Solid: the center is its own closest point.
  EXPECT_EQ(closest_in(Vec2<T>{T(100), T(100)}, c).point, (Vec2<T>{T(100), T(100)}));
}

TEST(PlanarSeed, ExerciseOneSegmentByHand) {
  const Segment<double> s{{2, 1}, {8, 9}};
  auto r = closest_on(Vec2d{10, 3}, s);  // fraction 64/100, not clamped
  EXPECT_DOUBLE_EQ(r.t, 0.64);
  EXPECT_NEAR(r.point[0], 5.84, 1e-12);
  EXPECT_NEAR(r.point[1], 6.12, 1e-12);
  EXPECT_NEAR(std::sqrt(r.sq_distance), 5.2, 1e-12);
  r = closest_on(Vec2d{-4, 3}, s);  // fraction -0.2: clamped to A
  EXPECT_EQ(r.t, 0.0);
  EXPECT_EQ(r.point, (Vec2d{2, 1}));
  EXPECT_EQ(r.sq_distance, 40.0);
}

TEST(PlanarSeed, ExerciseTwoNineRegions) {
  const Box<double, 2> b{{0, 0}, {4, 3}};
  auto r = closest_in(Vec2d{6, 1}, b);  // beside the right side
  EXPECT_EQ(r.point, (Vec2d{4, 1}));
  EXPECT_EQ(r.edge, 1);
  EXPECT_EQ(r.sq_distance, 4.0);
  r = closest_in(Vec2d{-2, 5}, b);  // corner region: the corner (0, 3)
  EXPECT_EQ(r.point, (Vec2d{0, 3}));
  EXPECT_EQ(r.sq_distance, 8.0);
  r = closest_in(Vec2d{1.5, 2.5}, b);  // inside: itself
  EXPECT_EQ(r.point, (Vec2d{1.5, 2.5}));
  EXPECT_EQ(r.sq_distance, 0.0);
  EXPECT_EQ(r.edge, -1);
  r = closest_on(Vec2d{1.5, 2.5}, b);  // on the edges: the top side, 0.5 away
  EXPECT_EQ(r.point, (Vec2d{1.5, 3}));
  EXPECT_EQ(r.sq_distance, 0.25);
  EXPECT_EQ(r.edge, 2);
}

TEST(PlanarSeed, ExerciseThreeBoundaryOrSolid) {
  const Circle<double> c{{5, 5}, 3};
  // (9, 8) is outside: both versions agree on (7.4, 6.8), 2 away.
  for (const auto& r : {closest_on(Vec2d{9, 8}, c), closest_in(Vec2d{9, 8}, c)}) {
    EXPECT_NEAR(r.point[0], 7.4, 1e-12);
    EXPECT_NEAR(r.point[1], 6.8, 1e-12);
    EXPECT_NEAR(r.sq_distance, 4.0, 1e-12);
  }
  // (6, 5) is inside: the rim point (8, 5), or the point itself.
  EXPECT_EQ(closest_on(Vec2d{6, 5}, c).point, (Vec2d{8, 5}));
  EXPECT_EQ(closest_on(Vec2d{6, 5}, c).sq_distance, 4.0);
  EXPECT_EQ(closest_in(Vec2d{6, 5}, c).point, (Vec2d{6, 5}));
  EXPECT_EQ(closest_in(Vec2d{6, 5}, c).sq_distance, 0.0);
}

// "Trying It Out": P at (660, 480), inside Magnet's triangle.
TEST(PlanarSeed, MagnetReadoutAt660x480) {
  const Vec2d p{660, 480};
  // The segment's fraction is 1.79 before the clamp; the dot sits on B, 444 away.
  const Vec2d ab = magnet_segment.b - magnet_segment.a;
  EXPECT_NEAR(dot(p - magnet_segment.a, ab) / squared_norm(ab), 1.79, 0.005);
  const auto seg = closest_on(p, magnet_segment);
  EXPECT_EQ(seg.t, 1.0);
  EXPECT_EQ(seg.point, magnet_segment.b);
  EXPECT_EQ(std::lround(std::sqrt(seg.sq_distance)), 444);
  // Circle: on its rim straight toward P, 191 away.
  EXPECT_EQ(std::lround(distance(p, magnet_circle, Part::boundary)), 191);
  // Box: on its right side, straight across, 320 away.
  const auto box = closest_on(p, magnet_box);
  EXPECT_EQ(box.point, (Vec2d{340, 480}));
  EXPECT_EQ(box.edge, 1);
  EXPECT_EQ(box.sq_distance, 320.0 * 320.0);
  // Triangle as a boundary: its nearest edge, 52 away; as a solid: P itself.
  EXPECT_EQ(std::lround(distance(p, magnet_triangle, Part::boundary)), 52);
  EXPECT_EQ(std::lround(distance(p, magnet_convex, Part::boundary)), 52);
  EXPECT_EQ(closest_in(p, magnet_triangle).point, p);
  EXPECT_EQ(closest_in(p, magnet_convex).point, p);
  EXPECT_EQ(distance(p, magnet_triangle, Part::solid), 0.0);
}

// "Two Different Questions": a ball of radius 30 at (660, 480) lies wholly inside
// the triangle; only the solid version says it overlaps.
TEST(PlanarSeed, BallInsideTriangleOverlapsOnlyAsSolid) {
  const Vec2d center{660, 480};
  const double r = 30;
  EXPECT_GT(closest_on(center, magnet_triangle).sq_distance, r * r);   // boundary: "no touch"
  EXPECT_LE(closest_in(center, magnet_triangle).sq_distance, r * r);   // solid: overlap
  EXPECT_GT(signed_distance(center, magnet_triangle), -60.0);
  EXPECT_LT(signed_distance(center, magnet_triangle), -r);  // wholly inside
}

// "Ties and Jumps": the point equally near all three edges of the triangle
// is (677, 483) to the nearest pixel, 64 from each edge (rounded). Exactly it is
// the incenter (677.12, 483.34), with inradius area / semi-perimeter = 63.72.
TEST(PlanarSeed, TriangleEquidistantPoint) {
  const auto& pts = magnet_triangle.points;
  double side[3];
  for (int i = 0; i < 3; ++i) side[i] = std::sqrt(squared_distance(pts[(i + 1) % 3], pts[(i + 2) % 3]));
  const double perimeter = side[0] + side[1] + side[2];
  const Vec2d incenter = (pts[0] * side[0] + pts[1] * side[1] + pts[2] * side[2]) / perimeter;
  EXPECT_EQ(std::lround(incenter[0]), 677);
  EXPECT_EQ(std::lround(incenter[1]), 483);
  const double inradius = 21100.0 / (perimeter / 2);  // area = |AB x AC| / 2 = 21100
  for (int i = 0; i < 3; ++i) {
    const auto e = closest_on(incenter, Segment<double>{pts[i], pts[(i + 1) % 3]});
    EXPECT_NEAR(std::sqrt(e.sq_distance), inradius, 1e-9) << "edge " << i;
    // At the rounded pixel (677, 483) each edge is within a pixel of 64.
    const auto f = closest_on(Vec2d{677, 483}, Segment<double>{pts[i], pts[(i + 1) % 3]});
    EXPECT_NEAR(std::sqrt(f.sq_distance), 64.0, 1.0) << "edge " << i;
  }
  EXPECT_EQ(std::lround(distance(incenter, magnet_triangle, Part::boundary)), 64);
  EXPECT_EQ(std::lround(signed_distance(incenter, magnet_triangle)), -64);
}

TEST(PlanarSeed, TiesInsidePolygonGoToLowestEdge) {
  // The center of a square is equally near all four edges: edge 0 wins.
  const Polygon<double> square{{{0, 0}, {4, 0}, {4, 4}, {0, 4}}};
  auto r = closest_on(Vec2d{2, 2}, square);
  EXPECT_EQ(r.edge, 0);
  EXPECT_EQ(r.point, (Vec2d{2, 0}));
  // Same square, listed from another corner: still the lowest index, now a different side.
  const Polygon<double> turned{{{4, 4}, {0, 4}, {0, 0}, {4, 0}}};
  r = closest_on(Vec2d{2, 2}, turned);
  EXPECT_EQ(r.edge, 0);
  EXPECT_EQ(r.point, (Vec2d{2, 4}));
  // On the diagonal crease (1, 1): edges 0 (y=0) and 3 (x=0) tie; edge 0.
  r = closest_on(Vec2d{1, 1}, square);
  EXPECT_EQ(r.edge, 0);
  // The box follows the same rule.
  const Box<double, 2> box{{0, 0}, {4, 4}};
  EXPECT_EQ(closest_on(Vec2d{2, 2}, box).edge, 0);
  EXPECT_EQ(closest_on(Vec2d{3, 3}, box).edge, 1);  // right and top tie
}

TEST(PlanarSeed, BoundaryJumpsAcrossACreaseSolidDoesNot) {
  // Inside the box, crossing the crease from the corner (150, 420): the outline's
  // answer jumps from the top side (y = 420) to the left side (x = 150).
  const auto a = closest_on(Vec2d{171, 170 + 270}, magnet_box);  // 21 from left, 20 from top
  const auto b = closest_on(Vec2d{169, 170 + 270}, magnet_box);  // 19 from left, 20 from top
  EXPECT_EQ(a.point, (Vec2d{171, 420}));
  EXPECT_EQ(b.point, (Vec2d{150, 440}));
  EXPECT_GT(squared_distance(a.point, b.point), 400.0);  // a 2-unit move, a 28-unit jump
  EXPECT_EQ(closest_in(Vec2d{171, 440}, magnet_box).point, (Vec2d{171, 440}));
  // Across the circle's center the rim point leaps to the far side.
  const auto l = closest_on(Vec2d{719, 200}, magnet_circle);
  const auto r = closest_on(Vec2d{721, 200}, magnet_circle);
  EXPECT_EQ(l.point, (Vec2d{625, 200}));
  EXPECT_EQ(r.point, (Vec2d{815, 200}));
}

TEST(PlanarSeed, ConvexSideTestIsWrongForConcavePolygonsWindingIsRight) {
  // A "U": the notch (2..4 x 2..6) is outside; the arms are inside.
  const std::vector<Vec2d> u{{0, 0}, {6, 0}, {6, 6}, {4, 6}, {4, 2}, {2, 2}, {2, 6}, {0, 6}};
  const Polygon<double> poly{u};
  const ConvexPolygon<double> wrong{u};  // breaks ConvexPolygon's promise on purpose
  const Vec2d arm{1, 5};
  EXPECT_TRUE(contains(arm, poly));
  EXPECT_FALSE(contains(arm, wrong));  // the seed's warning, reproduced
  EXPECT_FALSE(contains(Vec2d{3, 4}, poly));
  EXPECT_TRUE(contains(Vec2d{3, 2}, poly));  // on the notch's floor: outline counts
  EXPECT_EQ(closest_in(arm, poly).point, arm);
  EXPECT_THROW(validate(wrong), std::invalid_argument);
  EXPECT_NO_THROW(validate(poly));
}

TEST(PlanarSeed, PointsOnTheOutlineCountAsInside) {
  EXPECT_TRUE(contains(Vec2d{560, 430}, magnet_triangle));    // a corner
  EXPECT_TRUE(contains(Vec2d{670, 420}, magnet_triangle));    // on edge 0
  EXPECT_TRUE(contains(Vec2d{670, 420}, magnet_convex));
  EXPECT_TRUE(contains(Vec2d{815, 200}, magnet_circle));      // on the rim
  EXPECT_TRUE(contains(Vec2d{340, 500}, magnet_box));         // on a side
  EXPECT_FALSE(contains(Vec2d{340.5, 500}, magnet_box));
  EXPECT_EQ(signed_distance(Vec2d{340, 500}, magnet_box), 0.0);
}

}  // namespace
