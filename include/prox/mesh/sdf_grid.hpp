// prox/mesh/sdf_grid.hpp — signed distance on every node of a regular grid.
//
// Layout: node (i, j, k) sits at origin + (i sx, j sy, k sz) and its value is
// values[i + nx (j + ny k)]: x fastest (VTK ImageData order; as a C-order
// NumPy array the shape is (nz, ny, nx), so grid[k, j, i]).
//
// Every value is the exact distance (the closest point of the mesh, as
// MeshIndex::closest_point finds it) with the sign of SignedMesh::sign, so a
// node equals SignedMesh::query(node) bit for bit; with a band W, values with
// |d| > W are clamped to +-W (the sign still exact). The grid's coherence makes
// it fast without changing a single value:
// - distance: |d(p) - d(q)| <= |p - q|, so the neighbour's distance plus the
//   step bounds the search radius, and so does the distance from p to the
//   neighbour's closest triangle (both widened by 1e-12 relative); the bounded
//   query finds the same closest point (same tie rule), only sooner.
// - sign: when the mesh is closed and the method exact on it
//   (SignedMesh::sign_is_exact), a node within the ball of radius |d(q)| around
//   a neighbour q (no surface inside) has q's sign; it is copied instead of
//   evaluated. Otherwise every node is signed.
// Work is split by z-planes; each plane walks its nodes in one fixed order
// (rows along x, each row starting from the row below), so the values do not
// depend on the thread count.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "prox/core/box.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/sign.hpp"
#include "prox/primitives/closest_point_triangle.hpp"

namespace prox {

/// A regular grid of nodes.
struct GridSpec {
  std::array<std::size_t, 3> dims{1, 1, 1};   ///< nodes along x, y, z
  std::array<double, 3> origin{0, 0, 0};      ///< node (0, 0, 0)
  std::array<double, 3> spacing{1, 1, 1};     ///< between neighbouring nodes
  std::size_t nodes() const { return dims[0] * dims[1] * dims[2]; }
  /// Position of node (i, j, k).
  Vec3d node(std::size_t i, std::size_t j, std::size_t k) const {
    return Vec3d{origin[0] + double(i) * spacing[0], origin[1] + double(j) * spacing[1],
                 origin[2] + double(k) * spacing[2]};
  }
  /// Index of node (i, j, k) in the values: x fastest.
  std::size_t index(std::size_t i, std::size_t j, std::size_t k) const {
    return i + dims[0] * (j + dims[1] * k);
  }
};

namespace detail {
inline std::array<double, 3> padded_box(const Box3<double>& box, double padding,
                                        std::array<double, 3>& lo) {
  if (box.is_empty()) throw std::invalid_argument("the grid needs a mesh with a box (it is empty)");
  if (!(padding >= 0) || !std::isfinite(padding))
    throw std::invalid_argument("padding must be a finite number >= 0 (got " +
                                std::to_string(padding) + ")");
  double longest = 0;
  for (int a = 0; a < 3; ++a) longest = std::max(longest, box.hi[a] - box.lo[a]);
  if (longest == 0) longest = 1;  // a single point: a unit box around it
  std::array<double, 3> size{};
  for (int a = 0; a < 3; ++a) {
    lo[std::size_t(a)] = box.lo[a] - padding * longest;
    size[std::size_t(a)] = box.hi[a] - box.lo[a] + 2 * padding * longest;
  }
  return size;
}
inline void check_nodes(const GridSpec& g) {
  for (std::size_t n : g.dims)
    if (n < 1 || n > 100000) throw std::invalid_argument("grid size must be 1..100000 per axis");
  const double total = double(g.dims[0]) * double(g.dims[1]) * double(g.dims[2]);
  if (total > 4e9) throw std::invalid_argument("grid of " + std::to_string(total) +
                                               " nodes is too large (at most 4e9)");
}
}  // namespace detail

/// Cubic cells over box padded by `padding` x its longest side on every side:
/// `longest` nodes along the longest padded axis, the others as many as cover
/// their length (centred).
inline GridSpec grid_over_box(const Box3<double>& box, double padding, std::size_t longest) {
  if (longest < 2) throw std::invalid_argument("--res needs at least 2 nodes along an axis");
  std::array<double, 3> lo{};
  const std::array<double, 3> size = detail::padded_box(box, padding, lo);
  const double big = std::max({size[0], size[1], size[2]});
  const double h = big / double(longest - 1);
  GridSpec g;
  for (std::size_t a = 0; a < 3; ++a) {
    g.dims[a] = std::size_t(std::ceil(size[a] / h - 1e-9)) + 1;
    g.spacing[a] = h;
    g.origin[a] = lo[a] + 0.5 * size[a] - 0.5 * double(g.dims[a] - 1) * h;
  }
  detail::check_nodes(g);
  return g;
}

/// nx x ny x nz nodes spanning the padded box exactly (cells need not be cubic).
inline GridSpec grid_over_box(const Box3<double>& box, double padding,
                              std::array<std::size_t, 3> dims) {
  std::array<double, 3> lo{};
  const std::array<double, 3> size = detail::padded_box(box, padding, lo);
  GridSpec g;
  g.dims = dims;
  detail::check_nodes(g);
  for (std::size_t a = 0; a < 3; ++a) {
    g.spacing[a] = dims[a] > 1 ? size[a] / double(dims[a] - 1) : 1.0;
    g.origin[a] = dims[a] > 1 ? lo[a] : lo[a] + 0.5 * size[a];
  }
  return g;
}

/// Cubic cells of side dx covering the padded box (centred).
inline GridSpec grid_over_box_spacing(const Box3<double>& box, double padding, double dx) {
  if (!(dx > 0) || !std::isfinite(dx))
    throw std::invalid_argument("--dx must be a finite number > 0 (got " + std::to_string(dx) + ")");
  std::array<double, 3> lo{};
  const std::array<double, 3> size = detail::padded_box(box, padding, lo);
  GridSpec g;
  for (std::size_t a = 0; a < 3; ++a) {
    const double n = std::ceil(size[a] / dx - 1e-9) + 1;
    if (n > 100000) throw std::invalid_argument("--dx is too small: more than 100000 nodes per axis");
    g.dims[a] = std::size_t(n);
    g.spacing[a] = dx;
    g.origin[a] = lo[a] + 0.5 * size[a] - 0.5 * double(g.dims[a] - 1) * dx;
  }
  detail::check_nodes(g);
  return g;
}

/// How signed_distance_grid runs.
struct SdfOptions {
  double band = std::numeric_limits<double>::infinity();  ///< clamp |d| beyond this (> 0)
  BatchOptions batch;                                     ///< threads (planes run in parallel)
  /// Only the z-planes k in [z_begin, z_end) (z_end clipped to the grid): values
  /// then holds those planes, plane z_begin first. Each plane is computed on its
  /// own, so every node has the value the whole grid has there: slabs computed
  /// apart (on other machines: prox.dask.sdf_grid) join into the whole grid's bytes.
  std::size_t z_begin = 0;
  std::size_t z_end = std::numeric_limits<std::size_t>::max();
};

/// A computed grid.
template <class T>
struct SdfGrid {
  GridSpec grid;                    ///< the whole grid
  std::size_t z_begin = 0;          ///< the first z-plane values holds (SdfOptions::z_begin)
  std::vector<T> values;            ///< x fastest, negative inside, NaN where nothing was signed
  SignMethod method = SignMethod::none;  ///< the method that signed it
  std::size_t unsure = 0;           ///< nodes whose sign is not sure
  std::size_t sign_evaluations = 0; ///< nodes signed by the method (others copied)
};

/// The signed distance grid (see the top of this file). Throws
/// std::invalid_argument on a bad grid or band, or a mesh without inside.
template <class Index>
SdfGrid<typename Index::Scalar> signed_distance_grid(const SignedMesh<Index>& sm,
                                                      const GridSpec& grid,
                                                      const SdfOptions& options = {}) {
  using T = typename Index::Scalar;
  detail::check_nodes(grid);
  if (!(options.band > 0)) throw std::invalid_argument("band must be > 0");
  if (sm.method() == SignMethod::none)
    throw std::invalid_argument("the mesh has no inside (" + sm.diagnostics().verdict() +
                                "): a signed grid is undefined");
  if (sm.index().mesh().empty()) throw std::invalid_argument("the mesh has no triangles");
  SdfGrid<T> out;
  out.grid = grid;
  out.method = sm.method();
  const std::size_t nx = grid.dims[0], ny = grid.dims[1];
  const std::size_t k0 = options.z_begin, nz = std::min(options.z_end, grid.dims[2]) - k0;
  if (k0 > std::min(options.z_end, grid.dims[2]))
    throw std::invalid_argument("z-planes [" + std::to_string(k0) + ", " +
                                std::to_string(options.z_end) + ") are not in the grid's 0.." +
                                std::to_string(grid.dims[2]));
  out.z_begin = k0;
  out.values.assign(nx * ny * nz, ScalarTraits<T>::quiet_nan());
  const bool copy_signs = sm.sign_is_exact();
  const double band = options.band;
  const bool banded = std::isfinite(band);
  constexpr double kWiden = 1.0 + 1e-12;
  std::vector<std::size_t> unsure(nz, 0), evaluated(nz, 0);
  struct Node {
    std::int32_t triangle;  // the closest triangle (-1: band miss)
    double lower;  // |d| (exact) or a lower bound (band miss)
    bool exact;    // lower is the exact distance
    bool inside;
    SignConfidence confidence;
  };
  BatchOptions per_plane = options.batch;
  per_plane.grain = 1;
  batch_for_each(nz, per_plane, [&](std::size_t kk) {  // plane k, stored at kk
    const std::size_t k = k0 + kk;
    std::vector<Node> row(nx), below(nx);
    std::vector<Vec3<T>> prow(nx), pbelow(nx);
    for (std::size_t j = 0; j < ny; ++j) {
      for (std::size_t i = 0; i < nx; ++i) {
        const Vec3d pd = grid.node(i, j, k);
        const Vec3<T> p{T(pd[0]), T(pd[1]), T(pd[2])};
        const Node* from = i > 0 ? &row[i - 1] : j > 0 ? &below[0] : nullptr;
        const Vec3<T>* q = i > 0 ? &prow[i - 1] : j > 0 ? &pbelow[0] : nullptr;
        double step = 0;
        if (from) {
          const Vec3d dv{double(p[0]) - double((*q)[0]), double(p[1]) - double((*q)[1]),
                         double(p[2]) - double((*q)[2])};
          step = std::sqrt(squared_norm(dv)) * kWiden;
        }
        // Search radius: the neighbour's bound, the band, or everything.
        double r = std::numeric_limits<double>::infinity();
        if (from && from->exact) {
          r = (from->lower + step) * kWiden + 1e-300;
          // The neighbour's closest triangle is at most this far: often much tighter.
          const auto& mesh = sm.index().mesh();
          const auto t = std::size_t(from->triangle);
          const T sq = closest_point_triangle(p, mesh.corner(t, 0), mesh.corner(t, 1),
                                              mesh.corner(t, 2)).sq_distance;
          r = std::min(r, std::sqrt(double(sq)) * kWiden + 1e-300);
        }
        if (banded) r = std::min(r, band);
        T rt = T(r);  // rounded up into T: a radius must never shrink
        if (double(rt) < r) rt = std::nextafter(rt, ScalarTraits<T>::infinity());
        MeshClosestPoint<T> cp = sm.index().closest_point(p, rt);
        if (!cp.found() && !(banded && r == band))
          cp = sm.index().closest_point(p);  // rounding guard: never trust a bound that missed
        Node& n = row[i];
        prow[i] = p;
        const bool propagate = copy_signs && from && from->lower > step;
        if (cp.found()) {
          n.lower = std::sqrt(double(cp.sq_distance));
          n.exact = true;
          n.triangle = cp.triangle;
        } else {
          n.lower = band;
          n.exact = false;
          n.triangle = -1;
        }
        if (propagate) {
          n.inside = from->inside;
          n.confidence = from->confidence;
        } else {
          const SignedClosestPoint<T> s = sm.sign(p, cp.found() ? cp : sm.index().closest_point(p));
          ++evaluated[kk];
          n.inside = s.signed_distance < T(0);
          n.confidence = s.confidence;
        }
        if (n.confidence != SignConfidence::sure) ++unsure[kk];
        T v;
        if (cp.found()) {
          const T d = std::sqrt(cp.sq_distance);
          v = d == T(0) ? T(0) : n.inside ? -d : d;
          if (banded && double(d) > band) v = n.inside ? -T(band) : T(band);
        } else {
          v = n.inside ? -T(band) : T(band);
        }
        out.values[grid.index(i, j, kk)] = v;
      }
      std::swap(row, below);
      std::swap(prow, pbelow);
    }
  });
  for (std::size_t k = 0; k < nz; ++k) {
    out.unsure += unsure[k];
    out.sign_evaluations += evaluated[k];
  }
  return out;
}

}  // namespace prox
