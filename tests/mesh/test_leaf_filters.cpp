// The SIMD leaf filters (src/mesh/leaf_ray_simd.hpp, src/mesh/leaf_closest_simd.hpp)
// against the scalar path they stand in front of, and both against BruteForce:
// results must be bit-identical whichever path runs (prox::set_scalar_leaves
// forces the scalar one; PROX_SCALAR_LEAVES=1 does the same from outside).
// Rays aimed exactly at vertices and edge midpoints (edge functions of exactly
// zero, which the filter must hand to the scalar kernel) and closest points on
// vertices and edges (ties between triangles) are included.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>
#include <string>

#include "mesh_support.hpp"
#include "prox/mesh/engine_hooks.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;
using prox::test::scaled_count;

// Restores the switch however a test ends.
struct ScalarLeaves {
  bool saved = scalar_leaves();
  explicit ScalarLeaves(bool on) { set_scalar_leaves(on); }
  ~ScalarLeaves() { set_scalar_leaves(saved); }
};

template <class T>
bool same_hit(const MeshRayHit<T>& a, const MeshRayHit<T>& b) {
  return a.triangle == b.triangle &&
         (a.triangle < 0 ||
          (a.t == b.t && a.u == b.u && a.v == b.v && a.front_face == b.front_face));
}

template <class T>
bool same_point(const MeshClosestPoint<T>& a, const MeshClosestPoint<T>& b) {
  return a.triangle == b.triangle &&
         (a.triangle < 0 || (a.sq_distance == b.sq_distance && a.point == b.point &&
                             a.bary == b.bary && a.feature == b.feature));
}

template <class T>
void compare_paths(const TriangleMesh<T>& mesh, std::size_t n, std::uint64_t seed,
                   const std::string& what, const BuildOptions& options = {}) {
  const MeshIndex<T> index(mesh, options);
  const BruteForce<T> brute(mesh);
  const auto rays = test::query_rays(mesh, n, seed);
  const auto points = test::query_points(mesh, n, seed);
  std::size_t bad = 0, hits = 0;
  for (bool scalar : {false, true}) {
    const ScalarLeaves mode(scalar);
    for (std::size_t i = 0; i < rays.size(); ++i) {
      Ray<T> r = rays[i];
      if (i % 5 == 4) r.t_max = T(0.3);  // bounded segments too
      const auto a = index.first_hit(r), b = brute.first_hit(r);
      hits += b.found();
      if ((!same_hit(a, b) || index.any_hit(r) != b.found()) && ++bad <= 5)
        ADD_FAILURE() << what << (scalar ? " scalar" : " simd") << " ray " << i << ": bvh "
                      << a.triangle << " t " << a.t << ", brute " << b.triangle << " t " << b.t;
    }
    for (std::size_t i = 0; i < points.size(); ++i) {
      const T maxd = i % 3 == 2 ? T(0.01) * test::diagonal_length(mesh)
                                : ScalarTraits<T>::infinity();
      const auto a = index.closest_point(points[i], maxd);
      const auto b = brute.closest_point(points[i], maxd);
      if (!same_point(a, b) && ++bad <= 10)
        ADD_FAILURE() << what << (scalar ? " scalar" : " simd") << " point " << i << ": bvh "
                      << a.triangle << " d2 " << a.sq_distance << ", brute " << b.triangle
                      << " d2 " << b.sq_distance;
    }
  }
  EXPECT_EQ(bad, 0u) << what;
  EXPECT_GT(hits, rays.size() / 50) << what << ": too few hits to mean anything";
}

TEST(LeafFilters, SimdAndScalarPathsMatchBruteForceProcedural) {
  const auto s = test::icosphere(3);
  compare_paths(test::to_float(s), scaled_count(2000), 11, "icosphere f");
  compare_paths(s, scaled_count(1000), 11, "icosphere d");
  const auto t = test::torus(1.0, 0.3, 48, 24);
  compare_paths(test::to_float(t), scaled_count(2000), 12, "torus f");
  const auto soup = test::random_soup(3000, 0.05, 13);
  compare_paths(test::to_float(soup), scaled_count(2000), 13, "soup f");
  compare_paths(soup, scaled_count(1000), 13, "soup d");
}

TEST(LeafFilters, SimdAndScalarPathsMatchBruteForceCgal) {
  for (const char* name : {"degtri_sliding.off", "mesh_with_border.off", "bunny00.off"}) {
    const auto m = test::cgal_mesh(name);
    const std::size_t n = m.num_triangles() > 20000 ? scaled_count(300, 30)
                                                    : scaled_count(1500, 400);
    compare_paths(test::to_float(m), n, 17, std::string(name) + " f");
    compare_paths(m, n / 2 + 1, 17, std::string(name) + " d");
  }
}

// Leaf sizes the index holds: bit k set when some leaf has k triangles.
template <class T>
std::uint32_t leaf_sizes(const MeshIndex<T>& index) {
  std::uint32_t sizes = 0;
  for (const bvh::Node8& n : index.layout().nodes)
    for (int k = 0; k < bvh::kWidth; ++k)
      if (n.child[k] != bvh::kInvalid && n.count[k] > 0) sizes |= 1u << n.count[k];
  return sizes;
}

// A soup plus, for k = 1..16, k exact copies of one triangle (the same
// centroid, so no split separates them: leaves of every size up to 16, and
// hits tied between lanes of both packs, which go to the lowest id).
TriangleMesh<float> stacked_soup(std::uint64_t seed) {
  const TriangleMesh<double> soup = test::random_soup(600, 0.05, seed);
  std::vector<Vec3d> v(soup.vertices().begin(), soup.vertices().end());
  std::vector<std::array<std::uint32_t, 3>> f(soup.triangles().begin(), soup.triangles().end());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1), d(-0.05, 0.05);
  for (std::uint32_t k = 1; k <= 16; ++k) {
    const Vec3d c{u(rng), u(rng), u(rng)};
    const Vec3d corner[3] = {c + Vec3d{d(rng), d(rng), d(rng)}, c + Vec3d{d(rng), d(rng), d(rng)},
                             c + Vec3d{d(rng), d(rng), d(rng)}};
    for (std::uint32_t copy = 0; copy < k; ++copy) {
      const auto first = std::uint32_t(v.size());
      for (const Vec3d& x : corner) v.push_back(x);
      f.push_back({first, first + 1, first + 2});
    }
  }
  return test::to_float(TriangleMesh<double>(std::move(v), std::move(f)));
}

// The ray filter takes a leaf eight triangles (two packs) at a time while more
// than four are left, then four: each way a leaf can end (4 or fewer, 5-8,
// 9-12, 13-16 triangles) must give the brute force's bits, with rays aimed at
// vertices and edges whose zero edge functions fall in any lane of either pack.
TEST(LeafFilters, EveryLeafSizeMatchesBruteForce) {
  const auto sphere = test::to_float(test::icosphere(4));
  const auto soup = stacked_soup(21);
  std::uint32_t seen = 0;
  for (int max_leaf : {16, 5}) {
    BuildOptions options;
    options.max_leaf_size = max_leaf;
    seen |= leaf_sizes(MeshIndex<float>(sphere, options));
    seen |= leaf_sizes(MeshIndex<float>(soup, options));
    const std::string tag = " leaves <= " + std::to_string(max_leaf);
    compare_paths(sphere, scaled_count(800, 150), 23, "icosphere f" + tag, options);
    compare_paths(soup, scaled_count(800, 150), 24, "stacked soup f" + tag, options);
  }
  std::string sizes;
  for (unsigned k = 1; k <= 16; ++k)
    if (seen >> k & 1u) sizes += " " + std::to_string(k);
  for (unsigned k = 1; k <= 16; ++k)
    EXPECT_TRUE(seen >> k & 1u) << "no leaf of " << k << " triangles (built:" << sizes << ")";
}

TEST(LeafFilters, SwitchRoundTrips) {
  const bool saved = scalar_leaves();
  set_scalar_leaves(true);
  EXPECT_TRUE(scalar_leaves());
  set_scalar_leaves(false);
  EXPECT_FALSE(scalar_leaves());
  set_scalar_leaves(saved);
}

}  // namespace
