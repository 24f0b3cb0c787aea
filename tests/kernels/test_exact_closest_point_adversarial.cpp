// Exact-oracle test, part 2: adversarial families: exactly on edges and
// vertices, collinear, coincident, sliver, tiny (1e-6) and far (1e6) triangles.
// The three closest-point methods in float and double against the exact
// rational answer; the exact methods against each other. Part 1 is
// test_exact_closest_point_regions.cpp; together about 1.1M cases per method.
#include "closest_point_oracle.hpp"

namespace prox::test {
namespace {

// Bounds in ulps of s * kappa (see CpStats): measured worst about 2.8 (point)
// and 8 (squared distance) at scale 1 (docs/kernel-accuracy.md); 8 and 32 leave room for
// other seeds and compilers.
const CpBounds kBounds{{{8, 8}, {8, 8}, {8, 8}}, {{32, 32}, {32, 32}, {32, 32}}};

TEST(ExactClosestPoint, Adversarial) {
  const CpFamily families[] = {CpFamily::on_boundary, CpFamily::collinear, CpFamily::coincident,
                               CpFamily::sliver, CpFamily::tiny, CpFamily::far};
  const std::int64_t per_family = scaled_count(80000, 200);
  std::vector<std::pair<CpFamily, CpStats>> rows;
  for (const CpFamily f : families) rows.emplace_back(f, run_closest_point_family(f, per_family, 2, 4));
  report_and_check(rows, kBounds);
}

}  // namespace
}  // namespace prox::test
