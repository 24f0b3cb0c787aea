// Degenerate and invalid shapes: each has a defined answer or a clear error.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "prox/planar.hpp"

namespace {

using namespace prox;
using namespace prox::planar;

template <class T>
class PlanarDegenerate : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PlanarDegenerate, Scalars);

TYPED_TEST(PlanarDegenerate, ZeroLengthSegmentIsItsPoint) {
  using T = TypeParam;
  const Vec2<T> a{T(2), T(3)};
  const auto r = closest_on(Vec2<T>{T(5), T(7)}, Segment<T>{a, a});
  EXPECT_EQ(r.point, a);
  EXPECT_EQ(r.sq_distance, T(25));
  EXPECT_EQ(r.t, T(0));
  EXPECT_TRUE(contains(a, Segment<T>{a, a}));
  EXPECT_FALSE(contains(Vec2<T>{T(2), T(3.5)}, Segment<T>{a, a}));
}

TYPED_TEST(PlanarDegenerate, ZeroRadiusCircleIsItsCenter) {
  using T = TypeParam;
  const Circle<T> c{{T(1), T(1)}, T(0)};
  auto r = closest_on(Vec2<T>{T(4), T(5)}, c);
  EXPECT_EQ(r.point, c.center);
  EXPECT_EQ(r.sq_distance, T(25));
  r = closest_on(c.center, c);  // the tie rule: center + (0, 0)
  EXPECT_EQ(r.point, c.center);
  EXPECT_EQ(r.sq_distance, T(0));
  EXPECT_TRUE(contains(c.center, c));
  EXPECT_FALSE(contains(Vec2<T>{T(1), T(1.001)}, c));
  EXPECT_EQ(signed_distance(Vec2<T>{T(4), T(5)}, c), T(5));
}

TYPED_TEST(PlanarDegenerate, ZeroSizeBoxIsAPointZeroWidthBoxASegment) {
  using T = TypeParam;
  const Box<T, 2> pt{{T(2), T(2)}, {T(2), T(2)}};
  for (Part part : {Part::boundary, Part::solid}) {
    const auto r = closest(Vec2<T>{T(5), T(6)}, pt, part);
    EXPECT_EQ(r.point, pt.lo);
    EXPECT_EQ(r.sq_distance, T(25));
    EXPECT_EQ(r.edge, 0);
    EXPECT_EQ(r.t, T(0));
  }
  EXPECT_TRUE(contains(pt.lo, pt));
  EXPECT_EQ(closest_on(pt.lo, pt).sq_distance, T(0));
  const Box<T, 2> seg{{T(0), T(0)}, {T(0), T(10)}};  // zero width
  const auto r = closest_on(Vec2<T>{T(3), T(4)}, seg);
  EXPECT_EQ(r.point, (Vec2<T>{T(0), T(4)}));
  EXPECT_EQ(r.sq_distance, T(9));
  EXPECT_EQ(closest_in(Vec2<T>{T(0), T(4)}, seg).point, (Vec2<T>{T(0), T(4)}));
  EXPECT_EQ(signed_distance(Vec2<T>{T(0), T(4)}, seg), T(0));
}

TYPED_TEST(PlanarDegenerate, RepeatedAndCollinearPointsChangeNothing) {
  using T = TypeParam;
  using V = Vec2<T>;
  const Polygon<T> clean{{V{T(0), T(0)}, V{T(10), T(0)}, V{T(10), T(10)}, V{T(0), T(10)}}};
  // The same square with a repeated corner and a collinear point mid-side.
  const Polygon<T> messy{{V{T(0), T(0)}, V{T(0), T(0)}, V{T(5), T(0)}, V{T(10), T(0)},
                          V{T(10), T(10)}, V{T(10), T(10)}, V{T(0), T(10)}}};
  const ConvexPolygon<T> messy_convex{messy.points};
  EXPECT_NO_THROW(validate(messy));
  EXPECT_NO_THROW(validate(messy_convex));
  for (int y = -3; y <= 13; ++y) {
    for (int x = -3; x <= 13; ++x) {
      const V p{T(x), T(y)};
      EXPECT_EQ(closest_on(p, messy).sq_distance, closest_on(p, clean).sq_distance) << x << "," << y;
      EXPECT_EQ(closest_on(p, messy).point, closest_on(p, clean).point) << x << "," << y;
      EXPECT_EQ(contains(p, messy), contains(p, clean)) << x << "," << y;
      EXPECT_EQ(contains(p, messy_convex), contains(p, clean)) << x << "," << y;
      EXPECT_EQ(closest_in(p, messy).point, closest_in(p, clean).point) << x << "," << y;
    }
  }
}

TYPED_TEST(PlanarDegenerate, PolygonsWithFewerThanThreePointsAreTheirOutline) {
  using T = TypeParam;
  using V = Vec2<T>;
  const Polygon<T> one{{V{T(1), T(2)}}};
  auto r = closest_on(V{T(4), T(6)}, one);
  EXPECT_EQ(r.point, (V{T(1), T(2)}));
  EXPECT_EQ(r.sq_distance, T(25));
  EXPECT_EQ(r.edge, 0);
  EXPECT_TRUE(contains(V{T(1), T(2)}, one));
  EXPECT_FALSE(contains(V{T(1), T(3)}, one));
  EXPECT_TRUE(contains(V{T(1), T(2)}, ConvexPolygon<T>{one.points}));
  const Polygon<T> two{{V{T(0), T(0)}, V{T(10), T(0)}}};  // a doubled segment
  r = closest_in(V{T(4), T(3)}, two);                       // no inside: the outline's answer
  EXPECT_EQ(r.point, (V{T(4), T(0)}));
  EXPECT_EQ(r.edge, 0);
  EXPECT_TRUE(contains(V{T(4), T(0)}, two));
  EXPECT_FALSE(contains(V{T(4), T(1)}, two));
  EXPECT_FALSE(contains(V{T(14), T(0)}, two));
  EXPECT_EQ(closest_in(V{T(4), T(0)}, two).point, (V{T(4), T(0)}));
  // All collinear: the side test alone would accept the whole line; the
  // convex version asks for the outline itself.
  const ConvexPolygon<T> flat{{V{T(0), T(0)}, V{T(5), T(0)}, V{T(10), T(0)}}};
  EXPECT_TRUE(contains(V{T(7), T(0)}, flat));
  EXPECT_FALSE(contains(V{T(17), T(0)}, flat));
  EXPECT_FALSE(contains(V{T(-1), T(0)}, flat));
  EXPECT_FALSE(contains(V{T(17), T(0)}, Polygon<T>{flat.points}));
  EXPECT_NO_THROW(validate(flat));
  EXPECT_EQ(signed_distance(V{T(7), T(3)}, flat), T(3));
}

TYPED_TEST(PlanarDegenerate, CapsuleDegenerates) {
  using T = TypeParam;
  using V = Vec2<T>;
  // a == b: a circle, the same answers and the same tie rule (+x).
  const Capsule<T> dot_cap{V{T(3), T(3)}, V{T(3), T(3)}, T(2)};
  const Circle<T> circle{V{T(3), T(3)}, T(2)};
  for (const V& p : {V{T(7), T(6)}, V{T(3), T(3)}, V{T(2), T(3.5)}}) {
    EXPECT_EQ(closest_on(p, dot_cap).point, closest_on(p, circle).point);
    EXPECT_EQ(closest_in(p, dot_cap).point, closest_in(p, circle).point);
  }
  // Radius 0: the segment.
  const Capsule<T> thin{V{T(0), T(0)}, V{T(10), T(0)}, T(0)};
  EXPECT_EQ(closest_on(V{T(3), T(4)}, thin).point, (V{T(3), T(0)}));
  EXPECT_EQ(closest_on(V{T(3), T(4)}, thin).t, T(0.3));
  EXPECT_TRUE(contains(V{T(3), T(0)}, thin));
  // On the core: the tie goes to the left of a -> b (y-up), here +y.
  const Capsule<T> cap{V{T(0), T(0)}, V{T(10), T(0)}, T(2)};
  const auto r = closest_on(V{T(4), T(0)}, cap);
  EXPECT_EQ(r.point, (V{T(4), T(2)}));
  EXPECT_EQ(r.sq_distance, T(4));
  EXPECT_EQ(signed_distance(V{T(4), T(0)}, cap), T(-2));
}

TYPED_TEST(PlanarDegenerate, InvalidShapesThrowClearly) {
  using T = TypeParam;
  using V = Vec2<T>;
  const V p{T(0), T(0)};
  EXPECT_THROW(closest_on(p, Circle<T>{p, T(-1)}), std::invalid_argument);
  EXPECT_THROW(contains(p, Capsule<T>{p, p, T(-1)}), std::invalid_argument);
  EXPECT_THROW(closest_in(p, Box<T, 2>{V{T(1), T(0)}, V{T(0), T(1)}}), std::invalid_argument);
  EXPECT_THROW(closest_on(p, Polygon<T>{}), std::invalid_argument);
  EXPECT_THROW(contains(p, ConvexPolygon<T>{}), std::invalid_argument);
  EXPECT_THROW(closest_on(p, Polyline<T>{}), std::invalid_argument);
  EXPECT_THROW(closest_on(p, OrientedBox<T>{p, V{T(1), T(1)}, V{T(0), T(0)}}), std::invalid_argument);
  EXPECT_THROW(validate(OrientedBox<T>{p, V{T(1), T(1)}, V{T(1), T(1)}}), std::invalid_argument);
  try {
    closest_on(p, Circle<T>{p, T(-1)});
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "prox::planar: circle radius must be >= 0 (got a negative or NaN radius)");
  }
  // A bow tie crosses itself; a pentagram turns one way at every corner but
  // winds twice: neither is accepted where the promise matters.
  const Polygon<T> bow{{V{T(0), T(0)}, V{T(4), T(4)}, V{T(4), T(0)}, V{T(0), T(4)}}};
  EXPECT_THROW(validate(bow), std::invalid_argument);
  std::vector<V> star;
  for (int i = 0; i < 5; ++i) {
    const double a = 2 * 3.141592653589793 * (2 * i) / 5;
    star.push_back(V{T(std::cos(a)), T(std::sin(a))});
  }
  EXPECT_THROW(validate(ConvexPolygon<T>{star}), std::invalid_argument);
  EXPECT_THROW(validate(Polygon<T>{star}), std::invalid_argument);
}

TEST(PlanarValidate, LargeOutlinesValidateQuickly) {
  // 40000 corners of a wavy ring: the sweep only tests edges whose x ranges overlap.
  std::vector<prox::Vec2d> ring;
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    const double a = 2 * 3.141592653589793 * i / n;
    const double r = 100 + 5 * std::sin(37 * a);
    ring.push_back(prox::Vec2d{r * std::cos(a), r * std::sin(a)});
  }
  EXPECT_NO_THROW(validate(Polygon<double>{ring}));
  ring[n / 2] = prox::Vec2d{150, 0};  // a spike across the ring's start
  EXPECT_THROW(validate(Polygon<double>{ring}), std::invalid_argument);
}

TYPED_TEST(PlanarDegenerate, NonFiniteQueriesMiss) {
  using T = TypeParam;
  using V = Vec2<T>;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const V bad{nan, T(1)};
  const V inf{std::numeric_limits<T>::infinity(), T(0)};
  const Polygon<T> tri{{V{T(0), T(0)}, V{T(1), T(0)}, V{T(0), T(1)}}};
  for (const V& p : {bad, inf}) {
    for (Part part : {Part::boundary, Part::solid}) {
      const auto r1 = closest(p, tri, part);
      EXPECT_TRUE(std::isnan(r1.sq_distance));
      EXPECT_EQ(r1.edge, -1);
      EXPECT_TRUE(std::isnan(closest(p, Circle<T>{V{T(0), T(0)}, T(1)}, part).sq_distance));
      EXPECT_TRUE(std::isnan(closest(p, Box<T, 2>{V{T(0), T(0)}, V{T(1), T(1)}}, part).sq_distance));
      EXPECT_TRUE(std::isnan(closest(p, Capsule<T>{V{T(0), T(0)}, V{T(1), T(1)}, T(1)}, part).sq_distance));
      EXPECT_TRUE(std::isnan(closest(p, Segment<T>{V{T(0), T(0)}, V{T(1), T(1)}}, part).sq_distance));
    }
    EXPECT_FALSE(contains(p, tri));
  }
}

}  // namespace
