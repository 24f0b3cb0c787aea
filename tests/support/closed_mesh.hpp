// tests/support/closed_mesh.hpp — is a triangle list closed and consistently
// oriented? (the oracle of the surface tests: tests/mesh/test_sdf_surface.cpp,
// tests/cli/test_cli.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>

namespace prox::test {

/// Directed edges not used exactly once, with their reverse exactly once: 0
/// for a closed, consistently oriented mesh. Triangles: anything indexable
/// [0..2] by std::size_t giving vertex indices.
template <class Triangles>
std::size_t unpaired_directed_edges(const Triangles& triangles) {
  std::map<std::pair<std::uint64_t, std::uint64_t>, int> directed;
  for (const auto& t : triangles)
    for (std::size_t e = 0; e < 3; ++e)
      ++directed[{std::uint64_t(t[e]), std::uint64_t(t[(e + 1) % 3])}];
  std::size_t bad = 0;
  for (const auto& [e, n] : directed) {
    const auto rev = directed.find({e.second, e.first});
    bad += n != 1 || rev == directed.end() || rev->second != 1;
  }
  return bad;
}

}  // namespace prox::test
