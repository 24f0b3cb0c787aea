// Exact-oracle test, part 1: random triangles and each of the seven Voronoi
// regions. The three closest-point methods in float and double against the
// exact rational answer; the exact methods against each other (every 4th case).
#include "closest_point_oracle.hpp"

namespace prox::test {
namespace {

// Bounds in ulps of s * kappa (see CpStats): measured worst about 2.8 (point)
// and 8 (squared distance) at scale 1 (docs/kernel-accuracy.md); 8 and 32 leave room for
// other seeds and compilers.
const CpBounds kBounds{{{8, 8}, {8, 8}, {8, 8}}, {{32, 32}, {32, 32}, {32, 32}}};

TEST(ExactClosestPoint, RandomAndRegions) {
  const CpFamily families[] = {CpFamily::random, CpFamily::v0,  CpFamily::v1,  CpFamily::v2,
                               CpFamily::e01,    CpFamily::e12, CpFamily::e20, CpFamily::face};
  const std::int64_t per_family = scaled_count(80000, 200);
  std::vector<std::pair<CpFamily, CpStats>> rows;
  for (const CpFamily f : families) rows.emplace_back(f, run_closest_point_family(f, per_family, 1, 4));
  report_and_check(rows, kBounds);
}

}  // namespace
}  // namespace prox::test
