// tests/kernels/test_kernel_scale.cpp — every triangle kernel at every scale
// of its type: Ericson's, Eberly's and the projection closest point,
// Möller–Trumbore and the watertight ray test, on the same cases scaled by
// 2^k (positions; exact) and 2^j (ray directions), k and j across float's and
// double's whole exponent range, against the exact answer (mpq_class) of the
// unscaled case, scaled. The kernels rescale or widen where their squares and
// cubes would leave T's range (docs/reliability.md); before that, Eberly's,
// the projection and Möller–Trumbore answered NaN, inf or a wrong point there
// (float corners ~1e13, double ~1e103). A scaled case is used only when every
// coordinate scales exactly (no subnormal on the way).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "exact_oracle.hpp"
#include "support/scale.hpp"

namespace prox::test {
namespace {

V3d d_of(const V3f& v) { return v.cast<double>(); }

template <class T>
Vec3<T> scaled(const V3f& v, int k) {
  return Vec3<T>{std::ldexp(T(v[0]), k), std::ldexp(T(v[1]), k), std::ldexp(T(v[2]), k)};
}

/// Whether every coordinate of v times 2^k is exact and normal (or zero) in T.
template <class T>
bool scales_exactly(const V3f& v, int k) {
  for (int i = 0; i < 3; ++i) {
    const T x = std::ldexp(T(v[i]), k);
    if (!std::isfinite(x) || (x != T(0) && std::fabs(x) < std::numeric_limits<T>::min()))
      return false;
    if (std::ldexp(x, -k) != T(v[i])) return false;
  }
  return true;
}

Q pow2q(int k) {
  Q r = 1;
  if (k >= 0) {
    mpz_mul_2exp(r.get_num_mpz_t(), r.get_num_mpz_t(), unsigned(k));
  } else {
    mpz_mul_2exp(r.get_den_mpz_t(), r.get_den_mpz_t(), unsigned(-k));
  }
  return r;
}

/// The cases: unit triangles (corners in [-1, 1]^3, float values, exact in
/// both types) with p at offsets 1, 2^10 and 2^20 of the triangle's size;
/// rays from 1..3 (and 2^10) away aimed within 0.5 of the centroid.
struct ScaleCase {
  V3f p, a, b, c;  // closest point
  V3f o, d;        // ray (positions a, b, c)
  double reach;    // max(1, |p|, |o|): the case's size at scale 1
};

std::vector<ScaleCase> draw_cases(std::int64_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<ScaleCase> out;
  const float offsets[] = {1.0f, 1024.0f, 1048576.0f};
  for (std::int64_t i = 0; i < n; ++i) {
    ScaleCase s;
    s.a = rng.vec(-1, 1), s.b = rng.vec(-1, 1), s.c = rng.vec(-1, 1);
    s.p = rng.vec(-1, 1) * offsets[i % 3];
    const float far = (i % 4 == 3) ? 1024.0f : 1.0f;
    s.o = random_dir(rng) * float(rng.uniform(1, 3)) * far;
    const V3f target = (s.a + s.b + s.c) * (1.0f / 3.0f) + rng.vec(-0.5, 0.5);
    s.d = target - s.o;
    s.reach = std::max({1.0, max_abs(s.p), max_abs(s.o)});
    out.push_back(s);
  }
  return out;
}

struct Exact {
  ClosestPointTriangleResult<Q> cp;
  RayTriangleHit<Q> ray;
  bool ray_clear = false;  // far enough from every edge and from grazing to be decided
};

Exact exact_of(const ScaleCase& s) {
  Exact e;
  e.cp = closest_point_triangle<Q>(to_q(s.p), to_q(s.a), to_q(s.b), to_q(s.c));
  const Ray<Q> r{to_q(s.o), to_q(s.d)};
  e.ray = ray_triangle_moller_trumbore(r, to_q(s.a), to_q(s.b), to_q(s.c));
  // Barycentric margins of the line through the plane (hit or not), and the
  // angle with the plane: the band in which float or double may round
  // either way (Möller-Trumbore is not exact, the watertight test is exact
  // only for its own shear).
  const V3d n = cross(d_of(s.b - s.a), d_of(s.c - s.a));
  const double dn = std::fabs(dot(n, d_of(s.d)));
  const double scale = std::sqrt(squared_norm(n)) * std::sqrt(squared_norm(d_of(s.d)));
  if (dn > 1e-3 * scale) {
    const V3q e1 = to_q(s.b) - to_q(s.a), e2 = to_q(s.c) - to_q(s.a), tv = to_q(s.o) - to_q(s.a);
    const V3q dq = to_q(s.d);
    const V3q pv = cross(dq, e2), qv = cross(tv, e1);
    const Q det = dot(e1, pv);
    const double u = Q(dot(tv, pv) / det).get_d(), v = Q(dot(dq, qv) / det).get_d();
    const double t = Q(dot(e2, qv) / det).get_d();
    const double margin = 1e-3;
    e.ray_clear = std::fabs(u) > margin && std::fabs(v) > margin &&
                  std::fabs(1 - u - v) > margin && std::fabs(t) > margin;
  }
  return e;
}

struct Tally {
  std::int64_t cases = 0, hits = 0, wrong = 0, non_finite = 0;
  double worst = 0;  // relative error (point: of the case's reach; t: of t)
  void err(double e) { worst = std::max(worst, std::isnan(e) ? INFINITY : e); }
};

template <class T, class Kernel>
void check_closest(const char* name, Kernel kernel, const std::vector<ScaleCase>& cases,
                   const std::vector<Exact>& exact, int k, double tol, Tally& t) {
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ScaleCase& s = cases[i];
    if (!scales_exactly<T>(s.p, k) || !scales_exactly<T>(s.a, k) ||
        !scales_exactly<T>(s.b, k) || !scales_exactly<T>(s.c, k))
      continue;
    ++t.cases;
    const auto r = kernel(scaled<T>(s.p, k), scaled<T>(s.a, k), scaled<T>(s.b, k),
                          scaled<T>(s.c, k));
    if (!all_finite(r.point) || std::isnan(r.sq_distance) || r.sq_distance < 0) {
      if (++t.non_finite <= 3)
        ADD_FAILURE() << name << " case " << i << " at 2^" << k << ": point " << r.point[0]
                      << " " << r.point[1] << " " << r.point[2] << ", sq " << r.sq_distance;
      continue;
    }
    // The error in units of the case's reach, both at scale 1.
    V3q back;
    for (int c = 0; c < 3; ++c) back[c] = Q(double(r.point[c])) * pow2q(-k);
    double e2 = 0;
    for (int c = 0; c < 3; ++c) {
      const double e = Q(back[c] - exact[i].cp.point[c]).get_d();
      e2 += e * e;
    }
    const double e = std::sqrt(e2) / s.reach;
    t.err(e);
    // The squared distance: exact times 2^2k rounded, unless that leaves T's
    // normal range (overflow: inf is the rounding; underflow: not checked).
    const double dist = std::sqrt(exact[i].cp.sq_distance.get_d());
    const double sq_log2 = 2 * (std::log2(std::max(dist, 1e-300)) + k);
    if (sq_log2 >= std::numeric_limits<T>::max_exponent) {
      if (!(r.sq_distance >= std::numeric_limits<T>::max() / 4) && ++t.wrong <= 3)
        ADD_FAILURE() << name << " case " << i << " at 2^" << k << ": squared distance "
                      << r.sq_distance << ", exact 2^" << sq_log2;
    } else if (dist > 0 && sq_log2 > std::numeric_limits<T>::min_exponent + 4) {
      const double got = std::sqrt(double(r.sq_distance)) * std::ldexp(1.0, -k);
      if (!(std::fabs(got - dist) <= tol * s.reach) && ++t.wrong <= 3)
        ADD_FAILURE() << name << " case " << i << " at 2^" << k << ": distance " << got
                      << " (at scale 1), exact " << dist;
    }
    if (!(e <= tol) && ++t.wrong <= 3)
      ADD_FAILURE() << name << " case " << i << " at 2^" << k << ": point off by " << e
                    << " of the case's reach";
  }
}

template <class T, class Kernel>
void check_ray(const char* name, Kernel kernel, const std::vector<ScaleCase>& cases,
               const std::vector<Exact>& exact, int k, int j, double tol, Tally& t) {
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ScaleCase& s = cases[i];
    if (!scales_exactly<T>(s.o, k) || !scales_exactly<T>(s.d, j) ||
        !scales_exactly<T>(s.a, k) || !scales_exactly<T>(s.b, k) || !scales_exactly<T>(s.c, k))
      continue;
    ++t.cases;
    const Ray<T> ray{scaled<T>(s.o, k), scaled<T>(s.d, j)};
    const RayTriangleHit<T> h =
        kernel(ray, scaled<T>(s.a, k), scaled<T>(s.b, k), scaled<T>(s.c, k));
    t.hits += h.hit;
    if (h.hit && (!std::isfinite(h.t) || !std::isfinite(h.u) || !std::isfinite(h.v))) {
      if (++t.non_finite <= 3)
        ADD_FAILURE() << name << " case " << i << " at 2^" << k << ", 2^" << j << ": hit at t "
                      << h.t << " u " << h.u << " v " << h.v;
      continue;
    }
    if (!exact[i].ray_clear) continue;
    const RayTriangleHit<Q>& x = exact[i].ray;
    if (h.hit != x.hit) {
      if (++t.wrong <= 3)
        ADD_FAILURE() << name << " case " << i << " at 2^" << k << ", 2^" << j << ": hit "
                      << h.hit << ", exact " << x.hit;
      continue;
    }
    if (!h.hit) continue;
    const double te = x.t.get_d();  // t at scale 1; scaled: t 2^(k - j)
    const double got = double(h.t) * std::ldexp(1.0, j - k);
    const double e = std::max({std::fabs(got - te) / std::fabs(te),
                               std::fabs(double(h.u) - x.u.get_d()),
                               std::fabs(double(h.v) - x.v.get_d())});
    t.err(e);
    if ((!(e <= tol) || h.front_face != x.front_face) && ++t.wrong <= 3)
      ADD_FAILURE() << name << " case " << i << " at 2^" << k << ", 2^" << j << ": t " << got
                    << " (at scale 1), exact " << te << ", error " << e;
  }
}

template <class T>
void run_sweep(const std::vector<int>& ks, const std::vector<int>& js, int max_kj,
               double cp_tol, double ray_tol) {
  const std::vector<ScaleCase> cases = draw_cases(scaled_count(600, 60), 90210);
  std::vector<Exact> exact;
  for (const ScaleCase& s : cases) exact.push_back(exact_of(s));
  Tally cp[3], ray[2];
  const char* cp_names[] = {"Ericson", "Eberly", "projection"};
  const char* ray_names[] = {"Moller-Trumbore", "watertight"};
  for (const int k : ks) {
    check_closest<T>(
        cp_names[0], [](auto... v) { return closest_point_triangle(v...); }, cases, exact, k,
        cp_tol, cp[0]);
    check_closest<T>(
        cp_names[1], [](auto... v) { return closest_point_triangle_eberly(v...); }, cases,
        exact, k, cp_tol, cp[1]);
    check_closest<T>(
        cp_names[2], [](auto... v) { return closest_point_triangle_projection(v...); }, cases,
        exact, k, cp_tol, cp[2]);
    for (const int j : js) {
      if (std::abs(k - j) > max_kj) continue;
      check_ray<T>(
          ray_names[0],
          [](const Ray<T>& r, auto... v) { return ray_triangle_moller_trumbore(r, v...); },
          cases, exact, k, j, ray_tol, ray[0]);
      check_ray<T>(
          ray_names[1],
          [](const Ray<T>& r, auto... v) { return ray_triangle_watertight(r, v...); }, cases,
          exact, k, j, ray_tol, ray[1]);
    }
  }
  std::printf("\n%s kernels at 2^%d .. 2^%d (%zu cases each scale)\n",
              std::is_same_v<T, float> ? "float" : "double", ks.front(), ks.back(),
              cases.size());
  for (int m = 0; m < 3; ++m) {
    std::printf("  %-16s %7lld answers, %lld wrong, %lld not finite, worst point error %.3g "
                "of the reach (bound %.3g)\n",
                cp_names[m], (long long)cp[m].cases, (long long)cp[m].wrong,
                (long long)cp[m].non_finite, cp[m].worst, cp_tol);
    EXPECT_GT(cp[m].cases, std::int64_t(cases.size() * ks.size() / 2)) << cp_names[m];
    EXPECT_EQ(cp[m].wrong + cp[m].non_finite, 0) << cp_names[m];
  }
  for (int m = 0; m < 2; ++m) {
    std::printf("  %-16s %7lld rays, %lld hits, %lld wrong, %lld not finite, worst t/u/v "
                "error %.3g (bound %.3g)\n",
                ray_names[m], (long long)ray[m].cases, (long long)ray[m].hits,
                (long long)ray[m].wrong, (long long)ray[m].non_finite, ray[m].worst, ray_tol);
    EXPECT_GT(ray[m].hits, ray[m].cases / 5) << ray_names[m];
    EXPECT_EQ(ray[m].wrong + ray[m].non_finite, 0) << ray_names[m];
  }
}

std::vector<int> range(int lo, int hi, int step) {
  std::vector<int> v;
  for (int k = lo; k <= hi; k += step) v.push_back(k);
  return v;
}

TEST(KernelScale, DoubleEveryExponent) {
  run_sweep<double>(range(-1000, 980, 35), {-900, -300, 0, 300, 900}, 1000, 1e-14, 1e-11);
}

TEST(KernelScale, FloatEveryExponent) {
  run_sweep<float>(range(-120, 100, 5), {-100, -30, 0, 30, 100}, 100, 1e-4, 4e-3);
}

/// A tiny triangle (edges 2^size_exp, corners subnormal at the bottom of T's
/// range) with p far from it, up to 2^1100 of its sizes away: the kernel's
/// rescaled path once squared p's scaled offset past T's range there and
/// answered an infinite squared distance (fuzz_read_mesh found it: a PLY
/// whose subnormal triangles hid a nearer one from MeshIndex). Every answer
/// must be finite; its distance within tol of max(distance, |p|) of the
/// exact one wherever the squared distance is a normal T; its point as close
/// to the exact point (plus four of T's smallest subnormal steps).
template <class T, class Kernel>
void check_tiny_far(const char* name, Kernel kernel, const std::vector<int>& size_exps,
                    const std::vector<int>& reach_exps, double tol) {
  Rng rng(4242);
  std::int64_t cases = 0, wrong = 0;
  for (const int ke : size_exps) {
    for (const int kp : reach_exps) {
      for (int i = 0; i < 40; ++i) {
        auto at = [&](int k) {
          return Vec3<T>{std::ldexp(T(rng.f(-1, 1)), k), std::ldexp(T(rng.f(-1, 1)), k),
                         std::ldexp(T(rng.f(-1, 1)), k)};
        };
        const Vec3<T> base = at(ke + (i % 3 == 0 ? 20 : 0));
        const Vec3<T> a = base + at(ke), b = base + at(ke), c = base + at(ke);
        const Vec3<T> p = i % 5 == 0 ? base + at(std::min(kp, ke + 3)) : at(kp);
        auto q = [](const Vec3<T>& v) { return V3q{Q(double(v[0])), Q(double(v[1])), Q(double(v[2]))}; };
        const ClosestPointTriangleResult<Q> x = closest_point_triangle<Q>(q(p), q(a), q(b), q(c));
        const ClosestPointTriangleResult<T> r = kernel(p, a, b, c);
        ++cases;
        std::string bad;
        if (!all_finite(r.point) || !std::isfinite(r.sq_distance) || r.sq_distance < 0) {
          bad = "not finite";
        } else {
          const double d2 = x.sq_distance.get_d();
          const Q reach = std::max(x.sq_distance, Q(squared_norm(q(p))));
          const double got = std::sqrt(double(r.sq_distance)), dist = std::sqrt(d2);
          if (d2 > double(std::numeric_limits<T>::min()) * 16 &&
              !(std::fabs(got - dist) <= tol * std::sqrt(reach.get_d())))
            bad = "distance off";
          Q e2 = 0;
          for (int k = 0; k < 3; ++k) {
            const Q e = Q(double(r.point[k])) - x.point[k];
            e2 += e * e;
          }
          // Near a subnormal p the point's own rounding is absolute: a few
          // of T's smallest steps.
          const Q floor = Q(double(std::numeric_limits<T>::denorm_min())) * 4;
          if (e2 > reach * Q(tol * tol) + floor * floor) bad += " point off";
        }
        if (!bad.empty() && ++wrong <= 3)
          ADD_FAILURE() << name << ": edges 2^" << ke << ", p at 2^" << kp << ", case " << i
                        << ": " << bad << " (squared distance " << double(r.sq_distance)
                        << ", exact " << x.sq_distance.get_d() << ")";
      }
    }
  }
  std::printf("  %-12s %lld tiny-triangle cases, %lld wrong\n", name, (long long)cases,
              (long long)wrong);
  EXPECT_EQ(wrong, 0) << name;
}

/// check_tiny_far on the three closest-point kernels.
template <class T>
void check_tiny_far_kernels(const std::vector<int>& sizes, const std::vector<int>& reach,
                            double tol) {
  check_tiny_far<T>("Ericson", [](auto... v) { return closest_point_triangle(v...); }, sizes,
                    reach, tol);
  check_tiny_far<T>("Eberly", [](auto... v) { return closest_point_triangle_eberly(v...); },
                    sizes, reach, tol);
  check_tiny_far<T>("projection",
                    [](auto... v) { return closest_point_triangle_projection(v...); }, sizes,
                    reach, tol);
}

TEST(KernelScale, DoubleTinyTriangleFarFromQuery) {
  check_tiny_far_kernels<double>({-1060, -1030, -1000, -900, -800, -700, -600, -450, -300},
                                 {-500, -200, -100, 0, 60, 120}, 1e-14);
}

TEST(KernelScale, FloatTinyTriangleFarFromQuery) {
  check_tiny_far_kernels<float>({-146, -140, -126, -100, -60, -30}, {-60, -20, 0, 30, 60}, 1e-5);
}

}  // namespace
}  // namespace prox::test
