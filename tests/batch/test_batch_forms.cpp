// tests/batch/test_batch_forms.cpp — every batch form of prox/mesh/batch.hpp,
// including the list-valued ones (all_hits, sphere_triangles as BatchLists):
// byte-identical for 1, 2 and 7 threads with a small grain (so the chunks
// really differ), equal to the per-query calls, the index's equal to its
// BruteForce twin's where the twin is exact, NaN queries isolated, wrong sizes
// refused. Also MeshRayHit::bary(), the one barycentric convention.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <tbb/global_control.h>

#include "prox/io/shapes.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/brute_force.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;

template <class T>
TriangleMesh<T> mesh_of(const io::MeshData& d) {
  std::vector<Vec3<T>> v;
  for (const Vec3d& p : d.vertices) v.push_back(p.template cast<T>());
  return TriangleMesh<T>(std::move(v), d.triangles);
}

// (memcmp is never given an empty vector's data(), which may be null.)
template <class U>
bool same_bytes(std::span<const U> a, std::span<const U> b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(U)) == 0);
}

template <class U>
bool same_bytes(const std::vector<U>& a, const std::vector<U>& b) {
  return same_bytes(std::span<const U>(a), std::span<const U>(b));
}

template <class U>
bool same_bytes(const U& a, const U& b) {
  return std::memcmp(&a, &b, sizeof(U)) == 0;
}

// Queries around a mesh: points in 1.4x its box, rays from such points toward
// random surface points (so most hit, many cross several times), one NaN
// point and one zero-direction ray; radii from 0 to a tenth of the diagonal.
template <class T>
struct Queries {
  std::vector<Vec3<T>> points;
  std::vector<Ray<T>> rays;
  std::vector<T> radii;
};

template <class T>
Queries<T> queries(const TriangleMesh<T>& mesh, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.7, 0.7), w(0, 1);
  const Box3<T> box = mesh.bounds();
  const Vec3<T> c = box.center(), d = box.diagonal();
  const double diag = std::sqrt(double(dot(d, d)));
  Queries<T> q;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3<T> p = c + Vec3<T>{T(u(rng) * d[0]), T(u(rng) * d[1]), T(u(rng) * d[2])};
    q.points.push_back(p);
    const std::size_t t = std::size_t(w(rng) * double(mesh.num_triangles())) %
                          mesh.num_triangles();
    const Vec3<T> target = (mesh.corner(t, 0) + mesh.corner(t, 1) + mesh.corner(t, 2)) * T(1.0 / 3);
    q.rays.push_back(Ray<T>{p, target - p});
    q.radii.push_back(T(w(rng) * 0.1 * diag));
  }
  q.points[17] = Vec3<T>{std::numeric_limits<T>::quiet_NaN(), T(0), T(0)};
  q.rays[23].direction = Vec3<T>::zero();
  return q;
}

// Every batch form's output for one thread count, zero-filled first so that
// whole structs compare with memcmp.
template <class T>
struct Outputs {
  std::vector<MeshClosestPoint<T>> closest;
  std::vector<MeshRayHit<T>> first;
  std::vector<std::uint8_t> any, overlaps, overlaps_one_radius;
  std::vector<std::uint32_t> counts;
  std::vector<MeshSignedDistance<T>> signed_distance;
  std::vector<T> winding, exact_winding;
  BatchLists<MeshRayHit<T>> all;
  BatchLists<std::uint32_t> spheres;
};

template <class U>
std::vector<U> zeroed(std::size_t n) {
  std::vector<U> v(n);
  std::memset(static_cast<void*>(v.data()), 0, n * sizeof(U));
  return v;
}

template <class T>
Outputs<T> run_all(const MeshIndex<T>& index, const Queries<T>& q, int threads) {
  const std::size_t n = q.points.size();
  BatchOptions opt;
  opt.threads = threads;
  opt.grain = 16;
  Outputs<T> o;
  o.closest = zeroed<MeshClosestPoint<T>>(n);
  o.first = zeroed<MeshRayHit<T>>(n);
  o.signed_distance = zeroed<MeshSignedDistance<T>>(n);
  o.any.resize(n);
  o.overlaps.resize(n);
  o.overlaps_one_radius.resize(n);
  o.counts.resize(n);
  o.winding.resize(n);
  o.exact_winding.resize(n);
  const std::span<const Vec3<T>> points(q.points);
  const std::span<const Ray<T>> rays(q.rays);
  const std::span<const T> radii(q.radii);
  const T one_radius[1] = {q.radii[5]};
  closest_points(index, points, std::span<MeshClosestPoint<T>>(o.closest),
                 ScalarTraits<T>::infinity(), opt);
  first_hits(index, rays, std::span<MeshRayHit<T>>(o.first), opt);
  any_hits(index, rays, std::span<std::uint8_t>(o.any), opt);
  count_hits(index, rays, std::span<std::uint32_t>(o.counts), opt);
  o.all = all_hits(index, rays, opt);
  sphere_overlaps(index, points, radii, std::span<std::uint8_t>(o.overlaps), opt);
  sphere_overlaps(index, points, std::span<const T>(one_radius),
                  std::span<std::uint8_t>(o.overlaps_one_radius), opt);
  o.spheres = sphere_triangles(index, points, radii, opt);
  signed_distances(index, points, std::span<MeshSignedDistance<T>>(o.signed_distance), opt);
  winding_numbers(index, points, std::span<T>(o.winding), opt);
  exact_winding_numbers(index, points, std::span<T>(o.exact_winding), opt);
  return o;
}

template <class T>
void expect_same_outputs(const Outputs<T>& a, const Outputs<T>& b, int threads) {
  EXPECT_TRUE(same_bytes(a.closest, b.closest)) << threads;
  EXPECT_TRUE(same_bytes(a.first, b.first)) << threads;
  EXPECT_EQ(a.any, b.any) << threads;
  EXPECT_EQ(a.counts, b.counts) << threads;
  EXPECT_EQ(a.all.offsets, b.all.offsets) << threads;
  EXPECT_TRUE(same_bytes(a.all.items, b.all.items)) << threads;
  EXPECT_EQ(a.overlaps, b.overlaps) << threads;
  EXPECT_EQ(a.overlaps_one_radius, b.overlaps_one_radius) << threads;
  EXPECT_EQ(a.spheres.offsets, b.spheres.offsets) << threads;
  EXPECT_EQ(a.spheres.items, b.spheres.items) << threads;
  EXPECT_TRUE(same_bytes(a.signed_distance, b.signed_distance)) << threads;
  EXPECT_TRUE(same_bytes(a.winding, b.winding)) << threads;
  EXPECT_TRUE(same_bytes(a.exact_winding, b.exact_winding)) << threads;
}

// Slot i of every batch output is the per-query call's answer, byte for byte.
template <class T>
void expect_per_query(const MeshIndex<T>& index, const Queries<T>& q, const Outputs<T>& o) {
  const std::size_t n = q.points.size();
  ASSERT_EQ(o.all.size(), n);
  ASSERT_EQ(o.spheres.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3<T>& p = q.points[i];
    const Ray<T>& r = q.rays[i];
    ASSERT_TRUE(same_bytes(o.closest[i], index.closest_point(p))) << i;
    ASSERT_TRUE(same_bytes(o.first[i], index.first_hit(r))) << i;
    ASSERT_EQ(o.any[i], index.any_hit(r) ? 1 : 0) << i;
    ASSERT_EQ(o.counts[i], index.count_hits(r)) << i;
    const std::vector<MeshRayHit<T>> hits = index.all_hits(r);
    ASSERT_TRUE(same_bytes(o.all[i], std::span<const MeshRayHit<T>>(hits))) << i;
    ASSERT_EQ(o.overlaps[i], index.sphere_overlaps(p, q.radii[i]) ? 1 : 0) << i;
    ASSERT_EQ(o.overlaps_one_radius[i], index.sphere_overlaps(p, q.radii[5]) ? 1 : 0) << i;
    const std::vector<std::uint32_t> tris = index.sphere_triangles(p, q.radii[i]);
    ASSERT_EQ(std::vector<std::uint32_t>(o.spheres[i].begin(), o.spheres[i].end()), tris) << i;
    ASSERT_TRUE(same_bytes(o.signed_distance[i], index.signed_distance(p))) << i;
    ASSERT_TRUE(same_bytes(o.winding[i], index.winding_number(p))) << i;
    ASSERT_TRUE(same_bytes(o.exact_winding[i], index.exact_winding_number(p))) << i;
  }
}

template <class T>
void check_mesh(const TriangleMesh<T>& mesh, std::size_t n) {
  const MeshIndex<T> index(mesh);
  const Queries<T> q = queries(mesh, n, 11);
  const Outputs<T> one = run_all(index, q, 1);
  for (int threads : {2, 7}) expect_same_outputs(one, run_all(index, q, threads), threads);
  expect_per_query(index, q, one);
  // The workload exercises what it claims: many rays cross more than once,
  // spheres hold triangles, and the NaN / zero-direction queries miss.
  std::size_t multi = 0, sphere_hits = 0;
  for (std::size_t i = 0; i < n; ++i) {
    multi += one.all[i].size() >= 2;
    sphere_hits += !one.spheres[i].empty();
  }
  EXPECT_GT(multi, n / 4);
  EXPECT_GT(sphere_hits, n / 10);
  EXPECT_FALSE(one.closest[17].found());
  EXPECT_TRUE(one.spheres[17].empty());
  EXPECT_EQ(one.overlaps[17], 0);
  EXPECT_FALSE(one.first[23].found());
  EXPECT_TRUE(one.all[23].empty());
  EXPECT_EQ(one.all.offsets.back(), one.all.items.size());
}

TEST(BatchForms, IdenticalForAnyThreadCountAndEqualToSingleQueries) {
  // Let TBB really start 7 threads on a small machine.
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 8);
  const std::size_t n = std::size_t(test::scaled_count(3000, 400));
  check_mesh(mesh_of<double>(io::make_torus(1.0, 0.35, 64, 24)), n);
  check_mesh(mesh_of<float>(io::make_knot(0.45, 128, 12)), n);
}

TEST(BatchForms, ListFormsMatchTheBruteForceTwin) {
  const TriangleMesh<double> mesh = mesh_of<double>(io::make_sphere(1.0, 12, 24));
  const MeshIndex<double> index(mesh);
  const BruteForce<double> brute(mesh);
  const Queries<double> q = queries(mesh, 300, 3);
  const BatchOptions opt{.threads = 2, .grain = 8};
  const std::span<const Vec3d> points(q.points);
  const std::span<const Ray<double>> rays(q.rays);
  const std::span<const double> radii(q.radii);
  const auto a = sphere_triangles(index, points, radii, opt);
  const auto b = sphere_triangles(brute, points, radii, opt);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.items, b.items);
  const auto ha = all_hits(index, rays, opt), hb = all_hits(brute, rays, opt);
  EXPECT_EQ(ha.offsets, hb.offsets);
  ASSERT_EQ(ha.items.size(), hb.items.size());
  for (std::size_t k = 0; k < ha.items.size(); ++k) {
    EXPECT_EQ(ha.items[k].triangle, hb.items[k].triangle) << k;
    EXPECT_EQ(ha.items[k].t, hb.items[k].t) << k;
  }
  // The exact winding number is the twin's sum, bit for bit (mesh_index.hpp).
  std::vector<double> wa(q.points.size()), wb(q.points.size());
  exact_winding_numbers(index, points, std::span<double>(wa), opt);
  winding_numbers(brute, points, std::span<double>(wb), opt);
  EXPECT_TRUE(same_bytes(wa, wb));
}

TEST(BatchForms, GenericHelpersAndEmptyBatches) {
  std::vector<int> squares(1000);
  batch_map(std::span<int>(squares), [](std::size_t i) { return int(i * i); }, {.threads = 3, .grain = 7});
  for (std::size_t i = 0; i < squares.size(); ++i) ASSERT_EQ(squares[i], int(i * i));
  // Query i has i % 4 answers, i, i+1, ...: packed in query order for any thread count.
  const auto lists = batch_lists<std::size_t>(
      500, [](std::size_t i) { return std::vector<std::size_t>(i % 4, i); }, {4, 3});
  ASSERT_EQ(lists.size(), 500u);
  for (std::size_t i = 0; i < 500; ++i) {
    ASSERT_EQ(lists[i].size(), i % 4);
    for (std::size_t v : lists[i]) ASSERT_EQ(v, i);
  }
  const auto none = batch_lists<int>(0, [](std::size_t) { return std::vector<int>{1}; });
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.offsets, std::vector<std::size_t>{0});
}

TEST(BatchForms, WrongSizesThrow) {
  const MeshIndex<float> index(mesh_of<float>(io::make_sphere(1.0, 4, 6)));
  const std::vector<Vec3f> centers(3);
  const std::vector<float> two_radii(2, 0.5f), no_radii;
  std::vector<std::uint8_t> out3(3), out2(2);
  const std::span<const Vec3f> c(centers);
  EXPECT_THROW(sphere_overlaps(index, c, std::span<const float>(two_radii),
                               std::span<std::uint8_t>(out3)),
               std::invalid_argument);
  EXPECT_THROW(sphere_overlaps(index, c, std::span<const float>(two_radii).first(1),
                               std::span<std::uint8_t>(out2)),
               std::invalid_argument);
  EXPECT_THROW(sphere_triangles(index, c, std::span<const float>(no_radii)),
               std::invalid_argument);
  std::vector<float> w(2);
  EXPECT_THROW(exact_winding_numbers(index, c, std::span<float>(w)), std::invalid_argument);
}

TEST(RayHitBary, ThreeWeightsLikeClosestPoint) {
  // A ray straight down onto the triangle (0,0,0) (4,0,0) (0,2,0) at (1, 0.5):
  // weights of corners 0, 1, 2 are 0.5, 0.25, 0.25, and they rebuild the hit point.
  const TriangleMesh<double> mesh({{0, 0, 0}, {4, 0, 0}, {0, 2, 0}}, {{{0, 1, 2}}});
  const MeshIndex<double> index(mesh);
  const MeshRayHit<double> h = index.first_hit(Ray<double>{{1, 0.5, 3}, {0, 0, -1}});
  ASSERT_TRUE(h.found());
  const Vec3d b = h.bary();
  EXPECT_EQ(b[0], 1.0 - h.u - h.v);
  EXPECT_EQ(b[1], h.u);
  EXPECT_EQ(b[2], h.v);
  EXPECT_DOUBLE_EQ(b[0], 0.5);
  EXPECT_DOUBLE_EQ(b[1], 0.25);
  EXPECT_DOUBLE_EQ(b[2], 0.25);
  // The same weights closest_point reports for the point straight below the origin.
  const MeshClosestPoint<double> cp = index.closest_point({1, 0.5, 3});
  for (int k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(b[k], cp.bary[k]) << k;
  const MeshRayHit<double> miss = index.first_hit(Ray<double>{{9, 9, 3}, {0, 0, -1}});
  ASSERT_FALSE(miss.found());
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(std::isnan(miss.bary()[k])) << k;
}

}  // namespace
