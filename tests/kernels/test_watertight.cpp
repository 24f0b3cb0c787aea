// Watertightness: rays from inside closed triangulated shapes (an octahedron,
// a twice-subdivided icosphere), aimed exactly at their vertices and at points
// on their shared edges, must hit the surface at least once — for the
// watertight kernel, never zero times. Möller–Trumbore is run on the same rays
// and its zero-hit count is reported (it is allowed to leak).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "prox/prox.hpp"

namespace {

template <class T>
struct Mesh {
  std::vector<prox::Vec3<T>> v;
  std::vector<std::array<int, 3>> f;
};

template <class T>
Mesh<T> octahedron() {
  Mesh<T> m;
  m.v = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  m.f = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  return m;
}

/// Icosahedron subdivided `levels` times, vertices on the unit sphere (rounded to T).
template <class T>
Mesh<T> icosphere(int levels) {
  const double g = (1 + std::sqrt(5.0)) / 2;
  std::vector<prox::Vec3d> v = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0},
                                {0, -1, g}, {0, 1, g}, {0, -1, -g}, {0, 1, -g},
                                {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
  std::vector<std::array<int, 3>> f = {
      {0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
      {3, 8, 9},  {4, 9, 5},  {2, 4, 11},  {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  const auto unit = [](prox::Vec3d p) { return p / std::sqrt(squared_norm(p)); };
  for (auto& p : v) p = unit(p);
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<int, int>, int> mid;
    const auto midpoint = [&](int i, int j) {
      const auto key = std::minmax(i, j);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      v.push_back(unit((v[i] + v[j]) * 0.5));
      return mid[key] = int(v.size()) - 1;
    };
    std::vector<std::array<int, 3>> next;
    for (const auto& t : f) {
      const int ab = midpoint(t[0], t[1]), bc = midpoint(t[1], t[2]), ca = midpoint(t[2], t[0]);
      next.push_back({t[0], ab, ca});
      next.push_back({t[1], bc, ab});
      next.push_back({t[2], ca, bc});
      next.push_back({ab, bc, ca});
    }
    f = next;
  }
  Mesh<T> m;
  for (const auto& p : v) m.v.push_back(p.cast<T>());
  m.f = f;
  return m;
}

struct Counts {
  int rays = 0, wt_zero = 0, wt_multi = 0, mt_zero = 0, mt_multi = 0;
};

template <class T>
Counts cast_all(const Mesh<T>& m, const std::vector<prox::Vec3<T>>& origins) {
  // Targets: every vertex, and points at 1/8 .. 7/8 of every edge.
  std::vector<prox::Vec3<T>> targets = m.v;
  std::map<std::pair<int, int>, bool> seen;
  for (const auto& t : m.f)
    for (int e = 0; e < 3; ++e) {
      const auto key = std::minmax(t[e], t[(e + 1) % 3]);
      if (seen[key]) continue;
      seen[key] = true;
      for (int k = 1; k < 8; ++k) targets.push_back(lerp(m.v[key.first], m.v[key.second], T(k) / T(8)));
    }
  Counts c;
  for (const auto& o : origins) {
    for (const auto& target : targets) {
      const prox::Ray<T> ray{o, target - o};
      const prox::WatertightRay<T> wray(ray);
      int wt = 0, mt = 0;
      for (const auto& t : m.f) {
        wt += prox::ray_triangle_watertight(wray, m.v[t[0]], m.v[t[1]], m.v[t[2]]).hit;
        mt += prox::ray_triangle_moller_trumbore(ray, m.v[t[0]], m.v[t[1]], m.v[t[2]]).hit;
      }
      ++c.rays;
      c.wt_zero += wt == 0;
      c.wt_multi += wt > 1;
      c.mt_zero += mt == 0;
      c.mt_multi += mt > 1;
    }
  }
  return c;
}

template <class T>
std::vector<prox::Vec3<T>> interior_origins(int count, T radius) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> k(-64, 64);
  std::vector<prox::Vec3<T>> o = {prox::Vec3<T>::zero()};
  while (int(o.size()) < count) {
    // Dyadic, so that target - origin is exact for the octahedron's targets.
    o.push_back(prox::Vec3<T>{T(k(rng)), T(k(rng)), T(k(rng))} * (radius / T(64)));
  }
  return o;
}

template <class T>
void check(const char* shape, const Mesh<T>& m, int origins, T radius) {
  const Counts c = cast_all(m, interior_origins<T>(origins, radius));
  std::printf("%-14s %-6s %7d rays | watertight: %d with no hit, %d with 2+ | "
              "Moller-Trumbore: %d with no hit, %d with 2+\n",
              shape, sizeof(T) == 4 ? "float" : "double", c.rays, c.wt_zero, c.wt_multi,
              c.mt_zero, c.mt_multi);
  EXPECT_EQ(c.wt_zero, 0) << shape << ": a ray from inside escaped the watertight test";
}

TEST(Watertight, Octahedron) {
  // |x| + |y| + |z| < 1 for every origin: 3 * 0.3 < 1.
  check<float>("octahedron", octahedron<float>(), 200, 0.3f);
  check<double>("octahedron", octahedron<double>(), 200, 0.3);
}

TEST(Watertight, Icosphere) {
  // The subdivided icosphere contains the ball of radius ~0.98; origins within 0.5.
  check<float>("icosphere(2)", icosphere<float>(2), 8, 0.28f);
  check<double>("icosphere(2)", icosphere<double>(2), 8, 0.28);
}

}  // namespace
