// prox::gpu::MeshIndexGpu::count_hits (prox/crossing.glsl, prox/bvh_count_hits.glsl)
// against MeshIndex<float>::count_hits, the CPU engine (itself equal to
// BruteForce), ray for ray: the same crossing count. On CGAL data meshes and a
// soup with degenerate triangles (random rays, rays aimed exactly at vertices
// and edge midpoints, invalid and short rays), and on exact meshes (a cube,
// an L-shaped block, a wedge) with axis-aligned and diagonal rays from a
// dyadic grid, which pass exactly through edges and vertices: there the
// symbolic perturbation decides (the plain watertight test's count differs on
// many of them), and the parity of the count must be the exact containment of
// the ray's origin (odd strictly inside, even strictly outside).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "exact_shapes.hpp"
#include "gpu_support.hpp"
#include "mesh/mesh_support.hpp"
#include "prox/primitives/ray_triangle.hpp"
#include "support/scale.hpp"

namespace prox::test {
namespace {

struct CountTally {
  std::size_t rays = 0, crossing = 0, differ = 0, rule = 0;
};

bool valid(const Ray<float>& r) {
  bool ok = r.t_min <= r.t_max && r.direction != Vec3<float>::zero();
  for (int k = 0; k < 3; ++k) ok = ok && std::isfinite(r.origin[k]) && std::isfinite(r.direction[k]);
  return ok;
}

/// GPU counts against the CPU's, in batches of 700 (several dispatches).
/// rule: rays whose plain watertight count (every triangle the kernel hits)
/// differs from the crossing count, so the edge/vertex rule decided them.
CountTally check_counts(gpu::Context& ctx, const MeshIndex<float>& index,
                        const std::vector<Ray<float>>& rays, const std::string& what,
                        std::vector<std::uint32_t>* counts = nullptr) {
  gpu::MeshIndexGpu g(ctx, index);
  g.set_batch_size(700);
  std::vector<std::uint32_t> out(rays.size());
  g.count_hits(rays, out);
  CountTally y;
  y.rays = rays.size();
  const TriangleMesh<float>& m = index.mesh();
  for (std::size_t i = 0; i < rays.size(); ++i) {
    const std::size_t c = index.count_hits(rays[i]);
    y.crossing += c > 0;
    if (out[i] != c && ++y.differ <= 5)
      ADD_FAILURE() << what << " ray " << i << " (" << rays[i].origin[0] << ", "
                    << rays[i].origin[1] << ", " << rays[i].origin[2] << ") dir ("
                    << rays[i].direction[0] << ", " << rays[i].direction[1] << ", "
                    << rays[i].direction[2] << "): gpu " << out[i] << " crossings, cpu " << c;
    if (m.num_triangles() <= 5000) {
      std::size_t plain = 0;
      const WatertightRay<float> wr(rays[i]);
      if (valid(rays[i]))
        for (std::size_t t = 0; t < m.num_triangles(); ++t)
          plain += ray_triangle_watertight(wr, m.corner(t, 0), m.corner(t, 1), m.corner(t, 2)).hit;
      y.rule += plain != c;
    }
  }
  EXPECT_EQ(y.differ, 0u) << what << ": " << y.differ << " of " << rays.size() << " counts differ";
  std::printf("%-30s %6zu rays (%zu cross), %zu decided by the edge/vertex rule, %zu differ, "
              "%zu on the CPU (stack)\n",
              what.c_str(), y.rays, y.crossing, y.rule, y.differ, g.cpu_fallbacks());
  if (counts) *counts = out;
  return y;
}

/// query_rays plus invalid rays (zero direction, NaN or infinite origin,
/// t_min > t_max, NaN t_max) and short rays at fixed places.
std::vector<Ray<float>> mixed_rays(const TriangleMesh<float>& m, std::size_t n, std::uint64_t seed) {
  std::vector<Ray<float>> rays = query_rays(m, n, seed);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t i = 5; i < rays.size(); i += 89) {
    switch ((i / 89) % 5) {
      case 0: rays[i].direction = Vec3<float>::zero(); break;
      case 1: rays[i].origin[1] = nan; break;
      case 2: rays[i].origin[2] = std::numeric_limits<float>::infinity(); break;
      case 3: rays[i].t_min = 2.0f, rays[i].t_max = 1.0f; break;
      default: rays[i].t_max = nan;
    }
  }
  for (std::size_t i = 3; i < rays.size(); i += 10) rays[i].t_max = 0.5f;
  for (std::size_t i = 4; i < rays.size(); i += 10) rays[i].t_min = 0.25f;
  return rays;
}

TEST(GpuCount, CgalMeshesAndDegenerateTriangles) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  const std::size_t n = std::size_t(scaled_count(3000, 200));
  for (const char* name : {"bunny00.off", "elephant.off", "knot1.off", "mesh_with_border.off",
                           "degtri_sliding.off", "cube-ouvert.off", "fandisk.off"}) {
    const MeshIndex<float> index(to_float(cgal_mesh(name)));
    const CountTally y = check_counts(*ctx, index, mixed_rays(index.mesh(), n, 61), name);
    EXPECT_GT(y.crossing, n / 40) << name;
  }
  // Exactly degenerate triangles (never hit), interleaved with ordinary ones.
  auto soup = to_float(random_soup(2000, 0.05, 7));
  std::vector<Vec3<float>> v = soup.vertices();
  std::vector<Tri> t = soup.triangles();
  for (std::size_t i = 0; i < t.size(); i += 4) {
    const std::uint32_t a = t[i][0], b = t[i][1];
    switch ((i / 4) % 3) {
      case 0: t[i][2] = b; break;
      case 1: t[i] = {a, a, a}; break;
      default: {
        v.push_back((v[a] + v[b]) * 0.5f);
        t[i][2] = std::uint32_t(v.size() - 1);
      }
    }
  }
  const MeshIndex<float> degen(TriangleMesh<float>(v, t));
  check_counts(*ctx, degen, mixed_rays(degen.mesh(), n, 62), "soup with degenerates");
  // Empty mesh, empty batch, size mismatch.
  const MeshIndex<float> empty{TriangleMesh<float>{}};
  gpu::MeshIndexGpu e(*ctx, empty);
  std::vector<std::uint32_t> c(2, 7);
  e.count_hits(std::vector<Ray<float>>(2, Ray<float>{Vec3<float>::zero(), Vec3<float>{0, 0, 1}}), c);
  EXPECT_EQ(c[0], 0u);
  EXPECT_EQ(c[1], 0u);
  gpu::MeshIndexGpu g(*ctx, degen);
  g.count_hits({}, {});
  EXPECT_THROW(g.count_hits(std::vector<Ray<float>>(3), c), std::invalid_argument);
}

TEST(GpuCount, RaysThroughEdgesAndVerticesOfExactMeshes) {
  gpu::Context* ctx = nullptr;
  gpu_or_skip(ctx);
  if (!ctx) return;
  const int k = test_scale() < 0.5 ? 4 : 8;  // grid steps per unit
  const float inf = std::numeric_limits<float>::infinity();
  struct Shape {
    std::string name;
    TriangleMesh<float> mesh;
    bool (*inside)(const Vec3<float>&);  // strictly inside the solid
    bool (*outside)(const Vec3<float>&);  // strictly outside its closure
  };
  const auto in_cube = [](const Vec3<float>& p) {
    return p[0] > 0 && p[0] < 1 && p[1] > 0 && p[1] < 1 && p[2] > 0 && p[2] < 1;
  };
  const auto out_cube = [](const Vec3<float>& p) {
    return p[0] < 0 || p[0] > 1 || p[1] < 0 || p[1] > 1 || p[2] < 0 || p[2] > 1;
  };
  std::vector<Shape> shapes;
  shapes.push_back({"cube", to_float(cube()), +in_cube, +out_cube});
  shapes.push_back({"notched block", to_float(notched_block()),
                    [](const Vec3<float>& p) {
                      return p[0] > 0 && p[0] < 1 && p[1] > 0 && p[1] < 1 && p[2] > 0 &&
                             p[2] < 1 && !(p[0] >= 0.5f && p[2] >= 0.5f);
                    },
                    [](const Vec3<float>& p) {
                      return p[0] < 0 || p[0] > 1 || p[1] < 0 || p[1] > 1 || p[2] < 0 ||
                             p[2] > 1 || (p[0] > 0.5f && p[2] > 0.5f);
                    }});
  shapes.push_back({"wedge", to_float(wedge()),  // z < 6 x, z < 6 (1 - x), 0 < y < 1, z > 0
                    [](const Vec3<float>& p) {
                      return p[1] > 0 && p[1] < 1 && p[2] > 0 && p[2] < 6 * p[0] &&
                             p[2] < 6 * (1 - p[0]);
                    },
                    [](const Vec3<float>& p) {
                      return p[1] < 0 || p[1] > 1 || p[2] < 0 || p[2] > 6 * p[0] ||
                             p[2] > 6 * (1 - p[0]);
                    }});
  // Directions: the six axes, face diagonals and a space diagonal (with the
  // dyadic grid they meet edges and corners exactly), and two generic ones.
  const std::vector<Vec3<float>> dirs = {
      {0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {1, 1, 0},
      {1, 0, 1}, {0, -1, 1}, {1, 1, 1}, {-1, 1, -1}, {0.3f, 0.7f, 1}, {-1, 0.25f, 0.5f}};
  for (const Shape& s : shapes) {
    const MeshIndex<float> index(s.mesh);
    const Box3<float> b = s.mesh.bounds();
    std::vector<Ray<float>> rays;
    const float step = 1.0f / float(k);
    for (float x = b.lo[0] - step; x <= b.hi[0] + step; x += step)
      for (float y = b.lo[1] - step; y <= b.hi[1] + step; y += step)
        for (float z = b.lo[2] - step; z <= b.hi[2] + step; z += step)
          for (const Vec3<float>& d : dirs) rays.push_back(Ray<float>{{x, y, z}, d, 0.0f, inf});
    std::vector<std::uint32_t> counts;
    const CountTally y = check_counts(*ctx, index, rays, s.name, &counts);
    EXPECT_GT(y.rule, rays.size() / 50) << s.name << ": too few rays through edges or vertices";
    std::size_t judged = 0, wrong = 0;
    for (std::size_t i = 0; i < rays.size(); ++i) {
      const Vec3<float>& o = rays[i].origin;
      const bool in = s.inside(o), out = s.outside(o);
      if (!in && !out) continue;  // on the surface
      ++judged;
      if ((counts[i] % 2 == 1) != in && ++wrong <= 5)
        ADD_FAILURE() << s.name << " ray from (" << o[0] << ", " << o[1] << ", " << o[2]
                      << ") dir (" << rays[i].direction[0] << ", " << rays[i].direction[1] << ", "
                      << rays[i].direction[2] << "): " << counts[i] << " crossings but the origin is "
                      << (in ? "inside" : "outside");
    }
    EXPECT_EQ(wrong, 0u) << s.name;
    EXPECT_GT(judged, rays.size() / 2) << s.name;
    std::printf("%-30s parity of %zu judged rays: %zu wrong\n", s.name.c_str(), judged, wrong);
  }
}

}  // namespace
}  // namespace prox::test
