// Exact oracle: the planar queries on GMP rationals (mpq_class) against the
// same queries in double, on random and adversarial (grid, tie, on-edge)
// inputs; and independent-algorithm checks that hold exactly in rationals
// (a box against the polygon of its corners, the convex side test against
// the winding number). Reports the worst errors seen.
#include <gtest/gtest.h>
#include <gmpxx.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "prox/planar.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;
using namespace prox::planar;
using Q = mpq_class;

Vec2<Q> exact(const Vec2d& v) { return Vec2<Q>{Q(v[0]), Q(v[1])}; }
double to_d(const Q& q) { return q.get_d(); }

std::vector<Vec2<Q>> exact(const std::vector<Vec2d>& v) {
  std::vector<Vec2<Q>> r;
  for (const Vec2d& p : v) r.push_back(exact(p));
  return r;
}

struct Worst {
  const char* what;
  double value = 0;
  void see(double v) { value = std::max(value, v); }
  ~Worst() { std::printf("[ worst ] %s: %.3g\n", what, value); }
};

/// A random star-shaped (hence simple) polygon around c: sorted angles, random radii.
std::vector<Vec2d> star_polygon(std::mt19937_64& rng, int n, double scale) {
  std::uniform_real_distribution<double> angle(0, 2 * std::numbers::pi), radius(0.2, 1.0);
  std::vector<double> a(n);
  for (double& x : a) x = angle(rng);
  std::sort(a.begin(), a.end());
  std::vector<Vec2d> pts;
  for (double t : a) {
    const double r = radius(rng) * scale;
    pts.push_back(Vec2d{r * std::cos(t), r * std::sin(t)});
  }
  return pts;
}

TEST(PlanarExact, SegmentAndPolylineMatchRationals) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-100, 100);
  Worst point_err{"segment point error / coordinate magnitude (double vs mpq)"};
  Worst sq_err{"segment sq_distance relative error"};
  const auto n = prox::test::scaled_count(100000);
  for (std::int64_t k = 0; k < n; ++k) {
    const Vec2d a{u(rng), u(rng)};
    Vec2d b{u(rng), u(rng)}, p{u(rng), u(rng)};
    if (k % 10 == 0) b = a;                        // zero length: its point
    if (k % 10 == 1) p = a;                        // p at an end
    if (k % 10 == 2) p = lerp(a, b, 0.25);         // p on the segment (up to rounding)
    if (k % 10 == 3) p = a + (a - b);              // on the line, beyond a
    if (k % 10 == 4) b = a + Vec2d{1e-9, -1e-9};   // nearly zero length
    const auto rd = closest_on(p, Segment<double>{a, b});
    const auto rq = closest_on(exact(p), Segment<Q>{exact(a), exact(b)});
    // Error is measured against the coordinates' magnitude: a double point near
    // (100, 100) carries an absolute rounding of ulp(100) whatever the segment's length.
    double scale = 1e-300;
    for (const Vec2d& v : {a, b, p}) scale = std::max({scale, std::abs(v[0]), std::abs(v[1])});
    point_err.see(std::sqrt(squared_distance(rd.point, Vec2d{to_d(rq.point[0]), to_d(rq.point[1])})) / scale);
    if (k % 10 >= 5) {  // relative error of a distance is meaningful off the segment
      sq_err.see(std::abs(rd.sq_distance - to_d(rq.sq_distance)) / std::max(to_d(rq.sq_distance), 1e-300));
    } else {
      ASSERT_LE(std::abs(rd.sq_distance - to_d(rq.sq_distance)), 1e-13 * scale * scale) << k;
    }
    if (k % 10 == 0 || k % 10 == 1) {
      ASSERT_EQ(rd.point, a);
      ASSERT_EQ(exact(rd.point), rq.point);
    }
    ASSERT_NEAR(rd.t, to_d(rq.t), 1e-12);
  }
  EXPECT_LT(point_err.value, 4e-15);  // a few ulps of the coordinates
  EXPECT_LT(sq_err.value, 1e-9);  // cancellation near the segment, bounded by the point error
}

TEST(PlanarExact, BoxMatchesRationalsAndItsCornerPolygon) {
  std::mt19937_64 rng(12);
  std::uniform_int_distribution<int> g(-8, 8);  // a coarse grid: plenty of exact ties
  std::uniform_real_distribution<double> u(-10, 10);
  const auto n = prox::test::scaled_count(50000);
  for (std::int64_t k = 0; k < n; ++k) {
    const bool grid = k % 2 == 0;
    auto pick = [&] { return grid ? double(g(rng)) : u(rng); };
    double x0 = pick(), x1 = pick(), y0 = pick(), y1 = pick();
    if (x0 > x1) std::swap(x0, x1);
    if (y0 > y1) std::swap(y0, y1);
    const Box<double, 2> bd{{x0, y0}, {x1, y1}};
    const Box<Q, 2> bq{exact(bd.lo), exact(bd.hi)};
    const Vec2d p{pick(), pick()};
    const Polygon<Q> corners{{bq.lo, {bq.hi[0], bq.lo[1]}, bq.hi, {bq.lo[0], bq.hi[1]}}};
    for (Part part : {Part::boundary, Part::solid}) {
      const auto rq = closest(exact(p), bq, part);
      const auto rp = closest(exact(p), corners, part);
      // Box (clamp / nearest side) and corner polygon (edge by edge) agree exactly,
      // ties included, zero-size and zero-width boxes included.
      ASSERT_EQ(rq.point, rp.point) << k;
      ASSERT_EQ(rq.sq_distance, rp.sq_distance) << k;
      ASSERT_EQ(rq.edge, rp.edge) << k << " p " << p[0] << "," << p[1];
      ASSERT_EQ(rq.t, rp.t) << k;
      // Double: the clamp is exact, so the point is too; the edge matches on the grid.
      const auto rd = closest(p, bd, part);
      ASSERT_EQ(exact(rd.point), rq.point) << k;
      ASSERT_NEAR(rd.sq_distance, to_d(rq.sq_distance), 1e-12 * (1 + to_d(rq.sq_distance)));
      if (grid) {
        ASSERT_EQ(rd.edge, rq.edge) << k;
      }
    }
    ASSERT_EQ(contains(p, bd), contains(exact(p), bq));
  }
}

TEST(PlanarExact, PolygonClosestPointsMatchRationals) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> u(-150, 150);
  Worst sq_err{"polygon sq_distance error / scale^2 (double vs mpq)"};
  int edge_mismatch_off_tie = 0;
  const auto n = prox::test::scaled_count(4000, 200);
  for (std::int64_t k = 0; k < n; ++k) {
    const auto pts = star_polygon(rng, 3 + int(k % 20), 100);
    const Polygon<double> pd{pts};
    const Polygon<Q> pq{exact(pts)};
    for (int j = 0; j < 10; ++j) {
      const Vec2d p{u(rng), u(rng)};
      const auto rd = closest_on(p, pd);
      const auto rq = closest_on(exact(p), pq);
      sq_err.see(std::abs(rd.sq_distance - to_d(rq.sq_distance)) / 1e4);
      if (rd.edge != rq.edge) {
        // Only near-ties may pick another edge: the double answer's edge must be
        // as near, exactly, up to rounding.
        const auto& a = pq.points[rd.edge];
        const auto& b = pq.points[(rd.edge + 1) % pq.points.size()];
        const auto alt = closest_point_segment(exact(p), a, b);
        if (to_d(alt.sq_distance - rq.sq_distance) > 1e-9 * (1 + to_d(rq.sq_distance))) ++edge_mismatch_off_tie;
      }
      const bool in_d = contains(p, pd);
      const bool in_q = contains(exact(p), pq);
      ASSERT_EQ(in_d, in_q) << k << "," << j;  // orient2d makes the double test exact
      // Solid: the point itself inside, the outline's answer outside (exactly).
      const auto sq = closest_in(exact(p), pq);
      if (in_q) {
        ASSERT_EQ(sq.point, exact(p));
      } else {
        ASSERT_EQ(sq.point, rq.point);
      }
    }
  }
  EXPECT_EQ(edge_mismatch_off_tie, 0);
  EXPECT_LT(sq_err.value, 1e-10);
}

std::string dump(const std::vector<Vec2d>& pts) {
  std::string s = " polygon";
  for (const Vec2d& p : pts) s += " " + std::to_string(p[0]) + " " + std::to_string(p[1]);
  return s;
}

/// Points on or within a few ulps of the line through a and b.
Vec2d near_line(std::mt19937_64& rng, const Vec2d& a, const Vec2d& b) {
  std::uniform_real_distribution<double> t(-0.5, 1.5);
  std::uniform_int_distribution<int> nudge(-3, 3);
  Vec2d p = lerp(a, b, t(rng));
  for (int i = 0; i < 2; ++i) {
    const int k = nudge(rng);
    for (int s = 0; s < std::abs(k); ++s) p[i] = std::nextafter(p[i], k > 0 ? 1e300 : -1e300);
  }
  return p;
}

TEST(PlanarExact, Orient2dIsExactOnNearlyCollinearPoints) {
  std::mt19937_64 rng(18);
  std::uniform_real_distribution<double> u(-1000, 1000);
  std::uniform_real_distribution<double> tiny(-1e-6, 1e-6);
  const auto n = prox::test::scaled_count(200000);
  int zeros = 0, plain_wrong = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    Vec2d a{u(rng), u(rng)}, b{u(rng), u(rng)};
    if (k % 3 == 0) b = a + Vec2d{tiny(rng), tiny(rng)};  // a very short edge
    Vec2d p = near_line(rng, a, b);
    if (k % 7 == 0) p = a;
    const Q exact_cross = cross(exact(b) - exact(a), exact(p) - exact(a));
    const int want = sgn(exact_cross);
    ASSERT_EQ(orient2d(a, b, p), want) << k;
    zeros += want == 0;
    const double plain = cross(b - a, p - a);
    plain_wrong += (plain > 0 ? 1 : (plain < 0 ? -1 : 0)) != want;
    // Float input: promoted to double, still exact.
    // prox::to_float: GCC 12.2's SLP vectorizer can fold an inlined
    // double -> float rounding away (include/prox/core/scalar.hpp), and did
    // here once orient2d's body changed (stop 40): af held unrounded doubles.
    const Vec2f af{to_float(a[0]), to_float(a[1])}, bf{to_float(b[0]), to_float(b[1])};
    const Vec2f pf = k % 2 ? Vec2f{to_float(p[0]), to_float(p[1])} : af + (bf - af) * 0.5f;
    const Vec2d ad{af[0], af[1]}, bd{bf[0], bf[1]}, pd{pf[0], pf[1]};
    ASSERT_EQ(orient2d(af, bf, pf), sgn(cross(exact(bd) - exact(ad), exact(pd) - exact(ad)))) << k;
  }
  std::printf("[ orient2d ] %lld nearly collinear cases: %d exactly collinear; the plain double "
              "cross product had the wrong sign in %d\n", static_cast<long long>(n), zeros, plain_wrong);
  EXPECT_GT(plain_wrong, 0);  // the cases are hard enough to need the exact stage
}

TEST(PlanarExact, InsideTestsExactNearTheOutline) {
  // Points on, or a few ulps off, the polygon's edges at arbitrary (non-grid)
  // coordinates: double contains() must equal the rational one every time.
  std::mt19937_64 rng(19);
  const auto n = prox::test::scaled_count(3000, 100);
  int inside = 0, outside = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const auto pts = star_polygon(rng, 3 + int(k % 12), 100);
    const Polygon<double> pd{pts};
    const Polygon<Q> pq{exact(pts)};
    const bool convex = is_convex(pts);
    for (int j = 0; j < 20; ++j) {
      const std::size_t e = rng() % pts.size();
      const Vec2d p = near_line(rng, pts[e], pts[(e + 1) % pts.size()]);
      const bool in_q = contains(exact(p), pq);
      ASSERT_EQ(contains(p, pd), in_q) << k << "," << j;
      if (convex) {
        ASSERT_EQ(contains(p, ConvexPolygon<double>{pts}), in_q) << k << "," << j;
      }
      (in_q ? inside : outside)++;
    }
  }
  EXPECT_GT(inside, 100);
  EXPECT_GT(outside, 100);
}

TEST(PlanarExact, InsideTestsExactOnTheGridIncludingTheOutline) {
  // Integer coordinates below 2^20: every cross product is exact in double, so
  // double and mpq must agree on every point, outline points included.
  std::mt19937_64 rng(14);
  std::uniform_int_distribution<int> g(-12, 12);
  const auto n = prox::test::scaled_count(3000, 100);
  int outline_points = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    std::vector<Vec2d> pts = star_polygon(rng, 3 + int(k % 9), 12);
    for (Vec2d& v : pts) v = Vec2d{std::round(v[0]), std::round(v[1])};
    const Polygon<double> pd{pts};
    const Polygon<Q> pq{exact(pts)};
    const bool convex = is_convex(pq.points);
    for (int j = 0; j < 40; ++j) {
      Vec2d p{double(g(rng)), double(g(rng))};
      if (j % 4 == 0) p = pts[j % pts.size()];  // a corner
      if (j % 4 == 1) p = (pts[0] + pts[1]) * 0.5;  // an edge midpoint (exact: halves)
      const bool in_q = contains(exact(p), pq);
      ASSERT_EQ(contains(p, pd), in_q) << k << "," << j;
      if (j % 4 <= 1) {
        ASSERT_TRUE(in_q) << "outline point counted outside";
        ++outline_points;
      }
      if (convex) {
        // The seed's side test and the winding number agree on convex polygons.
        ASSERT_EQ(contains(exact(p), ConvexPolygon<Q>{pq.points}), in_q) << k << "," << j << dump(pts);
        ASSERT_EQ(contains(p, ConvexPolygon<double>{pts}), in_q) << k << "," << j;
      }
    }
  }
  EXPECT_GT(outline_points, 100);
}

TEST(PlanarExact, CapsuleAndCircleInsideTestsAreExact) {
  std::mt19937_64 rng(15);
  std::uniform_int_distribution<int> g(-10, 10);
  const auto n = prox::test::scaled_count(20000);
  for (std::int64_t k = 0; k < n; ++k) {
    const Vec2d a{double(g(rng)), double(g(rng))}, b{double(g(rng)), double(g(rng))};
    const double r = std::abs(double(g(rng))) / 2;
    const Vec2d p{double(g(rng)), double(g(rng))};
    const bool cap_q = contains(exact(p), Capsule<Q>{exact(a), exact(b), Q(r)});
    const bool cir_q = contains(exact(p), Circle<Q>{exact(a), Q(r)});
    ASSERT_EQ(cir_q, contains(p, Circle<double>{a, r}));
    // The capsule's double test divides once (the fraction along the core), so
    // only points within rounding of the outline may differ.
    if (cap_q != contains(p, Capsule<double>{a, b, r})) {
      const Q d2 = closest_point_segment(exact(p), exact(a), exact(b)).sq_distance;
      ASSERT_LT(std::abs(to_d(d2) - r * r), 1e-9) << k;
    }
  }
}

TEST(PlanarExact, TurnedBoxWithRationalAxisMatchesItsCornerPolygon) {
  // Axis (3/5, 4/5) is exactly unit, so the turned box is exact in mpq.
  std::mt19937_64 rng(16);
  std::uniform_int_distribution<int> g(-20, 20);
  const OrientedBox<Q> ob{{Q(1), Q(2)}, {Q(5), Q(2)}, {Q(3, 5), Q(4, 5)}};
  EXPECT_NO_THROW(validate(ob));
  const Vec2<Q> u = ob.axis, v{-ob.axis[1], ob.axis[0]};
  const Vec2<Q> hx = u * ob.half[0], hy = v * ob.half[1];
  const Polygon<Q> corners{{ob.center - hx - hy, ob.center + hx - hy, ob.center + hx + hy, ob.center - hx + hy}};
  const auto n = prox::test::scaled_count(20000);
  for (std::int64_t k = 0; k < n; ++k) {
    Vec2<Q> p{Q(g(rng), 2), Q(g(rng), 2)};
    p[0].canonicalize();  // mpq_class(num, den) is not reduced by itself
    p[1].canonicalize();
    for (Part part : {Part::boundary, Part::solid}) {
      const auto a = closest(p, ob, part);
      const auto b = closest(p, corners, part);
      ASSERT_EQ(a.point, b.point) << k;
      ASSERT_EQ(a.sq_distance, b.sq_distance) << k;
      ASSERT_EQ(a.edge, b.edge) << k;
      ASSERT_EQ(a.t, b.t) << k;
    }
    ASSERT_EQ(contains(p, ob), contains(p, corners));
  }
}

TEST(PlanarExact, SelfContactSweepMatchesAllPairs) {
  // Random grid polygons (most cross themselves; touching at a corner counts):
  // the sweep finds the same lowest pair as testing every pair.
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<int> g(0, 6);
  const auto n = prox::test::scaled_count(3000, 100);
  int simple = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    std::vector<Vec2<Q>> pts;
    const int count = 4 + int(k % 6);
    for (int i = 0; i < count; ++i) pts.push_back(Vec2<Q>{Q(g(rng)), Q(g(rng))});
    bool repeated = false;
    for (int i = 0; i < count; ++i) repeated |= pts[i] == pts[(i + 1) % count];
    if (repeated) continue;
    std::pair<int, int> brute{-1, -1};
    for (int i = 0; i < count && brute.first < 0; ++i) {
      for (int j = i + 2; j < count; ++j) {
        if (i == 0 && j + 1 == count) continue;
        if (detail::segments_touch(pts[i], pts[(i + 1) % count], pts[j], pts[(j + 1) % count])) {
          brute = {i, j};
          break;
        }
      }
    }
    ASSERT_EQ(first_self_contact(pts), brute) << k;
    simple += brute.first < 0;
  }
  EXPECT_GT(simple, 0);
}

// Found from outside (stop 40). A point within rounding of a capsule's core
// got an outline point up to r off (its direction was rounding noise): the
// answer must lie on the outline, at distance r from the core.
TEST(PlanarExact, CapsuleOutlinePointFromTheCore) {
  std::mt19937_64 rng(40);
  std::uniform_real_distribution<double> u(-3, 3), t(0.05, 0.95);
  int n = 0;
  for (int k = 0; k < 2000; ++k) {
    const Capsule<double> c{Vec2d{u(rng), u(rng)}, Vec2d{u(rng), u(rng)}, 0.5 + t(rng)};
    const double s = t(rng);
    const Vec2d p = c.a + (c.b - c.a) * s;  // on the core, within rounding
    const ClosestResult<double> r = closest_on(p, c);
    const double core = std::sqrt(closest_point_segment(r.point, c.a, c.b).sq_distance);
    ASSERT_NEAR(core, c.radius, 1e-12 * (1 + c.radius)) << k;
    ASSERT_NEAR(std::sqrt(r.sq_distance), c.radius, 1e-12 * (1 + c.radius)) << k;
    ++n;
  }
  EXPECT_EQ(n, 2000);
}

// Inside tests and signs at the ends of the double range (stop 40: squares
// overflowed or underflowed, and far points were "inside").
TEST(PlanarExact, InsideTestsOverTheWholeRange) {
  for (const double sc : {1e-300, 1e-170, 1e-150, 1.0, 1e150, 1e155, 1e300}) {
    const Vec2d out{3 * sc, 4 * sc};  // 4 sc outside a radius-sc circle at the origin
    const Vec2d in{0.3 * sc, 0.4 * sc};
    const Circle<double> circle{Vec2d{0, 0}, sc};
    EXPECT_FALSE(contains(out, circle)) << sc;
    EXPECT_TRUE(contains(in, circle)) << sc;
    EXPECT_GT(signed_distance(out, circle), 0) << sc;
    const Capsule<double> cap{Vec2d{0, 0}, Vec2d{0, 0}, sc};
    EXPECT_FALSE(contains(out, cap)) << sc;
    EXPECT_TRUE(contains(in, cap)) << sc;
    EXPECT_GT(signed_distance(out, cap), 0) << sc;
    EXPECT_LT(signed_distance(in, cap), 0) << sc;
    const ConvexPolygon<double> tri{{Vec2d{0, 0}, Vec2d{sc, 0}, Vec2d{0, sc}}};
    const Polygon<double> ptri{{Vec2d{0, 0}, Vec2d{sc, 0}, Vec2d{0, sc}}};
    EXPECT_FALSE(contains(out, tri)) << sc;
    EXPECT_FALSE(contains(out, ptri)) << sc;
    EXPECT_TRUE(contains(Vec2d{0.2 * sc, 0.2 * sc}, tri)) << sc;
  }
  const ConvexPolygon<double> unit{{Vec2d{0, 0}, Vec2d{1, 0}, Vec2d{0, 1}}};
  EXPECT_FALSE(contains(Vec2d{1e308, 1e308}, unit));
  EXPECT_FALSE(contains(Vec2d{-1e308, -1e308}, unit));
  EXPECT_GT(signed_distance(Vec2d{1e308, 1e308}, unit), 0);
}

// A point exactly on a polygon's outline has signed distance +0, whatever
// rounding leaves in its distance (stop 40: -2.8e-17).
TEST(PlanarExact, OnTheOutlineIsPlusZero) {
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> u(-100, 100);
  int residues = 0;
  for (int k = 0; k < 20000; ++k) {
    const auto pts = star_polygon(rng, 3 + k % 9, 100);
    const std::size_t e = rng() % pts.size();
    const Vec2d a = pts[e], b = pts[(e + 1) % pts.size()];
    // Points on the edge exactly: its ends, and midpoints that happen to be exact.
    const Vec2d m = (a + b) * 0.5;
    for (const Vec2d& p : {a, m}) {
      if (orient2d(a, b, p) != 0) continue;
      const Polygon<double> poly{pts};
      residues += closest_on(p, poly).sq_distance > 0;
      const double sd = signed_distance(p, poly);
      ASSERT_EQ(sd, 0.0) << k;
      ASSERT_FALSE(std::signbit(sd)) << k;
    }
  }
  std::printf("[ outline ] on-outline points with a rounded distance above 0: %d\n", residues);
}

}  // namespace
