// The SIMD leaf filters (src/mesh/leaf_ray_simd.hpp, src/mesh/leaf_closest_simd.hpp)
// against the scalar path they stand in front of, and both against BruteForce:
// results must be bit-identical whichever path runs (prox::set_scalar_leaves
// forces the scalar one; PROX_SCALAR_LEAVES=1 does the same from outside).
// Rays aimed exactly at vertices and edge midpoints (edge functions of exactly
// zero, which the filter must hand to the scalar kernel) and closest points on
// vertices and edges (ties between triangles) are included.
#include <gtest/gtest.h>

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
                   const std::string& what) {
  const MeshIndex<T> index(mesh);
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

TEST(LeafFilters, SwitchRoundTrips) {
  const bool saved = scalar_leaves();
  set_scalar_leaves(true);
  EXPECT_TRUE(scalar_leaves());
  set_scalar_leaves(false);
  EXPECT_FALSE(scalar_leaves());
  set_scalar_leaves(saved);
}

}  // namespace
