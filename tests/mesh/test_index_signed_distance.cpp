// tests/mesh/test_index_signed_distance.cpp — MeshIndex::signed_distance signs
// from the certified fast winding number (prox/mesh/fast_winding.hpp), never from
// the uncertified far-field estimate (MeshIndex::winding_number).
//
// Oracles: exact ray parity through BruteForce (every triangle, exactly-once
// crossing counting) over three fixed directions on closed meshes, the exact
// winding-number sum (BruteForce::signed_distance) on open ones, and the side a
// point was offset to. A mesh on which the far-field estimate is wrong and
// confident (outside the old (0.3, 0.7) band on the wrong side) is built on
// purpose: the old rule fails on it, the certified one must not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <thread>

#include "../support/scale.hpp"
#include "mesh_support.hpp"
#include "prox/mesh/brute_force.hpp"
#include "prox/mesh/fast_winding.hpp"
#include "prox/mesh/sign.hpp"

namespace prox {
namespace {

using test::Tri;

/// Inside by exact ray parity: three fixed directions, majority (they agree off
/// the surface of a closed mesh).
template <class T>
bool parity_inside(const BruteForce<T>& brute, const Vec3<T>& p) {
  static constexpr double kDirs[3][3] = {
      {0.5773502691896258, 0.5773502691896258, 0.5773502691896258},
      {-0.2672612419124244, 0.8017837257372732, -0.5345224838248488},
      {0.8728715609439696, -0.2182178902359924, -0.4364357804719848}};
  int votes = 0;
  for (const auto& d : kDirs) {
    const Ray<T> ray{p, Vec3<T>{T(d[0]), T(d[1]), T(d[2])}, T(0), ScalarTraits<T>::infinity()};
    votes += brute.count_hits(ray) % 2 == 1;
  }
  return votes >= 2;
}


/// On a closed, outward mesh: every signed distance has the exact parity's sign
/// and the BruteForce twin's distance, and the side it was offset to.
template <class T>
void check_closed(const TriangleMesh<T>& m, const char* name) {
  const MeshIndex<T> index(m);
  const BruteForce<T> brute(m);
  const std::size_t n = std::size_t(test::scaled_count(300, 40));
  for (const double rel : {1e-3, 1e-6, 1e-9, 1e-12}) {
    if (std::is_same_v<T, float> && rel < 1e-6) continue;  // below float's resolution
    const std::vector<Vec3<T>> pts = test::offset_points(m, rel, n, 11);
    std::size_t wrong = 0, side = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const MeshSignedDistance<T> s = index.signed_distance(pts[i]);
      const MeshClosestPoint<T> cp = brute.closest_point(pts[i]);
      ASSERT_EQ(std::abs(s.signed_distance), std::sqrt(cp.sq_distance)) << name << " " << i;
      if (cp.sq_distance == T(0)) continue;  // rounded onto the surface (float)
      const bool inside = s.signed_distance < T(0);
      wrong += inside != parity_inside(brute, pts[i]);
      side += inside != (i % 2 == 1);
    }
    EXPECT_EQ(wrong, 0u) << name << " at " << rel << " of the diagonal";
    EXPECT_EQ(side, 0u) << name << " at " << rel << " of the diagonal";
  }
  // And on the mixed points of the other tests (near, box, vertices, edges).
  const double diag = double(test::diagonal_length(m));
  std::size_t wrong = 0;
  for (const Vec3<T>& p : test::query_points(m, std::size_t(test::scaled_count(800, 80)), 5)) {
    const MeshSignedDistance<T> s = index.signed_distance(p);
    const MeshClosestPoint<T> cp = brute.closest_point(p);
    // On the surface, or within rounding of it (an edge midpoint rounded off
    // it): neither parity nor the exact sum is defined there.
    if (!(std::sqrt(double(cp.sq_distance)) > 64 * double(std::numeric_limits<T>::epsilon()) * diag)) continue;
    wrong += (s.signed_distance < T(0)) != parity_inside(brute, p);
  }
  EXPECT_EQ(wrong, 0u) << name << " mixed points";
}

TEST(IndexSignedDistance, ClosedMeshesNearTheSurfaceAgainstParity) {
  check_closed(test::cgal_mesh("elephant.off"), "elephant");
  check_closed(test::cgal_mesh("knot1.off"), "knot1");
  check_closed(test::icosphere(3), "icosphere");
  check_closed(test::to_float(test::cgal_mesh("elephant.off")), "elephant float");
}

/// Open meshes: the sign is the exact sum's wherever the exact w is not within
/// 1e-9 of 1/2 (the exact sum's own rounding).
TEST(IndexSignedDistance, OpenMeshesAgainstTheExactSum) {
  for (const char* name : {"elephant-with-holes.off", "mesh_with_border.off"}) {
    const TriangleMesh<double> m = test::cgal_mesh(name);
    const MeshIndex<double> index(m);
    const BruteForce<double> brute(m);
    std::vector<Vec3d> pts = test::query_points(m, std::size_t(test::scaled_count(800, 80)), 9);
    for (const Vec3d& p : test::offset_points(m, 1e-9, std::size_t(test::scaled_count(200, 30)), 4))
      pts.push_back(p);
    std::size_t wrong = 0, checked = 0;
    for (const Vec3d& p : pts) {
      const MeshSignedDistance<double> a = index.signed_distance(p), b = brute.signed_distance(p);
      ASSERT_EQ(std::abs(a.signed_distance), std::abs(b.signed_distance)) << name;
      if (std::abs(std::abs(b.winding_number) - 0.5) <= 1e-9 || b.signed_distance == 0) continue;
      ++checked;
      wrong += (a.signed_distance < 0) != (b.signed_distance < 0);
    }
    EXPECT_EQ(wrong, 0u) << name;
    EXPECT_GT(checked, pts.size() / 2) << name;
  }
}

/// Two triangles of the square of side `side` centred at (0, 0, z) in the plane
/// z, each repeated `copies` times; `up` picks the orientation.
void add_square_stack(std::vector<Vec3d>& v, std::vector<Tri>& f, double side, double z,
                      int copies, bool up) {
  const std::uint32_t b = std::uint32_t(v.size());
  const double h = side / 2;
  v.insert(v.end(), {{-h, -h, z}, {h, -h, z}, {h, h, z}, {-h, h, z}});
  for (int c = 0; c < copies; ++c) {
    if (up) {
      f.push_back({b, b + 1, b + 2});
      f.push_back({b, b + 2, b + 3});
    } else {
      f.push_back({b, b + 2, b + 1});
      f.push_back({b, b + 3, b + 2});
    }
  }
}

/// The adversary: a stack of 340 copies of a unit square just beyond 3 radii
/// above the origin (one far cluster for the estimate, whose dipole overshoots
/// each copy's solid angle by ~5%: +0.3 in w in all), and below it, summed
/// exactly, 100 copies of a square facing the other way, placed so that the
/// exact w at the origin is 0.45: outside. The far-field estimate reads ~0.75,
/// confidently inside (the old rule took it: no exact sum outside (0.3, 0.7)).
TEST(IndexSignedDistance, WrongButConfidentEstimateIsNotTrusted) {
  const double radius = std::sqrt(0.5);  // centre to corner of the unit square
  const double top = 3.0 * radius * 1.01;
  const Vec3d origin{0, 0, 0};
  auto make = [&](double below) {
    std::vector<Vec3d> v;
    std::vector<Tri> f;
    add_square_stack(v, f, 1.0, top, 340, true);
    add_square_stack(v, f, 1.0, -below, 100, true);
    return TriangleMesh<double>(std::move(v), std::move(f));
  };
  // The two stacks' signs at the origin are opposite (the origin lies between
  // them); pick the lower one's depth by bisection so the exact w is 0.45
  // (w of the lower stack grows in magnitude as it comes closer).
  const double w_top = BruteForce<double>(make(1e6)).winding_number(origin);
  ASSERT_GT(std::abs(w_top), 4.0);
  const double target = w_top > 0 ? 0.45 : -0.45;  // w * target / |target| falls as depth falls
  double lo = 0.05, hi = 50;
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    const double w = BruteForce<double>(make(mid)).winding_number(origin);
    // Closer (smaller depth) pulls w from w_top down through 0 and beyond.
    if (w * target < target * target) lo = mid; else hi = mid;
  }
  const TriangleMesh<double> m = make(0.5 * (lo + hi));
  const MeshIndex<double> index(m);
  const BruteForce<double> brute(m);
  const double exact = brute.winding_number(origin);
  ASSERT_NEAR(std::abs(exact), 0.45, 1e-6);
  // The precondition: the estimate is wrong and confident (it was the sign).
  const double estimate = index.winding_number(origin);
  ASSERT_GE(std::abs(estimate), 0.7) << "estimate " << estimate << ", exact " << exact;
  // The certified sign is the exact sum's: outside.
  const MeshSignedDistance<double> s = index.signed_distance(origin);
  EXPECT_GT(s.signed_distance, 0) << "winding " << s.winding_number;
  EXPECT_LT(std::abs(s.winding_number), 0.5);
  EXPECT_EQ(s.signed_distance, brute.signed_distance(origin).signed_distance);
  // The same along the axis: wherever the exact w is clear of 1/2, the same side.
  std::size_t wrong = 0, fooled = 0;
  for (double z = -0.3; z <= 0.3; z += 0.01) {
    const Vec3d p{0.01, 0.02, z};
    const double e = brute.winding_number(p);
    if (std::abs(std::abs(e) - 0.5) < 1e-6) continue;
    wrong += (index.signed_distance(p).signed_distance < 0) != (std::abs(e) >= 0.5);
    const double est = std::abs(index.winding_number(p));
    fooled += (est >= 0.7 || est <= 0.3) && (est >= 0.5) != (std::abs(e) >= 0.5);
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(fooled, 0u);  // the old rule was wrong here too
}

/// The certified data is built once, on first use, from any thread; shared with
/// SignedMesh; a copy reads its own index; refit drops it.
TEST(IndexSignedDistance, LazyDataIsPerIndexAndDroppedOnRefit) {
  const TriangleMesh<double> m = test::cgal_mesh("elephant.off");
  auto index = std::make_unique<MeshIndex<double>>(m);
  const std::size_t before = index->memory_bytes();
  const std::vector<Vec3d> pts = test::query_points(m, std::size_t(test::scaled_count(400, 80)), 2);
  std::vector<MeshSignedDistance<double>> serial(pts.size());
  {
    const MeshIndex<double> fresh(m);
    for (std::size_t i = 0; i < pts.size(); ++i) serial[i] = fresh.signed_distance(pts[i]);
  }
  // Four threads race to build it.
  std::vector<MeshSignedDistance<double>> got(pts.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t i = std::size_t(t); i < pts.size(); i += 4) got[i] = index->signed_distance(pts[i]);
    });
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < pts.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &serial[i], sizeof got[i]), 0) << i;
  EXPECT_GT(index->memory_bytes(), before);  // the certified data is counted once built
  const auto fast = index->fast_winding();
  EXPECT_EQ(&fast->index(), index.get());
  EXPECT_EQ(fast.get(), index->fast_winding().get());
  EXPECT_EQ(fast.get(), FastWindingNumber<double>::shared(*index).get());  // SignedMesh's
  // A copy builds its own (the original's reads the original), and outlives it.
  const MeshIndex<double> copy = *index;
  index.reset();
  EXPECT_EQ(&copy.fast_winding()->index(), &copy);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const MeshSignedDistance<double> s = copy.signed_distance(pts[i]);
    ASSERT_EQ(std::memcmp(&s, &serial[i], sizeof s), 0) << i;
  }
  // Refit: the moved mesh's signs, not the old ones (shifted by 10 diagonals:
  // every old inside point is now outside).
  MeshIndex<double> moving(m);
  const auto old_fast = moving.fast_winding();
  const double diag = test::diagonal_length(m);
  std::vector<Vec3d> moved = m.vertices();
  for (Vec3d& v : moved) v[0] += 10 * diag;
  moving.refit(moved);
  EXPECT_NE(moving.fast_winding().get(), old_fast.get());
  const BruteForce<double> brute(TriangleMesh<double>(moved, m.triangles()));
  std::size_t wrong = 0;
  for (const Vec3d& p0 : pts) {
    for (const Vec3d& p : {p0, Vec3d{p0[0] + 10 * diag, p0[1], p0[2]}}) {
      const auto a = moving.signed_distance(p), b = brute.signed_distance(p);
      if (b.signed_distance == 0 || std::abs(std::abs(b.winding_number) - 0.5) < 1e-6) continue;
      wrong += (a.signed_distance < 0) != (b.signed_distance < 0);
      ASSERT_EQ(std::abs(a.signed_distance), std::abs(b.signed_distance));
    }
  }
  EXPECT_EQ(wrong, 0u);
}

}  // namespace
}  // namespace prox
