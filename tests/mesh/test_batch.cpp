// Batch queries: bit-identical outputs for 1, 2 and 7 threads (memcmp), equal
// to the single queries, NaN queries isolated, size mismatches rejected.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <thread>

#include <tbb/global_control.h>

#include "mesh_support.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;

template <class T>
void deterministic(const TriangleMesh<T>& mesh, const std::string& what) {
  const MeshIndex<T> index(mesh);
  const std::size_t n = std::size_t(test::scaled_count(20000, 2000));
  auto points = test::query_points(mesh, n, 5);
  auto rays = test::query_rays(mesh, n, 6);
  points[17] = Vec3<T>{std::numeric_limits<T>::quiet_NaN(), T(0), T(0)};
  rays[23].direction = Vec3<T>::zero();
  using CP = MeshClosestPoint<T>;
  using RH = MeshRayHit<T>;
  std::vector<std::vector<CP>> cps;
  std::vector<std::vector<RH>> hits;
  std::vector<std::vector<std::uint8_t>> anys;
  std::vector<std::vector<std::uint32_t>> counts;
  for (int threads : {1, 2, 7}) {
    BatchOptions opt;
    opt.threads = threads;
    opt.grain = 64;
    // Zero-filled outputs, so padding bytes compare equal under memcmp.
    std::vector<CP> cp(n);
    std::vector<RH> h(n);
    std::memset(static_cast<void*>(cp.data()), 0, n * sizeof(CP));
    std::memset(static_cast<void*>(h.data()), 0, n * sizeof(RH));
    std::vector<std::uint8_t> a(n);
    std::vector<std::uint32_t> c(n);
    closest_points<MeshIndex<T>, T>(index, points, cp, ScalarTraits<T>::infinity(), opt);
    first_hits<MeshIndex<T>, T>(index, rays, h, opt);
    any_hits<MeshIndex<T>, T>(index, rays, a, opt);
    count_hits<MeshIndex<T>, T>(index, rays, c, opt);
    cps.push_back(std::move(cp));
    hits.push_back(std::move(h));
    anys.push_back(std::move(a));
    counts.push_back(std::move(c));
  }
  for (int k = 1; k < 3; ++k) {
    EXPECT_EQ(std::memcmp(cps[0].data(), cps[k].data(), n * sizeof(CP)), 0) << what;
    EXPECT_EQ(std::memcmp(hits[0].data(), hits[k].data(), n * sizeof(RH)), 0) << what;
    EXPECT_EQ(anys[0], anys[k]) << what;
    EXPECT_EQ(counts[0], counts[k]) << what;
  }
  EXPECT_FALSE(cps[0][17].found());
  EXPECT_FALSE(hits[0][23].found());
  for (std::size_t i = 0; i < n; i += 97) {
    const auto s = index.closest_point(points[i]);
    EXPECT_EQ(s.triangle, cps[0][i].triangle);
    if (s.found()) {
      EXPECT_EQ(s.sq_distance, cps[0][i].sq_distance);
    }
    EXPECT_EQ(index.first_hit(rays[i]).triangle, hits[0][i].triangle);
    EXPECT_EQ(index.count_hits(rays[i]), counts[0][i]);
  }
}

TEST(Batch, BitIdenticalForAnyThreadCount) {
  // Let TBB really start 7 threads on a small machine.
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 8);
  deterministic(test::torus(1.0, 0.3, 64, 32), "torus d");
  deterministic(test::to_float(test::cgal_mesh("elephant.off")), "elephant f");
}

TEST(Batch, BruteForceTwinAndSignedDistances) {
  const auto m = test::icosphere(2);
  const BruteForce<double> brute(m);
  const MeshIndex<double> index(m);
  const std::vector<Vec3d> pts = {{0, 0, 0}, {0, 0, 2}, {0.5, 0.1, 0}};
  std::vector<MeshSignedDistance<double>> a(3), b(3);
  signed_distances<BruteForce<double>, double>(brute, pts, a, BatchOptions{.threads = 2, .grain = 1});
  signed_distances<MeshIndex<double>, double>(index, pts, b, BatchOptions{.threads = 2, .grain = 1});
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(a[i].signed_distance, b[i].signed_distance);
    EXPECT_NEAR(a[i].winding_number, b[i].winding_number, 0.03);  // far-field approximation
  }
  EXPECT_LT(a[0].signed_distance, 0);
  EXPECT_GT(a[1].signed_distance, 0);
  EXPECT_LT(a[2].signed_distance, 0);
}

TEST(Batch, SizeMismatchThrows) {
  const MeshIndex<float> index(test::to_float(test::icosphere(1)));
  std::vector<Vec3f> pts(3);
  std::vector<MeshClosestPoint<float>> out(2);
  EXPECT_THROW((closest_points<MeshIndex<float>, float>(index, pts, out)),
               std::invalid_argument);
}

// Many short batches reuse one cached arena per thread count, from several
// user threads at once and from inside another batch (nested): every answer
// is still the single query's.
TEST(Batch, ManyShortBatchesNestedAndConcurrent) {
  const MeshIndex<double> index(test::icosphere(2));
  const auto points = test::query_points(test::icosphere(2), 300, 9);
  std::vector<MeshClosestPoint<double>> want(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) want[i] = index.closest_point(points[i]);
  auto same = [&](const std::vector<MeshClosestPoint<double>>& got) {
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i].triangle != want[i].triangle || got[i].sq_distance != want[i].sq_distance) {
        return false;
      }
    }
    return true;
  };
  const int rounds = int(test::scaled_count(200, 20));
  for (int threads : {2, 3}) {
    BatchOptions opt;
    opt.threads = threads;
    opt.grain = 16;
    for (int r = 0; r < rounds; ++r) {
      std::vector<MeshClosestPoint<double>> got(points.size());
      closest_points(index, std::span<const Vec3d>(points), std::span(got),
                     std::numeric_limits<double>::infinity(), opt);
      ASSERT_TRUE(same(got)) << "threads " << threads << " round " << r;
    }
    // Nested: each outer task runs a whole batch of its own.
    std::vector<std::uint8_t> ok(8, 0);
    batch_for_each(ok.size(), BatchOptions{.threads = threads, .grain = 1}, [&](std::size_t k) {
      std::vector<MeshClosestPoint<double>> got(points.size());
      closest_points(index, std::span<const Vec3d>(points), std::span(got),
                     std::numeric_limits<double>::infinity(), opt);
      ok[k] = same(got) ? 1 : 0;
    });
    for (std::size_t k = 0; k < ok.size(); ++k) EXPECT_EQ(ok[k], 1) << "nested task " << k;
  }
  // Concurrent: two user threads share the cached arenas.
  std::vector<std::uint8_t> ok(2, 0);
  std::vector<std::thread> users;
  for (int u = 0; u < 2; ++u) {
    users.emplace_back([&, u] {
      bool all = true;
      for (int r = 0; r < rounds / 4 + 1; ++r) {
        std::vector<MeshClosestPoint<double>> got(points.size());
        BatchOptions opt;
        opt.threads = 2;
        opt.grain = 16;
        closest_points(index, std::span<const Vec3d>(points), std::span(got),
                       std::numeric_limits<double>::infinity(), opt);
        all = all && same(got);
      }
      ok[std::size_t(u)] = all ? 1 : 0;
    });
  }
  for (auto& t : users) t.join();
  EXPECT_EQ(ok[0], 1);
  EXPECT_EQ(ok[1], 1);
}

}  // namespace
