// Bvh8 structure: valid for any options and thread count, identical for 1 and
// N build threads, boxes contain their primitives (rounded outward from
// double), refit after moving vertices equals a fresh build's answers, and
// save/load round-trips and rejects damaged files with MeshError.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include <tbb/global_control.h>

#include "../mesh/mesh_support.hpp"
#include "prox/bvh/build.hpp"
#include "prox/bvh/traverse.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;

template <class T>
void check_boxes_contain(const MeshIndex<T>& index) {
  const bvh::Bvh8& b = index.bvh();
  const auto& m = index.mesh();
  std::size_t bad = 0;
  for (const bvh::Node8& n : b.nodes)
    for (int k = 0; k < bvh::kWidth; ++k)
      for (std::uint32_t j = 0; j < n.count[k]; ++j)
        for (int c = 0; c < 3; ++c)
          for (int a = 0; a < 3; ++a) {
            const T x = m.corner(b.prims[n.child[k] + j], c)[a];
            bad += !(T(n.lo[a][k]) <= x && x <= T(n.hi[a][k]));
          }
  EXPECT_EQ(bad, 0u);
}

TEST(Bvh, ValidForOptionsAndThreads) {
  const auto m = test::cgal_mesh("elephant.off");
  for (int leaf : {1, 4, 8, 16})
    for (int bins : {4, 16, 32}) {
      const MeshIndex<double> idx(m, BuildOptions{leaf, bins, 0});
      EXPECT_EQ(bvh::validate_bvh8(idx.bvh(), m.num_triangles()), "");
      check_boxes_contain(idx);
      for (const auto& n : idx.bvh().nodes)
        for (int k = 0; k < 4; ++k) EXPECT_LE(n.count[k], std::uint32_t(leaf));
    }
}

TEST(Bvh, SameTreeForAnyThreadCount) {
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 8);
  const auto m = test::random_soup(int(test::scaled_count(60000, 20000)), 0.01, 2);
  const MeshIndex<float> a(test::to_float(m), BuildOptions{8, 16, 1});
  const MeshIndex<float> b(test::to_float(m), BuildOptions{8, 16, 2});
  const MeshIndex<float> c(test::to_float(m), BuildOptions{8, 16, 7});
  ASSERT_EQ(a.bvh().nodes.size(), b.bvh().nodes.size());
  ASSERT_EQ(a.bvh().nodes.size(), c.bvh().nodes.size());
  EXPECT_EQ(std::memcmp(a.bvh().nodes.data(), b.bvh().nodes.data(),
                        a.bvh().nodes.size() * sizeof(bvh::Node8)), 0);
  EXPECT_EQ(std::memcmp(a.bvh().nodes.data(), c.bvh().nodes.data(),
                        a.bvh().nodes.size() * sizeof(bvh::Node8)), 0);
  EXPECT_EQ(a.bvh().prims, c.bvh().prims);
  EXPECT_EQ(bvh::validate_bvh8(c.bvh(), m.num_triangles()), "");
}

// Ranges of 2^18 references or more are partitioned on several threads in
// fixed blocks (src/bvh/build.cpp, partition_parallel). A bunny-1m-sized
// build is not needed to reach it: 300k triangles, uniform and lopsided (most
// of them in one small cluster, so the root's split is far from even and the
// misplaced runs cross blocks unevenly). The tree must be valid, every leaf
// box must hold its triangles (a reference put on the wrong side would sit in
// a leaf whose box, made from the bins, does not contain it), the bytes must
// not depend on the thread count, and the answers are the brute force's.
TEST(Bvh, LargeRangesPartitionedInParallel) {
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 4);
  constexpr int kTriangles = 300000;
  for (int lopsided : {0, 1}) {
    TriangleMesh<double> m = test::random_soup(kTriangles, 0.002, 11 + lopsided);
    if (lopsided) {
      std::vector<Vec3d> v = m.vertices();
      for (std::size_t i = 0; i < v.size(); ++i)
        if (i / 3 % 10 != 0) v[i] = v[i] * 0.05 + Vec3d{0.7, 0.2, 0.4};
      m = TriangleMesh<double>(std::move(v), m.triangles());
    }
    const TriangleMesh<float> mf = test::to_float(m);
    const MeshIndex<float> a(mf, BuildOptions{8, 8, 1});
    EXPECT_EQ(bvh::validate_bvh8(a.bvh(), mf.num_triangles()), "");
    check_boxes_contain(a);
    for (int threads : {2, 4}) {
      const MeshIndex<float> b(mf, BuildOptions{8, 8, threads});
      ASSERT_EQ(a.bvh().nodes.size(), b.bvh().nodes.size());
      EXPECT_EQ(std::memcmp(a.bvh().nodes.data(), b.bvh().nodes.data(),
                            a.bvh().nodes.size() * sizeof(bvh::Node8)),
                0);
      EXPECT_EQ(a.bvh().prims, b.bvh().prims);
    }
    const BruteForce<float> brute(mf);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<float> u(-0.1f, 1.1f);
    for (int q = 0; q < 200; ++q) {
      const Vec3f p{u(rng), u(rng), u(rng)};
      const auto x = a.closest_point(p), y = brute.closest_point(p);
      EXPECT_EQ(x.triangle, y.triangle);
      EXPECT_EQ(x.sq_distance, y.sq_distance);
    }
  }
}

// The box-source build (MeshIndex's: boxes made as the builder reads them,
// runs of at most 1024, from several threads) gives the span build's tree,
// and the index's tree is that tree.
TEST(Bvh, BoxSourceBuildEqualsSpanBuild) {
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 4);
  const auto m = test::to_float(test::random_soup(int(test::scaled_count(30000, 10000)), 0.01, 5));
  std::vector<Box3<float>> boxes(m.num_triangles());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    Box3<float> b = Box3<float>::empty();
    for (int k = 0; k < 3; ++k) b.extend(m.corner(i, k));
    boxes[i] = b;
  }
  std::atomic<std::size_t> asked{0}, longest{0};
  const bvh::BoxSource source = [&](std::size_t begin, std::size_t end, Box3<float>* out) {
    asked += end - begin;
    std::size_t l = longest.load();
    while (end - begin > l && !longest.compare_exchange_weak(l, end - begin)) {
    }
    std::copy(boxes.begin() + std::ptrdiff_t(begin), boxes.begin() + std::ptrdiff_t(end), out);
  };
  const MeshIndex<float> index(m, BuildOptions{8, 8, 2});
  for (int threads : {1, 2, 4}) {
    asked = 0;
    const BuildOptions o{8, 8, threads};
    const bvh::Bvh8 a = bvh::build_bvh8(boxes, o);
    const bvh::Bvh8 b = bvh::build_bvh8(boxes.size(), source, o);
    EXPECT_EQ(asked.load(), boxes.size()) << "every box asked for once";
    EXPECT_LE(longest.load(), 1024u);
    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    EXPECT_EQ(std::memcmp(a.nodes.data(), b.nodes.data(), a.nodes.size() * sizeof(bvh::Node8)), 0);
    EXPECT_EQ(a.prims, b.prims);
    ASSERT_EQ(index.bvh().nodes.size(), a.nodes.size());
    EXPECT_EQ(std::memcmp(index.bvh().nodes.data(), a.nodes.data(),
                          a.nodes.size() * sizeof(bvh::Node8)), 0);
    EXPECT_EQ(index.bvh().prims, a.prims);
  }
  EXPECT_TRUE(bvh::build_bvh8(0, source).prims.empty());
}

TEST(Bvh, DegenerateInputs) {
  // All triangles at one point (no SAH split possible), one triangle, a line.
  std::vector<Vec3d> v(300, Vec3d{1, 2, 3});
  std::vector<test::Tri> f;
  for (std::uint32_t i = 0; i < 100; ++i) f.push_back({3 * i, 3 * i + 1, 3 * i + 2});
  const MeshIndex<double> idx(TriangleMesh<double>(v, f));
  EXPECT_EQ(bvh::validate_bvh8(idx.bvh(), 100), "");
  EXPECT_EQ(idx.closest_point(Vec3d{1, 2, 4}).triangle, 0);
  EXPECT_EQ(idx.sphere_triangles(Vec3d{1, 2, 4}, 1.0).size(), 100u);
  const MeshIndex<double> one(TriangleMesh<double>({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
                                                   {{0, 1, 2}}));
  EXPECT_EQ(one.bvh().nodes.size(), 1u);
  EXPECT_EQ(one.closest_point(Vec3d{0, 0, 1}).sq_distance, 1.0);
}

TEST(Bvh, RefitMatchesFreshBuild) {
  const auto m = test::torus(1.0, 0.3, 64, 32);
  MeshIndex<double> idx(m);
  std::vector<Vec3d> moved = m.vertices();
  for (Vec3d& p : moved) p = Vec3d{p[0] * 1.5 + 0.3 * p[2], p[1] - 0.2 * p[0] * p[0], p[2] * 3};
  idx.refit(moved);
  const BruteForce<double> fresh(TriangleMesh<double>(moved, m.triangles()));
  check_boxes_contain(idx);
  const auto& mm = idx.mesh();
  const auto pts = test::query_points(mm, std::size_t(test::scaled_count(3000, 300)), 8);
  const auto rays = test::query_rays(mm, std::size_t(test::scaled_count(3000, 300)), 9);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const auto a = idx.closest_point(pts[i]), b = fresh.closest_point(pts[i]);
    bad += a.triangle != b.triangle || a.sq_distance != b.sq_distance;
    bad += idx.first_hit(rays[i]).triangle != fresh.first_hit(rays[i]).triangle;
    bad += idx.count_hits(rays[i]) != fresh.count_hits(rays[i]);
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_THROW(idx.refit(std::vector<Vec3d>(5)), MeshError);
  std::vector<Vec3d> bad_v = moved;
  bad_v[3][1] = std::nan("");
  EXPECT_THROW(idx.refit(bad_v), MeshError);
}

TEST(Bvh, SaveLoadRoundTripAndDamage) {
  const auto m = test::to_float(test::cgal_mesh("elephant.off"));
  const MeshIndex<float> idx(m);
  std::stringstream ss;
  idx.save(ss);
  const std::string bytes = ss.str();
  std::istringstream in(bytes);
  const MeshIndex<float> back = MeshIndex<float>::load(in);
  ASSERT_EQ(back.bvh().nodes.size(), idx.bvh().nodes.size());
  EXPECT_EQ(std::memcmp(back.bvh().nodes.data(), idx.bvh().nodes.data(),
                        idx.bvh().nodes.size() * sizeof(bvh::Node8)), 0);
  EXPECT_EQ(back.bvh().prims, idx.bvh().prims);
  const auto pts = test::query_points(m, 500, 3);
  for (const Vec3f& p : pts) {
    const auto a = idx.closest_point(p), b = back.closest_point(p);
    EXPECT_EQ(a.triangle, b.triangle);
    EXPECT_EQ(a.sq_distance, b.sq_distance);
  }
  auto load_error = [](const std::string& data) -> std::string {
    std::istringstream s(data);
    try {
      (void)MeshIndex<float>::load(s);
    } catch (const MeshError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(load_error(bytes.substr(0, bytes.size() / 2)).find("ends inside"), std::string::npos);
  EXPECT_NE(load_error("not an index at all").find("magic"), std::string::npos);
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x40;
  EXPECT_NE(load_error(flipped).find("checksum"), std::string::npos);
  std::string version = bytes;
  version[8] = 9;
  EXPECT_NE(load_error(version).find("version"), std::string::npos);
  std::string huge = bytes;  // a forged triangle count fails without allocating it
  const std::uint64_t big = 2000000000ull;
  std::memcpy(&huge[8 + 16 + 8], &big, 8);
  EXPECT_NE(load_error(huge), "");
  // A double index does not load as float.
  std::stringstream sd;
  MeshIndex<double>(test::icosphere(1)).save(sd);
  std::istringstream sdi(sd.str());
  EXPECT_THROW((void)MeshIndex<float>::load(sdi), MeshError);
  // A damaged scalar size is named as such, not as "a double mesh, asked for
  // double" (found from outside, stop 40). Magic, version, byte order, then it.
  for (const std::uint32_t size : {0u, 3u, 7u, 16u}) {
    std::string bad = bytes;
    std::memcpy(&bad[8 + 4 + 4], &size, 4);
    EXPECT_NE(load_error(bad).find("bad scalar size " + std::to_string(size)), std::string::npos)
        << load_error(bad);
  }
}

}  // namespace

namespace {

// The SIMD box tests against their scalar twins (the fallback off x86): the
// same IEEE operations in the same order, so the results are bit-identical.
TEST(Bvh, SimdBoxTestsMatchScalarTwins) {
  const auto m = test::cgal_mesh("elephant.off");
  const MeshIndex<double> idx(m);
  const auto pts = test::query_points(m, 300, 1);
  const auto rays = test::query_rays(m, 300, 2);
  std::size_t bad = 0, entered = 0;
  const float g = 1.0f / 1048576.0f;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const bvh::PointQuery q(pts[i]);
    const bvh::RayQuery r(rays[i]);
    for (const bvh::Node8& n : idx.bvh().nodes) {
      bvh::F8 vlb, vub;
      bvh::box_distances8(n, q, vlb, vub);
      alignas(32) float lb[8], ub[8], t[8];
      simd::store8(lb, vlb);
      simd::store8(ub, vub);
      const unsigned mask = bvh::ray_boxes8(n, r, simd::set8(0.0f), 2.0f, t);
      for (int k = 0; k < bvh::kWidth; ++k) {
        if (n.child[k] == bvh::kInvalid) continue;
        // The scalar twin: the same IEEE operations in the same order.
        float l = 0, u = 0, tn = -INFINITY, tf = INFINITY;
        for (int a = 0; a < 3; ++a) {
          const float d0 = n.lo[a][k] - q.hi[a], d1 = q.lo[a] - n.hi[a][k];
          float d = d0 > d1 ? d0 : d1;
          d = d > 0.0f ? d : 0.0f;
          l += d * d;
          const float f0 = n.hi[a][k] - q.lo[a], f1 = q.hi[a] - n.lo[a][k];
          const float f = f0 > f1 ? f0 : f1;
          u += f * f;
          const float nb = r.neg[a] ? n.hi[a][k] : n.lo[a][k];
          const float fb = r.neg[a] ? n.lo[a][k] : n.hi[a][k];
          const float t0 = (nb - r.o_near[a]) * r.inv[a], t1 = (fb - r.o_far[a]) * r.inv[a];
          tn = t0 > tn ? t0 : tn;
          tf = t1 < tf ? t1 : tf;
        }
        tn = tn - std::fabs(tn) * g;
        tf = tf + std::fabs(tf) * g;
        tn = tn > 0.0f ? tn : (std::isnan(tn) ? tn : 0.0f);
        tf = tf < 2.0f ? tf : (std::isnan(tf) ? tf : 2.0f);
        const bool hit = tn <= tf;
        entered += hit;
        l *= bvh::kShrink;
        u *= bvh::kGrow;
        bad += std::memcmp(&lb[k], &l, 4) != 0 || std::memcmp(&ub[k], &u, 4) != 0;
        bad += hit != (((mask >> k) & 1u) != 0);
        bad += hit && std::memcmp(&t[k], &tn, 4) != 0;
      }
    }
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_GT(entered, 300u);
}

}  // namespace

namespace {

// Outward rounding to float against std::nextafter, over many magnitudes,
// signed zeros, denormals and values beyond the float range.
TEST(Bvh, FloatRoundingIsOutward) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::size_t bad = 0;
  auto check = [&](double x) {
    float rd = float(x), ru = float(x);
    if (double(rd) > x) rd = std::nextafter(rd, -std::numeric_limits<float>::infinity());
    if (double(ru) < x) ru = std::nextafter(ru, std::numeric_limits<float>::infinity());
    bad += !(bvh::float_down(x) == rd && bvh::float_up(x) == ru);
    bad += !(double(bvh::float_down(x)) <= x && x <= double(bvh::float_up(x)));
  };
  const std::int64_t n = test::scaled_count(1000000);
  for (std::int64_t i = 0; i < n; ++i) check(u(rng) * std::pow(10.0, int(u(rng) * 50)));
  for (double x : {0.0, -0.0, 1e39, -1e39, 3.5e38, -3.5e38, 1e-46, -1e-46, 1e-300, 1e300})
    check(x);
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(bvh::float_down(1.5f), 1.5f);
}

#ifdef PROX_SIMD_SSE2
// The branch-free pair (MeshIndex<double>'s triangle boxes) gives float_down's
// and float_up's floats, bit for bit, everywhere: random magnitudes, both
// signs of zero, float's subnormals and their edges, its largest values and
// past them (inf), and double's extremes.
TEST(Bvh, BranchFreeOutwardRoundingEqualsScalar) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> xs;
  const std::int64_t n = test::scaled_count(400000);
  for (std::int64_t i = 0; i < n; ++i) xs.push_back(u(rng) * std::pow(2.0, int(u(rng) * 160)));
  const float fmax = std::numeric_limits<float>::max(), fden = std::numeric_limits<float>::denorm_min();
  for (double x : {0.0, -0.0, 1e-300, -1e-300, 1e300, -1e300, 1e39, -1e39, double(fmax),
                   -double(fmax), double(fmax) * (1 + 1e-9), -double(fmax) * (1 + 1e-9),
                   double(fden), -double(fden), double(fden) / 3, -double(fden) / 3,
                   double(fden) * 0.5, -double(fden) * 0.5, double(fden) * 0.75,
                   double(std::numeric_limits<float>::min()) * (1 - 1e-9),
                   std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::denorm_min(), 0x1p120, -0x1p120, 1.0 / 3, -1.0 / 3})
    xs.push_back(x);
  std::size_t bad = 0;
  auto bits = [](float f) { return std::bit_cast<std::uint32_t>(f); };
  for (std::size_t i = 0; i < xs.size(); ++i) {  // every value in lane 0, with a partner in lane 1
    const double x[2] = {xs[i], xs[(i * 7 + 1) % xs.size()]};
    alignas(16) float d[4], up[4];
    _mm_store_ps(d, bvh::float_down2(_mm_setr_pd(x[0], x[1])));
    _mm_store_ps(up, bvh::float_up2(_mm_setr_pd(x[0], x[1])));
    for (int k = 0; k < 2; ++k) {
      bad += bits(d[k]) != bits(bvh::float_down(x[k]));
      bad += bits(up[k]) != bits(bvh::float_up(x[k]));
    }
    bad += d[2] != 0.0f || d[3] != 0.0f || up[2] != 0.0f || up[3] != 0.0f;
  }
  EXPECT_EQ(bad, 0u);
}
#endif

}  // namespace

namespace {

// A forged index with a caterpillar tree deeper than kMaxTreeDepth is
// rejected by the validator (it would overflow traversal stacks).
TEST(Bvh, ValidatorRejectsTooDeepTrees) {
  bvh::Bvh8 b;
  const int levels = bvh::kMaxTreeDepth + 5;
  std::uint32_t next_id = 0;
  auto leaf = [&](bvh::Node8& n, int k) {  // one primitive, padded to 4 slots
    n.child[k] = std::uint32_t(b.prims.size());
    n.count[k] = 1;
    b.prims.push_back(next_id++);
    for (int p = 1; p < 4; ++p) b.prims.push_back(bvh::kInvalid);
  };
  for (int l = 0; l < levels; ++l) {
    bvh::Node8 n{};
    for (int k = 0; k < bvh::kWidth; ++k) n.child[k] = bvh::kInvalid;
    for (int k = 0; k < 3; ++k) leaf(n, k);
    if (l + 1 < levels) {
      n.child[3] = std::uint32_t(l + 1);
      n.count[3] = 0;
    } else {
      leaf(n, 3);
    }
    b.nodes.push_back(n);
  }
  const std::uint32_t prims = next_id;
  EXPECT_EQ(bvh::validate_bvh8(b, prims), "tree deeper than 128 levels");
  b.nodes.resize(10);  // and a shallow one of the same kind is fine once closed
  b.nodes[9].child[3] = 0;
  b.nodes[9].count[3] = 1;
  EXPECT_NE(bvh::validate_bvh8(b, prims), "");  // prims left uncovered: still invalid
  // Misaligned leaves are rejected too.
  bvh::Bvh8 c = b;
  c.nodes.resize(1);
  c.nodes[0].child[3] = 1;
  EXPECT_NE(bvh::validate_bvh8(c, prims), "");
}

}  // namespace
