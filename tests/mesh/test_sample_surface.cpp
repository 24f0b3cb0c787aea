// Surface sampling, sample statistics and Chamfer (prox/mesh/sample_surface.hpp):
// reproducible for a seed and any thread count; every sample on its triangle
// at its barycentrics; area-weighted (a binomial test, 5 sigma); stratified
// counts within one of n * area / total; statistics and Chamfer on distances
// known exactly (two parallel squares 0.1 apart: every distance is 0.1);
// Poisson-disk: exactly n, every pair (all of them, brute force) at least
// min_distance apart, min_distance near the packing radius, counts per
// region proportional to area, the same for any thread count.
#include <gtest/gtest.h>

#include <cmath>

#include "mesh_support.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;
using Tri = std::array<std::uint32_t, 3>;

// Two triangles of areas 0.5 and 1.5 (and a degenerate one between them).
TriangleMesh<double> two_areas() {
  return TriangleMesh<double>({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {3, 0, 1}, {3, 1, 1}, {6, 0, 1}},
                              std::vector<Tri>{{0, 1, 2}, {0, 1, 1}, {3, 5, 4}});
}

TEST(SampleSurface, SameForAnySeedRunAndThreadCount) {
  const TriangleMesh<double> m = test::icosphere(3);
  const auto one = sample_surface(m, 5000, 42, SampleMethod::uniform, 1);
  const auto four = sample_surface(m, 5000, 42, SampleMethod::uniform, 4);
  EXPECT_EQ(one.points, four.points);
  EXPECT_EQ(one.triangles, four.triangles);
  EXPECT_EQ(one.bary, four.bary);
  // Uniform: sample i does not depend on n.
  const auto fewer = sample_surface(m, 100, 42, SampleMethod::uniform, 2);
  for (std::size_t i = 0; i < 100; ++i) EXPECT_EQ(fewer.points[i], one.points[i]);
  const auto other = sample_surface(m, 5000, 43, SampleMethod::uniform, 1);
  EXPECT_NE(other.points, one.points);
}

TEST(SampleSurface, SamplesLieOnTheirTriangles) {
  const TriangleMesh<double> m = test::torus(1.0, 0.3, 32, 12);
  for (SampleMethod method : {SampleMethod::uniform, SampleMethod::stratified, SampleMethod::poisson}) {
    const auto s = sample_surface(m, 3000, 7, method);
    const BruteForce<double> brute(m);
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Vec3d w = s.bary[i];
      EXPECT_GE(w[0], 0);
      EXPECT_GE(w[1], 0);
      EXPECT_GE(w[2], 0);
      EXPECT_NEAR(w[0] + w[1] + w[2], 1.0, 1e-15);
      const std::size_t t = s.triangles[i];
      const Vec3d p = m.corner(t, 0) * w[0] + m.corner(t, 1) * w[1] + m.corner(t, 2) * w[2];
      EXPECT_LT(std::sqrt(squared_distance(p, s.points[i])), 1e-15);
      EXPECT_LT(std::sqrt(brute.closest_point(s.points[i]).sq_distance), 1e-15);
    }
  }
}

TEST(SampleSurface, AreaWeighted) {
  const TriangleMesh<double> m = two_areas();
  const std::size_t n = static_cast<std::size_t>(test::scaled_count(200000, 20000));
  const auto s = sample_surface(m, n, 3);
  std::size_t first = 0;
  for (std::uint32_t t : s.triangles) {
    EXPECT_NE(t, 1u);  // the degenerate triangle has no area
    first += t == 0;
  }
  const double p = 0.25, sigma = std::sqrt(n * p * (1 - p));
  EXPECT_NEAR(double(first), n * p, 5 * sigma);
  // Uniform within a triangle: the mean of the weights is (1/3, 1/3, 1/3).
  Vec3d mean{0, 0, 0};
  for (const Vec3d& w : s.bary) mean += w;
  mean = mean / double(n);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mean[k], 1.0 / 3, 5 * std::sqrt(1.0 / 18 / n));
}

TEST(SampleSurface, StratifiedCountsWithinOne) {
  const TriangleMesh<double> m = test::icosphere(2);
  const std::size_t n = 10007;
  const auto s = sample_surface(m, n, 11, SampleMethod::stratified);
  std::vector<std::size_t> count(m.num_triangles(), 0);
  for (std::uint32_t t : s.triangles) ++count[t];
  double total = 0;
  std::vector<double> area(m.num_triangles());
  for (std::size_t t = 0; t < m.num_triangles(); ++t) {
    area[t] = 0.5 * std::sqrt(squared_norm(cross(m.corner(t, 1) - m.corner(t, 0),
                                                 m.corner(t, 2) - m.corner(t, 0))));
    total += area[t];
  }
  for (std::size_t t = 0; t < m.num_triangles(); ++t)
    EXPECT_LT(std::fabs(double(count[t]) - n * area[t] / total), 1.0 + 1e-9) << t;
}

TEST(SampleSurface, NoAreaIsAnError) {
  const TriangleMesh<double> flat({{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, std::vector<Tri>{{0, 1, 2}});
  EXPECT_THROW(sample_surface(flat, 10, 1), std::invalid_argument);
  EXPECT_THROW(sample_surface(TriangleMesh<double>{}, 10, 1), std::invalid_argument);
}

TEST(SampleSurface, StatsAndChamferOnParallelSquares) {
  const std::vector<Tri> f{{0, 1, 2}, {0, 2, 3}};
  const TriangleMesh<double> a({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, f);
  const TriangleMesh<double> b({{0, 0, 0.1}, {1, 0, 0.1}, {1, 1, 0.1}, {0, 1, 0.1}}, f);
  const MeshIndex<double> ia(a), ib(b);
  const auto sa = sample_surface(a, 4000, 1), sb = sample_surface(b, 3000, 2);
  const auto da = sample_distances(std::span<const Vec3d>(sa.points), ib, 2);
  const auto db = sample_distances(std::span<const Vec3d>(sb.points), ia, 2);
  const DistanceStats st = distance_stats(da, 4);
  // Each distance is 0.1 to an ulp; sums of 4000 of them gather ~n eps: 1e-12.
  EXPECT_EQ(st.count, 4000u);
  EXPECT_NEAR(st.max, 0.1, 1e-15);
  EXPECT_NEAR(st.mean, 0.1, 1e-12);
  EXPECT_NEAR(st.rms, 0.1, 1e-12);
  std::size_t sum = 0;
  for (std::size_t c : st.histogram) sum += c;
  EXPECT_EQ(sum, 4000u);
  const ChamferDistance c = chamfer(da, db);
  EXPECT_NEAR(c.chamfer_l2, 0.02, 1e-12);
  EXPECT_NEAR(c.chamfer_l1, 0.2, 1e-12);
  EXPECT_NEAR(c.forward_mean_sq, 0.01, 1e-12);
}

TEST(SampleSurface, HistogramAndBadStats) {
  const std::vector<double> d{0.0, 0.25, 0.5, 0.75, 1.0, 1.0};
  const DistanceStats st = distance_stats(d, 4);
  EXPECT_EQ(st.histogram, (std::vector<std::size_t>{1, 1, 1, 3}));
  EXPECT_EQ(st.argmax, 4u);
  EXPECT_DOUBLE_EQ(st.mean, 3.5 / 6);
  EXPECT_DOUBLE_EQ(st.rms, std::sqrt((0.0625 + 0.25 + 0.5625 + 2) / 6));
  EXPECT_THROW(distance_stats(std::vector<double>{1.0, std::nan("")}), std::invalid_argument);
  EXPECT_THROW(distance_stats(d, 0), std::invalid_argument);
  EXPECT_THROW(chamfer({}, d), std::invalid_argument);
}

// A flat grid of k x k squares (two triangles each) of side `size` at z = z0, from x0.
void add_square(std::vector<Vec3d>& v, std::vector<Tri>& t, double x0, double size, int k) {
  const auto base = static_cast<std::uint32_t>(v.size());
  for (int j = 0; j <= k; ++j)
    for (int i = 0; i <= k; ++i) v.push_back(Vec3d{x0 + size * i / k, size * j / k, 0});
  const auto id = [&](int i, int j) { return base + static_cast<std::uint32_t>(j * (k + 1) + i); };
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < k; ++i) {
      t.push_back(Tri{id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      t.push_back(Tri{id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
}

TEST(SampleSurface, PoissonKeepsItsMinimumDistance) {
  const TriangleMesh<double> m = test::torus(1.0, 0.3, 48, 16);
  double area = 0;
  for (std::size_t t = 0; t < m.num_triangles(); ++t)
    area += 0.5 * std::sqrt(squared_norm(cross(m.corner(t, 1) - m.corner(t, 0), m.corner(t, 2) - m.corner(t, 0))));
  const std::size_t n = static_cast<std::size_t>(test::scaled_count(3000, 300));
  const auto s = sample_surface(m, n, 11, SampleMethod::poisson, 1);
  ASSERT_EQ(s.size(), n);
  // Not a trivial radius: at least 0.5 sqrt(area / n) (it starts at 0.67).
  EXPECT_GE(s.min_distance, 0.5 * std::sqrt(area / double(n)));
  double closest = 1e300;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) closest = std::min(closest, squared_distance(s.points[i], s.points[j]));
  EXPECT_GE(std::sqrt(closest), s.min_distance);
  // Blue noise, not a lattice of gaps: the closest pair is within 20% of r
  // (dart throwing leaves many pairs near r).
  EXPECT_LE(std::sqrt(closest), 1.2 * s.min_distance);
  // Seeded, thread-independent; another seed gives other samples.
  const auto again = sample_surface(m, n, 11, SampleMethod::poisson, 7);
  EXPECT_EQ(again.points, s.points);
  EXPECT_EQ(again.triangles, s.triangles);
  EXPECT_EQ(again.bary, s.bary);
  EXPECT_NE(sample_surface(m, n, 12, SampleMethod::poisson, 1).points, s.points);
  // Other methods leave min_distance 0.
  EXPECT_EQ(sample_surface(m, 10, 1, SampleMethod::uniform).min_distance, 0.0);
}

TEST(SampleSurface, PoissonCoverageFollowsArea) {
  // A unit square and, far from it, a 2 x 2 square: areas 1 and 4.
  std::vector<Vec3d> v;
  std::vector<Tri> t;
  add_square(v, t, 0, 1, 8);
  add_square(v, t, 10, 2, 8);
  const TriangleMesh<double> m(v, t);
  const std::size_t n = static_cast<std::size_t>(test::scaled_count(10000, 2000));
  const auto s = sample_surface(m, n, 5, SampleMethod::poisson);
  ASSERT_EQ(s.size(), n);
  std::size_t small = 0, quadrant[4] = {0, 0, 0, 0};
  for (const Vec3d& p : s.points) {
    if (p[0] < 5) {
      ++small;
    } else {
      quadrant[(p[0] < 11 ? 0 : 1) + (p[1] < 1 ? 0 : 2)] += 1;
    }
  }
  // Each unit of area gets n / 5 samples, up to the border strips (~r/2 wide)
  // where disks stick out of the square: within 6%.
  const double per_unit = double(n) / 5;
  EXPECT_NEAR(double(small), per_unit, 0.06 * per_unit);
  for (std::size_t q : quadrant) EXPECT_NEAR(double(q), per_unit, 0.06 * per_unit);
}

}  // namespace

// sample_distances with a float index picking the triangle and double measuring
// it: against BruteForce<double> (the exact nearest triangle, in double), never
// below it (but for double's rounding) and never above it by more than
// float_pick_error; on a smooth mesh and on a soup of slivers (large kappa).
TEST(SampleSurface, FloatPickDistancesAgainstBruteForce) {
  const std::size_t n = static_cast<std::size_t>(test::scaled_count(3000, 200));
  struct Case {
    const char* name;
    TriangleMesh<double> a, b;
  };
  const TriangleMesh<double> sphere = test::icosphere(3);
  std::vector<Vec3d> moved;
  for (const Vec3d& p : sphere.vertices()) moved.push_back(p * 1.03 + Vec3d{0.01, -0.02, 0.005});
  Case cases[] = {
      {"sphere", sphere, TriangleMesh<double>(moved, sphere.triangles())},
      {"soup", test::random_soup(200, 0.05, 3), test::random_soup(300, 0.2, 4)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const MeshIndex<float> pick(float_mesh(c.b));
    const BruteForce<double> brute(c.b);
    std::vector<Vec3d> pts = sample_surface(c.a, n, 5).points;
    for (const Vec3d& p : test::query_points(c.b, n, 6)) pts.push_back(p);
    // query_points reach the box scaled 2x about its centre: a diagonal around it.
    const double reach = test::diagonal_length(c.b);
    const double bound = float_pick_error(c.b, reach);
    // Not vacuous on a well-shaped mesh (the soup's slivers make kappa large).
    if (std::string(c.name) == "sphere") {
      EXPECT_LT(bound, 1e-5 * reach);
    }
    const auto d = sample_distances(std::span<const Vec3d>(pts), pick, c.b, 2);
    const auto d1 = sample_distances(std::span<const Vec3d>(pts), pick, c.b, 1);
    ASSERT_EQ(d.size(), pts.size());
    double worst = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const double exact = std::sqrt(brute.closest_point(pts[i]).sq_distance);
      ASSERT_GE(d[i], exact * (1 - 1e-14) - 1e-15) << i;
      ASSERT_LE(d[i], exact + bound) << i;
      ASSERT_EQ(d[i], d1[i]) << i;  // any thread count
      worst = std::max(worst, d[i] - exact);
    }
    RecordProperty(std::string(c.name) + "_worst_over_bound", std::to_string(worst / bound));
  }
  // The float index must index the same triangles.
  const MeshIndex<float> other(float_mesh(test::random_soup(5, 0.1, 1)));
  const std::vector<Vec3d> p{{0, 0, 0}};
  EXPECT_THROW(sample_distances(std::span<const Vec3d>(p), other, sphere), std::invalid_argument);
}

// Chamfer from float-picked distances equals the double index's to within the bound.
TEST(SampleSurface, ChamferOnFloatIndexMatchesDouble) {
  const TriangleMesh<double> a = test::icosphere(3);
  std::vector<Vec3d> moved;
  for (const Vec3d& p : a.vertices()) moved.push_back(p * 0.98 + Vec3d{0.003, 0, -0.002});
  const TriangleMesh<double> b(moved, a.triangles());
  const MeshIndex<double> ia(a), ib(b);
  const MeshIndex<float> fa(float_mesh(a)), fb(float_mesh(b));
  const std::size_t n = static_cast<std::size_t>(test::scaled_count(20000, 1000));
  const auto sa = sample_surface(a, n, 1, SampleMethod::stratified);
  const auto sb = sample_surface(b, n, 2, SampleMethod::stratified);
  const ChamferDistance cd = chamfer(sample_distances(std::span<const Vec3d>(sa.points), ib),
                                     sample_distances(std::span<const Vec3d>(sb.points), ia));
  const ChamferDistance cf = chamfer(sample_distances(std::span<const Vec3d>(sa.points), fb, b),
                                     sample_distances(std::span<const Vec3d>(sb.points), fa, a));
  const double e = std::max(float_pick_error(a, 0.1), float_pick_error(b, 0.1));
  EXPECT_NEAR(cf.chamfer_l1, cd.chamfer_l1, 2 * e + 1e-13);
  EXPECT_NEAR(cf.chamfer_l2, cd.chamfer_l2, 2 * e * (2 * 0.1 + e) + 1e-13);
  EXPECT_GT(cd.chamfer_l1, 0.01);  // the copies are apart
}
