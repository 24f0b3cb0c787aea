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
//
// The same for the float bound of the grid's table (float_bound8 /
// float_above1, the table's lane set by set_float_lane): never above the exact
// distance, with the table's origin at the triangle (the grid's case: the
// origin is the mesh box's centre) and 1e5 away from it (a large A term), and
// within 1e-4 of the exact distance in the face and edge regions of
// non-degenerate triangles; its 8-lane test equals its one-lane test. The
// float bound is checked on every ISA path the CPU runs too (the grid's
// search fuses its products where the path has FMA).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/closest_point_oracle.hpp"
#include "prox/mesh/isa.hpp"
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

// n cases of one family of the kernel oracle, each at the oracle's float
// corners and moved 1e5 away (exact: the corners are floats), with r_up.
struct OracleCase {
  std::int64_t i;
  double shift;
  Vec3d p, a, b, c;
  double r_up;
};
std::vector<OracleCase> oracle_cases(test::CpFamily family, std::uint64_t seed, std::int64_t n) {
  std::vector<OracleCase> out;
  test::Rng rng(seed);
  for (std::int64_t i = 0; i < n; ++i) {
    const test::TriCase k = test::draw_case(rng, family);
    for (const double shift : {0.0, 1e5}) {
      const Vec3d o{shift, -2 * shift, 3 * shift};
      OracleCase e{i, shift, test::to_d(k.p) + o, test::to_d(k.a) + o, test::to_d(k.b) + o,
                   test::to_d(k.c) + o, 0.0};
      e.r_up = root_up(closest_point_triangle(q_of(e.p), q_of(e.a), q_of(e.b), q_of(e.c)).sq_distance);
      out.push_back(e);
    }
  }
  return out;
}

TEST(SdfLowerBound, NeverAboveTheExactDistance) {
  using test::CpFamily;
  const std::int64_t n = test::scaled_count(4000, 300);
  for (int f = 0; f <= int(CpFamily::far); ++f) {
    const auto family = CpFamily(f);
    SCOPED_TRACE(test::to_string(family));
    std::int64_t tight = 0, tight_cases = 0;
    for (const OracleCase& e : oracle_cases(family, 1234567ULL + std::uint64_t(f), n)) {
      const sdf_detail::LowerBound1 lb = bound_of(e.p, e.a, e.b, e.c);
      ASSERT_FALSE(lb.above(e.r_up)) << "case " << e.i << " shift " << e.shift
                                     << ": exact distance " << e.r_up << ", bound " << lb.distance();
      const bool region = family >= CpFamily::e01 && family <= CpFamily::face;
      if (region && e.shift == 0) {
        ++tight_cases;
        tight += lb.above(e.r_up * (1 - 1e-6));
      }
    }
    if (tight_cases > 0) {
      EXPECT_GT(tight, tight_cases * 9 / 10) << tight << " of " << tight_cases;
    }
  }
}

struct FloatCase {
  float all, reach, k;
  unsigned vector_above;  // float_above8's bit for lane 0 at r
  bool ok;
  // The same lane on each ISA path the CPU runs, as the grid's search
  // computes it (float_bound8_isa: fused multiply-adds on the AVX2 and
  // AVX-512 paths, so the bound may differ in its last bits).
  struct Path {
    Isa isa;
    float all, reach;
    unsigned above;
  };
  std::vector<Path> paths;
};

// Lane 0 of a table chunk holding triangle (a, b, c), origin o; the bound at p.
FloatCase float_bound_of(const Vec3d& p, const Vec3d& a, const Vec3d& b, const Vec3d& c,
                         const Vec3d& o, double r) {
  sdf_detail::FloatTerms8 t{};
  const double corner[3][3] = {{a[0], a[1], a[2]}, {b[0], b[1], b[2]}, {c[0], c[1], c[2]}};
  const double origin[3] = {o[0], o[1], o[2]};
  const bool ok = sdf_detail::set_float_lane(t, 0, corner, origin);
  double reach = 0;
  for (int k = 0; k < 3; ++k)
    for (int x = 0; x < 3; ++x) reach = std::max(reach, std::fabs(corner[k][x] - origin[x]));
  // As lune_closest_point sets them up (the table's reach here: this triangle's).
  const double pd[3] = {p[0], p[1], p[2]};
  const sdf_detail::FloatBoundSetup fs = sdf_detail::float_bound_setup(origin, reach, pd);
  const sdf_detail::FloatBound8 fb = sdf_detail::float_bound8(t, fs);
  alignas(32) float all[8], rch[8];
  simd::store8(all, fb.all);
  simd::store8(rch, fb.reach);
  FloatCase out{all[0], rch[0], fs.k, sdf_detail::float_above8(fb, bvh::float_up(r), fs.k) & 1u,
                ok, {}};
  const Isa active = active_isa();
  for (const Isa isa : available_isas()) {
    set_isa(isa);
    const sdf_detail::FloatBoundLanes l = sdf_detail::float_bound8_isa(t, fs, bvh::float_up(r));
    out.paths.push_back({isa, l.all[0], l.reach[0], l.above & 1u});
  }
  set_isa(active);
  return out;
}

TEST(SdfLowerBound, FloatBoundNeverAboveTheExactDistance) {
  using test::CpFamily;
  const std::int64_t n = test::scaled_count(4000, 300);
  for (int f = 0; f <= int(CpFamily::far); ++f) {
    const auto family = CpFamily(f);
    SCOPED_TRACE(test::to_string(family));
    std::int64_t tight = 0, tight_cases = 0, ok = 0;
    for (const OracleCase& e : oracle_cases(family, 7654321ULL + std::uint64_t(f), n)) {
      // The table's origin: at the triangle's first corner (as the grid's,
      // within the mesh box), and 1e5 away from the triangle.
      for (const Vec3d& origin : {e.a, Vec3d{e.a[0] - 1e5, e.a[1] + 1e5, e.a[2]}}) {
        const FloatCase fc = float_bound_of(e.p, e.a, e.b, e.c, origin, e.r_up);
        ok += fc.ok;
        const bool above = sdf_detail::float_above1(fc.all, fc.reach, bvh::float_up(e.r_up), fc.k);
        ASSERT_FALSE(above) << "case " << e.i << " shift " << e.shift << ": exact distance "
                            << e.r_up << ", float bound " << std::sqrt(double(fc.all));
        ASSERT_EQ(fc.vector_above, unsigned(above)) << "case " << e.i;
        for (const FloatCase::Path& path : fc.paths) {
          const bool path_above =
              sdf_detail::float_above1(path.all, path.reach, bvh::float_up(e.r_up), fc.k);
          ASSERT_FALSE(path_above) << isa_name(path.isa) << " case " << e.i << " shift "
                                   << e.shift << ": exact distance " << e.r_up
                                   << ", float bound " << std::sqrt(double(path.all));
          ASSERT_EQ(path.above, unsigned(path_above)) << isa_name(path.isa) << " case " << e.i;
        }
      }
      const bool region = family >= CpFamily::e01 && family <= CpFamily::face;
      if (region && e.shift == 0) {
        const double r = e.r_up * (1 - 1e-4);
        const FloatCase fc = float_bound_of(e.p, e.a, e.b, e.c, e.a, r);
        ++tight_cases;
        tight += sdf_detail::float_above1(fc.all, fc.reach, bvh::float_up(r), fc.k);
      }
    }
    if (tight_cases > 0) {
      EXPECT_GT(tight, tight_cases * 9 / 10) << tight << " of " << tight_cases;
    }
    if (family <= CpFamily::face) {
      EXPECT_GT(ok, n * 4 * 95 / 100) << "lanes the table could set";
    }
  }
}

}  // namespace
}  // namespace prox
