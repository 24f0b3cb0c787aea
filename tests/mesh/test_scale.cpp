// tests/mesh/test_scale.cpp — prox's coordinate range (docs/reliability.md):
// inside it MeshIndex, BruteForce and the exact GMP oracle agree at every
// scale; outside it every answer is a defined miss or error.
//
// Sweep: the same closed meshes scaled by 2^k (exact in floating point) for
// double (2^-440 .. 2^117, through 1e-30 .. 1e30) and float (2^-40 .. 2^60,
// through 1e-6 .. 1e6). At each scale, for seeded points and rays:
//  - MeshIndex == BruteForce bit for bit (closest point, first hit, count, all
//    hits, signed distance's sign);
//  - the distance matches the exact distance (min over every triangle of the
//    kernel on mpq_class) within a few ulps of the scale;
//  - double: the answer is the scale-1 answer scaled by 2^k bit for bit (the
//    kernels' rescaling is exact), and ray t does not change (origin and
//    direction are scaled with the mesh);
//  - the sign of the signed distance is the scale-1 sign.
// Then the regression cases of issue 9, one by one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/exact_oracle.hpp"
#include "mesh_support.hpp"
#include "prox/mesh.hpp"
#include "prox/mesh/isa.hpp"
#include "support/scale.hpp"

namespace prox::test {
namespace {

template <class T>
Vec3<T> scale_by(const Vec3<T>& v, int k) {
  return {std::ldexp(v[0], k), std::ldexp(v[1], k), std::ldexp(v[2], k)};
}

template <class T>
TriangleMesh<T> scaled(const TriangleMesh<T>& m, int k) {
  std::vector<Vec3<T>> v;
  for (const Vec3<T>& p : m.vertices()) v.push_back(scale_by(p, k));
  return TriangleMesh<T>(std::move(v), m.triangles());
}

template <class T>
V3q q_of(const Vec3<T>& v) {
  return V3q{Q(double(v[0])), Q(double(v[1])), Q(double(v[2]))};
}

/// Exact squared distance from p to the mesh: Ericson on mpq_class over every triangle.
template <class T>
Q exact_sq_distance(const TriangleMesh<T>& m, const Vec3<T>& p) {
  const V3q pq = q_of(p);
  Q best = -1;
  for (std::size_t i = 0; i < m.num_triangles(); ++i) {
    const auto r = closest_point_triangle<Q>(pq, q_of(m.corner(i, 0)), q_of(m.corner(i, 1)),
                                             q_of(m.corner(i, 2)));
    if (best < 0 || r.sq_distance < best) best = r.sq_distance;
  }
  return best;
}

template <class T>
std::vector<Vec3<T>> unit_points(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.6, 1.6);
  std::vector<Vec3<T>> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(Vec3<T>{T(u(rng)), T(u(rng)), T(u(rng))});
  return out;
}

template <class T>
std::vector<Ray<T>> unit_rays(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Ray<T>> out;
  for (std::size_t i = 0; i < n; ++i) {
    Ray<T> r;
    r.origin = Vec3<T>{T(3 * u(rng)), T(3 * u(rng)), T(3 * u(rng))};
    // Aimed near the center so that most rays hit.
    const Vec3<T> target{T(0.5 * u(rng)), T(0.5 * u(rng)), T(0.5 * u(rng))};
    r.direction = target - r.origin;
    out.push_back(r);
  }
  return out;
}

template <class T>
std::string at(int k) {
  return std::string(std::is_same_v<T, float> ? "float" : "double") + " scale 2^" +
         std::to_string(k);
}

/// The scale-1 answers, to compare the scaled ones with.
template <class T>
struct Reference {
  std::vector<MeshClosestPoint<T>> cp;
  std::vector<MeshRayHit<T>> hit;
  std::vector<std::size_t> count;
  std::vector<bool> inside;
};

template <class T>
Reference<T> reference(const TriangleMesh<T>& mesh, const std::vector<Vec3<T>>& pts,
                       const std::vector<Ray<T>>& rays) {
  const BruteForce<T> bf(mesh);
  Reference<T> ref;
  for (const auto& p : pts) {
    ref.cp.push_back(bf.closest_point(p));
    ref.inside.push_back(bf.signed_distance(p).signed_distance < T(0));
  }
  for (const auto& r : rays) {
    ref.hit.push_back(bf.first_hit(r));
    ref.count.push_back(bf.count_hits(r));
  }
  return ref;
}

template <class T>
void check_scale(const TriangleMesh<T>& base, int k, const std::vector<Vec3<T>>& base_pts,
                 const std::vector<Ray<T>>& base_rays, const Reference<T>& ref,
                 std::size_t exact_every, double& worst) {
  const TriangleMesh<T> mesh = scaled(base, k);
  const MeshIndex<T> index(mesh);
  const BruteForce<T> bf(mesh);
  const double s = std::ldexp(1.0, k) * 2.0;  // the coordinates' scale (|v| <= 1.6 * 2^k)
  const double eps = std::numeric_limits<T>::epsilon();
  constexpr bool is_double = std::is_same_v<T, double>;
  for (std::size_t i = 0; i < base_pts.size(); ++i) {
    const Vec3<T> p = scale_by(base_pts[i], k);
    const MeshClosestPoint<T> a = index.closest_point(p);
    const MeshClosestPoint<T> b = bf.closest_point(p);
    ASSERT_TRUE(a.found()) << at<T>(k) << " point " << i;
    ASSERT_EQ(a.triangle, b.triangle) << at<T>(k) << " point " << i;
    ASSERT_EQ(a.sq_distance, b.sq_distance) << at<T>(k) << " point " << i;
    ASSERT_TRUE(a.point == b.point) << at<T>(k) << " point " << i;
    ASSERT_TRUE(std::isfinite(a.sq_distance)) << at<T>(k) << " point " << i;
    if (is_double) {  // exact rescaling: the scale-1 answer, scaled
      ASSERT_EQ(a.sq_distance, std::ldexp(ref.cp[i].sq_distance, 2 * k)) << at<T>(k) << " " << i;
      ASSERT_TRUE(a.point == scale_by(ref.cp[i].point, k)) << at<T>(k) << " point " << i;
    }
    if (i % exact_every == 0) {
      const double exact = std::sqrt(exact_sq_distance(mesh, p).get_d());
      const double err = std::abs(std::sqrt(double(a.sq_distance)) - exact) / s;
      worst = std::max(worst, err / eps);
      ASSERT_LE(err, 16 * eps) << at<T>(k) << " point " << i << ": distance "
                               << std::sqrt(double(a.sq_distance)) << ", exact " << exact;
    }
    const MeshSignedDistance<T> sa = index.signed_distance(p);
    const MeshSignedDistance<T> sb = bf.signed_distance(p);
    ASSERT_TRUE(std::isfinite(sa.signed_distance)) << at<T>(k) << " point " << i;
    ASSERT_EQ(sa.signed_distance < T(0), sb.signed_distance < T(0)) << at<T>(k) << " " << i;
    ASSERT_EQ(sa.signed_distance < T(0), ref.inside[i]) << at<T>(k) << " point " << i;
  }
  for (std::size_t i = 0; i < base_rays.size(); ++i) {
    Ray<T> r = base_rays[i];
    r.origin = scale_by(r.origin, k);
    r.direction = scale_by(r.direction, k);  // t unchanged
    const MeshRayHit<T> a = index.first_hit(r);
    const MeshRayHit<T> b = bf.first_hit(r);
    ASSERT_EQ(a.triangle, b.triangle) << at<T>(k) << " ray " << i;
    ASSERT_EQ(a.found(), ref.hit[i].found()) << at<T>(k) << " ray " << i;
    if (a.found()) {
      ASSERT_EQ(a.t, b.t) << at<T>(k) << " ray " << i;
      ASSERT_TRUE(std::isfinite(a.t)) << at<T>(k) << " ray " << i;
      if (is_double) {
        ASSERT_EQ(a.t, ref.hit[i].t) << at<T>(k) << " ray " << i;
      } else {
        ASSERT_NEAR(a.t, ref.hit[i].t, 64 * eps * (1 + ref.hit[i].t)) << at<T>(k) << " ray " << i;
      }
    }
    const std::size_t n = index.count_hits(r);
    ASSERT_EQ(n, bf.count_hits(r)) << at<T>(k) << " ray " << i;
    ASSERT_EQ(n, ref.count[i]) << at<T>(k) << " ray " << i;
    ASSERT_EQ(index.all_hits(r).size(), n) << at<T>(k) << " ray " << i;
    ASSERT_EQ(a.found(), n > 0) << at<T>(k) << " ray " << i;
    // The same ray with its direction scaled on its own: t scales inversely.
    for (int j : {-300, 300}) {
      if (!is_double) j /= 10;
      Ray<T> rj = r;
      rj.direction = scale_by(r.direction, j);
      const MeshRayHit<T> h = index.first_hit(rj);
      ASSERT_EQ(h.found(), a.found()) << at<T>(k) << " ray " << i << " direction 2^" << j;
      if (!a.found()) continue;
      ASSERT_EQ(h.triangle, a.triangle) << at<T>(k) << " ray " << i << " direction 2^" << j;
      ASSERT_EQ(h.t, std::ldexp(a.t, -j)) << at<T>(k) << " ray " << i << " direction 2^" << j;
      ASSERT_EQ(bf.first_hit(rj).t, h.t) << at<T>(k) << " ray " << i;
      ASSERT_EQ(index.count_hits(rj), n) << at<T>(k) << " ray " << i;
    }
  }
}

template <class T>
void sweep(const std::vector<int>& exponents) {
  const TriangleMesh<double> sphere = icosphere(2);
  const TriangleMesh<double> ring = torus(1.0, 0.35, 16, 8);
  const std::size_t np = std::size_t(scaled_count(40, 12));
  const std::size_t nr = std::size_t(scaled_count(40, 12));
  double worst = 0;
  for (const TriangleMesh<double>* m : {&sphere, &ring}) {
    TriangleMesh<T> base;
    if constexpr (std::is_same_v<T, float>) {
      base = to_float(*m);
    } else {
      base = *m;
    }
    const auto pts = unit_points<T>(np, 11);
    const auto rays = unit_rays<T>(nr, 12);
    const Reference<T> ref = reference(base, pts, rays);
    for (int k : exponents) {
      check_scale(base, k, pts, rays, ref, 4, worst);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  std::printf("[ scale ] %s: %zu scales x (%zu points, %zu rays) x 2 meshes; worst distance error "
              "%.2f ulps of the scale\n",
              std::is_same_v<T, float> ? "float" : "double", exponents.size(), np, nr, worst);
}

TEST(Scale, DoubleSweep) {
  std::vector<int> ks = {-440, -400, -340, -300, -260, -200, -150, -101};
  for (int k = -100; k <= 100; k += 10) ks.push_back(k);  // 1e-30 .. 1e30
  for (int k : {110, 115, 117}) ks.push_back(k);  // queries up to 3 * 2^117 < 2^120
  sweep<double>(ks);
}

TEST(Scale, FloatSweep) {
  std::vector<int> ks = {-40, -35, -30, -25};
  for (int k = -20; k <= 20; k += 2) ks.push_back(k);  // 1e-6 .. 1e6
  for (int k : {30, 40, 50, 60}) ks.push_back(k);
  sweep<float>(ks);
}

// --- Issue 9's cases, one by one --------------------------------------------

/// Item 2: the face test squared |n|^2 ~ edge^4: 1e78 answered distance 0 for a point 5
/// away, 1e154 a miss, 1e-78 lost the face answer. The kernel against mpq.
TEST(Scale, KernelEdgesFarFromOne) {
  for (double e : {1e78, 1e154, 1e-78, 1e-150}) {
    const V3d a{0, 0, 0}, b{e, 0, 0}, c{0, e, 0};
    const V3d p{0.25 * e, 0.25 * e, 5.0 * e / 1e3};
    const auto r = closest_point_triangle(p, a, b, c);
    EXPECT_EQ(r.feature, Feature::face) << e;
    const auto x = closest_point_triangle<Q>(q_of(p), q_of(a), q_of(b), q_of(c));
    const double exact = std::sqrt(x.sq_distance.get_d());
    EXPECT_NEAR(std::sqrt(r.sq_distance), exact, 4e-16 * exact) << e;
    EXPECT_NEAR(r.point[0], 0.25 * e, 1e-16 * e) << e;
    // A point 5 (in units of e / 1000) beside the corner region too.
    const V3d q{-0.5 * e, -0.5 * e, 0};
    const auto rv = closest_point_triangle(q, a, b, c);
    EXPECT_EQ(rv.feature, Feature::v0) << e;
    EXPECT_EQ(rv.sq_distance, 0.5 * e * e) << e;
  }
  for (float e : {1e15f, 1e18f, 1e-12f, 1e-15f}) {
    const V3f a{0, 0, 0}, b{e, 0, 0}, c{0, e, 0};
    const V3f p{0.25f * e, 0.25f * e, 5.0f * e / 1e3f};
    const auto r = closest_point_triangle(p, a, b, c);
    EXPECT_EQ(r.feature, Feature::face) << e;
    EXPECT_NEAR(std::sqrt(double(r.sq_distance)), 5.0 * e / 1e3, 1e-6 * e) << e;
  }
}

/// fuzz_read_mesh's finding: a mesh of subnormal triangles (edges ~1e-300
/// and below, at the origin) beside an ordinary one. The kernel's rescaled
/// path squared p's offset from a subnormal triangle (2^894 of its sizes)
/// past double's range and answered an infinite distance; MeshIndex, whose
/// box bounds knew those triangles were 0.94 away, pruned the ordinary one
/// and answered a miss, BruteForce the farther ordinary triangle. Both must
/// answer the subnormal triangles' nearest corner, at the exact distance.
TEST(Scale, SubnormalTrianglesBesideAnOrdinaryOne) {
  const std::vector<Vec3d> v = {{1.3, 0, 0},
                                {5.4323092299303293e-312, 2.7225205998089384e-311, 1.06e-313},
                                {1.6296927678407716e-311, 3.2593855358095061e-311, 6.4e-314},
                                {8.5128503020364635e-314, 2.0522684541662571e-289, 4.5e-270},
                                {1.1125369294158761e-308, 1.1951080295476781e-310, 1.1e-313},
                                {1.2731974749250093e-313, 3.1315130975114057e-294, 5.8e-275},
                                {3e-300, -2e-300, 1e-300}};
  const std::vector<std::array<std::uint32_t, 3>> f = {
      {1, 3, 4}, {1, 4, 2}, {2, 4, 5}, {6, 3, 5}, {0, 0, 0}};
  const TriangleMesh<double> mesh(v, f);
  const MeshIndex<double> index(mesh);
  const BruteForce<double> brute(mesh);
  for (const Vec3d p : {Vec3d{0.25, -0.5, 0.75}, Vec3d{1e-200, 0, 0}, Vec3d{-1e30, 3, 0},
                        Vec3d{1.2, 0, 0}, Vec3d{0, 0, 1e-280}}) {
    const auto a = index.closest_point(p), b = brute.closest_point(p);
    ASSERT_TRUE(a.found()) << p[0];
    EXPECT_EQ(a.triangle, b.triangle) << p[0];
    EXPECT_EQ(a.sq_distance, b.sq_distance) << p[0];
    double exact = INFINITY;
    for (const auto& t : f) {
      const auto x = closest_point_triangle<Q>(q_of(p), q_of(v[t[0]]), q_of(v[t[1]]),
                                               q_of(v[t[2]]));
      exact = std::min(exact, x.sq_distance.get_d());
    }
    EXPECT_NEAR(a.sq_distance, exact, 1e-15 * exact) << p[0];
  }
}

/// Item 3: a mesh at 1e306 gave a hit at t = NaN and the three ray modes
/// disagreed. Now outside the range: refused at construction with the limit
/// named; the kernel alone answers a miss, never NaN.
TEST(Scale, BeyondTheRangeIsRefusedOrAMiss) {
  const TriangleMesh<double> sphere = icosphere(1);
  std::vector<Vec3d> v;
  for (const auto& p : sphere.vertices()) v.push_back(p * 1e306);
  try {
    TriangleMesh<double> m(v, sphere.triangles());
    FAIL() << "a mesh at 1e306 was accepted";
  } catch (const MeshError& e) {
    EXPECT_NE(std::string(e.what()).find("outside prox's double range"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("2^120"), std::string::npos) << e.what();
  }
  // Above float's maximum (item 4, 7): refused too.
  for (auto& p : v) p = p / 1e306 * 1e39;
  EXPECT_THROW(TriangleMesh<double>(v, sphere.triangles()), MeshError);
  // The kernels alone: a miss or a finite answer, never NaN.
  const V3d a{1e306, 0, 0}, b{0, 1e306, 0}, c{0, 0, 1e306};
  const Ray<double> ray{{0, 0, 0}, {1, 1, 1}};
  const auto h = ray_triangle_watertight(ray, a, b, c);
  EXPECT_TRUE(!h.hit || std::isfinite(h.t)) << h.t;
  // A float mesh beyond 2^62, a float mesh below 2^-50, a double one below 2^-450.
  std::vector<Vec3f> vf;
  for (const auto& p : sphere.vertices()) vf.push_back(p.cast<float>() * 1e19f);
  EXPECT_THROW(TriangleMesh<float>(vf, sphere.triangles()), MeshError);
  for (auto& p : vf) p = p * 1e-35f;
  EXPECT_THROW(TriangleMesh<float>(vf, sphere.triangles()), MeshError);
  for (auto& p : v) p = p / 1e39 * 1e-140;
  EXPECT_THROW(TriangleMesh<double>(v, sphere.triangles()), MeshError);
  // Queries beyond the range are a miss, as NaN ones are; the others still answer.
  const MeshIndex<double> index(sphere);
  const BruteForce<double> bf(sphere);
  const V3d far{1e37, 0, 0};
  EXPECT_FALSE(index.closest_point(far).found());
  EXPECT_FALSE(bf.closest_point(far).found());
  EXPECT_TRUE(std::isnan(index.signed_distance(far).signed_distance));
  const Ray<double> far_ray{{1e37, 0, 0}, {-1, 0, 0}};
  EXPECT_FALSE(index.first_hit(far_ray).found());
  EXPECT_EQ(index.count_hits(far_ray), 0u);
  EXPECT_EQ(bf.count_hits(far_ray), 0u);
  EXPECT_TRUE(index.closest_point(V3d{1e36, 0, 0}).found());
}

/// Item 4: a double mesh up to the range's top (vertices at 2^119, ~6.6e35,
/// queries up to 2^120): MeshIndex and BruteForce agree on rays and points
/// (float boxes stay finite).
TEST(Scale, DoubleMeshNearTheTop) {
  const TriangleMesh<double> mesh = scaled(icosphere(2), 119);
  const MeshIndex<double> index(mesh);
  const BruteForce<double> bf(mesh);
  const double s = std::ldexp(1.0, 119) / 3;  // origins within 2^119
  int hits = 0;
  for (const Ray<double>& r0 : unit_rays<double>(64, 5)) {
    Ray<double> r = r0;
    r.origin = r.origin * s;
    const auto a = index.first_hit(r), b = bf.first_hit(r);
    ASSERT_EQ(a.triangle, b.triangle);
    ASSERT_EQ(a.t, b.t);
    ASSERT_EQ(index.count_hits(r), bf.count_hits(r));
    hits += a.found();
  }
  EXPECT_GT(hits, 32);
  for (const Vec3d& p0 : unit_points<double>(64, 6)) {
    const Vec3d p = p0 * s;
    const auto a = index.closest_point(p), b = bf.closest_point(p);
    ASSERT_TRUE(a.found());
    ASSERT_EQ(a.triangle, b.triangle);
    ASSERT_EQ(a.sq_distance, b.sq_distance);
  }
}

/// Item 5: a float mesh at ~1e-10: MeshIndex answered NaN where BruteForce
/// answered 8.66e-11.
TEST(Scale, FloatMeshAtOneE10) {
  std::vector<Vec3f> v;
  const TriangleMesh<double> sphere = icosphere(2);
  for (const auto& p : sphere.vertices()) v.push_back((p * 1e-10).cast<float>());
  const TriangleMesh<float> mesh(v, sphere.triangles());
  const MeshIndex<float> index(mesh);
  const BruteForce<float> bf(mesh);
  for (const Vec3f& p0 : unit_points<float>(64, 3)) {
    const Vec3f p = p0 * 1e-10f;
    const auto a = index.closest_point(p), b = bf.closest_point(p);
    ASSERT_TRUE(std::isfinite(a.sq_distance));
    ASSERT_EQ(a.sq_distance, b.sq_distance);
    ASSERT_EQ(a.triangle, b.triangle);
    const double exact = std::sqrt(exact_sq_distance(mesh, p).get_d());
    ASSERT_NEAR(std::sqrt(double(a.sq_distance)), exact, 1e-16);
    const auto sd = index.signed_distance(p);
    ASSERT_TRUE(std::isfinite(sd.signed_distance));
    ASSERT_EQ(sd.signed_distance < 0, bf.signed_distance(p).signed_distance < 0);
  }
}

/// Item 6: the sign of signed distance at extreme scales (winding number 0,
/// NaN or 0.4 for inside points below 1e-80 or above 1e101 in double, below
/// 1e-9 or above 1e12 in float).
TEST(Scale, SignedDistanceSignAtExtremeScales) {
  const TriangleMesh<double> sphere = icosphere(3);
  for (int k : {-440, -300, -270, -200, -100, 100, 117}) {
    const TriangleMesh<double> m = scaled(sphere, k);
    const MeshIndex<double> index(m);
    const double s = std::ldexp(1.0, k);
    for (double r : {0.0, 0.3, 0.9, 1.1, 3.0}) {
      const V3d p{r * s * 0.6, r * s * 0.8, 0};
      const auto sd = index.signed_distance(p);
      ASSERT_TRUE(std::isfinite(sd.signed_distance)) << "2^" << k << " r " << r;
      ASSERT_EQ(sd.signed_distance < 0, r < 1) << "2^" << k << " r " << r << " winding "
                                               << sd.winding_number;
      ASSERT_NEAR(std::abs(sd.winding_number), r < 1 ? 1.0 : 0.0, 0.05) << "2^" << k;
    }
  }
  const TriangleMesh<float> spheref = to_float(sphere);
  for (int k : {-40, -30, -20, 20, 40, 60}) {
    const TriangleMesh<float> m = scaled(spheref, k);
    const MeshIndex<float> index(m);
    const float s = std::ldexp(1.0f, k);
    for (float r : {0.0f, 0.3f, 0.9f, 1.1f, 3.0f}) {
      const V3f p{r * s * 0.6f, r * s * 0.8f, 0};
      const auto sd = index.signed_distance(p);
      ASSERT_TRUE(std::isfinite(sd.signed_distance)) << "float 2^" << k << " r " << r;
      ASSERT_EQ(sd.signed_distance < 0, r < 1) << "float 2^" << k << " r " << r << " winding "
                                               << sd.winding_number;
    }
  }
}

/// Item 8: a ray with direction 1e-300 missed a hit at t = 3.3e300; and the
/// three ray modes agree on it.
TEST(Scale, TinyAndHugeDirections) {
  const TriangleMesh<double> sphere = icosphere(2);
  const MeshIndex<double> index(sphere);
  const BruteForce<double> bf(sphere);
  for (double d : {1e-300, 1e-200, 1.0, 1e200, 1e300}) {
    const Ray<double> r{{0.1, 0.2, 4.3}, {0, 0, -d}};
    const auto a = index.first_hit(r), b = bf.first_hit(r);
    ASSERT_TRUE(a.found()) << d;
    ASSERT_EQ(a.t, b.t) << d;
    ASSERT_NEAR(a.t * d, 3.3, 0.05) << d;
    ASSERT_EQ(index.count_hits(r), 2u) << d;
    ASSERT_EQ(bf.count_hits(r), 2u) << d;
    const auto all = index.all_hits(r);
    ASSERT_EQ(all.size(), 2u) << d;
    ASSERT_EQ(all[0].t, a.t) << d;
    ASSERT_TRUE(index.any_hit(r)) << d;
  }
  // A hit whose t would overflow is no hit, in every mode.
  const Ray<double> r{{0.1, 0.2, 1e30}, {0, 0, -1e-300}};
  EXPECT_FALSE(index.first_hit(r).found());
  EXPECT_FALSE(bf.first_hit(r).found());
  EXPECT_EQ(index.count_hits(r), 0u);
  EXPECT_EQ(bf.count_hits(r), 0u);
  EXPECT_FALSE(index.any_hit(r));
}

/// Far points at every float scale, on every ISA path: the SIMD leaf bounds
/// (src/mesh/leaf_closest_simd.hpp) see products of the point's distance and
/// the triangles' size; one that overflowed to +inf once counted as a bound
/// and dropped the lowest-id triangle of a tie (icosphere x 2^24, points 2^62
/// away). MeshIndex must equal BruteForce bit for bit.
TEST(Scale, FarPointsAtEveryFloatScale) {
  struct IsaGuard {
    Isa saved = active_isa();
    ~IsaGuard() { set_isa(saved); }
  } guard;
  const TriangleMesh<float> base = to_float(icosphere(2));
  const auto pts = unit_points<float>(std::size_t(scaled_count(60, 20)), 21);
  std::size_t checked = 0, found = 0;
  for (Isa isa : available_isas()) {
    set_isa(isa);
    for (int k = -40; k <= 60; k += 4) {
      const TriangleMesh<float> m = scaled(base, k);
      const MeshIndex<float> index(m);
      const BruteForce<float> bf(m);
      for (int j : {0, 4, 8, 16, 24, 32, 38}) {
        for (std::size_t i = 0; i < pts.size(); ++i) {
          const Vec3<float> p = scale_by(pts[i], k + j);
          const MeshClosestPoint<float> a = index.closest_point(p), b = bf.closest_point(p);
          const std::string at = std::string(isa_name(isa)) + " mesh 2^" + std::to_string(k) +
                                 " point 2^" + std::to_string(k + j) + " #" + std::to_string(i);
          ASSERT_EQ(a.found(), b.found()) << at;
          ++checked;
          if (!a.found()) continue;
          ++found;
          ASSERT_EQ(a.triangle, b.triangle) << at;
          ASSERT_EQ(a.sq_distance, b.sq_distance) << at;
          for (int c = 0; c < 3; ++c) ASSERT_EQ(a.point[c], b.point[c]) << at;
        }
      }
    }
  }
  EXPECT_GT(found, checked / 2);
  std::printf("[ scale ] far points: %zu queries (%zu found) equal the brute force\n", checked,
              found);
}

}  // namespace
}  // namespace prox::test
