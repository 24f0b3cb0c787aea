// src/io/shapes.cpp — sphere, torus and trefoil-knot generators (see shapes.hpp).
#include "prox/io/shapes.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace prox::io {
namespace {

using Tri = std::array<std::uint32_t, 3>;

// A rows x cols vertex grid wrapped in both directions, two triangles per cell,
// ordered so that normals point along d(row) x d(col)... outward for our sweeps.
void wrapped_grid(MeshData& m, int rows, int cols) {
  const auto id = [&](int r, int c) {
    return static_cast<std::uint32_t>(((r % rows) * cols) + (c % cols));
  };
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const std::uint32_t a = id(r, c), b = id(r + 1, c), d = id(r + 1, c + 1), e = id(r, c + 1);
      m.triangles.push_back(Tri{a, b, d});
      m.triangles.push_back(Tri{a, d, e});
    }
  }
}

Vec3d normalized(const Vec3d& v) { return v / std::sqrt(squared_norm(v)); }

}  // namespace

MeshData make_sphere(double radius, int rings, int segments) {
  if (rings < 2 || segments < 3 || !(radius > 0)) throw std::invalid_argument("make_sphere: bad size");
  MeshData m;
  const double pi = std::numbers::pi;
  m.vertices.push_back(Vec3d{0, 0, radius});  // north pole
  for (int r = 1; r < rings; ++r) {
    const double theta = pi * r / rings;
    for (int s = 0; s < segments; ++s) {
      const double phi = 2 * pi * s / segments;
      m.vertices.push_back(Vec3d{radius * std::sin(theta) * std::cos(phi),
                                 radius * std::sin(theta) * std::sin(phi),
                                 radius * std::cos(theta)});
    }
  }
  m.vertices.push_back(Vec3d{0, 0, -radius});  // south pole
  const auto ring = [&](int r, int s) {
    return static_cast<std::uint32_t>(1 + (r - 1) * segments + (s % segments));
  };
  const std::uint32_t south = static_cast<std::uint32_t>(m.vertices.size() - 1);
  for (int s = 0; s < segments; ++s) m.triangles.push_back(Tri{0, ring(1, s), ring(1, s + 1)});
  for (int r = 1; r + 1 < rings; ++r) {
    for (int s = 0; s < segments; ++s) {
      m.triangles.push_back(Tri{ring(r, s), ring(r + 1, s), ring(r + 1, s + 1)});
      m.triangles.push_back(Tri{ring(r, s), ring(r + 1, s + 1), ring(r, s + 1)});
    }
  }
  for (int s = 0; s < segments; ++s) {
    m.triangles.push_back(Tri{ring(rings - 1, s), south, ring(rings - 1, s + 1)});
  }
  return m;
}

MeshData make_torus(double major, double minor, int rings, int segments) {
  if (rings < 3 || segments < 3 || !(minor > 0) || !(major > minor)) {
    throw std::invalid_argument("make_torus: bad size");
  }
  MeshData m;
  const double pi = std::numbers::pi;
  for (int r = 0; r < rings; ++r) {
    const double u = 2 * pi * r / rings;
    for (int s = 0; s < segments; ++s) {
      const double v = 2 * pi * s / segments;
      const double w = major + minor * std::cos(v);
      m.vertices.push_back(Vec3d{w * std::cos(u), w * std::sin(u), minor * std::sin(v)});
    }
  }
  wrapped_grid(m, rings, segments);
  return m;
}

MeshData make_knot(double tube, int samples, int segments) {
  if (samples < 8 || segments < 3 || !(tube > 0)) throw std::invalid_argument("make_knot: bad size");
  MeshData m;
  const double pi = std::numbers::pi;
  for (int i = 0; i < samples; ++i) {
    const double t = 2 * pi * i / samples;
    const Vec3d c{std::sin(t) + 2 * std::sin(2 * t), std::cos(t) - 2 * std::cos(2 * t),
                  -std::sin(3 * t)};
    const Vec3d tangent = normalized(Vec3d{std::cos(t) + 4 * std::cos(2 * t),
                                           -std::sin(t) + 4 * std::sin(2 * t),
                                           -3 * std::cos(3 * t)});
    // The tangent is never vertical on this curve, so T x z never vanishes.
    const Vec3d n = normalized(cross(tangent, Vec3d{0, 0, 1}));
    const Vec3d b = cross(tangent, n);
    for (int s = 0; s < segments; ++s) {
      const double a = 2 * pi * s / segments;
      m.vertices.push_back(c + n * (tube * std::cos(a)) + b * (tube * std::sin(a)));
    }
  }
  wrapped_grid(m, samples, segments);
  return m;
}

}  // namespace prox::io
