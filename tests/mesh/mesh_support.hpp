// tests/mesh/mesh_support.hpp — meshes and queries for the mesh engine tests.
//
// Procedural meshes with exactly shared vertices (icosphere: closed, convex;
// torus: closed, genus 1; random soup), CGAL data meshes through
// prox::io::read_mesh, and seeded query generators (near-surface points,
// points in an enlarged box, points on vertices and edge midpoints, rays).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "prox/io/read_mesh.hpp"
#include "prox/mesh.hpp"

namespace prox::test {

using Tri = std::array<std::uint32_t, 3>;

/// Icosphere of radius 1: subdivisions of the icosahedron, outward oriented.
inline TriangleMesh<double> icosphere(int subdivisions) {
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  std::vector<Vec3d> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                          {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                          {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  std::vector<Tri> f = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                        {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                        {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                        {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  auto normalize = [](Vec3d p) { return p / std::sqrt(squared_norm(p)); };
  for (auto& p : v) p = normalize(p);
  for (int s = 0; s < subdivisions; ++s) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> mid;
    auto midpoint = [&](std::uint32_t a, std::uint32_t b) {
      const auto key = std::minmax(a, b);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      v.push_back(normalize((v[a] + v[b]) * 0.5));
      const auto id = std::uint32_t(v.size() - 1);
      mid.emplace(key, id);
      return id;
    };
    std::vector<Tri> g;
    for (const Tri& q : f) {
      const std::uint32_t a = midpoint(q[0], q[1]), b = midpoint(q[1], q[2]),
                          c = midpoint(q[2], q[0]);
      g.push_back({q[0], a, c});
      g.push_back({q[1], b, a});
      g.push_back({q[2], c, b});
      g.push_back({a, b, c});
    }
    f = std::move(g);
  }
  return TriangleMesh<double>(std::move(v), std::move(f));
}

/// Torus around z, major radius R, minor r, n x m quads split in two.
inline TriangleMesh<double> torus(double R, double r, int n, int m) {
  std::vector<Vec3d> v;
  std::vector<Tri> f;
  const double pi = 3.14159265358979323846;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      const double u = 2 * pi * i / n, w = 2 * pi * j / m;
      v.push_back({(R + r * std::cos(w)) * std::cos(u), (R + r * std::cos(w)) * std::sin(u),
                   r * std::sin(w)});
    }
  auto id = [&](int i, int j) { return std::uint32_t(((i + n) % n) * m + (j + m) % m); };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      f.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      f.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  return TriangleMesh<double>(std::move(v), std::move(f));
}

/// Random soup: n triangles with centers in the unit cube, corners within `size`.
inline TriangleMesh<double> random_soup(int n, double size, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1), d(-size, size);
  std::vector<Vec3d> v;
  std::vector<Tri> f;
  for (int i = 0; i < n; ++i) {
    const Vec3d c{u(rng), u(rng), u(rng)};
    for (int k = 0; k < 3; ++k) v.push_back(c + Vec3d{d(rng), d(rng), d(rng)});
    f.push_back({std::uint32_t(3 * i), std::uint32_t(3 * i + 1), std::uint32_t(3 * i + 2)});
  }
  return TriangleMesh<double>(std::move(v), std::move(f));
}

/// A CGAL data mesh (PROX_CGAL_DATA_DIR "/meshes/<name>").
inline TriangleMesh<double> cgal_mesh(const std::string& name) {
  io::MeshData d = io::read_mesh(std::string(PROX_CGAL_DATA_DIR) + "/meshes/" + name);
  return TriangleMesh<double>(std::move(d.vertices), std::move(d.triangles));
}

/// The same mesh in float (vertices rounded to nearest).
/// A bumpy grid of cells x cells squares of side h (two triangles each, the
/// diagonal alternating from cell to cell), heights a few quarters of h:
/// every vertex coordinate is a multiple of h / 4, so rays can start exactly
/// on vertex coordinates (and on the planes of the index's boxes).
inline TriangleMesh<float> bumpy_grid(int cells, float h) {
  std::vector<Vec3<float>> v;
  for (int j = 0; j <= cells; ++j)
    for (int i = 0; i <= cells; ++i)
      v.push_back(Vec3<float>{float(i) * h, float(j) * h, float((i * 7 + j * 3) % 5) * 0.25f * h});
  std::vector<TriangleMesh<float>::Triangle> t;
  auto id = [&](int i, int j) { return std::uint32_t(j * (cells + 1) + i); };
  for (int j = 0; j < cells; ++j)
    for (int i = 0; i < cells; ++i) {
      if ((i + j) % 2 == 0) {
        t.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
        t.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
      } else {
        t.push_back({id(i, j), id(i + 1, j), id(i, j + 1)});
        t.push_back({id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)});
      }
    }
  return TriangleMesh<float>(std::move(v), std::move(t));
}

inline TriangleMesh<float> to_float(const TriangleMesh<double>& m) {
  std::vector<Vec3f> v;
  for (const Vec3d& p : m.vertices()) v.push_back(p.cast<float>());
  return TriangleMesh<float>(std::move(v), m.triangles());
}

template <class T>
inline T diagonal_length(const TriangleMesh<T>& m) {
  const Box3<T> b = m.bounds();
  return std::sqrt(squared_norm(b.diagonal()));
}

/// Query points: near the surface (sigma 1% of the diagonal), uniform in the
/// box scaled 2x, exactly on vertices, on edge midpoints; in that rotation.
template <class T>
inline std::vector<Vec3<T>> query_points(const TriangleMesh<T>& m, std::size_t n,
                                         std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const Box3<T> b = m.bounds();
  const double diag = double(diagonal_length(m));
  std::normal_distribution<double> g(0, 0.01 * diag);
  std::vector<Vec3<T>> out;
  const std::size_t nt = m.num_triangles();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t t = std::size_t(u(rng) * double(nt)) % nt;
    switch (i % 4) {
      case 0: {
        double s = u(rng), r = u(rng);
        if (s + r > 1) s = 1 - s, r = 1 - r;
        Vec3<T> p = m.corner(t, 0) + (m.corner(t, 1) - m.corner(t, 0)) * T(s) +
                    (m.corner(t, 2) - m.corner(t, 0)) * T(r);
        for (int k = 0; k < 3; ++k) p[k] += T(g(rng));
        out.push_back(p);
        break;
      }
      case 1: {
        Vec3<T> p;
        for (int k = 0; k < 3; ++k)
          p[k] = T(double(b.lo[k]) + (u(rng) * 2 - 0.5) * double(b.hi[k] - b.lo[k]));
        out.push_back(p);
        break;
      }
      case 2: out.push_back(m.corner(t, int(i / 4 % 3))); break;
      default: {
        const int k = int(i / 4 % 3);
        out.push_back((m.corner(t, k) + m.corner(t, (k + 1) % 3)) * T(0.5));
      }
    }
  }
  return out;
}

/// Rays: origin uniform in the box, direction uniform on the sphere; every
/// third ray aims exactly at a vertex, every third at an edge midpoint.
template <class T>
inline std::vector<Ray<T>> query_rays(const TriangleMesh<T>& m, std::size_t n,
                                      std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> g(0, 1);
  const Box3<T> b = m.bounds();
  std::vector<Ray<T>> out;
  const std::size_t nt = m.num_triangles();
  for (std::size_t i = 0; i < n; ++i) {
    Ray<T> r;
    for (int k = 0; k < 3; ++k)
      r.origin[k] = T(double(b.lo[k]) + (u(rng) * 1.4 - 0.2) * double(b.hi[k] - b.lo[k]));
    const std::size_t t = std::size_t(u(rng) * double(nt)) % nt;
    const int k = int(u(rng) * 3) % 3;
    if (i % 3 == 0) {
      r.direction = Vec3<T>{T(g(rng)), T(g(rng)), T(g(rng))};
    } else if (i % 3 == 1) {
      r.direction = m.corner(t, k) - r.origin;
    } else {
      r.direction = (m.corner(t, k) + m.corner(t, (k + 1) % 3)) * T(0.5) - r.origin;
    }
    out.push_back(r);
  }
  return out;
}

/// Points off random face interiors by rel * diagonal, outside then inside
/// (odd indices inside on an outward mesh).
template <class T>
inline std::vector<Vec3<T>> offset_points(const TriangleMesh<T>& m, double rel, std::size_t n,
                                          std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const double diag = double(diagonal_length(m));
  std::vector<Vec3<T>> pts;
  while (pts.size() < 2 * n) {
    const std::size_t t = std::size_t(u(rng) * double(m.num_triangles())) % m.num_triangles();
    const Vec3d a = m.corner(t, 0).template cast<double>();
    const Vec3d b = m.corner(t, 1).template cast<double>();
    const Vec3d c = m.corner(t, 2).template cast<double>();
    Vec3d nrm = cross(b - a, c - a);
    if (squared_norm(nrm) == 0) continue;
    nrm = nrm / std::sqrt(squared_norm(nrm));
    double s = u(rng), r = u(rng);
    if (s + r > 1) s = 1 - s, r = 1 - r;
    const Vec3d q = a + (b - a) * s + (c - a) * r;
    pts.push_back((q + nrm * (rel * diag)).cast<T>());
    pts.push_back((q - nrm * (rel * diag)).cast<T>());
  }
  return pts;
}

/// What is wrong with a list of the triangles near answer (MeshIndex::
/// closest_point_near, the SDF grid's lune search) at p: "" when it is exactly
/// sphere_triangles(p, r) less the answer (r: the answer's distance + reach,
/// rounded up into T, as near_radius_sq takes it) and each entry is its
/// triangle's kernel result bit for bit. *listed: the list's size.
template <class T>
inline std::string near_list_mismatch(const MeshIndex<T>& index, const Vec3<T>& p,
                                      const NearTriangles<T>& near,
                                      const MeshClosestPoint<T>& answer, double reach,
                                      std::size_t* listed = nullptr) {
  const auto& mesh = index.mesh();
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0; i < near.count; ++i) {
    const auto& e = near.entries[i];
    ids.push_back(std::uint32_t(e.triangle));
    const auto t = std::size_t(e.triangle);
    const ClosestPointTriangleResult<T> k =
        closest_point_triangle(p, mesh.corner(t, 0), mesh.corner(t, 1), mesh.corner(t, 2));
    if (!(k.sq_distance == e.sq_distance && k.feature == e.feature &&
          std::memcmp(&k.point, &e.point, sizeof k.point) == 0))
      return "triangle " + std::to_string(e.triangle) + "'s entry is not its kernel result";
  }
  std::sort(ids.begin(), ids.end());
  const double w = std::sqrt(double(answer.sq_distance)) + reach;
  T r = T(w);
  if (double(r) < w) r = std::nextafter(r, ScalarTraits<T>::infinity());
  std::vector<std::uint32_t> sphere = index.sphere_triangles(p, r);
  sphere.erase(std::remove(sphere.begin(), sphere.end(), std::uint32_t(answer.triangle)),
               sphere.end());
  if (listed) *listed = ids.size();
  if (ids != sphere)
    return "the list (" + std::to_string(ids.size()) + " triangles) is not sphere_triangles' (" +
           std::to_string(sphere.size()) + ", less the answer)";
  return "";
}

}  // namespace prox::test
