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
// - distance: the in-plane neighbour's closest triangle bounds p's distance
//   (the exact kernel distance from p to it: usually the answer), and the
//   empty balls of up to 8 computed neighbours (same plane, the planes below
//   and above) cut the search down to a patch near the contact
//   (prox/mesh/sdf_grid_lune.hpp, compiled per ISA path in
//   src/mesh/sdf_grid_isa.cpp); the pruned search finds the engine's
//   closest point (same kernel, same tie rule), only sooner. Without a layout
//   (BruteForce) or with SdfOptions::lune off, or where a band clamps the
//   node, the bounded engine query runs instead (radius: the neighbour's
//   distance plus the step, or the hint, widened by 1e-12 relative).
// - sign: when the mesh is closed and the method exact on it
//   (SignedMesh::sign_is_exact), a node within the ball of radius |d(q)| around
//   a neighbour q (no surface inside) has q's sign; it is copied instead of
//   evaluated. Otherwise every node is signed.
// Work is split into slabs of z-planes (one slab on 1 thread, 4 per thread
// otherwise), computed k0, k0 + 2, k0 + 1, k0 + 4, k0 + 3, ... so every other
// plane has computed planes on both sides; each plane walks its nodes in one
// fixed order (rows along x, each row starting from the row below), which is
// all the sign copying depends on, so the values do not depend on the thread
// count.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "prox/core/box.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/brute_force.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/sdf_grid_lune.hpp"
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
  if (total > 4e9) {
    char msg[96];
    std::snprintf(msg, sizeof msg, "a grid of %.4g nodes is too large (at most 4e9)", total);
    throw std::invalid_argument(msg);
  }
}
}  // namespace detail

/// Cubic cells over box padded by `padding` x its longest side on every side:
/// `longest` nodes along the longest padded axis, the others as many as cover
/// their length (centred).
inline GridSpec grid_over_box(const Box3<double>& box, double padding, std::size_t longest) {
  if (longest < 2) throw std::invalid_argument("the resolution needs at least 2 nodes along the longest axis");
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
    throw std::invalid_argument("the spacing must be a finite number > 0 (got " + std::to_string(dx) + ")");
  std::array<double, 3> lo{};
  const std::array<double, 3> size = detail::padded_box(box, padding, lo);
  GridSpec g;
  for (std::size_t a = 0; a < 3; ++a) {
    const double n = std::ceil(size[a] / dx - 1e-9) + 1;
    if (n > 100000) throw std::invalid_argument("the spacing is too small: more than 100000 nodes per axis");
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
  /// Prune each node's search with its computed neighbours' empty balls
  /// (prox/mesh/sdf_grid_lune.hpp; MeshIndex only). Off: the bounded engine
  /// query per node. The values are the same bits either way.
  bool lune = true;
  /// With lune: tabulate each triangle's terms of the search's distance lower
  /// bound once, rounded to float, and test 8 triangles at once with a float
  /// bound (prox/mesh/sdf_grid_bounds.hpp; about 190 bytes a triangle while
  /// the grid runs, skipped past 1 GiB); off: the double bound with its terms
  /// computed at every visit. The values are the same bits either way.
  bool terms_table = true;
  /// If set, receives the pruned searches' counts (summed over threads).
  sdf_detail::LuneStats* lune_stats = nullptr;
  /// Only the z-planes k in [z_begin, z_end) (z_end clipped to the grid): values
  /// then holds those planes, plane z_begin first. Every node is the exact
  /// argmin and signs propagate only within a plane, so every node has the
  /// value the whole grid has there: slabs computed apart (on other machines:
  /// prox.dask.sdf_grid) join into the whole grid's bytes.
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
/// Compiled in src/mesh/sdf_grid.cpp for SignedMesh of MeshIndex<float>,
/// MeshIndex<double>, BruteForce<float> and BruteForce<double>.
template <class Index>
SdfGrid<typename Index::Scalar> signed_distance_grid(const SignedMesh<Index>& sm,
                                                      const GridSpec& grid,
                                                      const SdfOptions& options = {});

extern template SdfGrid<float> signed_distance_grid(const SignedMesh<MeshIndex<float>>&,
                                                    const GridSpec&, const SdfOptions&);
extern template SdfGrid<double> signed_distance_grid(const SignedMesh<MeshIndex<double>>&,
                                                     const GridSpec&, const SdfOptions&);
extern template SdfGrid<float> signed_distance_grid(const SignedMesh<BruteForce<float>>&,
                                                    const GridSpec&, const SdfOptions&);
extern template SdfGrid<double> signed_distance_grid(const SignedMesh<BruteForce<double>>&,
                                                     const GridSpec&, const SdfOptions&);

}  // namespace prox
