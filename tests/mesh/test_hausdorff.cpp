// Certified Hausdorff distance (prox/mesh/hausdorff.hpp) against known answers
// and against dense brute-force evaluation:
// - a mesh and itself: 0; a closed convex mesh and itself shifted by v: |v|
//   exactly (support point argument: the point of K with outward normal -v is
//   |v| from K + v, and every x is |v| from x + v);
// - an icosphere and its copy scaled by 1.1: h(B, A) = 0.1 exactly (vertices),
//   h(A, B) in [1.1 r_in - 1, 0.1] (r_in: the smallest face-plane offset);
// - one vertex moved: that vertex is the worst point, at its BruteForce distance;
// - a square under a pyramid: the maximum h / sqrt(1 + 4 h^2) is at the
//   centre, inside a triangle of A, where no vertex and no edge midpoint lies;
// - dense sampling with BruteForce (d(., B) is 1-Lipschitz, so the grid max
//   plus the grid's covering radius brackets the true value);
// - the interval is narrower than the tolerance; identical for 1, 2, 7 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "mesh_support.hpp"
#include "prox/mesh/isa.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;
using Tri = std::array<std::uint32_t, 3>;

TriangleMesh<double> transformed(const TriangleMesh<double>& m, double scale, const Vec3d& shift) {
  std::vector<Vec3d> v;
  for (const Vec3d& p : m.vertices()) v.push_back(p * scale + shift);
  return TriangleMesh<double>(std::move(v), m.triangles());
}

TriangleMesh<double> perturbed(const TriangleMesh<double>& m, double amplitude,
                               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  std::vector<Vec3d> v;
  for (const Vec3d& p : m.vertices()) v.push_back(p + Vec3d{u(rng), u(rng), u(rng)});
  return TriangleMesh<double>(std::move(v), m.triangles());
}

HausdorffOptions absolute(double tol, int threads = 0) {
  HausdorffOptions o;
  o.tolerance = tol;
  o.threads = threads;
  return o;
}

void expect_bracket(const HausdorffSide& s, double truth, double tol, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_TRUE(s.converged);
  EXPECT_LE(s.lower, truth);
  EXPECT_GE(s.upper, truth);
  EXPECT_LE(s.upper - s.lower, tol);
}

TEST(Hausdorff, MeshAndItselfIsZero) {
  const TriangleMesh<double> m = test::icosphere(3);
  const MeshIndex<double> index(m);
  const double tol = 1e-6;
  const HausdorffResult r = hausdorff(index, index, absolute(tol));
  expect_bracket(r.forward, 0.0, tol, "forward");
  expect_bracket(r.backward, 0.0, tol, "backward");
  EXPECT_EQ(r.lower, 0.0);
  EXPECT_LE(r.upper, tol);
}

TEST(Hausdorff, ShiftedConvexMeshIsTheShiftLength) {
  const TriangleMesh<double> a = test::icosphere(2);
  for (const Vec3d v : {Vec3d{0.1, 0.05, -0.02}, Vec3d{0.0, 0.0, 0.3}, Vec3d{-0.7, 0.2, 0.4}}) {
    const TriangleMesh<double> b = transformed(a, 1.0, v);
    const MeshIndex<double> ia(a), ib(b);
    const double truth = std::sqrt(squared_norm(v));
    for (double tol : {1e-3, 1e-6}) {
      const HausdorffResult r = hausdorff(ia, ib, absolute(tol));
      expect_bracket(r.forward, truth, tol, "forward");
      expect_bracket(r.backward, truth, tol, "backward");
      EXPECT_LE(r.lower, truth);
      EXPECT_GE(r.upper, truth);
    }
  }
}

TEST(Hausdorff, FloatMeshesBracketTheShift) {
  const TriangleMesh<double> a = test::icosphere(2);
  const Vec3d v{0.1, 0.05, -0.02};
  const TriangleMesh<float> fa = test::to_float(a), fb = test::to_float(transformed(a, 1.0, v));
  // The shift in float: the vertex differences as rounded.
  const Vec3d fv{double(fb.vertices()[0][0]) - double(fa.vertices()[0][0]),
                 double(fb.vertices()[0][1]) - double(fa.vertices()[0][1]),
                 double(fb.vertices()[0][2]) - double(fa.vertices()[0][2])};
  const MeshIndex<float> ia(fa), ib(fb);
  const double tol = 1e-4;
  const HausdorffResult r = hausdorff(ia, ib, absolute(tol));
  // Each vertex moved by v rounded twice: within 2 float ulps of |v|.
  const double truth = std::sqrt(squared_norm(fv)), slack = 4e-7;
  EXPECT_TRUE(r.forward.converged);
  EXPECT_LE(r.forward.lower, truth + slack);
  EXPECT_GE(r.forward.upper, truth - slack);
  EXPECT_LE(r.forward.upper - r.forward.lower, tol);
}

TEST(Hausdorff, SphereAndScaledCopy) {
  const TriangleMesh<double> a = test::icosphere(3);
  const TriangleMesh<double> b = transformed(a, 1.1, Vec3d{0, 0, 0});
  double r_in = 1;  // smallest distance from the centre to a face plane of a
  for (std::size_t t = 0; t < a.num_triangles(); ++t) {
    const Vec3d p0 = a.corner(t, 0), p1 = a.corner(t, 1), p2 = a.corner(t, 2);
    const Vec3d n = cross(p1 - p0, p2 - p0);
    r_in = std::min(r_in, std::fabs(dot(n, p0)) / std::sqrt(squared_norm(n)));
  }
  const MeshIndex<double> ia(a), ib(b);
  const double tol = 1e-5;
  const HausdorffResult r = hausdorff(ia, ib, absolute(tol));
  expect_bracket(r.backward, 0.1, tol, "outer to inner: 0.1 at every vertex");
  EXPECT_TRUE(r.forward.converged);
  EXPECT_GE(r.forward.upper, 1.1 * r_in - 1);
  EXPECT_LE(r.forward.lower, 0.1);
  EXPECT_LE(r.forward.upper - r.forward.lower, tol);
  EXPECT_NEAR(std::sqrt(squared_norm(r.backward.worst_point)), 1.1, 1e-12);
}

TEST(Hausdorff, MovedVertexIsTheWorstPoint) {
  const TriangleMesh<double> a = test::icosphere(2);
  std::vector<Vec3d> v = a.vertices();
  const std::size_t moved = 17;
  v[moved] = v[moved] * 1.3;
  const TriangleMesh<double> b(v, a.triangles());
  const MeshIndex<double> ia(a), ib(b);
  const BruteForce<double> brute(a);
  const double truth = std::sqrt(brute.closest_point(v[moved]).sq_distance);
  const double tol = 1e-6;
  const HausdorffResult r = hausdorff(ia, ib, absolute(tol));
  expect_bracket(r.backward, truth, tol, "moved vertex to the original");
  EXPECT_EQ(r.backward.worst_point, v[moved]);
  EXPECT_LT(r.forward.upper, truth);  // the dent is shallower than the spike is tall
  EXPECT_EQ(r.upper, r.backward.upper);
}

// A: the unit square at z = 0, a fan of 4 triangles around (0.2, 0.3).
// B: the pyramid over the same square with apex (0.5, 0.5, h) (4 faces, no base).
// d(p, B) for p on the square is at most the distance to the plane of each
// face, and at the centre the foot on each face lies inside it, so the maximum
// is h / sqrt(1 + 4 h^2) at (0.5, 0.5, 0), inside A's triangle (0.2,0.3),(1,0),(1,1).
TEST(Hausdorff, MaximumInsideATriangle) {
  const double h = 0.2;
  const TriangleMesh<double> a(
      {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0.2, 0.3, 0}},
      std::vector<Tri>{{4, 0, 1}, {4, 1, 2}, {4, 2, 3}, {4, 3, 0}});
  const TriangleMesh<double> b(
      {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0.5, 0.5, h}},
      std::vector<Tri>{{0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}});
  const MeshIndex<double> ia(a), ib(b);
  const double truth = h / std::sqrt(1 + 4 * h * h);
  for (double tol : {1e-3, 1e-5, 1e-8}) {
    const HausdorffSide s = hausdorff_one_sided(a, ib, absolute(tol));
    expect_bracket(s, truth, tol, "square to pyramid");
    // The distance falls off at slope >= 1/sqrt(2) (two planes meet at the
    // centre at right angles in plan), so the worst point is near the centre.
    EXPECT_LT(std::sqrt(squared_distance(s.worst_point, Vec3d{0.5, 0.5, 0})), 4 * tol + 1e-9);
    EXPECT_EQ(s.worst_triangle, 1);
  }
  // A vertex-only answer would be 0.2 * ... far below: every vertex of A is on
  // or close to B's base edges or under a low part of a face.
  const BruteForce<double> brute(b);
  for (const Vec3d& p : a.vertices()) EXPECT_LT(std::sqrt(brute.closest_point(p).sq_distance), 0.5 * truth);
}

/// Dense brute-force oracle: d(., B) on a barycentric grid of step 1/k on
/// every triangle of A; returns the grid max and its covering radius.
std::pair<double, double> dense_max(const TriangleMesh<double>& a, const BruteForce<double>& b,
                                    int k) {
  double best = 0, cover = 0;
  for (std::size_t t = 0; t < a.num_triangles(); ++t) {
    const Vec3d p0 = a.corner(t, 0), p1 = a.corner(t, 1), p2 = a.corner(t, 2);
    const double longest = std::sqrt(std::max({squared_distance(p0, p1), squared_distance(p1, p2),
                                               squared_distance(p2, p0)}));
    cover = std::max(cover, longest / k);  // every point is within one grid edge of a node
    for (int i = 0; i <= k; ++i)
      for (int j = 0; i + j <= k; ++j) {
        const double u = double(i) / k, w = double(j) / k;
        const Vec3d p = p0 * (1 - u - w) + p1 * u + p2 * w;
        best = std::max(best, std::sqrt(b.closest_point(p).sq_distance));
      }
  }
  return {best, cover};
}

TEST(Hausdorff, AgreesWithDenseBruteForce) {
  const int cases = static_cast<int>(test::scaled_count(6, 2));
  for (int c = 0; c < cases; ++c) {
    SCOPED_TRACE(c);
    const TriangleMesh<double> a = perturbed(test::icosphere(1), 0.05, 100 + c);
    const TriangleMesh<double> b =
        perturbed(transformed(test::icosphere(1), 1.02, Vec3d{0.03, 0, 0}), 0.05, 200 + c);
    const MeshIndex<double> ib(b);
    const BruteForce<double> brute(b);
    const auto [grid, cover] = dense_max(a, brute, 24);
    // 1e-4: the double search; 1e-3: the float prefilter, then also --tight.
    double width_default = 0;
    for (auto [tol, tight] : {std::pair{1e-4, false}, std::pair{1e-3, false}, std::pair{1e-3, true}}) {
      HausdorffOptions o = absolute(tol);
      o.tight = tight;
      const HausdorffSide s = hausdorff_one_sided(a, ib, o);
      EXPECT_TRUE(s.converged);
      EXPECT_LE(grid, s.upper);              // the grid max is a true lower bound
      EXPECT_LE(s.lower, grid + cover);      // and grid + cover a true upper bound
      EXPECT_LE(s.upper - s.lower, tol);
      // The worst point really is that far from B.
      EXPECT_GE(std::sqrt(brute.closest_point(s.worst_point).sq_distance), s.lower);
      if (tol == 1e-3 && !tight) width_default = s.upper - s.lower;
      if (tight) {
        EXPECT_LE(s.upper - s.lower, width_default);
      }
    }
  }
}

TEST(Hausdorff, RelativeToleranceAndCounts) {
  const TriangleMesh<double> a = test::torus(1.0, 0.3, 48, 16);
  const TriangleMesh<double> b = perturbed(a, 0.01, 7);
  const MeshIndex<double> ia(a), ib(b);
  HausdorffOptions o;
  o.relative_tolerance = 1e-4;
  const HausdorffResult r = hausdorff(ia, ib, o);
  EXPECT_NEAR(r.diagonal, std::sqrt(squared_norm(a.bounds().diagonal())), 0.05);
  EXPECT_DOUBLE_EQ(r.tolerance, 1e-4 * r.diagonal);
  EXPECT_LE(r.upper - r.lower, r.tolerance);
  EXPECT_GT(r.forward.subtriangles, a.num_triangles() - 1);
  // Exact queries: the 64 largest guesses at least, at most every vertex and midpoint.
  EXPECT_GE(r.forward.point_queries, 64u);
  EXPECT_LE(r.forward.point_queries, a.num_vertices() + 3 * r.forward.subtriangles);
  // tight: a bracket no wider, overlapping the default one.
  o.tight = true;
  const HausdorffResult t = hausdorff(ia, ib, o);
  EXPECT_TRUE(t.forward.converged && t.backward.converged);
  EXPECT_LE(t.upper - t.lower, r.upper - r.lower);
  EXPECT_LE(std::max(t.lower, r.lower), std::min(t.upper, r.upper));
}

TEST(Hausdorff, IdenticalForAnyThreadCount) {
  const TriangleMesh<double> a = test::torus(1.0, 0.3, 64, 24);
  const TriangleMesh<double> b = perturbed(transformed(a, 1.01, Vec3d{0.01, 0, 0}), 0.01, 9);
  const MeshIndex<double> ia(a), ib(b);
  // 1e-5: the double search only; 1e-3: the float prefilter (on where float's
  // rounding is below 1% of the tolerance).
  for (double tol : {1e-5, 1e-3}) {
    const HausdorffResult one = hausdorff(ia, ib, absolute(tol, 1));
    EXPECT_TRUE(one.forward.converged && one.backward.converged);
    for (int threads : {2, 7}) {
      const HausdorffResult r = hausdorff(ia, ib, absolute(tol, threads));
      EXPECT_EQ(one.lower, r.lower);
      EXPECT_EQ(one.upper, r.upper);
      for (auto [x, y] : {std::pair{one.forward, r.forward}, std::pair{one.backward, r.backward}}) {
        EXPECT_EQ(x.lower, y.lower);
        EXPECT_EQ(x.upper, y.upper);
        EXPECT_EQ(x.worst_point, y.worst_point);
        EXPECT_EQ(x.worst_closest, y.worst_closest);
        EXPECT_EQ(x.worst_triangle, y.worst_triangle);
        EXPECT_EQ(x.worst_closest_triangle, y.worst_closest_triangle);
        EXPECT_EQ(x.converged, y.converged);
        EXPECT_EQ(x.subtriangles, y.subtriangles);
        EXPECT_EQ(x.searches, y.searches);
        EXPECT_EQ(x.point_queries, y.point_queries);
        EXPECT_EQ(x.rounds, y.rounds);
      }
    }
  }
}

void expect_same_side(const HausdorffSide& x, const HausdorffSide& y) {
  EXPECT_EQ(x.lower, y.lower);
  EXPECT_EQ(x.upper, y.upper);
  EXPECT_EQ(x.worst_point, y.worst_point);
  EXPECT_EQ(x.worst_closest, y.worst_closest);
  EXPECT_EQ(x.worst_triangle, y.worst_triangle);
  EXPECT_EQ(x.worst_closest_triangle, y.worst_closest_triangle);
  EXPECT_EQ(x.converged, y.converged);
  EXPECT_EQ(x.subtriangles, y.subtriangles);
  EXPECT_EQ(x.searches, y.searches);
  EXPECT_EQ(x.point_queries, y.point_queries);
  EXPECT_EQ(x.rounds, y.rounds);
}

// The float prefilter is built for SSE2 and for AVX2 (chosen like the engine's
// paths, PROX_ISA / set_isa): the same operations lane by lane, no FMA
// contraction, IEEE division, so every pick, every weight and every bound is
// the same bit for bit; checked on a torus pair and on perturbed spheres
// (random triangles of every shape), float path and double path.
TEST(Hausdorff, IdenticalOnEveryIsaPath) {
  const Isa saved = active_isa();
  const std::vector<Isa> isas = available_isas();
  std::vector<std::pair<TriangleMesh<double>, TriangleMesh<double>>> pairs;
  const TriangleMesh<double> t = test::torus(1.0, 0.3, 48, 16);
  pairs.emplace_back(t, perturbed(transformed(t, 1.01, Vec3d{0.01, 0, 0}), 0.01, 9));
  const int cases = static_cast<int>(test::scaled_count(3, 1));
  for (int c = 0; c < cases; ++c) {
    const TriangleMesh<double> s = test::icosphere(2);
    pairs.emplace_back(perturbed(s, 0.05, 100 + c), perturbed(transformed(s, 0.97, Vec3d{0, 0.02, 0}), 0.08, 200 + c));
  }
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    SCOPED_TRACE(k);
    const MeshIndex<double> ia(pairs[k].first), ib(pairs[k].second);
    for (double tol : {1e-3, 1e-5}) {
      set_isa(isas.front());
      const HausdorffResult ref = hausdorff(ia, ib, absolute(tol, 1));
      EXPECT_TRUE(ref.forward.converged && ref.backward.converged);
      for (std::size_t i = 1; i < isas.size(); ++i) {
        SCOPED_TRACE(isa_name(isas[i]));
        set_isa(isas[i]);
        const HausdorffResult r = hausdorff(ia, ib, absolute(tol, 1));
        EXPECT_EQ(ref.lower, r.lower);
        EXPECT_EQ(ref.upper, r.upper);
        expect_same_side(ref.forward, r.forward);
        expect_same_side(ref.backward, r.backward);
      }
    }
  }
  set_isa(saved);
}

TEST(Hausdorff, BunnyAgainstPerturbedBunny) {
  const TriangleMesh<double> a = test::cgal_mesh("bunny00.off");
  const double diag = std::sqrt(squared_norm(a.bounds().diagonal()));
  const TriangleMesh<double> b = perturbed(a, 0.002 * diag, 3);
  const MeshIndex<double> ia(a), ib(b);
  HausdorffOptions o;
  o.relative_tolerance = 1e-4;
  const HausdorffResult r = hausdorff(ia, ib, o);
  EXPECT_TRUE(r.forward.converged && r.backward.converged);
  EXPECT_LE(r.upper - r.lower, r.tolerance);
  // Sampled distances never exceed the certified upper bound.
  const BruteForce<double> brute(b);
  const auto s = sample_surface(a, 2000, 5);
  double sampled = 0;
  for (const Vec3d& p : s.points) sampled = std::max(sampled, std::sqrt(ib.closest_point(p).sq_distance));
  EXPECT_LE(sampled, r.forward.upper);
  EXPECT_GE(std::sqrt(brute.closest_point(r.forward.worst_point).sq_distance), r.forward.lower);
}

// A prepared target (HausdorffTarget) gives the same bits as the MeshIndex
// forms, for several meshes A against one B, copies share it, and the
// symmetric form of two targets equals hausdorff(index, index); on both the
// double search (1e-5) and the float prefilter (1e-3), on 1 and 2 threads.
TEST(Hausdorff, PreparedTargetGivesTheSameBits) {
  const TriangleMesh<double> b = test::torus(1.0, 0.3, 48, 16);
  const MeshIndex<double> ib(b);
  const HausdorffTarget<double> tb(ib);
  EXPECT_EQ(&tb.index(), &ib);
  // At least B's float leaf packs, its vertex -> triangle lists (3 ids per
  // triangle) and the slot of each triangle.
  EXPECT_GE(tb.memory_bytes(), ib.layout().packs.size() * sizeof(LeafPack<float>) +
                                   4 * b.num_triangles() * sizeof(std::uint32_t));
  const HausdorffTarget<double> copy = tb;  // shares the data
  for (std::uint64_t seed : {1u, 2u}) {
    const TriangleMesh<double> a = perturbed(transformed(b, 1.0 + 0.01 * double(seed), Vec3d{0.01, 0, 0}), 0.01, seed);
    const MeshIndex<double> ia(a);
    const HausdorffTarget<double> ta(ia);
    for (double tol : {1e-5, 1e-3})
      for (int threads : {1, 2}) {
        SCOPED_TRACE(::testing::Message() << "seed " << seed << " tol " << tol << " threads " << threads);
        const HausdorffSide x = hausdorff_one_sided(a, ib, absolute(tol, threads));
        expect_same_side(x, hausdorff_one_sided(a, tb, absolute(tol, threads)));
        expect_same_side(x, hausdorff_one_sided(a, copy, absolute(tol, threads)));
        EXPECT_TRUE(x.converged);
        EXPECT_LE(x.upper - x.lower, tol);
        const HausdorffResult r = hausdorff(ia, ib, absolute(tol, threads));
        const HausdorffResult t = hausdorff(ta, tb, absolute(tol, threads));
        expect_same_side(r.forward, t.forward);
        expect_same_side(r.backward, t.backward);
        expect_same_side(r.forward, x);
        EXPECT_EQ(r.lower, t.lower);
        EXPECT_EQ(r.upper, t.upper);
        EXPECT_EQ(r.tolerance, t.tolerance);
        EXPECT_EQ(r.diagonal, t.diagonal);
      }
  }
  // A's sampled distances never exceed the certified upper bound (the bracket is true).
  const TriangleMesh<double> a = perturbed(b, 0.02, 5);
  const HausdorffSide s = hausdorff_one_sided(a, tb, absolute(1e-3, 1));
  const BruteForce<double> brute(b);
  double sampled = 0;
  for (const Vec3d& p : a.vertices()) sampled = std::max(sampled, std::sqrt(brute.closest_point(p).sq_distance));
  EXPECT_GE(s.upper, sampled);
  const MeshIndex<double> empty{TriangleMesh<double>{}};
  EXPECT_THROW(HausdorffTarget<double>{empty}, std::invalid_argument);
  EXPECT_THROW(hausdorff_one_sided(TriangleMesh<double>{}, tb), std::invalid_argument);
}

TEST(Hausdorff, BadInput) {
  const MeshIndex<double> empty{TriangleMesh<double>{}};
  const MeshIndex<double> sphere(test::icosphere(1));
  EXPECT_THROW(hausdorff(empty, sphere), std::invalid_argument);
  EXPECT_THROW(hausdorff(sphere, empty), std::invalid_argument);
  EXPECT_THROW(hausdorff(sphere, sphere, absolute(-1)), std::invalid_argument);
  HausdorffOptions zero;
  zero.relative_tolerance = 0;
  EXPECT_THROW(hausdorff(sphere, sphere, zero), std::invalid_argument);
  HausdorffOptions nan;
  nan.tolerance = std::nan("");
  EXPECT_THROW(hausdorff(sphere, sphere, nan), std::invalid_argument);
}

TEST(Hausdorff, ToleranceBelowTheMarginStopsAtTheCap) {
  const MeshIndex<double> ia(test::icosphere(1));
  const MeshIndex<double> ib(transformed(test::icosphere(1), 1.0, Vec3d{0.1, 0, 0}));
  HausdorffOptions o;
  o.relative_tolerance = 1e-300;  // far below the rounding margins: cannot be met
  o.max_subtriangles = 20000;
  const HausdorffSide s = hausdorff_one_sided(ia.mesh(), ib, o);
  EXPECT_FALSE(s.converged);
  EXPECT_LE(s.lower, 0.1);
  EXPECT_GE(s.upper, 0.1);
  EXPECT_LE(s.subtriangles, 20000u);
}

}  // namespace
