// src/mesh/sdf_surface.cpp — marching tetrahedra on the Kuhn triangulation
// (see prox/mesh/sdf_surface.hpp for the method and its guarantees).
#include "prox/mesh/sdf_surface.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace prox {
namespace {

// The 6 Kuhn tetrahedra of a cell: corners 0, 1<<a, 1<<a | 1<<b, 7 for each
// permutation (a, b, c) of the axes (corner bit 0: +x, 1: +y, 2: +z), and the
// orientation sign of each (the permutation's sign: det(e_a, e_b, e_c)).
struct Tet {
  int c[4];
  int sign;
};
constexpr Tet kTets[6] = {
    {{0, 1, 3, 7}, +1},  // x y z
    {{0, 1, 5, 7}, -1},  // x z y
    {{0, 2, 3, 7}, -1},  // y x z
    {{0, 2, 6, 7}, +1},  // y z x
    {{0, 4, 5, 7}, +1},  // z x y
    {{0, 4, 6, 7}, -1},  // z y x
};

template <class T>
LevelSetMesh extract(const GridSpec& grid, std::span<const T> values) {
  if (values.size() != grid.nodes())
    throw std::invalid_argument("level set: " + std::to_string(values.size()) +
                                " values for a grid of " + std::to_string(grid.nodes()) +
                                " nodes");
  const auto nx = std::int64_t(grid.dims[0]), ny = std::int64_t(grid.dims[1]),
             nz = std::int64_t(grid.dims[2]);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (std::isnan(double(values[i])))
      throw std::invalid_argument("level set: value " + std::to_string(i) + " is NaN");
  // Virtual outside layer: nodes -1 and n along each axis.
  const double outside = std::max({grid.spacing[0], grid.spacing[1], grid.spacing[2]});
  auto value = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    if (i < 0 || j < 0 || k < 0 || i >= nx || j >= ny || k >= nz) return outside;
    return double(values[std::size_t(i + nx * (j + ny * k))]);
  };
  auto position = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return Vec3d{grid.origin[0] + double(i) * grid.spacing[0],
                 grid.origin[1] + double(j) * grid.spacing[1],
                 grid.origin[2] + double(k) * grid.spacing[2]};
  };
  const std::int64_t ex = nx + 2, ey = ny + 2;  // extended grid, for edge keys
  LevelSetMesh out;
  std::unordered_map<std::uint64_t, std::uint32_t> edge_vertex;
  for (std::int64_t k = -1; k < nz; ++k)
    for (std::int64_t j = -1; j < ny; ++j)
      for (std::int64_t i = -1; i < nx; ++i) {
        double v[8];
        int inside = 0;
        for (int c = 0; c < 8; ++c) {
          v[c] = value(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1));
          inside += v[c] < 0;
        }
        if (inside == 0 || inside == 8) continue;
        // Surface vertex on the cell edge between corners a and b (one inside).
        auto vertex = [&](int a, int b) -> std::uint32_t {
          if ((a & b) != a) std::swap(a, b);  // a's bits are a subset of b's (Kuhn edges)
          const std::int64_t ai = i + (a & 1), aj = j + ((a >> 1) & 1), ak = k + ((a >> 2) & 1);
          const std::uint64_t key =
              std::uint64_t((ai + 1) + ex * ((aj + 1) + ey * (ak + 1))) * 7u +
              std::uint64_t((a ^ b) - 1);
          auto [it, fresh] = edge_vertex.try_emplace(key, std::uint32_t(out.vertices.size()));
          if (fresh) {
            const int in = v[a] < 0 ? a : b, outc = v[a] < 0 ? b : a;
            auto pos = [&](int c) {
              return position(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1));
            };
            const Vec3d pi = pos(in), po = pos(outc);
            const double t = v[in] / (v[in] - v[outc]);  // in (0, 1]
            out.vertices.push_back(Vec3d{pi[0] + t * (po[0] - pi[0]), pi[1] + t * (po[1] - pi[1]),
                                         pi[2] + t * (po[2] - pi[2])});
          }
          return it->second;
        };
        for (const Tet& tet : kTets) {
          // Inside corners first (stable), tracking the permutation's parity.
          int w[4], n = 0, parity = 0;
          for (int s = 0; s < 4; ++s)
            if (v[tet.c[s]] < 0) w[n++] = tet.c[s];
          const int neg = n;
          if (neg == 0 || neg == 4) continue;
          for (int s = 0; s < 4; ++s)
            if (!(v[tet.c[s]] < 0)) {
              // Each outside corner passes over the inside corners after it.
              for (int r = s + 1; r < 4; ++r) parity += v[tet.c[r]] < 0;
              w[n++] = tet.c[s];
            }
          const bool flip = (tet.sign * ((parity & 1) ? -1 : 1)) < 0;
          auto emit = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
            if (flip) std::swap(b, c);
            out.triangles.push_back({a, b, c});
          };
          if (neg == 1) {
            emit(vertex(w[0], w[1]), vertex(w[0], w[2]), vertex(w[0], w[3]));
          } else if (neg == 3) {
            emit(vertex(w[0], w[3]), vertex(w[1], w[3]), vertex(w[2], w[3]));
          } else {
            const std::uint32_t e02 = vertex(w[0], w[2]), e03 = vertex(w[0], w[3]),
                                e13 = vertex(w[1], w[3]), e12 = vertex(w[1], w[2]);
            emit(e02, e03, e13);
            emit(e02, e13, e12);
          }
        }
      }
  return out;
}

}  // namespace

LevelSetMesh extract_zero_level_set(const GridSpec& grid, std::span<const double> values) {
  return extract(grid, values);
}
LevelSetMesh extract_zero_level_set(const GridSpec& grid, std::span<const float> values) {
  return extract(grid, values);
}

}  // namespace prox
