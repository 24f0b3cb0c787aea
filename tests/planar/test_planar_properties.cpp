// Properties every planar shape must have, in float and double, on random
// points near and inside each shape:
//  - outside, closest_in == closest_on; inside, closest_in is p itself;
//  - closest_on's point is on the outline and no sampled outline point is nearer
//    (a dense sampling of the outline is the brute-force oracle);
//  - signed_distance is negative exactly when contains() and p is off the outline;
//  - a turned box agrees with the convex polygon of its corners, a capsule with a
//    zero-length core with a circle.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "prox/planar.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;
using namespace prox::planar;

template <class T>
std::vector<Vec2<T>> sample_segment(const Vec2<T>& a, const Vec2<T>& b, int n) {
  std::vector<Vec2<T>> s;
  for (int i = 0; i <= n; ++i) s.push_back(lerp(a, b, T(i) / T(n)));
  return s;
}

template <class T>
std::vector<Vec2<T>> sample_arc(const Vec2<T>& c, T r, double from, double to, int n) {
  std::vector<Vec2<T>> s;
  for (int i = 0; i <= n; ++i) {
    const double a = from + (to - from) * i / n;
    s.push_back(Vec2<T>{c[0] + r * T(std::cos(a)), c[1] + r * T(std::sin(a))});
  }
  return s;
}

template <class T>
std::vector<Vec2<T>> sample_path(const std::vector<Vec2<T>>& pts, bool closed, int per_edge) {
  std::vector<Vec2<T>> s;
  const std::size_t n = pts.size();
  for (std::size_t i = 0; i + (closed ? 0 : 1) < n; ++i) {
    const auto e = sample_segment(pts[i], pts[(i + 1) % n], per_edge);
    s.insert(s.end(), e.begin(), e.end());
  }
  return s;
}

/// A shape with its outline sampled densely (the brute-force oracle).
template <class T, class S>
struct Case {
  S shape;
  std::vector<Vec2<T>> outline;
  bool closed;
};

template <class T>
class PlanarProperties : public ::testing::Test {
 protected:
  std::mt19937_64 rng{21};

  template <class S>
  void check(const Case<T, S>& c, int queries, double spread) {
    std::uniform_real_distribution<double> u(-spread, spread);
    // Relative tolerance for float/double, in units of the scene's scale (~100).
    const double tol = std::is_same_v<T, float> ? 2e-3 : 1e-9;
    int inside_seen = 0;
    for (int q = 0; q < queries; ++q) {
      const Vec2<T> p{T(u(rng)), T(u(rng))};
      const auto on = closest_on(p, c.shape);
      const auto in = closest_in(p, c.shape);
      const bool inside = contains(p, c.shape);
      // The reported squared distance is that of the reported point.
      ASSERT_NEAR(double(on.sq_distance), double(squared_distance(p, on.point)),
                  tol * (1 + double(on.sq_distance)));
      // No sampled outline point is nearer (up to the sampling's own spacing, which
      // only ever makes the samples farther).
      double best = 1e300;
      for (const Vec2<T>& s : c.outline) best = std::min(best, double(squared_distance(p, s)));
      ASSERT_LE(std::sqrt(double(on.sq_distance)), std::sqrt(best) + tol * 100);
      // The reported point is on the outline: it is its own closest outline point.
      ASSERT_LE(std::sqrt(double(closest_on(on.point, c.shape).sq_distance)), tol * 100);
      if (inside && c.closed) {
        ++inside_seen;
        ASSERT_EQ(in.point, p);
        ASSERT_EQ(in.sq_distance, T(0));
        ASSERT_EQ(in.edge, -1);
        const T sd = signed_distance(p, c.shape);
        ASSERT_LE(sd, T(0));
        ASSERT_NEAR(double(sd), -std::sqrt(double(on.sq_distance)), tol * 100);
      } else {
        ASSERT_EQ(in.point, on.point);
        ASSERT_EQ(in.sq_distance, on.sq_distance);
        ASSERT_EQ(in.edge, on.edge);
        if (c.closed) {
          const T sd = signed_distance(p, c.shape);
          ASSERT_GE(sd, T(0));
          ASSERT_NEAR(double(sd), std::sqrt(double(on.sq_distance)), tol * 100);
        }
      }
      ASSERT_EQ(closest(p, c.shape, Part::boundary).point, on.point);
      ASSERT_EQ(closest(p, c.shape, Part::solid).point, in.point);
    }
    if (c.closed) {
      EXPECT_GT(inside_seen, queries / 50) << "too few points fell inside";
    }
  }
};

using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PlanarProperties, Scalars);

constexpr double pi = std::numbers::pi;

TYPED_TEST(PlanarProperties, EveryShape) {
  using T = TypeParam;
  using V = Vec2<T>;
  const int n = static_cast<int>(prox::test::scaled_count(3000, 100));
  {
    const Segment<T> s{V{T(-50), T(10)}, V{T(60), T(-30)}};
    this->check(Case<T, Segment<T>>{s, sample_segment(s.a, s.b, 4000), false}, n, 100);
  }
  {
    const Circle<T> c{V{T(5), T(-7)}, T(60)};
    this->check(Case<T, Circle<T>>{c, sample_arc(c.center, c.radius, 0, 2 * pi, 8000), true}, n, 100);
  }
  {
    const Box<T, 2> b{V{T(-40), T(-25)}, V{T(55), T(35)}};
    const std::vector<V> corners{b.lo, V{b.hi[0], b.lo[1]}, b.hi, V{b.lo[0], b.hi[1]}};
    this->check(Case<T, Box<T, 2>>{b, sample_path(corners, true, 2000), true}, n, 100);
  }
  {
    const OrientedBox<T> ob = OrientedBox<T>::from_angle(V{T(3), T(4)}, V{T(50), T(20)}, T(0.6));
    const V u = ob.axis, v{-ob.axis[1], ob.axis[0]};
    const V hx = u * ob.half[0], hy = v * ob.half[1];
    const std::vector<V> corners{ob.center - hx - hy, ob.center + hx - hy, ob.center + hx + hy,
                                 ob.center - hx + hy};
    this->check(Case<T, OrientedBox<T>>{ob, sample_path(corners, true, 2000), true}, n, 100);
  }
  {
    const Capsule<T> cap{V{T(-40), T(-10)}, V{T(30), T(25)}, T(18)};
    const V d = cap.b - cap.a;
    const double ang = std::atan2(double(d[1]), double(d[0]));
    const V side = V{-d[1], d[0]} * T(cap.radius / std::sqrt(double(squared_norm(d))));
    std::vector<V> outline = sample_arc(cap.b, cap.radius, ang - pi / 2, ang + pi / 2, 3000);
    const auto back = sample_arc(cap.a, cap.radius, ang + pi / 2, ang + 3 * pi / 2, 3000);
    const auto s1 = sample_segment(cap.a + side, cap.b + side, 3000);
    const auto s2 = sample_segment(cap.a - side, cap.b - side, 3000);
    outline.insert(outline.end(), back.begin(), back.end());
    outline.insert(outline.end(), s1.begin(), s1.end());
    outline.insert(outline.end(), s2.begin(), s2.end());
    this->check(Case<T, Capsule<T>>{cap, outline, true}, n, 100);
  }
  const std::vector<V> hexagon{V{T(60), T(0)}, V{T(30), T(52)}, V{T(-30), T(52)}, V{T(-60), T(0)},
                               V{T(-30), T(-52)}, V{T(30), T(-52)}};
  this->check(Case<T, ConvexPolygon<T>>{{hexagon}, sample_path(hexagon, true, 1000), true}, n, 100);
  const std::vector<V> comb{V{T(-70), T(-40)}, V{T(70), T(-40)}, V{T(70), T(50)}, V{T(40), T(50)},
                            V{T(40), T(-5)},   V{T(10), T(-5)},  V{T(10), T(50)}, V{T(-20), T(50)},
                            V{T(-20), T(0)},   V{T(-45), T(30)}, V{T(-70), T(50)}};
  this->check(Case<T, Polygon<T>>{{comb}, sample_path(comb, true, 1000), true}, n, 100);
  this->check(Case<T, Polyline<T>>{{comb}, sample_path(comb, false, 1000), false}, n, 100);
}

TYPED_TEST(PlanarProperties, TurnedBoxEqualsItsCornerPolygon) {
  using T = TypeParam;
  using V = Vec2<T>;
  std::uniform_real_distribution<double> u(-80, 80);
  const double tol = std::is_same_v<T, float> ? 1e-3 : 1e-10;
  for (double angle : {0.0, 0.3, pi / 4, 1.2, pi / 2, 2.5, -0.7}) {
    const OrientedBox<T> ob = OrientedBox<T>::from_angle(V{T(-3), T(8)}, V{T(40), T(15)}, T(angle));
    const V a = ob.axis, v{-ob.axis[1], ob.axis[0]};
    const V hx = a * ob.half[0], hy = v * ob.half[1];
    const ConvexPolygon<T> poly{{ob.center - hx - hy, ob.center + hx - hy, ob.center + hx + hy,
                                 ob.center - hx + hy}};
    for (int k = 0; k < 500; ++k) {
      const V p{T(u(this->rng)), T(u(this->rng))};
      for (Part part : {Part::boundary, Part::solid}) {
        const auto r1 = closest(p, ob, part);
        const auto r2 = closest(p, poly, part);
        ASSERT_NEAR(double(r1.point[0]), double(r2.point[0]), tol * 100);
        ASSERT_NEAR(double(r1.point[1]), double(r2.point[1]), tol * 100);
        ASSERT_NEAR(double(r1.sq_distance), double(r2.sq_distance), tol * (1 + double(r2.sq_distance)));
      }
    }
  }
}

TYPED_TEST(PlanarProperties, FloatAgreesWithDouble) {
  using T = TypeParam;
  const Polygon<double> tri{{{560, 430}, {780, 410}, {690, 610}}};
  const Polygon<T> tri_t{{{T(560), T(430)}, {T(780), T(410)}, {T(690), T(610)}}};
  std::uniform_real_distribution<double> u(400, 900);
  for (int k = 0; k < 2000; ++k) {
    const Vec2d p{std::round(u(this->rng)), std::round(u(this->rng))};
    const Vec2<T> pt{T(p[0]), T(p[1])};
    EXPECT_NEAR(double(signed_distance(pt, tri_t)), signed_distance(p, tri), 1e-3);
    EXPECT_EQ(contains(pt, tri_t), contains(p, tri));
  }
}

}  // namespace
