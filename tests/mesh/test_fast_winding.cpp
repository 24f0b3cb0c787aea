// tests/mesh/test_fast_winding.cpp — the certified fast winding number
// (prox/mesh/fast_winding.hpp) and its use by SignedMesh's winding method.
//
// Oracles: analytic inside/outside (sphere and torus, points kept clear of the
// polyhedral surface by its sagitta), exact ray parity (exactly-once crossing counts) on
// CGAL meshes, and the exact O(n) sum (MeshIndex::exact_winding_number, equal
// to BruteForce's bit for bit) for the bound itself: |w_fast - w_exact| must
// never exceed the reported bound, and a decision taken from a certified
// answer must be the exact sum's wherever the exact w is not within 1e-9 of a
// threshold.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <random>
#include <thread>

#include "../support/scale.hpp"
#include "mesh_support.hpp"
#include "prox/mesh/fast_winding.hpp"
#include "prox/mesh/sign.hpp"

namespace prox {
namespace {

using test::Tri;

constexpr double kSign[6] = {-0.7, -0.5, -0.3, 0.3, 0.5, 0.7};

/// SignedMesh's decision: inside (|w| >= 1/2) and sure (|w| not in (0.3, 0.7)).
std::pair<bool, bool> decision(double w) {
  const double a = std::abs(w);
  return {a >= 0.5, !(a > 0.3 && a < 0.7)};
}

/// The decision SignedMesh takes from a certified answer: an integral one (a
/// closed mesh, off the surface) is the integer round(w), sure.
template <class T>
std::pair<bool, bool> decided(const CertifiedWinding<T>& c) {
  if (c.integral) return {std::abs(std::nearbyint(double(c.winding_number))) >= 1, true};
  return decision(double(c.winding_number));
}

/// Whether w lies within `margin` of a decision threshold.
bool near_threshold(double w, double margin) {
  for (double t : kSign)
    if (std::abs(w - t) <= margin) return true;
  return false;
}

/// Removes every triangle whose first corner lies in one of `holes` balls.
TriangleMesh<double> with_holes(const TriangleMesh<double>& m, const std::vector<Vec3d>& centers,
                                double radius) {
  std::vector<Tri> f;
  for (std::size_t t = 0; t < m.num_triangles(); ++t) {
    bool cut = false;
    for (const Vec3d& c : centers) cut |= squared_norm(m.corner(t, 0) - c) < radius * radius;
    if (!cut) f.push_back(m.triangles()[t]);
  }
  return TriangleMesh<double>(m.vertices(), std::move(f));
}

/// Checks every certified answer of `pts` against the exact sum; returns the
/// count of exact fall-backs.
template <class T>
std::size_t check_against_exact(const MeshIndex<T>& index, const FastWindingNumber<T>& fast,
                                const std::vector<Vec3<T>>& pts, const char* what) {
  std::size_t fallbacks = 0, wrong = 0, loose = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double exact = double(index.exact_winding_number(pts[i]));
    const CertifiedWinding<T> c = fast.decide_sign(pts[i]);
    if (c.exact) {
      ++fallbacks;
      EXPECT_EQ(double(c.winding_number), exact) << what << " point " << i;
      continue;
    }
    // The bound is a bound (the exact sum's own rounding: 1e-12).
    if (!(std::abs(double(c.winding_number) - exact) <= c.error_bound + 1e-12)) ++loose;
    // And a certified decision is the exact sum's.
    if (!near_threshold(exact, 1e-9) && decided(c) != decision(exact)) ++wrong;
  }
  EXPECT_EQ(loose, 0u) << what;
  EXPECT_EQ(wrong, 0u) << what;
  return fallbacks;
}

TEST(FastWinding, LabelledPointsOnClosedMeshes) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  const std::size_t n = std::size_t(test::scaled_count(3000, 300));
  // Icosphere (radius 1; the polyhedron lies between cos(max half-edge angle) and 1).
  {
    const TriangleMesh<double> m = test::icosphere(4);
    const MeshIndex<double> index(m);
    const FastWindingNumber<double> fast(index);
    std::size_t wrong = 0, unsure = 0, done = 0, fallbacks = 0;
    while (done < n) {
      const Vec3d p{1.5 * u(rng), 1.5 * u(rng), 1.5 * u(rng)};
      const double r = std::sqrt(squared_norm(p));
      if (r > 0.995 && r < 1.0 + 1e-9) continue;  // between the polyhedron and the sphere
      ++done;
      const CertifiedWinding<double> c = fast.decide_sign(p);
      fallbacks += c.exact;
      const auto [inside, sure] = decided(c);
      wrong += inside != (r < 1.0);
      unsure += !sure;
    }
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(unsure, 0u);
    // Nothing lies near the surface, yet a few points deep inside see the whole
    // sphere close by, and the bound does not settle them within the work cap:
    // the exact sum answers those (right, as checked above).
    EXPECT_LT(fallbacks, n / 100 + 1);
  }
  // Torus R = 1, r = 0.3 (48 x 24: sagitta < 0.003).
  {
    const TriangleMesh<double> m = test::torus(1.0, 0.3, 48, 24);
    const MeshIndex<double> index(m);
    const FastWindingNumber<double> fast(index);
    std::size_t wrong = 0, unsure = 0, done = 0;
    while (done < n) {
      const Vec3d p{1.5 * u(rng), 1.5 * u(rng), 0.5 * u(rng)};
      const double q = std::hypot(std::hypot(p[0], p[1]) - 1.0, p[2]);
      if (std::abs(q - 0.3) < 0.02) continue;
      ++done;
      const auto [inside, sure] = decided(fast.decide_sign(p));
      wrong += inside != (q < 0.3);
      unsure += !sure;
    }
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(unsure, 0u);
  }
  // CGAL meshes against 5-ray exact parity (exactly-once crossing counts;
  // MeshIndex::count_hits, which test_rays holds equal to BruteForce's).
  for (const char* name : {"elephant.off", "knot1.off", "cube.off", "bunny00.off"}) {
    const TriangleMesh<double> m = test::cgal_mesh(name);
    const MeshIndex<double> index(m);
    const MeshIndex<double>& bf = index;
    const FastWindingNumber<double> fast(index);
    const double diag = test::diagonal_length(m);
    const std::size_t k = std::size_t(test::scaled_count(400, 60));
    std::vector<Vec3d> pts = test::query_points(m, 2 * k, 11);
    std::size_t wrong = 0, unsure = 0, checked = 0;
    std::normal_distribution<double> g(0, 1);
    for (std::size_t i = 0; i < pts.size(); ++i) {
      if (i % 4 >= 2) continue;  // near and box points (not vertices, edge midpoints)
      const Vec3d& p = pts[i];
      if (index.closest_point(p).sq_distance < 1e-8 * diag * diag) continue;
      int odd = 0;
      for (int r = 0; r < 5; ++r)
        odd += bf.count_hits(Ray<double>{p, Vec3d{g(rng), g(rng), g(rng)}, 0.0,
                                         ScalarTraits<double>::infinity()}) % 2;
      const auto [inside, sure] = decided(fast.decide_sign(p));
      wrong += inside != (odd >= 3);
      unsure += !sure;
      ++checked;
    }
    EXPECT_EQ(wrong, 0u) << name;
    EXPECT_EQ(unsure, 0u) << name;
    EXPECT_GT(checked, k / 2) << name;
  }
}

TEST(FastWinding, NearTheSurfaceFallsBackWhereItMust) {
  const TriangleMesh<double> m = test::cgal_mesh("elephant.off");
  const MeshIndex<double> index(m);
  const FastWindingNumber<double> fast(index);
  const std::size_t n = std::size_t(test::scaled_count(600, 60));
  for (const double off : {1e-9, 1e-12}) {
    const std::vector<Vec3d> pts = test::offset_points(m, off, n, off == 1e-9 ? 3 : 4);
    const std::size_t fb = check_against_exact(index, fast, pts, "offset");
    // Off the face interiors by 1e-9 of the diagonal the bound still decides.
    if (off == 1e-9) {
      EXPECT_LT(fb, pts.size() / 10);
    }
    // The exact sum decides these points: inside at -off, outside at +off.
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const auto [inside, sure] = decided(fast.decide_sign(pts[i]));
      EXPECT_EQ(inside, i % 2 == 1) << off << " " << i;
      EXPECT_TRUE(sure);
    }
  }
  // On edges and corners (within rounding of them) nothing can be certified:
  // the answer must be the exact sum's.
  std::vector<Vec3d> on;
  for (std::size_t t = 0; t < m.num_triangles() && on.size() < n; t += 7) {
    on.push_back((m.corner(t, 0) + m.corner(t, 1)) * 0.5);
    on.push_back(m.corner(t, 2));
  }
  std::size_t fallbacks = 0;
  for (const Vec3d& p : on) {
    const CertifiedWinding<double> c = fast.decide_sign(p);
    fallbacks += c.exact;
    if (c.exact) {
      EXPECT_EQ(c.winding_number, index.exact_winding_number(p));
    }
  }
  EXPECT_EQ(fallbacks, on.size());
}

TEST(FastWinding, OpenMeshesAgainstTheExactSum) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  const int meshes = int(test::scaled_count(12, 3));
  const std::size_t n = std::size_t(test::scaled_count(400, 50));
  std::size_t total = 0, fallbacks = 0;
  for (int k = 0; k < meshes; ++k) {
    // Random holes in an icosphere or a torus, and random soups.
    TriangleMesh<double> base = k % 3 == 0   ? test::icosphere(3)
                                : k % 3 == 1 ? test::torus(1.0, 0.4, 32, 16)
                                             : test::random_soup(300, 0.2, std::uint64_t(k));
    std::vector<Vec3d> centers;
    for (int h = 0; h < 1 + k % 4; ++h) centers.push_back(Vec3d{u(rng), u(rng), u(rng)});
    const TriangleMesh<double> m = k % 3 == 2 ? base : with_holes(base, centers, 0.5);
    if (m.num_triangles() == 0) continue;
    const MeshIndex<double> index(m);
    const FastWindingNumber<double> fast(index);
    std::vector<Vec3d> pts = test::query_points(m, n, std::uint64_t(100 + k));
    for (std::size_t i = 0; i < n / 4; ++i) pts.push_back(Vec3d{1.3 * u(rng), 1.3 * u(rng), 1.3 * u(rng)});
    fallbacks += check_against_exact(index, fast, pts, "open");
    total += pts.size();
  }
  // Vertices and edge midpoints (half of query_points' rotation) must fall
  // back; the rest mostly not.
  EXPECT_LT(fallbacks, total * 3 / 4);
}

TEST(FastWinding, TheBoundIsABound) {
  for (const char* name : {"elephant-with-holes.off", "knot1.off", "mesh_with_border.off"}) {
    const TriangleMesh<double> m = test::cgal_mesh(name);
    const MeshIndex<double> index(m);
    const FastWindingNumber<double> fast(index);
    const std::size_t n = std::size_t(test::scaled_count(300, 40));
    const std::vector<Vec3d> pts = test::query_points(m, n, 17);
    std::size_t loose = 0, over = 0, certified = 0;
    for (const double tol : {0.3, 0.05, 1e-3}) {
      for (std::size_t i = 0; i < pts.size(); ++i) {
        const CertifiedWinding<double> c = fast.evaluate(pts[i], tol);
        if (c.exact) continue;
        ++certified;
        const double exact = index.exact_winding_number(pts[i]);
        loose += !(std::abs(c.winding_number - exact) <= c.error_bound + 1e-12);
        over += !(c.error_bound <= tol);
      }
    }
    EXPECT_EQ(loose, 0u) << name;
    EXPECT_EQ(over, 0u) << name;
    EXPECT_GT(certified, pts.size()) << name;  // most of the 3 x n answers are certified
  }
  // Float meshes: the same bound (the corners are exact in double).
  const TriangleMesh<float> mf = test::to_float(test::cgal_mesh("elephant-with-holes.off"));
  const MeshIndex<float> index(mf);
  const FastWindingNumber<float> fast(index);
  // The oracle: the same (float) corners summed exactly in double.
  std::vector<Vec3d> vd;
  for (const Vec3f& v : mf.vertices()) vd.push_back(v.cast<double>());
  const MeshIndex<double> twin(TriangleMesh<double>(std::move(vd), mf.triangles()));
  const std::vector<Vec3f> pts = test::query_points(mf, std::size_t(test::scaled_count(200, 40)), 3);
  for (const Vec3f& p : pts) {
    const CertifiedWinding<float> c = fast.evaluate(p, 0.01);
    if (c.exact) continue;
    EXPECT_LE(std::abs(double(c.winding_number) - twin.exact_winding_number(p.cast<double>())),
              c.error_bound + 1e-12);
  }
}

TEST(FastWinding, SignedMeshMatchesTheExactSum) {
  // SignedMesh over MeshIndex (certified fast winding) against SignedMesh over
  // BruteForce (the exact sum): the same sign and confidence everywhere.
  for (const char* name : {"elephant-with-holes.off", "mesh_with_border.off", "elephant.off"}) {
    const TriangleMesh<double> m = test::cgal_mesh(name);
    const MeshIndex<double> index(m);
    const BruteForce<double> bf(m);
    const SignedMesh<MeshIndex<double>> fast(index, {SignMethod::winding});
    const SignedMesh<BruteForce<double>> slow(bf, {SignMethod::winding});
    const std::vector<Vec3d> pts = test::query_points(m, std::size_t(test::scaled_count(400, 40)), 23);
    std::size_t differ = 0;
    for (const Vec3d& p : pts) {
      const SignedClosestPoint<double> a = fast.query(p), b = slow.query(p);
      if (std::isnan(b.winding_number)) {  // on the surface: not signed by w
        EXPECT_TRUE(std::isnan(a.winding_number));
        continue;
      }
      if (near_threshold(b.winding_number, 1e-9)) continue;
      differ += a.inside() != b.inside() || a.confidence != b.confidence;
      // (the exact sum's own rounding: 1e-12, 1e-9 beside the integer of a closed mesh)
      EXPECT_LE(std::abs(a.winding_number - b.winding_number),
                a.winding_error + (a.winding_error == 0 ? 1e-9 : 1e-12));
    }
    EXPECT_EQ(differ, 0u) << name;
  }
}

TEST(FastWinding, EdgeCases) {
  // Non-finite point: NaN from the exact path. An empty mesh: 0.
  const MeshIndex<double> index(test::icosphere(1));
  const FastWindingNumber<double> fast(index);
  const CertifiedWinding<double> nan = fast.decide_sign(Vec3d{std::nan(""), 0, 0});
  EXPECT_TRUE(nan.exact);
  EXPECT_TRUE(std::isnan(nan.winding_number));
  const MeshIndex<double> empty(TriangleMesh<double>(std::vector<Vec3d>{}, std::vector<Tri>{}));
  const FastWindingNumber<double> none(empty);
  EXPECT_EQ(none.decide_sign(Vec3d{0, 0, 0}).winding_number, 0.0);
  // Far away: certified at once, with few clusters and no triangle.
  const CertifiedWinding<double> far = fast.decide_sign(Vec3d{100, 0, 0});
  EXPECT_FALSE(far.exact);
  EXPECT_EQ(far.triangles, 0u);
  EXPECT_LE(far.clusters, 8u);
  // The centre of the sphere: certified inside (a closed mesh: the integer 1,
  // from the traversal the first time, from the grid's component afterwards).
  EXPECT_TRUE(fast.closed());
  for (int pass = 0; pass < 2; ++pass) {
    const CertifiedWinding<double> c = fast.decide_sign(Vec3d{0, 0, 0});
    EXPECT_FALSE(c.exact);
    EXPECT_TRUE(c.integral);
    EXPECT_NEAR(c.winding_number, 1.0, c.error_bound);
    EXPECT_GT(c.winding_number - c.error_bound, 0.5);
    EXPECT_LT(c.winding_number + c.error_bound, 1.5);
    if (pass == 1) {
      EXPECT_EQ(c.error_bound, 0.0);
    }
  }
  // A tiny tolerance is met (or the exact sum is returned).
  const CertifiedWinding<double> t = fast.evaluate(Vec3d{0.2, 0.1, 0.3}, 1e-9);
  EXPECT_TRUE(t.exact || t.error_bound <= 1e-9);
  EXPECT_NEAR(t.winding_number, index.exact_winding_number(Vec3d{0.2, 0.1, 0.3}), 1e-9 + 1e-12);
}

/// The mesh with every triangle's orientation reversed (w -> -w).
TriangleMesh<double> flipped(const TriangleMesh<double>& m) {
  std::vector<Tri> f = m.triangles();
  for (Tri& t : f) std::swap(t[1], t[2]);
  return TriangleMesh<double>(m.vertices(), std::move(f));
}

/// Every triangle twice (w -> 2w).
TriangleMesh<double> doubled(const TriangleMesh<double>& m) {
  std::vector<Tri> f = m.triangles();
  f.insert(f.end(), m.triangles().begin(), m.triangles().end());
  return TriangleMesh<double>(m.vertices(), std::move(f));
}

/// Three fresh vertices per triangle, triangles shuffled: the same surface.
TriangleMesh<double> soup(const TriangleMesh<double>& m, std::uint64_t seed) {
  std::vector<std::size_t> order(m.num_triangles());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<Vec3d> v;
  std::vector<Tri> f;
  for (const std::size_t t : order) {
    const std::uint32_t b = std::uint32_t(v.size());
    for (int k = 0; k < 3; ++k) v.push_back(m.corner(t, k));
    f.push_back(Tri{b, b + 1, b + 2});
  }
  return TriangleMesh<double>(std::move(v), std::move(f));
}

/// One triangle reversed: no longer closed as a chain.
TriangleMesh<double> one_flipped(const TriangleMesh<double>& m) {
  std::vector<Tri> f = m.triangles();
  std::swap(f[f.size() / 2][1], f[f.size() / 2][2]);
  return TriangleMesh<double>(m.vertices(), std::move(f));
}

TEST(FastWinding, ClosedMeshesAnswerIntegers) {
  // Closed meshes (zero boundary chain) and their flipped, doubled and soup
  // versions: every integral answer must be the integer the exact sum rounds
  // to, and most box points must come straight from the grid. One flipped
  // face or holes: not closed, the threshold answers as before.
  const TriangleMesh<double> elephant = test::cgal_mesh("elephant.off");
  struct Case {
    const char* what;
    TriangleMesh<double> mesh;
    bool closed;
  };
  std::vector<Case> cases;
  cases.push_back({"elephant", elephant, true});
  cases.push_back({"flipped", flipped(elephant), true});
  cases.push_back({"doubled", doubled(elephant), true});
  cases.push_back({"soup", soup(elephant, 9), true});
  cases.push_back({"one flipped", one_flipped(elephant), false});
  cases.push_back({"with holes", with_holes(elephant, {elephant.corner(0, 0)}, 0.05), false});
  cases.push_back({"torus", test::torus(1.0, 0.3, 40, 20), true});
  const std::size_t n = std::size_t(test::scaled_count(300, 40));
  for (const Case& k : cases) {
    const MeshIndex<double> index(k.mesh);
    const FastWindingNumber<double> fast(index);
    EXPECT_EQ(fast.closed(), k.closed) << k.what;
    EXPECT_EQ(fast.grid_cells() > 0, k.closed) << k.what;
    const double diag = test::diagonal_length(k.mesh);
    const std::vector<Vec3d> pts = test::query_points(k.mesh, n, 31);
    std::size_t wrong = 0, loose = 0, integral = 0, from_grid = 0, box = 0, box_grid = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const Vec3d& p = pts[i];
      const double exact = index.exact_winding_number(p);
      const CertifiedWinding<double> c = fast.decide_sign(p);
      const bool grid = c.integral && c.clusters == 0 && c.triangles == 0 && !c.exact;
      if (i % 4 == 1) {  // query_points: near, box, vertex, edge-midpoint in turn
        ++box;
        box_grid += grid;
      }
      if (c.exact) {
        EXPECT_EQ(c.winding_number, exact) << k.what << " " << i;
        continue;
      }
      if (!c.integral) {
        loose += !(std::abs(c.winding_number - exact) <= c.error_bound + 1e-12);
        wrong += !near_threshold(exact, 1e-9) && decision(c.winding_number) != decision(exact);
        continue;
      }
      EXPECT_TRUE(k.closed) << k.what;
      ++integral;
      from_grid += grid;
      // An integral answer is the integer itself (bound 0), and only off the
      // surface, where a closed mesh's w is an integer: the exact sum lies
      // within its own rounding of it.
      EXPECT_EQ(c.error_bound, 0.0) << k.what;
      EXPECT_EQ(c.winding_number, std::nearbyint(c.winding_number)) << k.what;
      EXPECT_GT(index.closest_point(p).sq_distance, 0.0) << k.what << " " << i;
      wrong += std::abs(exact - c.winding_number) > 1e-9 * (1 + diag);
    }
    EXPECT_EQ(wrong, 0u) << k.what;
    EXPECT_EQ(loose, 0u) << k.what;
    if (k.closed) {
      EXPECT_GT(integral, pts.size() / 3) << k.what;
      EXPECT_GT(box_grid, box / 2) << k.what;  // the grid answers most box points
    } else {
      EXPECT_EQ(integral, 0u) << k.what;
    }
  }
}

TEST(FastWinding, GridLearntFromManyThreads) {
  // Components learn their integer lazily from whichever thread certifies it
  // first; the decisions must not depend on the order.
  const TriangleMesh<double> m = test::cgal_mesh("knot1.off");
  const MeshIndex<double> index(m);
  const FastWindingNumber<double> serial(index);
  const FastWindingNumber<double> parallel(index);
  const std::vector<Vec3d> pts = test::query_points(m, std::size_t(test::scaled_count(800, 80)), 41);
  std::vector<std::pair<bool, bool>> want(pts.size()), got(pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) want[i] = decided(serial.decide_sign(pts[i]));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t i = std::size_t(t); i < pts.size(); i += 4) got[i] = decided(parallel.decide_sign(pts[i]));
    });
  for (std::thread& t : threads) t.join();
  std::size_t differ = 0;
  for (std::size_t i = 0; i < pts.size(); ++i)
    differ += want[i] != got[i] && !near_threshold(index.exact_winding_number(pts[i]), 1e-9);
  EXPECT_EQ(differ, 0u);
  // An integral answer is the same number whether the grid had learnt it or
  // the traversal found it (a fresh object: nothing learnt yet).
  const FastWindingNumber<double> fresh(index);
  std::size_t unequal = 0, integral = 0;
  for (const Vec3d& p : pts) {
    const CertifiedWinding<double> a = fresh.decide_sign(p), b = parallel.decide_sign(p);
    if (!a.integral || !b.integral) continue;
    ++integral;
    unequal += a.winding_number != b.winding_number || a.error_bound != b.error_bound;
  }
  EXPECT_EQ(unequal, 0u);
  EXPECT_GT(integral, pts.size() / 3);
}

TEST(FastWinding, SharedIsBuiltOncePerIndex) {
  const TriangleMesh<double> m = test::icosphere(3);
  MeshIndex<double> index(m);
  const MeshIndex<double> other(m);
  std::vector<std::shared_ptr<const FastWindingNumber<double>>> got(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] { got[t] = FastWindingNumber<double>::shared(index); });
  for (std::thread& t : threads) t.join();
  for (const auto& g : got) EXPECT_EQ(g.get(), got[0].get());
  EXPECT_EQ(&got[0]->index(), &index);
  EXPECT_NE(FastWindingNumber<double>::shared(other).get(), got[0].get());
  // Two SignedMeshes on one index (sharing it): the same integer.
  const SignedMesh<MeshIndex<double>> s1(index, {SignMethod::winding}), s2(index, {SignMethod::winding});
  const SignedClosestPoint<double> a = s1.query(Vec3d{0.1, 0.2, 0.3});
  const SignedClosestPoint<double> b = s2.query(Vec3d{0.1, 0.2, 0.3});
  EXPECT_EQ(a.winding_error, 0.0);  // the integer, whichever path found it
  EXPECT_EQ(a.winding_number, 1.0);
  EXPECT_EQ(b.winding_error, 0.0);
  EXPECT_EQ(b.winding_number, 1.0);
  EXPECT_TRUE(a.inside() && b.inside());
  // Moved vertices: a fresh one (the old one's cluster data no longer fits).
  std::vector<Vec3d> moved = m.vertices();
  for (Vec3d& v : moved) v = v * 2.0;
  index.refit(moved);
  const auto after = FastWindingNumber<double>::shared(index);
  EXPECT_NE(after.get(), got[0].get());
  const CertifiedWinding<double> c = after->decide_sign(Vec3d{1.5, 0, 0});  // inside the moved sphere
  EXPECT_TRUE(decided(c).first);
}

}  // namespace
}  // namespace prox

namespace prox {
namespace {

/// Points along a triangle's normal from its centroid, an edge point and a
/// point near a corner, at `offset` (both sides): in the cells next to the
/// surface, where the grid's plane test decides which cells are free.
template <class T>
std::vector<Vec3<T>> normal_offsets(const TriangleMesh<T>& m, std::size_t n, double offset,
                                    std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Vec3<T>> out;
  while (out.size() < n) {
    const std::size_t t = rng() % m.num_triangles();
    const Vec3d a = m.corner(t, 0).template cast<double>(), b = m.corner(t, 1).template cast<double>(),
                c = m.corner(t, 2).template cast<double>();
    const Vec3d nrm = cross(b - a, c - a);
    const double len = std::sqrt(squared_norm(nrm));
    if (!(len > 0)) continue;
    const Vec3d on[3] = {(a + b + c) / 3.0, a * 0.7 + b * 0.3, a * 0.98 + b * 0.01 + c * 0.01};
    const double side = (rng() & 1) ? offset : -offset;
    const Vec3d p = on[out.size() % 3] + nrm * (side / len);
    out.push_back(Vec3<T>{T(p[0]), T(p[1]), T(p[2])});
  }
  return out;
}

TEST(FastWinding, PlaneMarkedGridNearTheSurface) {
  // The grid marks a cell only where a triangle's plane meets it, so free
  // cells come within a fraction of a cell of the surface. Points 1e-2 to
  // 1e-12 of the diagonal off the faces (both sides; closed meshes and their
  // flipped, doubled and soup versions): every integral answer must be the
  // integer nearest the exact sum (itself within 1e-3 of an integer there: its
  // own rounding reaches ~1e-7 at 1e-12 off an edge), and the grid must answer
  // some of the points at 1e-2 and 1e-3 straight away.
  const TriangleMesh<double> elephant = test::cgal_mesh("elephant.off");
  const std::vector<std::pair<const char*, TriangleMesh<double>>> meshes = {
      {"elephant", elephant},           {"flipped", flipped(elephant)},
      {"doubled", doubled(elephant)},   {"soup", soup(elephant, 5)},
      {"knot1", test::cgal_mesh("knot1.off")}, {"torus", test::torus(1.0, 0.3, 40, 20)}};
  const std::size_t n = std::size_t(test::scaled_count(60, 6));
  for (const auto& [what, mesh] : meshes) {
    const MeshIndex<double> index(mesh);
    const FastWindingNumber<double> fast(index);
    ASSERT_TRUE(fast.closed()) << what;
    const double diag = test::diagonal_length(mesh);
    std::size_t wrong = 0, loose = 0, integral = 0, total = 0, off_integer = 0, grid = 0;
    for (const double rel : {1e-2, 1e-3, 1e-4, 1e-6, 1e-9, 1e-12}) {
      const std::vector<Vec3d> pts = normal_offsets(mesh, n, rel * diag, 17);
      for (const Vec3d& p : pts) {
        ++total;
        const double exact = index.exact_winding_number(p);
        const double k = std::nearbyint(exact);
        off_integer += std::abs(exact - k) > 1e-3;
        const CertifiedWinding<double> c = fast.decide_sign(p);
        if (c.exact) {
          EXPECT_EQ(c.winding_number, exact) << what;
          continue;
        }
        if (!c.integral) {
          loose += !(std::abs(c.winding_number - exact) <= c.error_bound + 1e-12);
          wrong += !near_threshold(exact, 1e-9) && decision(c.winding_number) != decision(exact);
          continue;
        }
        ++integral;
        EXPECT_EQ(c.error_bound, 0.0) << what;
        wrong += c.winding_number != k;
        grid += rel >= 1e-3 && c.clusters == 0 && c.triangles == 0;
      }
    }
    EXPECT_EQ(off_integer, 0u) << what;  // the oracle: closed, and no point on the surface
    EXPECT_EQ(wrong, 0u) << what;
    EXPECT_EQ(loose, 0u) << what;
    EXPECT_GT(integral, total * 9 / 10) << what;
    EXPECT_GT(grid, n / 4) << what;  // of the 2n points at 1e-2 and 1e-3
  }
  // Float: the same on elephant rounded to float (the float exact sum, whose
  // own rounding is far below 1/4, rounds to the integer).
  const TriangleMesh<float> ef = test::to_float(elephant);
  const MeshIndex<float> fi(ef);
  const FastWindingNumber<float> ff(fi);
  std::size_t wrong = 0, integral = 0;
  for (const double rel : {1e-3, 1e-5}) {
    const std::vector<Vec3f> pts = normal_offsets(ef, n, rel * double(test::diagonal_length(ef)), 23);
    for (const Vec3f& p : pts) {
      const CertifiedWinding<float> c = ff.decide_sign(p);
      const double exact = double(fi.exact_winding_number(p));
      if (!c.integral) continue;
      ++integral;
      wrong += double(c.winding_number) != std::nearbyint(exact) || std::abs(exact - std::nearbyint(exact)) > 0.25;
    }
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(integral, n);  // of 2n
}

TEST(FastWinding, SecondLevelAnswersMostTouchedCells) {
  // Touched cells are split into 4^3 sub-cells, flood-filled with the free
  // cells: on points uniform in the padded box the grid alone must answer far
  // more than the one level did (elephant 96.3%, knot1 93.6% measured with one
  // level; 99.0% and 98.2% with two), and every grid answer must be the
  // integer of the exact sum.
  for (const auto& [name, least] : {std::pair<const char*, double>{"elephant.off", 0.985},
                                    {"knot1.off", 0.975}}) {
    const TriangleMesh<double> m = test::cgal_mesh(name);
    const MeshIndex<double> index(m);
    const FastWindingNumber<double> fast(index);
    ASSERT_TRUE(fast.closed()) << name;
    const Box3<double> b = m.bounds();
    const Vec3d e = b.hi - b.lo;
    std::mt19937_64 rng(29);
    std::uniform_real_distribution<double> u(-0.1, 1.1);
    const std::size_t n = std::size_t(test::scaled_count(20000, 4000));
    std::size_t grid = 0, wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3d p = b.lo + Vec3d{u(rng) * e[0], u(rng) * e[1], u(rng) * e[2]};
      const CertifiedWinding<double> c = fast.decide_sign(p);
      const bool from_grid = c.integral && c.clusters == 0 && c.triangles == 0;
      grid += from_grid;
      if (from_grid && i % 4 == 0)
        wrong += c.winding_number != std::nearbyint(index.exact_winding_number(p));
    }
    EXPECT_EQ(wrong, 0u) << name;
    EXPECT_GE(double(grid), least * double(n)) << name;
  }
}

}  // namespace
}  // namespace prox
