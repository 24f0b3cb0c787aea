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
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "prox/core/box.hpp"
#include "prox/mesh/batch.hpp"
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
  /// Prune each node's search with its computed neighbours' empty balls
  /// (prox/mesh/sdf_grid_lune.hpp; MeshIndex only). Off: the bounded engine
  /// query per node. The values are the same bits either way.
  bool lune = true;
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
  const std::size_t zb = options.z_begin, ze = std::min(options.z_end, grid.dims[2]);
  if (zb > ze)
    throw std::invalid_argument("z-planes [" + std::to_string(zb) + ", " +
                                std::to_string(options.z_end) + ") are not in the grid's 0.." +
                                std::to_string(grid.dims[2]));
  const std::size_t nz = ze - zb;  // planes computed: global k = zb + local
  out.z_begin = zb;
  out.values.assign(nx * ny * nz, ScalarTraits<T>::quiet_nan());
  if (nz == 0) return out;
  const bool copy_signs = sm.sign_is_exact();
  const double band = options.band;
  const bool banded = std::isfinite(band);
  constexpr double kWiden = 1.0 + 1e-12;
  std::vector<std::size_t> unsure(nz, 0), evaluated(nz, 0);
  struct Node {
    std::int32_t triangle;  // the closest triangle (-1: band miss)
    double lower;  // |d| (exact) or a lower bound (band miss)
    double sq;     // the computed squared distance (exact nodes)
    bool exact;    // lower is the exact distance
    bool inside;
    SignConfidence confidence;
  };
  constexpr bool kLune = requires { sm.index().layout(); };
  // S of sdf_grid_lune.hpp: the mesh box's largest coordinate plus its diagonal.
  double scale = 0;
  {
    const auto b = sm.index().mesh().bounds();
    double diag2 = 0;
    for (int a = 0; a < 3; ++a) {
      scale = std::max({scale, std::fabs(double(b.lo[a])), std::fabs(double(b.hi[a]))});
      diag2 += (double(b.hi[a]) - double(b.lo[a])) * (double(b.hi[a]) - double(b.lo[a]));
    }
    scale += std::sqrt(diag2);
  }
  // Contiguous slabs of z-planes, so a plane sees the one below it (its empty
  // balls prune the search). Values do not depend on the split: every node is
  // the exact argmin, and signs propagate only within a plane, in one order.
  std::size_t slabs = 1;
  if (options.batch.threads != 1) {
    const std::size_t t = options.batch.threads > 0 ? std::size_t(options.batch.threads)
                                                    : std::max(1u, std::thread::hardware_concurrency());
    slabs = std::min(nz, 4 * t);
  }
  std::vector<sdf_detail::LuneStats> slab_stats(slabs);
  BatchOptions per_slab = options.batch;
  per_slab.grain = 1;
  batch_for_each(slabs, per_slab, [&](std::size_t slab) {
    const std::size_t k0 = zb + nz * slab / slabs, k1 = zb + nz * (slab + 1) / slabs;
    std::vector<Node> buf_a(nx * ny), buf_b(nx * ny), buf_c(nx * ny);
    std::vector<sdf_detail::EmptyBall> balls;
    auto at = [&](std::size_t i, std::size_t j, std::size_t kk) {
      const Vec3d d = grid.node(i, j, kk);
      return Vec3<T>{T(d[0]), T(d[1]), T(d[2])};
    };
    // One plane; below / above: computed planes kb / ka (or null), whose
    // empty balls cut the search.
    auto do_plane = [&](std::size_t k, Node* plane, const Node* below, std::size_t kb,
                        const Node* above, std::size_t ka) {
      for (std::size_t j = 0; j < ny; ++j) {
        for (std::size_t i = 0; i < nx; ++i) {
          const Vec3<T> p = at(i, j, k);
          const Node* from = i > 0 ? &plane[j * nx + i - 1] : j > 0 ? &plane[(j - 1) * nx] : nullptr;
          double step = 0;
          if (from) {
            const Vec3<T> q = i > 0 ? at(i - 1, j, k) : at(0, j - 1, k);
            const Vec3d dv{double(p[0]) - double(q[0]), double(p[1]) - double(q[1]),
                           double(p[2]) - double(q[2])};
            step = std::sqrt(squared_norm(dv)) * kWiden;
          }
          MeshClosestPoint<T> cp;
          bool done = false;
          if constexpr (kLune) {
            if (options.lune && from && from->exact) {
              const auto& mesh = sm.index().mesh();
              const auto t = std::size_t(from->triangle);
              const Vec3<T> c0 = mesh.corner(t, 0), c1 = mesh.corner(t, 1), c2 = mesh.corner(t, 2);
              // (The hint's kernel runs again in the search: only a band needs it here.)
              if (!banded ||
                  std::sqrt(double(closest_point_triangle(p, c0, c1, c2).sq_distance)) * kWiden <=
                      band) {
                balls.clear();
                auto add = [&](const Node& n, std::size_t ii, std::size_t jj, std::size_t kk) {
                  if (!n.exact) return;
                  const Vec3<T> q = at(ii, jj, kk);
                  balls.push_back({Vec3d{double(q[0]), double(q[1]), double(q[2])}, n.sq});
                };
                if (i > 0) add(plane[j * nx + i - 1], i - 1, j, k);
                if (j > 0) add(plane[(j - 1) * nx + i], i, j - 1, k);
                if (j > 0 && i + 1 < nx) add(plane[(j - 1) * nx + i + 1], i + 1, j - 1, k);
                if (below) {
                  add(below[j * nx + i], i, j, kb);
                  if (i + 1 < nx) add(below[j * nx + i + 1], i + 1, j, kb);
                  if (j + 1 < ny) add(below[(j + 1) * nx + i], i, j + 1, kb);
                }
                if (above) {
                  add(above[j * nx + i], i, j, ka);
                  if (i > 0) add(above[j * nx + i - 1], i - 1, j, ka);
                  if (j > 0) add(above[(j - 1) * nx + i], i, j - 1, ka);
                }
                cp = sdf_detail::lune_closest_point_isa(sm.index().layout(), p,
                                                    std::uint32_t(from->triangle), c0, c1, c2,
                                                    balls, scale, &slab_stats[slab]);
                done = true;
              }
            }
          }
          if (!done) {
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
            cp = sm.index().closest_point(p, rt);
            if (!cp.found() && !(banded && r == band))
              cp = sm.index().closest_point(p);  // rounding guard: never trust a bound that missed
          }
          Node& n = plane[j * nx + i];
          const bool propagate = copy_signs && from && from->lower > step;
          if (cp.found()) {
            n.lower = std::sqrt(double(cp.sq_distance));
            n.sq = double(cp.sq_distance);
            n.exact = true;
            n.triangle = cp.triangle;
          } else {
            n.lower = band;
            n.sq = 0;
            n.exact = false;
            n.triangle = -1;
          }
          if (propagate) {
            n.inside = from->inside;
            n.confidence = from->confidence;
          } else {
            const SignedClosestPoint<T> s =
                sm.sign(p, cp.found() ? cp : sm.index().closest_point(p));
            ++evaluated[k - zb];
            n.inside = s.signed_distance < T(0);
            n.confidence = s.confidence;
          }
          if (n.confidence != SignConfidence::sure) ++unsure[k - zb];
          T v;
          if (cp.found()) {
            const T d = std::sqrt(cp.sq_distance);
            v = d == T(0) ? T(0) : n.inside ? -d : d;
            if (banded && double(d) > band) v = n.inside ? -T(band) : T(band);
          } else {
            v = n.inside ? -T(band) : T(band);
          }
          out.values[grid.index(i, j, k - zb)] = v;
        }
      }
    };
    // Order: k0, then k + 2 before k + 1, so that every other plane has
    // computed neighbours on both sides (the values do not depend on it).
    Node* a = buf_a.data();
    Node* b = buf_b.data();
    do_plane(k0, a, nullptr, 0, nullptr, 0);
    for (std::size_t m = k0; m + 1 < k1; m += 2) {
      if (m + 2 < k1) {
        do_plane(m + 2, b, a, m, nullptr, 0);
        do_plane(m + 1, buf_c.data(), a, m, b, m + 2);
        std::swap(a, b);
      } else {
        do_plane(m + 1, buf_c.data(), a, m, nullptr, 0);
      }
    }
  });
  if (options.lune_stats)
    for (const auto& st : slab_stats) {
      options.lune_stats->queries += st.queries;
      options.lune_stats->nodes_visited += st.nodes_visited;
      options.lune_stats->triangles_tested += st.triangles_tested;
    }
  for (std::size_t k = 0; k < nz; ++k) {
    out.unsure += unsure[k];
    out.sign_evaluations += evaluated[k];
  }
  return out;
}

}  // namespace prox
