// prox::gpu on a soup of far-corner triangles: slivers whose edges pass 1e-3
// .. 20 from the queries with ends 1e6 .. 1e9 away (the C++ float kernel's far
// re-solve, far_solve, and its nearest-corner path). The traversal shader does
// not run the far re-solve (docs/gpu.md: lavapipe misbehaves with it in the
// traversal); a search that meets a triangle on that path stops with
// PROX_STATUS_FAR_SOLVE and prox::gpu answers the query on the CPU. Before
// that flag, 681 of 1,200 GPU answers on such a soup differed from the CPU,
// some at distance 0 for a triangle about 20 away.
// Checks: closest_point, signed_closest_point (every sign method) and
// signed_distance equal the CPU bit for bit, every field; the flag is
// conservative: every query whose CPU answer's triangle takes the far path in
// the mesh traversal's kernel (tests/gpu/kernels.comp mode 6, run on that
// triangle alone) was re-answered; on ordinary meshes (bunny, elephant) no
// query is flagged.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpu_support.hpp"
#include "mesh/mesh_support.hpp"
#include "prox/mesh/sign.hpp"
#include "prox/primitives/closest_point_triangle.hpp"
#include "support/scale.hpp"

namespace prox::test {
namespace {

bool same_f(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}
bool same_v(const Vec3<float>& a, const Vec3<float>& b) {
  return same_f(a[0], b[0]) && same_f(a[1], b[1]) && same_f(a[2], b[2]);
}
bool same_closest(const MeshClosestPoint<float>& x, const MeshClosestPoint<float>& y) {
  return x.triangle == y.triangle && same_f(x.sq_distance, y.sq_distance) &&
         same_v(x.point, y.point) && same_v(x.bary, y.bary) && x.feature == y.feature;
}

struct Soup {
  TriangleMesh<float> mesh;
  std::vector<Vec3<float>> points;
};

/// Sizes of a soup: the box [-h, h]^3 the slivers pass through, their far
/// corners 10^lo .. 10^hi away.
struct SoupScale {
  double h, lo, hi;
};
/// 1e6 .. 1e9 around [-10, 10]^3: edges far above 2^16, so the float kernel
/// sends them to the double kernel (its far re-solve, prox_far_solve_d).
constexpr SoupScale kHuge{10, 6, 9};
/// 3e3 .. 3e4 around [-1, 1]^3: edges mostly under 2^16, the float kernel's
/// own far re-solve (prox_far_solve: corners 2^10 times farther than the
/// answer and p).
constexpr SoupScale kFloat{1, 3.5, 4.5};

/// `triangles` far-corner triangles around the box [-h, h]^3 and `points`
/// queries near them. Each triangle has an edge through a point f of the box
/// with both ends 10^lo .. 10^hi away; its third corner is far too (kind 0),
/// about 1 from the line (kind 1: the nearest-corner path for points near it),
/// or far and flat (kind 2); kind 3 has one corner within 1e-1 of f and two far.
/// Corners rotated so that every position takes every role. Points: f of a
/// random triangle moved 1e-3 .. 2h off the edge, every fifth one anywhere in
/// [-2h, 2h]^3.
Soup far_corner_soup(std::size_t triangles, std::size_t points, std::uint64_t seed,
                     const SoupScale& z) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * u(rng); };
  const auto unit = [&]() {
    for (;;) {
      const Vec3<double> v{uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
      const double n2 = squared_norm(v);
      if (n2 > 0.01 && n2 <= 1) return v * (1 / std::sqrt(n2));
    }
  };
  const auto far = [&]() { return std::pow(10.0, uniform(z.lo, z.hi)); };
  std::vector<Vec3<float>> vertices;
  std::vector<TriangleMesh<float>::Triangle> tris;
  std::vector<Vec3<double>> centers, dirs;
  for (std::size_t t = 0; t < triangles; ++t) {
    const Vec3<double> f{uniform(-z.h, z.h), uniform(-z.h, z.h), uniform(-z.h, z.h)};
    const Vec3<double> dir = unit();
    Vec3<double> w = cross(dir, unit());
    w = w * (1 / std::sqrt(squared_norm(w)));
    Vec3<double> c[3];
    const int kind = int(t % 4);
    if (kind < 3) {
      c[0] = f + dir * far();
      c[1] = f - dir * far();
      if (kind == 0) c[2] = f + (w + dir * uniform(-1, 1)) * far();
      else if (kind == 1) c[2] = f + (w + dir * uniform(-1, 1)) * uniform(1, 2);
      else c[2] = f + (w * 0.3 + dir * uniform(-1, 1)) * far();
    } else {
      c[0] = f + unit() * std::pow(10.0, uniform(-8, -1));
      c[1] = f + unit() * far();
      c[2] = f + unit() * far();
    }
    std::rotate(c, c + (t / 4) % 3, c + 3);
    const auto first = std::uint32_t(vertices.size());
    for (const auto& v : c) vertices.push_back(v.cast<float>());
    tris.push_back({first, first + 1, first + 2});
    centers.push_back(f);
    dirs.push_back(dir);
  }
  Soup s;
  for (std::size_t i = 0; i < points; ++i) {
    if (i % 5 == 4) {
      const double w = 2 * z.h;
      const Vec3<double> q{uniform(-w, w), uniform(-w, w), uniform(-w, w)};
      s.points.push_back(q.cast<float>());
      continue;
    }
    const std::size_t t = std::size_t(u(rng) * double(triangles)) % triangles;
    Vec3<double> off = cross(dirs[t], unit());
    off = off * (std::pow(10.0, uniform(-3, std::log10(2 * z.h))) / std::sqrt(squared_norm(off)));
    s.points.push_back((centers[t] + off).cast<float>());
  }
  s.mesh = TriangleMesh<float>(std::move(vertices), std::move(tris));
  return s;
}

/// For each query i with a CPU answer, the mesh traversal's GLSL kernel
/// (kernels.comp mode 6: prox_closest_point_triangle_mesh) on p_i and that
/// answer's triangle: whether it takes the far path (so the traversal must
/// flag query i), and whether its answer there differs from the C++ kernel's.
struct KernelOnAnswers {
  std::vector<char> far, differs;
};
KernelOnAnswers kernel_on_answers(gpu::Context& ctx, const TriangleMesh<float>& m,
                                  const std::vector<Vec3<float>>& pts,
                                  const std::vector<MeshClosestPoint<float>>& cpu) {
  struct Case {
    float v[5][4] = {};
  };
  struct Out {
    std::uint32_t w[8];
  };
  std::vector<Case> cases(pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (!cpu[i].found()) continue;
    for (int k = 0; k < 3; ++k) cases[i].v[0][k] = pts[i][k];
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k)
        cases[i].v[r + 1][k] = m.corner(std::size_t(cpu[i].triangle), r)[k];
  }
  std::vector<Out> outs(cases.size());
  static const std::vector<std::uint32_t> spirv = load_spirv("kernels.spv");
  const gpu::ComputeBuffer bufs[2] = {{std::as_writable_bytes(std::span(cases))},
                                      {std::as_writable_bytes(std::span(outs))}};
  const std::uint32_t push[2] = {std::uint32_t(cases.size()), 6};
  ctx.run_compute(spirv, bufs, std::as_bytes(std::span(push)),
                  std::uint32_t((cases.size() + 63) / 64));
  KernelOnAnswers k;
  k.far.assign(pts.size(), 0);
  k.differs.assign(pts.size(), 0);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (!cpu[i].found()) continue;
    const Out& o = outs[i];
    const auto f = [&](int j) { return std::bit_cast<float>(o.w[j]); };
    k.far[i] = (o.w[7] & 256u) != 0;
    const auto t = std::size_t(cpu[i].triangle);
    const auto c = closest_point_triangle(pts[i], m.corner(t, 0), m.corner(t, 1), m.corner(t, 2));
    k.differs[i] = !(same_v(Vec3<float>{f(0), f(1), f(2)}, c.point) &&
                     same_f(f(3), c.sq_distance) &&
                     same_v(Vec3<float>{f(4), f(5), f(6)}, c.bary) &&
                     (o.w[7] & 255u) == std::uint32_t(c.feature));
    // Off the far path the mesh kernel is the C++ kernel, bit for bit.
    if (!k.far[i]) {
      EXPECT_FALSE(k.differs[i]) << "query " << i << ": the mesh kernel differs off the far path";
    }
  }
  return k;
}

/// closest_point on the soup equals the CPU, bit for bit; every query whose
/// answer needs a far re-solve was flagged.
void check_soup_closest(gpu::Context& ctx, const SoupScale& z, const char* what,
                        std::uint64_t seed) {
  const std::size_t n = std::size_t(scaled_count(1500, 300));
  const Soup soup = far_corner_soup(240, n, seed, z);
  const MeshIndex<float> index(soup.mesh);
  gpu::MeshIndexGpu g(ctx, index);
  for (const float radius : {std::numeric_limits<float>::infinity(), float(z.h / 5)}) {
    for (const std::size_t batch : {n, std::size_t(400)}) {
      g.set_batch_size(batch);
      std::vector<MeshClosestPoint<float>> out(n), cpu(n);
      g.closest_point(soup.points, out, radius);
      const std::vector<std::size_t> flagged = g.last_far_queries();
      EXPECT_TRUE(std::is_sorted(flagged.begin(), flagged.end()));
      std::vector<char> is_flagged(n, 0);
      for (std::size_t i : flagged) is_flagged.at(i) = 1;
      std::size_t differ = 0, found = 0;
      for (std::size_t i = 0; i < n; ++i) {
        cpu[i] = index.closest_point(soup.points[i], radius);
        found += cpu[i].found();
        if (!same_closest(out[i], cpu[i]) && ++differ <= 5)
          ADD_FAILURE() << what << " r " << radius << " query " << i << ": gpu tri "
                        << out[i].triangle << " d2 " << out[i].sq_distance << ", cpu tri "
                        << cpu[i].triangle << " d2 " << cpu[i].sq_distance
                        << (is_flagged[i] ? " (flagged)" : "");
      }
      const KernelOnAnswers k = kernel_on_answers(ctx, index.mesh(), soup.points, cpu);
      std::size_t need = 0, would_differ = 0, missed = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (!k.far[i]) continue;
        ++need;
        would_differ += k.differs[i];
        if (!is_flagged[i] && ++missed <= 5)
          ADD_FAILURE() << what << " r " << radius << " query " << i << ": its answer (triangle "
                        << cpu[i].triangle << ") needs a far re-solve but it was not flagged";
      }
      EXPECT_EQ(differ, 0u) << what << ": " << differ << " of " << n << " differ";
      EXPECT_EQ(missed, 0u) << what;
      EXPECT_GT(found, n / 2) << what;
      EXPECT_GT(need, n / 10) << what << ": the far path should be exercised";
      EXPECT_GT(would_differ, 0u) << what;
      std::printf("%s r %g batch %zu: %zu queries (%zu found), %zu flagged and answered on the "
                  "CPU (%zu answers' triangles on a far path, %zu of which the mesh kernel "
                  "answers otherwise), %zu differ\n",
                  what, double(radius), batch, n, found, flagged.size(), need, would_differ,
                  differ);
    }
  }
  EXPECT_EQ(g.far_fallbacks(), g.cpu_fallbacks()) << what;  // no stack overflow here
}

TEST(GpuFar, FarCornerSoupClosestPointEqualsCpu) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  check_soup_closest(*ctx, kHuge, "far-corner soup 1e6..1e9", 15);
  check_soup_closest(*ctx, kFloat, "far-corner soup 3e3..3e4", 17);
}

/// Every sign method and signed_distance on the soup equal the CPU, every field.
void check_soup_signed(gpu::Context& ctx, const SoupScale& z, const char* what,
                       std::uint64_t seed) {
  const std::size_t n = std::size_t(scaled_count(1200, 300));
  const Soup soup = far_corner_soup(240, n, seed, z);
  const MeshIndex<float> index(soup.mesh);
  gpu::MeshIndexGpu g(ctx, index);
  g.set_batch_size(500);
  for (const SignMethod method : {SignMethod::automatic, SignMethod::pseudonormal,
                                  SignMethod::parity, SignMethod::winding}) {
    const SignedMesh<MeshIndex<float>> sm(index, SignOptions{method, 3});
    gpu::SignedMeshGpu s(g, sm);
    std::vector<SignedClosestPoint<float>> out(n);
    s.query(soup.points, out);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const SignedClosestPoint<float> c = sm.query(soup.points[i]);
      const SignedClosestPoint<float>& o = out[i];
      const bool same = same_closest(o.closest, c.closest) &&
                        same_f(o.signed_distance, c.signed_distance) &&
                        same_f(o.winding_number, c.winding_number) &&
                        o.inside_votes == c.inside_votes && o.votes == c.votes &&
                        o.method == c.method && o.confidence == c.confidence;
      if (!same && ++differ <= 5)
        ADD_FAILURE() << to_string(method) << " point " << i << ": gpu tri "
                      << o.closest.triangle << " sd " << o.signed_distance << ", cpu tri "
                      << c.closest.triangle << " sd " << c.signed_distance;
    }
    EXPECT_EQ(differ, 0u) << what << " " << to_string(method);
    EXPECT_GT(g.last_far_queries().size(), n / 10) << to_string(method);
    std::printf("%s signed (%s as %s): %zu points, %zu flagged and answered on the "
                "CPU, %zu differ\n",
                what, std::string(to_string(method)).c_str(),
                std::string(to_string(sm.method())).c_str(), n,
                g.last_far_queries().size(), differ);
  }
  std::vector<MeshSignedDistance<float>> sd(n);
  g.signed_distance(soup.points, sd);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = index.signed_distance(soup.points[i]);
    if (!(same_f(c.signed_distance, sd[i].signed_distance) &&
          same_f(c.winding_number, sd[i].winding_number)) &&
        ++differ <= 5)
      ADD_FAILURE() << "signed distance " << i << ": gpu " << sd[i].signed_distance << ", cpu "
                    << c.signed_distance;
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_GT(g.last_far_queries().size(), n / 10);
  std::printf("%s signed_distance: %zu points, %zu flagged, %zu differ\n", what, n,
              g.last_far_queries().size(), differ);
}

TEST(GpuFar, FarCornerSoupSignedEqualsCpu) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  check_soup_signed(*ctx, kHuge, "far-corner soup 1e6..1e9", 16);
  check_soup_signed(*ctx, kFloat, "far-corner soup 3e3..3e4", 18);
}

TEST(GpuFar, BunnyWithFarSliversFlagsOnlyTheirQueries) {
  // The bunny (within 0.2 of the origin) and 60 slivers along x at z = 2
  // (ends 4e3 .. 3e4 away, the third corner 0.5 off in y), in one mesh and one
  // dispatch: points near the bunny never reach a sliver's box (1.7 away in
  // z), so they stay on the GPU; points near the slivers go to the CPU.
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  const TriangleMesh<float> bunny = to_float(cgal_mesh("bunny00.off"));
  std::vector<Vec3<float>> v = bunny.vertices();
  std::vector<TriangleMesh<float>::Triangle> t = bunny.triangles();
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(0, 1);
  const std::size_t slivers = 60;
  for (std::size_t k = 0; k < slivers; ++k) {
    const double y = 2 * u(rng) - 1, z = 2;
    const double l0 = std::pow(10.0, 3.6 + 0.9 * u(rng)), l1 = std::pow(10.0, 3.6 + 0.9 * u(rng));
    const auto first = std::uint32_t(v.size());
    v.push_back(Vec3<double>{-l0, y, z}.cast<float>());
    v.push_back(Vec3<double>{l1, y, z}.cast<float>());
    v.push_back(Vec3<double>{2 * u(rng) - 1, y + (k % 2 ? 0.5 : -0.5), z + 0.01 * u(rng)}
                    .cast<float>());
    t.push_back({first, first + 1, first + 2});
  }
  const MeshIndex<float> index(TriangleMesh<float>(std::move(v), std::move(t)));
  const std::size_t n = std::size_t(scaled_count(1500, 200));
  std::vector<Vec3<float>> pts = query_points(bunny, n, 24);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = 2 * u(rng) - 1, y = 2 * u(rng) - 1;
    pts.push_back(Vec3<double>{x, y, 2 + std::pow(10.0, -3 + 2.5 * u(rng))}.cast<float>());
  }
  gpu::MeshIndexGpu g(*ctx, index);
  g.set_batch_size(pts.size());
  std::vector<MeshClosestPoint<float>> out(pts.size());
  g.closest_point(pts, out);
  std::size_t differ = 0, bunny_flagged = 0;
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (!same_closest(out[i], index.closest_point(pts[i])) && ++differ <= 5)
      ADD_FAILURE() << "query " << i << ": gpu tri " << out[i].triangle << ", cpu tri "
                    << index.closest_point(pts[i]).triangle;
  for (std::size_t i : g.last_far_queries()) bunny_flagged += i < n;
  EXPECT_EQ(differ, 0u);
  EXPECT_EQ(bunny_flagged, 0u);
  EXPECT_GT(g.last_far_queries().size(), n / 2);
  std::printf("bunny + %zu far slivers: %zu queries (%zu near the bunny), %zu flagged and answered "
              "on the CPU (%zu of them near the bunny), %zu differ\n",
              slivers, pts.size(), n, g.last_far_queries().size(), bunny_flagged, differ);
}

TEST(GpuFar, OrdinaryMeshesAreNotFlagged) {
  // A far path needs corners 2^10 times farther than both the answer and p:
  // none of these meshes' triangles is (their boxes are under 2 long and hold
  // or touch the origin only far from their surface points).
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  for (const char* name : {"bunny00.off", "elephant.off"}) {
    const MeshIndex<float> index(to_float(cgal_mesh(name)));
    gpu::MeshIndexGpu g(*ctx, index);
    const auto pts = query_points(index.mesh(), std::size_t(scaled_count(2000, 200)), 21);
    std::vector<MeshClosestPoint<float>> out(pts.size());
    g.closest_point(pts, out);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < pts.size(); ++i)
      differ += !same_closest(out[i], index.closest_point(pts[i]));
    EXPECT_EQ(differ, 0u) << name;
    EXPECT_EQ(g.far_fallbacks(), 0u) << name;
    std::printf("%s: %zu queries, %zu flagged, %zu differ\n", name, pts.size(), g.far_fallbacks(),
                differ);
  }
}

}  // namespace
}  // namespace prox::test
