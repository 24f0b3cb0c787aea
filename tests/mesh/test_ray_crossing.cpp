// ray_triangle_crossing (the counting variant) against the shared kernel
// ray_triangle_watertight: identical results on every ray that is not exactly
// on an edge or vertex, and on those exactly one of two triangles sharing an
// edge owns a crossing.
#include <gtest/gtest.h>

#include <random>

#include "prox/mesh/ray_crossing.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;

template <class T>
void random_agreement(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  auto v = [&] { return Vec3<T>{T(u(rng)), T(u(rng)), T(u(rng))}; };
  const std::int64_t n = test::scaled_count(200000);
  std::int64_t differ = 0, hits = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const Vec3<T> a = v(), b = v(), c = v();
    Ray<T> r{v() * T(3), v()};
    if (i % 3 == 0) r.direction = a - r.origin;  // exactly through a vertex
    const WatertightRay<T> wr(r);
    const auto k = ray_triangle_watertight(wr, a, b, c);
    const auto x = ray_triangle_crossing(wr, a, b, c);
    hits += k.hit;
    // A crossing hit is always a kernel hit, with the same numbers.
    if (x.hit && !(k.hit && k.t == x.t && k.u == x.u && k.v == x.v &&
                   k.front_face == x.front_face))
      ++differ;
    // The kernel's hits are kept unless an edge function is exactly zero,
    // which for random rays not aimed at a vertex does not happen.
    if (i % 3 != 0 && k.hit && !x.hit) ++differ;
  }
  EXPECT_EQ(differ, 0);
  EXPECT_GT(hits, n / 50);
}

TEST(RayCrossing, AgreesWithKernelOffEdges) {
  random_agreement<float>(1);
  random_agreement<double>(2);
}

template <class T>
void shared_edge_owned_once() {
  // Two triangles sharing edge (0,0,0)-(1,1,0) (consistently oriented); rays
  // along z through points of that edge, and through its end vertices' fans.
  const Vec3<T> p{0, 0, 0}, q{1, 1, 0}, r{1, 0, 0}, s{0, 1, 0};
  for (int i = 0; i <= 8; ++i) {
    const T f = T(i) / T(8);
    for (T dz : {T(1), T(-1)}) {
      const Ray<T> ray{{f, f, T(-2) * dz}, {T(0), T(0), dz}};
      const WatertightRay<T> wr(ray);
      const int n = int(ray_triangle_crossing(wr, p, r, q).hit) +
                    int(ray_triangle_crossing(wr, p, q, s).hit);
      if (i == 0 || i == 8) {
        EXPECT_LE(n, 1) << "vertex " << i;  // the rest of the fan is missing here
      } else {
        EXPECT_EQ(n, 1) << "edge point " << i << " dz " << dz;
        EXPECT_TRUE(ray_triangle_watertight(wr, p, r, q).hit);
        EXPECT_TRUE(ray_triangle_watertight(wr, p, q, s).hit);
      }
    }
  }
  // A fold (both triangles on the same side of the edge, seen along z): 0 or 2.
  const Vec3<T> r2{T(0.5), T(0), T(1)};
  for (int i = 1; i < 8; ++i) {
    const T f = T(i) / T(8);
    const Ray<T> ray{{f, f, T(-2)}, {T(0), T(0), T(1)}};
    const WatertightRay<T> wr(ray);
    const int n = int(ray_triangle_crossing(wr, p, r, q).hit) +
                  int(ray_triangle_crossing(wr, q, r2, p).hit);
    EXPECT_EQ(n % 2, 0) << "fold point " << i;
  }
}

TEST(RayCrossing, SharedEdgeOwnedOnce) {
  shared_edge_owned_once<float>();
  shared_edge_owned_once<double>();
}

}  // namespace
