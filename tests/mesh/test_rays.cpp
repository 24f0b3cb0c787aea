// MeshIndex rays against BruteForce, and watertightness.
// - first_hit / any_hit / all_hits / count_hits equal to BruteForce bit for bit
//   (same kernels; the BVH's box tests are conservative), on random rays and
//   rays aimed exactly at vertices and edge midpoints.
// - Watertight: from interior points of closed convex icospheres, rays aimed at
//   every vertex and every edge midpoint cross exactly once; from far outside
//   the closed non-convex CGAL meshes, rays through every vertex and edge
//   midpoint cross an even number of times. Zero leaks, zero double counts.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "mesh_support.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;
using prox::test::scaled_count;

template <class T>
bool same_hit(const MeshRayHit<T>& a, const MeshRayHit<T>& b) {
  return a.triangle == b.triangle && (a.triangle < 0 || (a.t == b.t && a.u == b.u &&
                                                         a.v == b.v &&
                                                         a.front_face == b.front_face));
}

template <class T>
void compare_rays(const TriangleMesh<T>& mesh, std::size_t n, std::uint64_t seed,
                  const std::string& what) {
  const MeshIndex<T> index(mesh);
  const BruteForce<T> brute(mesh);
  const auto rays = test::query_rays(mesh, n, seed);
  std::size_t bad = 0, hits = 0;
  for (std::size_t i = 0; i < rays.size(); ++i) {
    Ray<T> r = rays[i];
    if (i % 7 == 6) r.t_max = T(0.5);  // a bounded segment now and then
    const auto a = index.first_hit(r), b = brute.first_hit(r);
    hits += b.found();
    bool ok = same_hit(a, b) && index.any_hit(r) == b.found();
    const auto ha = index.all_hits(r), hb = brute.all_hits(r);
    ok = ok && ha.size() == hb.size() && index.count_hits(r) == hb.size();
    for (std::size_t k = 0; ok && k < ha.size(); ++k) ok = same_hit(ha[k], hb[k]);
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << what << " ray " << i << ": bvh " << a.triangle << " t " << a.t
                    << " count " << ha.size() << ", brute " << b.triangle << " t " << b.t
                    << " count " << hb.size();
  }
  EXPECT_EQ(bad, 0u) << what;
  EXPECT_GT(hits, rays.size() / 50) << what << ": too few hits to mean anything";
}

TEST(Rays, MatchBruteForceProcedural) {
  const auto s = test::icosphere(3);
  compare_rays(s, scaled_count(3000), 1, "icosphere d");
  compare_rays(test::to_float(s), scaled_count(3000), 1, "icosphere f");
  const auto t = test::torus(1.0, 0.3, 48, 24);
  compare_rays(t, scaled_count(3000), 2, "torus d");
  compare_rays(test::to_float(t), scaled_count(3000), 2, "torus f");
  const auto soup = test::random_soup(3000, 0.05, 5);
  compare_rays(soup, scaled_count(3000), 3, "soup d");
  compare_rays(test::to_float(soup), scaled_count(3000), 3, "soup f");
}

TEST(Rays, MatchBruteForceCgal) {
  for (const char* name : {"mesh_with_border.off", "degtri_sliding.off", "cube-ouvert.off",
                           "hole.off", "elephant.off", "bunny00.off"}) {
    const auto m = test::cgal_mesh(name);
    const std::size_t n = m.num_triangles() > 20000 ? scaled_count(300, 30)
                                                    : scaled_count(1500, 100);
    compare_rays(m, n, 9, std::string(name) + " d");
    compare_rays(test::to_float(m), n, 9, std::string(name) + " f");
  }
}

// Unique undirected edges of a mesh.
template <class T>
std::set<std::pair<std::uint32_t, std::uint32_t>> edges_of(const TriangleMesh<T>& m) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> e;
  for (const auto& t : m.triangles())
    for (int k = 0; k < 3; ++k) e.insert(std::minmax(t[k], t[(k + 1) % 3]));
  return e;
}

template <class T>
void expect_single_crossings(const TriangleMesh<T>& m, const Vec3<T>& inside,
                             const std::string& what) {
  const MeshIndex<T> index(m);
  std::vector<Vec3<T>> targets = m.vertices();
  for (const auto& [a, b] : edges_of(m))
    targets.push_back((m.vertices()[a] + m.vertices()[b]) * T(0.5));
  std::size_t leaks = 0, doubles = 0;
  for (const Vec3<T>& target : targets) {
    const Ray<T> r{inside, target - inside};
    const std::size_t c = index.count_hits(r);
    leaks += c == 0 || !index.first_hit(r).found();
    doubles += c > 1;
  }
  EXPECT_EQ(leaks, 0u) << what << ": leaks among " << targets.size() << " rays";
  EXPECT_EQ(doubles, 0u) << what << ": double counts among " << targets.size() << " rays";
}

TEST(Rays, WatertightIcospheresFromInside) {
  for (int s = 0; s <= 4; ++s) {
    const auto m = test::icosphere(s);
    for (const Vec3d& c : {Vec3d{0, 0, 0}, Vec3d{0.1, -0.05, 0.07}, Vec3d{-0.3, 0.2, 0.1}}) {
      expect_single_crossings(m, c, "icosphere " + std::to_string(s) + " d");
      expect_single_crossings(test::to_float(m), c.cast<float>(),
                              "icosphere " + std::to_string(s) + " f");
    }
  }
}

template <class T>
void expect_even_crossings(const TriangleMesh<T>& m, std::uint64_t seed,
                           const std::string& what) {
  const MeshIndex<T> index(m);
  const BruteForce<T> brute(m);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1);
  const Box3<T> b = m.bounds();
  const Vec3<T> center = b.center();
  const T far = T(3) * test::diagonal_length(m);
  std::vector<Vec3<T>> targets = m.vertices();
  for (const auto& [i, j] : edges_of(m))
    targets.push_back((m.vertices()[i] + m.vertices()[j]) * T(0.5));
  std::size_t odd = 0, checked = 0, mismatch = 0;
  for (std::size_t k = 0; k < targets.size(); ++k) {
    Vec3<T> d{T(g(rng)), T(g(rng)), T(g(rng))};
    d = d / std::sqrt(squared_norm(d));
    const Vec3<T> origin = center + d * far;
    const Ray<T> r{origin, targets[k] - origin};
    const std::size_t c = index.count_hits(r);
    if (c % 2 != 0 && ++odd <= 3)
      ADD_FAILURE() << what << ": odd count " << c << " for target " << k;
    if (k % 97 == 0) {  // a subsample against the twin
      ++checked;
      mismatch += brute.count_hits(r) != c;
    }
  }
  EXPECT_EQ(odd, 0u) << what << ": odd counts among " << targets.size() << " rays";
  EXPECT_EQ(mismatch, 0u) << what << ": BVH and BruteForce counts differ (" << checked
                          << " checked)";
}

TEST(Rays, EvenCrossingsFromOutsideClosedCgalMeshes) {
  for (const char* name : {"elephant.off", "cow.off", "knot1.off", "eight.off", "fandisk.off",
                           "double-torus-example.off", "anchor.off", "hand.off"}) {
    const auto m = test::cgal_mesh(name);
    expect_even_crossings(m, 3, std::string(name) + " d");
    expect_even_crossings(test::to_float(m), 3, std::string(name) + " f");
  }
}

TEST(Rays, AdversarialInputsMiss) {
  const MeshIndex<double> index(test::icosphere(2));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<Rayd> bad = {
      Rayd{{0, 0, 0}, {0, 0, 0}},          Rayd{{nan, 0, 0}, {1, 0, 0}},
      Rayd{{0, 0, 0}, {inf, 0, 0}},        Rayd{{0, 0, 0}, {1, 0, 0}, nan, 1},
      Rayd{{0, 0, 0}, {1, 0, 0}, 0, nan},  Rayd{{0, 0, 0}, {1, 0, 0}, 2, 1}};
  for (const Rayd& r : bad) {
    EXPECT_FALSE(index.first_hit(r).found());
    EXPECT_FALSE(index.any_hit(r));
    EXPECT_EQ(index.count_hits(r), 0u);
    EXPECT_TRUE(index.all_hits(r).empty());
  }
  // Axis-aligned directions (zero components) still hit; t is in direction units.
  const auto h = index.first_hit(Rayd{{0, 0, 0}, {0, 0, 2}});
  ASSERT_TRUE(h.found());
  EXPECT_NEAR(h.t, 0.5, 0.01);
  EXPECT_FALSE(h.front_face);  // the outward normal faces away from an inside origin
  const auto out = index.first_hit(Rayd{{0, 0, 5}, {0, 0, -1}});
  ASSERT_TRUE(out.found());
  EXPECT_TRUE(out.front_face);
  EXPECT_EQ(index.count_hits(Rayd{{0, 0, 5}, {0, 0, -1}}), 2u);
  EXPECT_EQ(index.count_hits(Rayd{{0, 0, 5}, {0, 0, -1}, 0, 4.5}), 1u);
}

}  // namespace
