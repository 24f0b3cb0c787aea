// prox's GLSL kernels (shaders/prox/*.glsl) on a Vulkan device (lavapipe in CI)
// against the C++ kernels and the exact oracle, on the case families of the
// exact-oracle kernel tests (tests/kernels): every closest-point family
// (regions, boundary, collinear, coincident, slivers, tiny, far), every ray
// family (edges, vertices, grazing, parallel, tiny, far), plus non-finite
// inputs, segments and boxes.
// Tolerance: none against C++ float — the GLSL is the C++ kernel operation for
// operation with `precise` (no fma contraction) and correctly rounded
// divisions, so the answers must be the same bits. The worst error against the
// exact answer is printed per family beside C++ float's (the same numbers,
// hence). Each kernel runs twice: built from the per-file includes and from
// the concatenated header prox_kernels.glsl.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <random>
#include <limits>
#include <string>
#include <utility>

#include "gpu_support.hpp"
#include "kernels/closest_point_oracle.hpp"
#include "kernels/ray_oracle.hpp"
#include "support/scale.hpp"

namespace prox::test {
namespace {

struct Case {
  float v[5][4] = {};
};
struct Out {
  std::uint32_t w[8];
  float f(int i) const { return std::bit_cast<float>(w[i]); }
};

enum Mode : std::uint32_t {
  kTriangle = 0, kSegment = 1, kWatertight = 2, kMoller = 3, kBox = 4, kRounding = 5
};

void put(Case& c, int row, const V3f& v, float w = 0.0f) {
  c.v[row][0] = v[0], c.v[row][1] = v[1], c.v[row][2] = v[2], c.v[row][3] = w;
}

/// Runs `cases` through kernels.comp (both builds); checks the two agree.
std::vector<Out> run(std::vector<Case>& cases, Mode mode) {
  gpu::Context* ctx = gpu_context();
  static const std::vector<std::uint32_t> spirv[2] = {load_spirv("kernels.spv"),
                                                      load_spirv("kernels_concat.spv")};
  std::vector<Out> outs[2];
  for (int build = 0; build < 2; ++build) {
    outs[build].assign(cases.size(), Out{});
    const gpu::ComputeBuffer bufs[2] = {{std::as_writable_bytes(std::span(cases))},
                                        {std::as_writable_bytes(std::span(outs[build]))}};
    const std::uint32_t push[2] = {std::uint32_t(cases.size()), mode};
    ctx->run_compute(spirv[build], bufs, std::as_bytes(std::span(push)),
                     std::uint32_t((cases.size() + 63) / 64));
  }
  EXPECT_EQ(0, std::memcmp(outs[0].data(), outs[1].data(), outs[0].size() * sizeof(Out)))
      << "the concatenated header answers differently from the per-file includes";
  return outs[0];
}

bool same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }
bool same_bits(const V3f& a, const V3f& b) {
  return same_bits(a[0], b[0]) && same_bits(a[1], b[1]) && same_bits(a[2], b[2]);
}

// Whether the C++ float kernel takes its rescaled path on this triangle (edges
// below 2^-16 or above 2^16: the whole kernel in double, issue 9). The GLSL
// kernel mirrors that path, so these cases too must give the same bits; they
// are counted to show the path is exercised.
bool cpu_rescales(const V3f& a, const V3f& b, const V3f& c) {
  const V3f ab = b - a, ac = c - a;
  const V3f n = cross(ab, ac);
  const float nn = squared_norm(n);
  if (nn >= 0x1p-64f && nn <= 0x1p64f) return false;
  float m = 0;
  for (int i = 0; i < 3; ++i) m = std::max(m, std::max(std::fabs(ab[i]), std::fabs(ac[i])));
  return m > 0 && (m < 0x1p-16f || m > 0x1p16f);
}
bool cpu_rescales(const TriCase& k) { return cpu_rescales(k.a, k.b, k.c); }

/// Whether the C++ watertight test takes its rescaled (double) path for this
/// ray and triangle: the normalized ray's det or t numerator outside
/// [2^-80, 2^100] (prox/primitives/ray_triangle.hpp, detail::sheared_hit).
bool cpu_ray_rescales(const Rayf& r, const V3f& a, const V3f& b, const V3f& c) {
  if (!all_finite(r.origin) || !all_finite(r.direction) || r.direction == V3f::zero())
    return false;
  const WatertightRay<float> wr(r);
  const detail::ShearedTriangle<float> s = detail::shear_triangle(wr, a, b, c);
  if (s.outside()) return false;
  const float det = s.U + s.V + s.W;
  const float tn =
      s.U * (wr.sz * s.A[wr.kz]) + s.V * (wr.sz * s.B[wr.kz]) + s.W * (wr.sz * s.C[wr.kz]);
  return !(std::fabs(det) >= 0x1p-80f && std::fabs(det) <= 0x1p100f && std::fabs(tn) <= 0x1p100f);
}

/// True when some coordinate is a float subnormal: a device that flushes them
/// (Vulkan allows it unless shaderDenormPreserveFloat32) may answer otherwise;
/// the scale sweeps count such cases instead of holding them to C++'s bits.
bool has_subnormal(std::initializer_list<V3f> vs) {
  for (const V3f& v : vs)
    for (int i = 0; i < 3; ++i)
      if (std::fpclassify(v[i]) == FP_SUBNORMAL) return true;
  return false;
}

V3f times_pow2(const V3f& v, int k) {
  return V3f{std::ldexp(v[0], k), std::ldexp(v[1], k), std::ldexp(v[2], k)};
}

TEST(GpuKernels, ClosestPointTriangleFamilies) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  const CpFamily families[] = {CpFamily::random, CpFamily::v0, CpFamily::v1, CpFamily::v2,
                               CpFamily::e01, CpFamily::e12, CpFamily::e20, CpFamily::face,
                               CpFamily::on_boundary, CpFamily::collinear, CpFamily::coincident,
                               CpFamily::sliver, CpFamily::tiny, CpFamily::far};
  const std::int64_t per_family = scaled_count(6000, 100);
  std::printf("\nGLSL closest point on triangle vs exact: worst |point - exact| / s\n");
  std::printf("%-15s %7s | %-9s %-9s | %-9s | %s\n", "family", "cases", "GLSL", "C++ f",
              "d2 GLSL", "bits != C++ float / feature != exact");
  for (const CpFamily family : families) {
    Rng rng(5000 + std::uint64_t(family));
    std::vector<TriCase> ks;
    std::vector<Case> cases;
    for (std::int64_t i = 0; i < per_family; ++i) {
      ks.push_back(draw_case(rng, family));
      Case c;
      put(c, 0, ks.back().p), put(c, 1, ks.back().a), put(c, 2, ks.back().b), put(c, 3, ks.back().c);
      cases.push_back(c);
    }
    const std::vector<Out> outs = run(cases, kTriangle);
    Worst gpu_err, cpu_err, gpu_d2;
    std::int64_t differ = 0, feature_wrong = 0, rescaled = 0;
    for (std::size_t i = 0; i < ks.size(); ++i) {
      const TriCase& k = ks[i];
      const auto cpu = closest_point_triangle(k.p, k.a, k.b, k.c);
      const Out& o = outs[i];
      const V3f point{o.f(0), o.f(1), o.f(2)}, bary{o.f(4), o.f(5), o.f(6)};
      const bool same = same_bits(point, cpu.point) && same_bits(o.f(3), cpu.sq_distance) &&
                        same_bits(bary, cpu.bary) && o.w[7] == std::uint32_t(cpu.feature);
      rescaled += cpu_rescales(k) ? 1 : 0;
      if (!same && ++differ <= 5)
        ADD_FAILURE() << to_string(family) << " case " << i << ": GLSL d2 " << o.f(3)
                      << " feature " << o.w[7] << ", C++ d2 " << cpu.sq_distance << " feature "
                      << int(cpu.feature);
      const auto ex = closest_point_triangle(to_q(k.p), to_q(k.a), to_q(k.b), to_q(k.c));
      const double s = k.scale();
      gpu_err.add(point_err(point, ex.point) / s, std::int64_t(i));
      cpu_err.add(point_err(cpu.point, ex.point) / s, std::int64_t(i));
      gpu_d2.add(abs_err(o.f(3), ex.sq_distance) / (s * s), std::int64_t(i));
      feature_wrong += o.w[7] != std::uint32_t(ex.feature);
    }
    std::printf("%-15s %7lld | %s %s | %s | %lld / %lld (%lld on C++'s rescaled path)\n",
                to_string(family), (long long)per_family, fmt_err(gpu_err.value).c_str(),
                fmt_err(cpu_err.value).c_str(), fmt_err(gpu_d2.value).c_str(), (long long)differ,
                (long long)feature_wrong, (long long)rescaled);
    EXPECT_EQ(differ, 0) << to_string(family);
  }
}

/// v rounded to float out of line (GCC 12.2's SLP vectorizer can fold an
/// inlined double -> float -> double round trip: docs/kernel-accuracy.md).
[[gnu::noinline]] V3f to_float(const V3d& v) { return v.cast<float>(); }

/// Issue 9's far-corner paths of the C++ float kernel, in float inputs:
/// kind 0..2, tests/mesh/test_far_slivers.cpp's FarEdgeFamily (an edge
/// passing 1e-3 .. 3 from p with ends 1e5 .. 1e15 away; the third corner far,
/// near the line, or far and flat): the edge and face exits' far check
/// (far_solve from exact expansions) and, for kind 1, the nearest-corner path
/// (the double kernel); kind 3, KernelErrorFollowsTheNearestCorner's family (a
/// corner within 1e-1 .. 1e-8 of p, two 1e3 .. 1e15 away): the nearest-corner
/// path. Corners rotated so that every position takes every role.
struct FarCornerCases {
  Rng rng{9090};
  V3d unit_vec() {
    for (;;) {
      const V3d v = to_d(rng.vec(-1, 1));
      const double n2 = squared_norm(v);
      if (n2 > 0.01 && n2 <= 1) return v * (1 / std::sqrt(n2));
    }
  }
  TriCase next(int i) {
    const int kind = i % 4;
    V3d t[3], p;
    if (kind < 3) {
      const V3d dir = unit_vec();
      const V3d f0 = to_d(rng.vec(-1, 1));
      const V3d a = f0 + dir * std::pow(10.0, rng.uniform(5, 15));
      const V3d b = f0 - dir * std::pow(10.0, rng.uniform(5, 15));
      // The point of the float-rounded line a b nearest f0, exactly.
      const V3q aq = to_q(to_float(a)), dq = to_q(to_float(b)) - aq;
      const Q lam = dot(to_q(to_float(f0)) - aq, dq) / dot(dq, dq);
      const V3q fq = aq + dq * lam;
      const V3d f{fq[0].get_d(), fq[1].get_d(), fq[2].get_d()};
      V3d offn = cross(dir, unit_vec());
      offn = offn * (1 / std::sqrt(squared_norm(offn)));
      p = f + offn * std::pow(10.0, rng.uniform(-3, 0.5));
      const V3d side = cross(dir, offn);
      const double ca = 0.3 + 0.7 * rng.uniform(0, 1);
      const double sa = std::sqrt(1 - ca * ca) * (rng.integer(0, 1) ? -1 : 1);
      const V3d w = side * sa - offn * ca;
      const double L = std::pow(10.0, rng.uniform(5, 15));
      V3d c;
      if (kind == 0) c = f + (w + dir * rng.uniform(-1, 1)) * L;
      else if (kind == 1) c = f + (w + dir * rng.uniform(-1, 1)) * (1 + rng.uniform(0, 1));
      else c = f + (w * 0.3 + dir * rng.uniform(-1, 1)) * L;
      t[0] = a, t[1] = b, t[2] = c;
    } else {
      p = to_d(rng.vec(-1, 1));
      t[0] = p + to_d(rng.vec(-1, 1)) * std::pow(10.0, rng.uniform(-8, -1));
      t[1] = to_d(rng.vec(-1, 1)) * std::pow(10.0, rng.uniform(3, 15));
      t[2] = to_d(rng.vec(-1, 1)) * std::pow(10.0, rng.uniform(3, 15));
    }
    std::rotate(t, t + (i / 4) % 3, t + 3);
    TriCase k;
    k.p = to_float(p), k.a = to_float(t[0]), k.b = to_float(t[1]), k.c = to_float(t[2]);
    return k;
  }
};

/// Which rare path of the C++ float kernel a case takes, recomputed from its
/// tests (closest_point_triangle.hpp): 1 = a corner 2^16 times nearer than
/// another (detail::far_corners: the double kernel's nearest-corner path),
/// 2 = the corners 2^10 times farther than the answer and p (far_answer's
/// measure on the exact answer: far_solve), 0 = neither. For counting only.
int cpu_far_path(const TriCase& k, double exact_d2) {
  const float s[3] = {squared_distance(k.p, k.a), squared_distance(k.p, k.b),
                      squared_distance(k.p, k.c)};
  if (detail::far_corners(s)) return 1;
  const double m = double(s[0]) + double(s[1]) + double(s[2]);
  return m * 0x1p-20 > exact_d2 + squared_norm(to_d(k.p)) ? 2 : 0;
}

TEST(GpuKernels, ClosestPointFarCorners) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  const std::int64_t n = scaled_count(4000, 200);
  FarCornerCases gen;
  std::vector<TriCase> ks;
  std::vector<Case> cases;
  for (std::int64_t i = 0; i < n; ++i) {
    ks.push_back(gen.next(int(i)));
    Case c;
    put(c, 0, ks.back().p), put(c, 1, ks.back().a), put(c, 2, ks.back().b), put(c, 3, ks.back().c);
    cases.push_back(c);
  }
  const std::vector<Out> outs = run(cases, kTriangle);
  std::int64_t differ = 0, paths[3] = {0, 0, 0};
  double worst[4] = {0, 0, 0, 0};
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const TriCase& k = ks[i];
    const auto cpu = closest_point_triangle(k.p, k.a, k.b, k.c);
    const Out& o = outs[i];
    const V3f point{o.f(0), o.f(1), o.f(2)}, bary{o.f(4), o.f(5), o.f(6)};
    const bool same = same_bits(point, cpu.point) && same_bits(o.f(3), cpu.sq_distance) &&
                      same_bits(bary, cpu.bary) && o.w[7] == std::uint32_t(cpu.feature);
    if (!same && ++differ <= 5)
      ADD_FAILURE() << "far corners case " << i << " (kind " << i % 4 << "): GLSL d2 " << o.f(3)
                    << " feature " << o.w[7] << ", C++ d2 " << cpu.sq_distance << " feature "
                    << int(cpu.feature);
    const auto ex = closest_point_triangle(to_q(k.p), to_q(k.a), to_q(k.b), to_q(k.c));
    const double exact_d2 = ex.sq_distance.get_d();
    ++paths[cpu_far_path(k, exact_d2)];
    // As FarSlivers.EdgesNearlyThroughTheQueryWithFarEndsInFloat: the error of
    // the distance in float ulps of max(d, |p|).
    const double exact = std::sqrt(exact_d2);
    const double unit = std::max(exact, std::sqrt(squared_norm(to_d(k.p))));
    const double err = std::abs(std::sqrt(double(o.f(3))) - exact) / unit / 0x1p-23;
    worst[i % 4] = std::max(worst[i % 4], err);
    if (i % 4 < 3) {
      EXPECT_LE(err, 2.0) << "far corners case " << i << " (kind " << i % 4 << "): GLSL d "
                          << std::sqrt(o.f(3)) << ", exact " << exact;
    }
  }
  std::printf("\nGLSL closest point, far corners: %lld cases (%lld nearest-corner path, %lld "
              "far_solve, %lld neither), %lld differ from C++ float; worst error in float ulps "
              "of max(d, |p|): %.3g / %.3g / %.3g (edges with far ends: third corner far / "
              "near the line / far and flat), %.3g (a corner near p)\n",
              (long long)n, (long long)paths[1], (long long)paths[2], (long long)paths[0],
              (long long)differ, worst[0], worst[1], worst[2], worst[3]);
  EXPECT_EQ(differ, 0);
  EXPECT_GT(paths[1], n / 4) << "the nearest-corner path should be exercised";
  EXPECT_GT(paths[2], n / 5) << "far_solve should be exercised";
}

TEST(GpuKernels, RayTriangleFamilies) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  const RayFamily families[] = {RayFamily::random,   RayFamily::edges,   RayFamily::near_edges,
                                RayFamily::vertices, RayFamily::grazing, RayFamily::parallel,
                                RayFamily::tiny,     RayFamily::far,     RayFamily::far_corners};
  const std::int64_t per_family = scaled_count(6000, 100);
  std::printf("\nGLSL ray/triangle vs exact: hits, hit != exact, worst t err (ulps, as "
              "tests/kernels)\n");
  std::printf("%-12s %7s %6s | %-13s | %-21s | %s\n", "family", "cases", "hits",
              "hit!=exact MT/WT", "t err MT / WT", "bits != C++ float MT / WT");
  for (const RayFamily family : families) {
    Rng rng(7000 + std::uint64_t(family));
    std::vector<RayCase> ks;
    std::vector<Case> cases;
    for (std::int64_t i = 0; i < per_family; ++i) {
      ks.push_back(draw_ray(rng, family));
      const RayCase& k = ks.back();
      Case c;
      put(c, 0, k.o, 0.0f), put(c, 1, k.d, k.t_max), put(c, 2, k.a), put(c, 3, k.b), put(c, 4, k.c);
      c.v[4][3] = std::bit_cast<float>(std::uint32_t(i % 3));  // MT culling: none, back, front
      cases.push_back(c);
    }
    const std::vector<Out> wt = run(cases, kWatertight);
    const std::vector<Out> mt = run(cases, kMoller);
    std::int64_t differ[2] = {0, 0}, wrong[2] = {0, 0}, non_finite[2] = {0, 0}, hits = 0;
    Worst t_err[2];
    for (std::size_t i = 0; i < ks.size(); ++i) {
      const RayCase& k = ks[i];
      const Rayf rf{k.o, k.d, 0.0f, k.t_max};
      const Culling cull = Culling(i % 3);
      const RayTriangleHit<float> cpu[2] = {ray_triangle_moller_trumbore(rf, k.a, k.b, k.c, cull),
                                            ray_triangle_watertight(rf, k.a, k.b, k.c)};
      Ray<Q> rq{to_q(k.o), to_q(k.d)};
      if (std::isfinite(k.t_max)) rq.t_max = Q(double(k.t_max));
      const auto ex = ray_triangle_moller_trumbore(rq, to_q(k.a), to_q(k.b), to_q(k.c), cull);
      const auto exw = ray_triangle_watertight(rq, to_q(k.a), to_q(k.b), to_q(k.c));
      hits += exw.hit;
      const V3q n = cross(to_q(k.b) - to_q(k.a), to_q(k.c) - to_q(k.a));
      const double len_n = std::sqrt(squared_norm(n).get_d());
      const Q dn = dot(to_q(k.d), n);
      const V3d od = to_d(k.o);
      const double L = std::max({std::sqrt(squared_distance(to_d(k.a), od)),
                                 std::sqrt(squared_distance(to_d(k.b), od)),
                                 std::sqrt(squared_distance(to_d(k.c), od)),
                                 std::sqrt(squared_distance(to_d(k.a), to_d(k.b))),
                                 std::sqrt(squared_distance(to_d(k.b), to_d(k.c))),
                                 std::sqrt(squared_distance(to_d(k.c), to_d(k.a)))});
      const double t_scale = len_n > 0 ? std::fabs(dn.get_d()) / (len_n * L) : 0.0;
      for (int m = 0; m < 2; ++m) {
        const Out& o = m == 0 ? mt[i] : wt[i];
        const bool hit = o.w[0] != 0;
        const bool same = hit == cpu[m].hit && same_bits(o.f(1), cpu[m].t) &&
                          same_bits(o.f(2), cpu[m].u) && same_bits(o.f(3), cpu[m].v) &&
                          (o.w[4] != 0) == cpu[m].front_face;
        if (!same && ++differ[m] <= 3)
          ADD_FAILURE() << to_string(family) << " case " << i << (m ? " WT" : " MT")
                        << ": GLSL hit " << hit << " t " << o.f(1) << ", C++ hit " << cpu[m].hit
                        << " t " << cpu[m].t;
        const RayTriangleHit<Q>& e = m == 0 ? ex : exw;
        if (hit != e.hit) {
          ++wrong[m];
        } else if (hit && !std::isfinite(o.f(1))) {
          // Möller–Trumbore is not rescaled (C++ neither: docs/reliability.md):
          // with corners 1e20 away its det and t numerator overflow float, a
          // hit at t = inf or NaN, as C++'s (bits compared above). Counted,
          // never turned into an mpq (GMP raises SIGFPE on inf and NaN).
          ++non_finite[m];
        } else if (hit) {
          t_err[m].add(abs_err(o.f(1), e.t) * t_scale / std::numeric_limits<float>::epsilon(),
                       std::int64_t(i));
        }
      }
    }
    std::printf("%-12s %7lld %6lld | %6lld %6lld | %9.3g %9.3g | %lld / %lld", to_string(family),
                (long long)per_family, (long long)hits, (long long)wrong[0], (long long)wrong[1],
                t_err[0].value, t_err[1].value, (long long)differ[0], (long long)differ[1]);
    if (non_finite[0] + non_finite[1] > 0)
      std::printf(" (hits at a non-finite t, MT / WT: %lld / %lld)", (long long)non_finite[0],
                  (long long)non_finite[1]);
    std::printf("\n");
    EXPECT_EQ(non_finite[1], 0) << to_string(family) << ": a watertight hit at a non-finite t";
    EXPECT_EQ(differ[0], 0) << to_string(family);
    EXPECT_EQ(differ[1], 0) << to_string(family);
  }
}

/// Issue 9, session 21: slivers whose far corners (1e6 .. 1e18, float's range)
/// spread in depth far beyond the ray's t (one corner 1 .. 1e3 behind the
/// crossing, two beyond it, 1e-6 .. 1e-1 of their distance wide; rays 0.003
/// .. 0.3 from the plane): t far from the sheared sum's accuracy, some cases
/// on far_corner_t (cancelled), others on the rescaled test. The GLSL must
/// give C++ float's bits on every one.
TEST(GpuKernels, RayTriangleFarSlivers) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  std::mt19937_64 rng(9191);
  std::uniform_real_distribution<double> u(-1, 1), z(0, 1);
  auto unit = [&] {
    for (;;) {
      const V3d v{u(rng), u(rng), u(rng)};
      const double n2 = squared_norm(v);
      if (n2 > 0.01 && n2 <= 1) return v * (1 / std::sqrt(n2));
    }
  };
  auto normalized = [](const V3d& v) { return v * (1 / std::sqrt(squared_norm(v))); };
  const std::int64_t n = scaled_count(3000, 100);
  std::vector<Case> cases;
  std::vector<std::array<V3f, 5>> ks;  // o, d, a, b, c
  for (std::int64_t i = 0; i < n; ++i) {
    const V3d o{u(rng) * 4, u(rng) * 4, u(rng) * 4};
    const V3d nn = unit();
    const double c = std::pow(10.0, -2.5 + 1.98 * z(rng)) * (u(rng) < 0 ? -1 : 1);
    const V3d in_plane = normalized(cross(nn, unit()));
    const V3d d = normalized(nn * c + in_plane * std::sqrt(1 - c * c));
    const V3d x = o + d * (std::pow(10.0, -0.3 + 2 * z(rng)) * (u(rng) < 0 ? -1 : 1));
    const V3d t1 = u(rng) < 0 ? in_plane : normalized(cross(nn, unit()));
    const V3d t2 = cross(nn, t1);
    const double l0 = std::pow(10.0, 3 * z(rng));
    const double l1 = std::pow(10.0, 6 + 12 * z(rng)), l2 = l1 * (1 + 0.5 * z(rng));
    const double w = std::pow(10.0, -6 + 5 * z(rng));
    const V3d a = x - t1 * l0 + t2 * (l0 * w * 0.1 * u(rng));
    const V3d b = x + t1 * l1 + t2 * (l1 * w * (0.2 + z(rng)));
    const V3d cc = x + t1 * l2 - t2 * (l2 * w * (0.2 + z(rng)));
    auto f = [](const V3d& v) { return V3f{float(v[0]), float(v[1]), float(v[2])}; };
    ks.push_back({f(o), f(d), f(a), f(b), f(cc)});
    Case k;
    const float tmin_all = i % 2 ? 0.0f : -std::numeric_limits<float>::infinity();
    put(k, 0, ks.back()[0], tmin_all), put(k, 1, ks.back()[1], std::numeric_limits<float>::infinity());
    put(k, 2, ks.back()[2]), put(k, 3, ks.back()[3]), put(k, 4, ks.back()[4]);
    cases.push_back(k);
  }
  const std::vector<Out> wt = run(cases, kWatertight);
  std::int64_t differ = 0, hits = 0;
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const auto& k = ks[i];
    const Rayf rf{k[0], k[1], i % 2 ? 0.0f : -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::infinity()};
    const RayTriangleHit<float> cpu = ray_triangle_watertight(rf, k[2], k[3], k[4]);
    hits += cpu.hit;
    const Out& o = wt[i];
    const bool same = (o.w[0] != 0) == cpu.hit && same_bits(o.f(1), cpu.t) &&
                      same_bits(o.f(2), cpu.u) && same_bits(o.f(3), cpu.v) &&
                      (o.w[4] != 0) == cpu.front_face;
    if (!same && ++differ <= 3)
      ADD_FAILURE() << "far sliver case " << i << ": GLSL hit " << (o.w[0] != 0) << " t "
                    << o.f(1) << ", C++ hit " << cpu.hit << " t " << cpu.t;
  }
  std::printf("\nGLSL ray/triangle, far slivers: %lld cases, %lld C++ hits, %lld differ from "
              "C++ float\n", (long long)n, (long long)hits, (long long)differ);
  EXPECT_EQ(differ, 0);
  EXPECT_GT(hits, n / 4);
}

// Issue 9's scales: triangles and queries scaled by 2^k (exact), so that the
// C++ float kernel answers some in float and the others on its rescaled double
// path (edges below 2^-16 or above 2^16); the GLSL must give the same bits on
// both. Sq distances overflow to inf past 2^63 and underflow to subnormals
// below 2^-63: those bits must agree too.
TEST(GpuKernels, ClosestPointTriangleScaleSweep) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  const int scales[] = {-90, -60, -40, -24, -17, -16, -15, -8, 0, 8, 15, 16, 17, 24, 40, 60};
  const CpFamily families[] = {CpFamily::random, CpFamily::face,     CpFamily::e12,
                               CpFamily::sliver, CpFamily::collinear, CpFamily::coincident,
                               CpFamily::tiny,   CpFamily::far};
  const std::int64_t per_scale = scaled_count(2400, 48);
  std::printf("\nGLSL closest point, triangles scaled by 2^k: bits != C++ float\n");
  std::int64_t total = 0, total_rescaled = 0, total_differ = 0, total_subnormal = 0;
  for (const int k : scales) {
    Rng rng(9100 + std::uint64_t(k + 100));
    std::vector<TriCase> ks;
    std::vector<Case> cases;
    for (std::int64_t i = 0; i < per_scale; ++i) {
      TriCase t = draw_case(rng, families[std::size_t(i) % std::size(families)]);
      t.p = times_pow2(t.p, k), t.a = times_pow2(t.a, k), t.b = times_pow2(t.b, k),
      t.c = times_pow2(t.c, k);
      ks.push_back(t);
      Case c;
      put(c, 0, t.p), put(c, 1, t.a), put(c, 2, t.b), put(c, 3, t.c);
      cases.push_back(c);
    }
    const std::vector<Out> outs = run(cases, kTriangle);
    std::int64_t differ = 0, rescaled = 0, subnormal = 0;
    for (std::size_t i = 0; i < ks.size(); ++i) {
      const TriCase& t = ks[i];
      const auto cpu = closest_point_triangle(t.p, t.a, t.b, t.c);
      const Out& o = outs[i];
      const bool same = same_bits(V3f{o.f(0), o.f(1), o.f(2)}, cpu.point) &&
                        same_bits(o.f(3), cpu.sq_distance) &&
                        same_bits(V3f{o.f(4), o.f(5), o.f(6)}, cpu.bary) &&
                        o.w[7] == std::uint32_t(cpu.feature);
      rescaled += cpu_rescales(t);
      if (has_subnormal({t.p, t.a, t.b, t.c})) {
        ++subnormal;
        continue;
      }
      if (!same && ++differ <= 5)
        ADD_FAILURE() << "scale 2^" << k << " case " << i << ": GLSL d2 " << o.f(3)
                      << " feature " << o.w[7] << ", C++ d2 " << cpu.sq_distance << " feature "
                      << int(cpu.feature) << (cpu_rescales(t) ? " (rescaled path)" : "");
    }
    std::printf("  2^%-4d %6lld cases, %6lld on C++'s rescaled path, %lld differ%s\n", k,
                (long long)per_scale, (long long)rescaled, (long long)differ,
                subnormal ? (" (" + std::to_string(subnormal) + " with subnormal input, not held)").c_str()
                          : "");
    total += per_scale, total_rescaled += rescaled, total_differ += differ,
        total_subnormal += subnormal;
  }
  std::printf("  all: %lld cases, %lld rescaled, %lld differ, %lld subnormal inputs\n",
              (long long)total, (long long)total_rescaled, (long long)total_differ,
              (long long)total_subnormal);
  EXPECT_EQ(total_differ, 0);
  EXPECT_GT(total_rescaled, total / 3) << "the sweep should exercise the rescaled path";
}

// Issue 9's ray scales: the geometry (origin, corners) scaled by 2^kg and the
// direction by 2^kd, so that the C++ watertight test normalizes the direction
// (every kd != 0), and redoes far or tiny triangles in double (det or t
// numerator outside [2^-80, 2^100]); t_max scaled to match, some left infinite
// (clipped to float's largest), hits whose t overflows float refused.
TEST(GpuKernels, RayTriangleScaleSweep) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  const int geometry[] = {-60, -36, -20, 0, 20, 36, 60};
  const int direction[] = {-100, -50, -7, 0, 9, 50, 100};
  const RayFamily families[] = {RayFamily::random,   RayFamily::edges, RayFamily::vertices,
                                RayFamily::grazing,  RayFamily::tiny,  RayFamily::far};
  const std::int64_t per_scale = scaled_count(400, 12);
  std::printf("\nGLSL watertight ray, geometry x 2^kg, direction x 2^kd: bits != C++ float\n");
  std::int64_t total = 0, rescaled = 0, differ = 0, subnormal = 0, hits = 0, t_inf = 0;
  for (const int kg : geometry) {
    for (const int kd : direction) {
      Rng rng(9300 + std::uint64_t((kg + 100) * 1000 + kd + 200));
      std::vector<RayCase> ks;
      std::vector<Case> cases;
      for (std::int64_t i = 0; i < per_scale; ++i) {
        RayCase r = draw_ray(rng, families[std::size_t(i) % std::size(families)]);
        r.o = times_pow2(r.o, kg), r.a = times_pow2(r.a, kg), r.b = times_pow2(r.b, kg),
        r.c = times_pow2(r.c, kg), r.d = times_pow2(r.d, kd);
        if (i % 3 == 0) r.t_max = std::numeric_limits<float>::infinity();
        else if (std::isfinite(r.t_max)) r.t_max = std::ldexp(r.t_max, kg - kd);
        ks.push_back(r);
        Case c;
        put(c, 0, r.o, 0.0f), put(c, 1, r.d, r.t_max), put(c, 2, r.a), put(c, 3, r.b),
            put(c, 4, r.c);
        cases.push_back(c);
      }
      const std::vector<Out> wt = run(cases, kWatertight);
      for (std::size_t i = 0; i < ks.size(); ++i) {
        const RayCase& r = ks[i];
        const Rayf rf{r.o, r.d, 0.0f, r.t_max};
        const RayTriangleHit<float> cpu = ray_triangle_watertight(rf, r.a, r.b, r.c);
        const Out& o = wt[i];
        ++total;
        hits += cpu.hit;
        t_inf += std::isinf(cpu.t) && cpu.hit;
        rescaled += cpu_ray_rescales(rf, r.a, r.b, r.c);
        if (has_subnormal({r.o, r.d, r.a, r.b, r.c})) {
          ++subnormal;
          continue;
        }
        const bool same = (o.w[0] != 0) == cpu.hit && same_bits(o.f(1), cpu.t) &&
                          same_bits(o.f(2), cpu.u) && same_bits(o.f(3), cpu.v) &&
                          (o.w[4] != 0) == cpu.front_face;
        if (!same && ++differ <= 5)
          ADD_FAILURE() << "kg " << kg << " kd " << kd << " case " << i << ": GLSL hit "
                        << o.w[0] << " t " << o.f(1) << " u " << o.f(2) << ", C++ hit " << cpu.hit
                        << " t " << cpu.t << " u " << cpu.u
                        << (cpu_ray_rescales(rf, r.a, r.b, r.c) ? " (rescaled path)" : "");
      }
    }
  }
  std::printf("  %lld cases (%zu x %zu scales), %lld hits, %lld on C++'s rescaled path, %lld "
              "differ, %lld with subnormal input (not held)\n",
              (long long)total, std::size(geometry), std::size(direction), (long long)hits,
              (long long)rescaled, (long long)differ, (long long)subnormal);
  EXPECT_EQ(differ, 0);
  EXPECT_EQ(t_inf, 0) << "a hit at an infinite t";
  EXPECT_GT(rescaled, total / 20) << "the sweep should exercise the rescaled path";
  EXPECT_GT(hits, total / 10);
}

// The roundings the rescaled paths end with: prox_to_float (a double to float
// as C++'s float(x): subnormal results built from their bits, exact halves to
// even, overflow to inf) and prox_times_pow2 (x 2^e as C++'s times_pow2 /
// ldexp), on doubles around float's subnormal range, exact halves between
// subnormals, the overflow threshold, and scalings into and out of it.
TEST(GpuKernels, RoundingsToFloat) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  Rng rng(77);
  const std::int64_t n = scaled_count(20000, 400);
  std::vector<Case> cases;
  std::vector<double> xs;
  std::vector<std::pair<float, int>> ps;
  for (std::int64_t i = 0; i < n; ++i) {
    double x = 0;
    switch (i % 6) {
      case 0: x = std::ldexp(rng.uniform(0.5, 1.0), int(rng.uniform(-152, -120))); break;
      case 1: x = std::ldexp(std::floor(rng.uniform(0, 1 << 23)) + 0.5, -149); break;  // a half
      case 2: x = std::ldexp(rng.uniform(0.5, 1.0), int(rng.uniform(120, 130))); break;
      case 3: x = std::ldexp(1.0, 128) - std::ldexp(1.0, 103) * rng.uniform(0, 2); break;
      case 4: x = rng.uniform(-4, 4); break;
      default: x = std::ldexp(rng.uniform(0.5, 1.0), int(rng.uniform(-160, 140))); break;
    }
    if (i % 2) x = -x;
    const float f = float(std::ldexp(rng.uniform(0.5, 1.0), int(rng.uniform(-125, 127))));
    const int e = int(rng.uniform(-160, 160));
    xs.push_back(x);
    ps.emplace_back(f, e);
    Case c;
    std::uint32_t w[2];
    std::memcpy(w, &x, 8);
    c.v[0][0] = std::bit_cast<float>(w[0]), c.v[0][1] = std::bit_cast<float>(w[1]);
    c.v[0][2] = f, c.v[0][3] = std::bit_cast<float>(std::uint32_t(e));
    cases.push_back(c);
  }
  const std::vector<Out> outs = run(cases, kRounding);
  std::int64_t bad = 0, subnormal = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float want = float(xs[i]);
    const float want_p = detail::times_pow2(ps[i].first, ps[i].second);
    subnormal += std::fpclassify(want) == FP_SUBNORMAL;
    if ((!same_bits(outs[i].f(0), want) || !same_bits(outs[i].f(1), want_p)) && ++bad <= 5)
      ADD_FAILURE() << "case " << i << ": to_float(" << xs[i] << ") = " << outs[i].f(0)
                    << " (C++ " << want << "), times_pow2(" << ps[i].first << ", " << ps[i].second
                    << ") = " << outs[i].f(1) << " (C++ " << want_p << ")";
  }
  std::printf("\nGLSL roundings: %lld cases (%lld subnormal results), %lld differ from C++\n",
              (long long)n, (long long)subnormal, (long long)bad);
  EXPECT_EQ(bad, 0);
  EXPECT_GT(subnormal, n / 10);
}

TEST(GpuKernels, SegmentsBoxesAndNonFiniteInputs) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Rng rng(99);
  const std::int64_t n = scaled_count(20000, 200);
  std::vector<Case> cases;
  for (std::int64_t i = 0; i < n; ++i) {
    Case c;
    V3f p = rng.vec(-2, 2), a = rng.vec(-1, 1), b = rng.vec(-1, 1), c3 = rng.vec(-1, 1);
    switch (i % 10) {
      case 0: b = a; break;                     // point segment / coincident triangle corners
      case 1: b = rng.dyadic(1024); a = b; c3 = b; break;
      case 2: p[int(i / 10 % 3)] = nan; break;  // non-finite query
      case 3: a[int(i / 10 % 3)] = inf; break;  // non-finite corner
      case 4: c3[1] = -inf; break;
      case 5: p = a; break;                     // exactly on a corner
      default: break;
    }
    put(c, 0, p), put(c, 1, a), put(c, 2, b), put(c, 3, c3);
    cases.push_back(c);
  }
  // Segments and triangles with the same inputs.
  const std::vector<Out> seg = run(cases, kSegment);
  const std::vector<Out> tri = run(cases, kTriangle);
  std::int64_t bad = 0;
  Worst seg_err;
  for (std::int64_t i = 0; i < n; ++i) {
    const Case& c = cases[std::size_t(i)];
    const V3f p{c.v[0][0], c.v[0][1], c.v[0][2]}, a{c.v[1][0], c.v[1][1], c.v[1][2]},
        b{c.v[2][0], c.v[2][1], c.v[2][2]}, c3{c.v[3][0], c.v[3][1], c.v[3][2]};
    const auto s = closest_point_segment(p, a, b);
    const Out& o = seg[std::size_t(i)];
    if (!(same_bits(V3f{o.f(0), o.f(1), o.f(2)}, s.point) && same_bits(o.f(3), s.sq_distance) &&
          same_bits(o.f(4), s.t)) && ++bad <= 5)
      ADD_FAILURE() << "segment case " << i << ": GLSL d2 " << o.f(3) << ", C++ " << s.sq_distance;
    if (all_finite(p) && all_finite(a) && all_finite(b)) {
      const auto e = closest_point_segment(to_q(p), to_q(a), to_q(b));
      seg_err.add(point_err(V3f{o.f(0), o.f(1), o.f(2)}, e.point), i);
    }
    const auto t = closest_point_triangle(p, a, b, c3);
    const Out& q = tri[std::size_t(i)];
    if (!(same_bits(V3f{q.f(0), q.f(1), q.f(2)}, t.point) && same_bits(q.f(3), t.sq_distance) &&
          same_bits(V3f{q.f(4), q.f(5), q.f(6)}, t.bary) && q.w[7] == std::uint32_t(t.feature)) &&
        ++bad <= 5)
      ADD_FAILURE() << "triangle case " << i << ": GLSL d2 " << q.f(3) << ", C++ " << t.sq_distance;
    if (!all_finite(p) || !all_finite(a) || !all_finite(b) || !all_finite(c3)) {
      EXPECT_TRUE(std::isnan(q.f(3)) && q.w[7] == 6u) << "non-finite case " << i << " not a miss";
    }
  }
  std::printf("\nGLSL segment: %lld cases, worst |point - exact| %s (coordinates <= 2)\n",
              (long long)n, fmt_err(seg_err.value).c_str());
  EXPECT_EQ(bad, 0);

  // Ray / box: random boxes (some empty, some flat), rays with zero direction
  // components on slab planes, NaN and infinite inputs.
  std::vector<Case> boxes;
  for (std::int64_t i = 0; i < n; ++i) {
    Case c;
    V3f lo = rng.vec(-1, 1), hi = lo + rng.vec(0, 1);
    if (i % 7 == 0) std::swap(lo, hi);         // empty
    if (i % 7 == 1) hi[0] = lo[0];             // flat
    V3f o = rng.vec(-3, 3), d = rng.vec(-1, 1);
    if (i % 2 == 0) d = (lo + hi) * 0.5f + rng.vec(-0.7, 0.7) - o;  // aimed near the box
    if (i % 5 == 0) d[int(i / 5 % 3)] = 0.0f;  // parallel to a slab
    if (i % 5 == 1) o[0] = lo[0], d[0] = 0.0f; // on a slab plane
    float t_min = 0.0f, t_max = i % 3 == 0 ? inf : 2.0f;
    if (i % 11 == 0) o[2] = nan;
    if (i % 13 == 0) t_max = nan;
    if (i % 17 == 0) hi[1] = inf;
    put(c, 0, o, t_min), put(c, 1, d, t_max), put(c, 2, lo), put(c, 3, hi);
    boxes.push_back(c);
  }
  const std::vector<Out> bo = run(boxes, kBox);
  std::int64_t box_bad = 0, box_hits = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const Case& c = boxes[std::size_t(i)];
    const Rayf r{V3f{c.v[0][0], c.v[0][1], c.v[0][2]}, V3f{c.v[1][0], c.v[1][1], c.v[1][2]},
                 c.v[0][3], c.v[1][3]};
    const Box3<float> box{V3f{c.v[2][0], c.v[2][1], c.v[2][2]}, V3f{c.v[3][0], c.v[3][1], c.v[3][2]}};
    const auto h = ray_box(r, box);
    const Out& o = bo[std::size_t(i)];
    box_hits += h.hit;
    if (!((o.w[0] != 0) == h.hit && same_bits(o.f(1), h.t_near) && same_bits(o.f(2), h.t_far)) &&
        ++box_bad <= 5)
      ADD_FAILURE() << "ray/box case " << i << ": GLSL hit " << o.w[0] << " [" << o.f(1) << ", "
                    << o.f(2) << "], C++ hit " << h.hit << " [" << h.t_near << ", " << h.t_far << "]";
  }
  std::printf("GLSL ray/box: %lld cases, %lld hits, %lld differ from C++\n", (long long)n,
              (long long)box_hits, (long long)box_bad);
  EXPECT_EQ(box_bad, 0);
}

}  // namespace
}  // namespace prox::test
