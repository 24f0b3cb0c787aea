// tests/mesh/test_fast_winding_grid.cpp — the fast winding number's grid
// components against an independent oracle: a union of face-adjacent
// positions at the sub-cell resolution, where every position is read as the
// node (free cell, free sub-cell, or touched) that covers it.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "fast_winding_data.hpp"  // internal (src/mesh/): FastWindingGrid, build_grid
#include "mesh_support.hpp"

namespace prox {
namespace {

using detail::fast_winding::FastWindingGrid;

struct Oracle {
  std::vector<std::int64_t> up;
  std::int64_t root(std::int64_t x) {
    while (up[std::size_t(x)] != x) x = up[std::size_t(x)] = up[std::size_t(up[std::size_t(x)])];
    return x;
  }
  void unite(std::int64_t a, std::int64_t b) {
    a = root(a);
    b = root(b);
    if (a != b) up[std::size_t(std::max(a, b))] = std::min(a, b);
  }
};

// Checks g's labels: free nodes joined by any face of the sub-cell lattice
// share a component, components are exactly the oracle's, and they are
// numbered by first node (cells, then sub-cells).
void check_components(const FastWindingGrid& g, const std::string& name) {
  const std::int64_t s = g.sub > 0 ? g.sub : 1, s3 = s * s * s;
  const std::int64_t total = g.n[0] * g.n[1] * g.n[2];
  ASSERT_EQ(std::int64_t(g.label.size()), total) << name;
  // The node at a sub-cell position: a cell index, total + a sub-cell index, or -1 (touched).
  auto node = [&](std::int64_t X, std::int64_t Y, std::int64_t Z) -> std::int64_t {
    const std::int64_t c = X / s + g.n[0] * (Y / s + g.n[1] * (Z / s));
    const std::int32_t l = g.label[std::size_t(c)];
    if (l >= 0) return c;
    if (l == FastWindingGrid::kOccupied) return -1;
    const std::int64_t f = std::int64_t(FastWindingGrid::kFirstSlot - l) * s3 + X % s +
                           s * (Y % s + s * (Z % s));
    return g.fine[std::size_t(f)] >= 0 ? total + f : -1;
  };
  Oracle o;
  o.up.resize(std::size_t(total) + g.fine.size());
  std::iota(o.up.begin(), o.up.end(), std::int64_t(0));
  const std::int64_t N[3] = {g.n[0] * s, g.n[1] * s, g.n[2] * s};
  for (std::int64_t Z = 0; Z < N[2]; ++Z)
    for (std::int64_t Y = 0; Y < N[1]; ++Y)
      for (std::int64_t X = 0; X < N[0]; ++X) {
        const std::int64_t a = node(X, Y, Z);
        if (a < 0) continue;
        const std::int64_t b[3] = {X + 1 < N[0] ? node(X + 1, Y, Z) : -1,
                                   Y + 1 < N[1] ? node(X, Y + 1, Z) : -1,
                                   Z + 1 < N[2] ? node(X, Y, Z + 1) : -1};
        for (const std::int64_t v : b)
          if (v >= 0) o.unite(a, v);
      }
  auto label = [&](std::int64_t v) {
    return v < total ? g.label[std::size_t(v)] : g.fine[std::size_t(v - total)];
  };
  std::vector<std::int32_t> of_root(o.up.size(), -1);
  std::int32_t next = 0;
  for (std::int64_t v = 0; v < std::int64_t(o.up.size()); ++v) {
    const std::int32_t l = label(v);
    if (l < 0) continue;
    std::int32_t& k = of_root[std::size_t(o.root(v))];
    if (k < 0) {
      ASSERT_EQ(l, next) << name << ": component numbered out of first-node order at node " << v;
      k = next++;
    }
    ASSERT_EQ(l, k) << name << ": node " << v << " is not in its oracle component";
  }
  EXPECT_EQ(std::size_t(next), g.value.size()) << name;
  EXPECT_GT(next, 1) << name;  // outside and at least one inside component
  EXPECT_EQ(g.label[0], 0) << name;
}

TEST(FastWindingGrid, ComponentsMatchTheLatticeOracle) {
  std::vector<std::pair<std::string, TriangleMesh<double>>> meshes;
  meshes.emplace_back("elephant", test::cgal_mesh("elephant.off"));
  meshes.emplace_back("knot1", test::cgal_mesh("knot1.off"));
  meshes.emplace_back("torus", test::torus(1.0, 0.3, 40, 20));
  meshes.emplace_back("cube", test::cgal_mesh("cube.off"));
  bool some_second_level = false;
  for (const auto& [name, m] : meshes) {
    FastWindingGrid g;
    detail::fast_winding::build_grid(m, g);
    ASSERT_FALSE(g.label.empty()) << name;
    some_second_level = some_second_level || g.sub > 0;
    check_components(g, name);
  }
  EXPECT_TRUE(some_second_level);  // the sub-cell joins are exercised
}

}  // namespace
}  // namespace prox
