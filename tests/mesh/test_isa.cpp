// Every ISA path of the engine gives the same bytes: batch closest points,
// first hits and any hits under each path the binary has and the CPU runs
// (prox/mesh/isa.hpp), float and double, on procedural and CGAL meshes with
// adversarial queries (NaN, zero directions, points on vertices, rays through
// vertices), compared with memcmp against the first path and with the
// brute-force twin. Also: the best path is the default, and asking for a path
// that is not available throws.
#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "mesh_support.hpp"
#include "prox/mesh/isa.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;

/// Restores the active path when a test ends.
struct IsaGuard {
  Isa saved = active_isa();
  ~IsaGuard() { set_isa(saved); }
};

template <class T>
struct Outputs {
  std::vector<MeshClosestPoint<T>> cp;
  std::vector<MeshRayHit<T>> hit;
  std::vector<std::uint8_t> any;
};

template <class Index, class T>
Outputs<T> run_all(const Index& index, const std::vector<Vec3<T>>& points,
                   const std::vector<Ray<T>>& rays) {
  Outputs<T> o;
  o.cp.resize(points.size());
  o.hit.resize(rays.size());
  o.any.resize(rays.size());
  std::memset(static_cast<void*>(o.cp.data()), 0, o.cp.size() * sizeof(o.cp[0]));
  std::memset(static_cast<void*>(o.hit.data()), 0, o.hit.size() * sizeof(o.hit[0]));
  const BatchOptions opt{.threads = 2, .grain = 64};
  closest_points(index, std::span<const Vec3<T>>(points), std::span<MeshClosestPoint<T>>(o.cp),
                 ScalarTraits<T>::infinity(), opt);
  first_hits(index, std::span<const Ray<T>>(rays), std::span<MeshRayHit<T>>(o.hit), opt);
  any_hits(index, std::span<const Ray<T>>(rays), std::span<std::uint8_t>(o.any), opt);
  return o;
}

template <class T>
void same_on_every_path(const TriangleMesh<T>& mesh, const std::string& what) {
  SCOPED_TRACE(what);
  IsaGuard guard;
  const MeshIndex<T> index(mesh);
  const std::size_t n = std::size_t(test::scaled_count(20000, 1500));
  auto points = test::query_points(mesh, n, 11);
  auto rays = test::query_rays(mesh, n, 12);
  points[3] = Vec3<T>{std::numeric_limits<T>::quiet_NaN(), T(0), T(0)};
  points[4] = mesh.vertices()[0];
  points[5] = mesh.corner(mesh.num_triangles() / 2, 1);
  rays[7].direction = Vec3<T>::zero();
  rays[8].origin = Vec3<T>::zero();
  rays[8].direction = mesh.vertices()[1];  // through a vertex
  const std::vector<Isa> paths = available_isas();
  ASSERT_FALSE(paths.empty());
  std::string ran;
  Outputs<T> first;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    set_isa(paths[i]);
    ASSERT_EQ(active_isa(), paths[i]);
    ran += std::string(" ") + isa_name(paths[i]);
    const Outputs<T> o = run_all(index, points, rays);
    if (i == 0) {
      first = o;
      continue;
    }
    EXPECT_EQ(std::memcmp(o.cp.data(), first.cp.data(), n * sizeof(o.cp[0])), 0)
        << "closest points differ on " << isa_name(paths[i]);
    EXPECT_EQ(std::memcmp(o.hit.data(), first.hit.data(), n * sizeof(o.hit[0])), 0)
        << "first hits differ on " << isa_name(paths[i]);
    EXPECT_EQ(o.any, first.any) << "any hits differ on " << isa_name(paths[i]);
  }
  std::printf("[%s] %zu points and %zu rays, identical bytes on:%s\n", what.c_str(), n, n,
              ran.c_str());
  // And the first path equals the brute-force twin (on a subsample: it is O(n) a query).
  const BruteForce<T> brute(mesh);
  const std::size_t m = std::min<std::size_t>(n, 400);
  const std::vector<Vec3<T>> p2(points.begin(), points.begin() + std::ptrdiff_t(m));
  const std::vector<Ray<T>> r2(rays.begin(), rays.begin() + std::ptrdiff_t(m));
  const Outputs<T> b = run_all(brute, p2, r2);
  EXPECT_EQ(std::memcmp(b.cp.data(), first.cp.data(), m * sizeof(b.cp[0])), 0);
  EXPECT_EQ(std::memcmp(b.hit.data(), first.hit.data(), m * sizeof(b.hit[0])), 0);
  EXPECT_TRUE(std::equal(b.any.begin(), b.any.end(), first.any.begin()));
}

TEST(Isa, SameBytesOnEveryPathProcedural) {
  same_on_every_path(test::icosphere(4), "icosphere double");
  same_on_every_path(test::to_float(test::icosphere(4)), "icosphere float");
  same_on_every_path(test::random_soup(3000, 0.05, 9), "soup double");
  same_on_every_path(test::to_float(test::random_soup(3000, 0.05, 9)), "soup float");
}

TEST(Isa, SameBytesOnEveryPathCgal) {
  same_on_every_path(test::to_float(test::cgal_mesh("elephant.off")), "elephant float");
  same_on_every_path(test::cgal_mesh("elephant.off"), "elephant double");
}

TEST(Isa, BestPathIsTheDefaultAndUnavailableThrows) {
  const std::vector<Isa> paths = available_isas();
  ASSERT_FALSE(paths.empty());
  std::printf("engine: %s\n", isa_description().c_str());
  if (std::getenv("PROX_ISA") == nullptr) {
    EXPECT_EQ(active_isa(), paths.back());
  }
#if defined(__x86_64__)
  EXPECT_TRUE(std::find(paths.begin(), paths.end(), Isa::sse2) != paths.end());
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("bmi2") && std::string(isa_description()).find("native") ==
                                            std::string::npos) {
    EXPECT_TRUE(std::find(paths.begin(), paths.end(), Isa::avx2) != paths.end());
  }
#endif
  if (std::find(paths.begin(), paths.end(), Isa::avx512) == paths.end()) {
    EXPECT_THROW(set_isa(Isa::avx512), std::invalid_argument);
  }
#if defined(__x86_64__)
  EXPECT_THROW(set_isa(Isa::scalar), std::invalid_argument);  // x86-64 always has SSE2
#endif
}

}  // namespace
