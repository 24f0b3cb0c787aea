// tests/mesh/test_sdf_lower_bound.cpp — the SDF grid search's triangle
// distance lower bound (sdf_detail::lower_bound1 in
// prox/mesh/sdf_grid_lune_impl.hpp; its 4-lane twin does the same operations)
// against the exact distance (the closest-point kernel on mpq_class).
//
// The search skips a triangle when lower_bound1(...).above(R); that is sound
// when above(r) is false for every r at or above the exact distance, so the
// test checks above(r_up) is false, r_up the smallest double >= the exact
// distance, on every case family of the kernel oracle (Voronoi regions,
// on-boundary points, collinear, coincident, slivers, tiny and far
// triangles), at the oracle's float corners and at corners moved 1e5 away
// (the grid's case: small triangles far from the origin). And it is not a
// bound that cannot fail the other way: in the face and edge regions of
// non-degenerate triangles it is within 1e-6 of the exact distance on most
// cases (there it is the distance, less a rounding margin).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/closest_point_oracle.hpp"
#include "prox/mesh/sdf_grid_lune_impl.hpp"
#include "support/scale.hpp"

namespace prox {
namespace {

using test::Q;

Vec3<Q> q_of(const Vec3d& v) { return Vec3<Q>{Q(v[0]), Q(v[1]), Q(v[2])}; }

// The smallest double whose square is at least sq (sq >= 0, exact).
double root_up(const Q& sq) {
  double r = std::sqrt(sq.get_d());
  while (Q(r) * Q(r) < sq) r = std::nextafter(r, std::numeric_limits<double>::infinity());
  while (r > 0) {
    const double down = std::nextafter(r, 0.0);
    if (Q(down) * Q(down) < sq) break;
    r = down;
  }
  return r;
}

sdf_detail::LowerBound1 bound_of(const Vec3d& p, const Vec3d& a, const Vec3d& b, const Vec3d& c) {
  double dk[3][3], ed[3][3];
  const Vec3d k[3] = {a, b, c};
  for (int i = 0; i < 3; ++i)
    for (int x = 0; x < 3; ++x) {
      dk[i][x] = k[i][x] - p[x];
      ed[i][x] = k[(i + 1) % 3][x] - k[i][x];
    }
  return sdf_detail::lower_bound1(dk, ed);
}

TEST(SdfLowerBound, NeverAboveTheExactDistance) {
  using test::CpFamily;
  const std::int64_t n = test::scaled_count(4000, 300);
  for (int f = 0; f <= int(CpFamily::far); ++f) {
    const auto family = CpFamily(f);
    SCOPED_TRACE(test::to_string(family));
    test::Rng rng(1234567ULL + std::uint64_t(f));
    std::int64_t tight = 0, tight_cases = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const test::TriCase k = test::draw_case(rng, family);
      for (const double shift : {0.0, 1e5}) {
        const Vec3d o{shift, -2 * shift, 3 * shift};  // exact: the corners are floats
        const Vec3d p = test::to_d(k.p) + o, a = test::to_d(k.a) + o, b = test::to_d(k.b) + o,
                    c = test::to_d(k.c) + o;
        const auto ex = closest_point_triangle(q_of(p), q_of(a), q_of(b), q_of(c));
        const double r_up = root_up(ex.sq_distance);
        const sdf_detail::LowerBound1 lb = bound_of(p, a, b, c);
        ASSERT_FALSE(lb.above(r_up)) << "case " << i << " shift " << shift << ": exact distance "
                                     << r_up << ", bound " << lb.distance();
        const bool region = family >= CpFamily::e01 && family <= CpFamily::face;
        if (region && shift == 0) {
          ++tight_cases;
          tight += lb.above(r_up * (1 - 1e-6));
        }
      }
    }
    if (tight_cases > 0) {
      EXPECT_GT(tight, tight_cases * 9 / 10) << tight << " of " << tight_cases;
    }
  }
}

}  // namespace
}  // namespace prox
