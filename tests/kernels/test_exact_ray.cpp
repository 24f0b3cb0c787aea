// Exact-oracle test of the ray/triangle kernels (Möller–Trumbore and
// watertight, float and double) on 1M cases: random rays (a quarter pointing
// away), rays through exact edge and vertex points (some ending exactly
// there), rays just inside or outside an edge, grazing and exactly parallel rays, tiny and far triangles.
#include "ray_oracle.hpp"

namespace prox::test {
namespace {

TEST(ExactRayTriangle, AllFamilies) {
  const RayFamily families[] = {RayFamily::random,  RayFamily::edges,    RayFamily::near_edges,
                                RayFamily::vertices, RayFamily::grazing, RayFamily::parallel,
                                RayFamily::tiny,    RayFamily::far};
  const std::int64_t per_family = scaled_count(128000, 200);
  // The stated rounding band (ray_oracle.hpp), and the bound on the t error, in
  // ulps of the type (t: divided by the triangle's condition kappa): measured,
  // no hit/miss disagreement outside a 2-ulp band; t errors up to about 170
  // ulps raw and 1.4 ulps divided by kappa (docs/kernel-accuracy.md).
  double band[2] = {4, 4};
  const double t_ulps[2] = {16, 16};
  std::vector<std::pair<RayFamily, RayStats>> rows;
  for (const RayFamily f : families) rows.emplace_back(f, run_ray_family(f, per_family, 3, band));
  report_and_check(rows, band, t_ulps);
}

}  // namespace
}  // namespace prox::test
