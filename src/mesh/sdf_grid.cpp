// src/mesh/sdf_grid.cpp — signed_distance_grid (prox/mesh/sdf_grid.hpp),
// compiled here once for the four index types, so that a change to the grid's
// loop rebuilds this file, not every user of prox/mesh.hpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "prox/mesh/sdf_grid.hpp"
#include "prox/mesh/sdf_grid_bounds.hpp"

namespace prox {

/// The signed distance grid (see the top of this file). Throws
/// std::invalid_argument on a bad grid or band, or a mesh without inside.
template <class Index>
SdfGrid<typename Index::Scalar> signed_distance_grid(const SignedMesh<Index>& sm,
                                                      const GridSpec& grid,
                                                      const SdfOptions& options) {
  using T = typename Index::Scalar;
  detail::check_nodes(grid);
  if (!(options.band > 0)) throw std::invalid_argument("band must be > 0");
  // Nodes beyond the coordinates a point query accepts would be misses there
  // (MeshIndex::closest_point: NaN), and their squared distances overflow:
  // refused rather than written as +inf.
  for (std::size_t a = 0; a < 3; ++a) {
    const double lo = grid.origin[a], hi = grid.origin[a] + double(grid.dims[a] - 1) * grid.spacing[a];
    const double reach = std::max(std::fabs(lo), std::fabs(hi));
    if (!(reach <= double(CoordinateRange<T>::max_abs))) {
      char msg[256];
      std::snprintf(msg, sizeof msg,
                    "the grid's nodes reach |%c| = %.6g, beyond the coordinates queries accept "
                    "(|x| <= %.6g for %s): less padding or a smaller spacing",
                    char('x' + a), reach, double(CoordinateRange<T>::max_abs),
                    std::is_same_v<T, float> ? "float" : "double");
      throw std::invalid_argument(msg);
    }
  }
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
  const bool reads_near = sm.reads_near();
  const double band = options.band;
  const bool banded = std::isfinite(band);
  constexpr double kWiden = 1.0 + 1e-12;
  std::vector<std::size_t> unsure(nz, 0), evaluated(nz, 0);
  struct Node {
    std::int32_t triangle;  // the closest triangle (-1: band miss)
    std::uint32_t slot;     // its slot in the index's layout (bvh::kInvalid: not known)
    double lower;  // |d| (exact) or a lower bound (band miss)
    double sq;     // the computed squared distance (exact nodes)
    bool exact;    // lower is the exact distance
    bool inside;
    SignConfidence confidence;
  };
  constexpr bool kLune = requires { sm.index().layout(); };
  const double scale = kernel_scale(sm.index().mesh().bounds());  // S of sdf_grid_lune.hpp
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
  // The float lower bound's table (float_bound_table: about 190 bytes a
  // triangle while the grid runs; past 1 GiB, none, and the search computes
  // the double bound at each visit: the same bytes, slower).
  sdf_detail::FloatBoundTable table;
  if constexpr (kLune) {
    if (options.lune && options.terms_table)
      table = sdf_detail::float_bound_table(sm.index().layout(), std::size_t(1) << 30,
                                            options.batch.threads);
  }
  const sdf_detail::FloatBoundTable* table_ptr = table.empty() ? nullptr : &table;
  const auto layout = [&] {
    if constexpr (kLune) return sm.index().layout();
    else return 0;
  }();
  BatchOptions per_slab = options.batch;
  per_slab.grain = 1;
  batch_for_each(slabs, per_slab, [&](std::size_t slab) {
    const std::size_t k0 = zb + nz * slab / slabs, k1 = zb + nz * (slab + 1) / slabs;
    std::vector<Node> buf_a(nx * ny), buf_b(nx * ny), buf_c(nx * ny);
    std::vector<sdf_detail::EmptyBall> balls;
    NearTriangles<T> near;
    auto at = [&](std::size_t i, std::size_t j, std::size_t kk) {
      const Vec3d d = grid.node(i, j, kk);
      return Vec3<T>{T(d[0]), T(d[1]), T(d[2])};
    };
    // Rows [jb, je) of one plane (a band: see the order below); below /
    // above: computed planes kb / ka (or null), whose empty balls cut the
    // search. Rows below jb are computed.
    auto do_rows = [&](std::size_t k, Node* plane, const Node* below, std::size_t kb,
                       const Node* above, std::size_t ka, std::size_t jb, std::size_t je) {
      // Rows jb, jb + 2, ..., then jb + 1, jb + 3, ...: an odd one has
      // computed rows on both sides (two sides of the clip box along y, but
      // for the band's last row), an even one the row two below (the band's
      // first, the row just below). Against rows in order: 7% fewer node
      // visits and 10% fewer leaf chunks, the same kernel calls (stop 39).
      // The hint stays the node before in the row: a hint two spacings away
      // (columns interleaved the same way) costs 16% more kernel calls.
      const std::size_t even_rows = (je - jb + 1) / 2;
      for (std::size_t row = 0; row < je - jb; ++row) {
        const std::size_t j =
            jb + (row < even_rows ? 2 * row : 2 * (row - even_rows) + 1);
        const bool odd = ((j - jb) & 1) != 0;
        const std::size_t down = odd || j == jb ? 1 : 2;  // the computed row below: j - down
        const bool up = odd && j + 1 < je;                // row j + 1 computed too
        for (std::size_t i = 0; i < nx; ++i) {
          const Vec3<T> p = at(i, j, k);
          const Node* from = i > 0 ? &plane[j * nx + i - 1] : j >= down ? &plane[(j - down) * nx] : nullptr;
          double step = 0;
          if (from) {
            const Vec3<T> q = i > 0 ? at(i - 1, j, k) : at(0, j - down, k);
            const Vec3d dv{double(p[0]) - double(q[0]), double(p[1]) - double(q[1]),
                           double(p[2]) - double(q[2])};
            step = std::sqrt(squared_norm(dv)) * kWiden;
          }
          MeshClosestPoint<T> cp;
          bool done = false;
          std::uint32_t found_slot = bvh::kInvalid;
          // A node that signs itself (its sign is not copied from `from`)
          // with the pseudonormal certificate: the search lists the
          // triangles near its answer, which the certificate reads.
          const bool propagate = copy_signs && from && from->lower > step;
          const bool list_near = !propagate && reads_near;
          bool listed = false;
          if constexpr (kLune) {
            if (options.lune && from && from->exact) {
              // The hint's corners from its leaf pack when its slot is known
              // (the previous search just read it: in cache, where the mesh's
              // vertex array is not).
              const auto& mesh = sm.index().mesh();
              const auto t = std::size_t(from->triangle);
              std::uint32_t slot = from->slot;
              auto corner = [&](int c) {
                return slot != bvh::kInvalid ? layout.corner(slot, c) : mesh.corner(t, c);
              };
              const Vec3<T> c0 = corner(0), c1 = corner(1), c2 = corner(2);
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
                // The computed neighbours along an axis (the search's clip
                // box; diagonal ones cost more than they cut, stop 38).
                if (i > 0) add(plane[j * nx + i - 1], i - 1, j, k);
                if (j >= down) add(plane[(j - down) * nx + i], i, j - down, k);
                if (up) add(plane[(j + 1) * nx + i], i, j + 1, k);
                if (below) add(below[j * nx + i], i, j, kb);
                if (above) add(above[j * nx + i], i, j, ka);
                cp = sdf_detail::lune_closest_point_isa(
                    layout, p, std::uint32_t(from->triangle), c0, c1, c2, balls, scale,
                    &slab_stats[slab], table_ptr, &slot, list_near ? &near : nullptr,
                    list_near ? sm.rounding_reach(p) : 0.0);
                listed = list_near;
                found_slot = slot;
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
          if (cp.found()) {
            n.lower = std::sqrt(double(cp.sq_distance));
            n.sq = double(cp.sq_distance);
            n.exact = true;
            n.triangle = cp.triangle;
            n.slot = found_slot;
          } else {
            n.lower = band;
            n.sq = 0;
            n.exact = false;
            n.triangle = -1;
            n.slot = bvh::kInvalid;
          }
          if (propagate) {
            n.inside = from->inside;
            n.confidence = from->confidence;
          } else {
            const SignedClosestPoint<T> s =
                listed ? sm.sign(p, cp, near)
                       : sm.sign(p, cp.found() ? cp : sm.index().closest_point(p));
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
    // Order: plane k0, then k + 2 before k + 1, so that every other plane has
    // computed neighbours on both sides; within a plane, bands of kBand rows
    // (even rows, then odd ones: do_rows), and planes k + 2 and k + 1 band by
    // band, so that the leaves and table chunks a band's searches read are
    // still in cache when the band's twin in the next plane reads them
    // (rows in order, plane by plane, before stop 39). The values do not
    // depend on the order.
    // kBand 8: the fewest simulated L2 misses (cachegrind, 2 MB: 16 a search
    // with rows in order, 30 with even and odd rows over whole planes, 11
    // with bands of 16 rows, 9 with bands of 8; bunny 64^3), and the fastest
    // of 8, 16 and 32 at 128^3 (in turn).
    constexpr std::size_t kBand = 8;
    auto bands = [&](auto&& f) {
      for (std::size_t jb = 0; jb < ny; jb += kBand) f(jb, std::min(ny, jb + kBand));
    };
    Node* a = buf_a.data();
    Node* b = buf_b.data();
    bands([&](std::size_t jb, std::size_t je) { do_rows(k0, a, nullptr, 0, nullptr, 0, jb, je); });
    for (std::size_t m = k0; m + 1 < k1; m += 2) {
      if (m + 2 < k1) {
        bands([&](std::size_t jb, std::size_t je) {
          do_rows(m + 2, b, a, m, nullptr, 0, jb, je);
          do_rows(m + 1, buf_c.data(), a, m, b, m + 2, jb, je);
        });
        std::swap(a, b);
      } else {
        bands([&](std::size_t jb, std::size_t je) {
          do_rows(m + 1, buf_c.data(), a, m, nullptr, 0, jb, je);
        });
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

template SdfGrid<float> signed_distance_grid(const SignedMesh<MeshIndex<float>>&, const GridSpec&,
                                             const SdfOptions&);
template SdfGrid<double> signed_distance_grid(const SignedMesh<MeshIndex<double>>&,
                                              const GridSpec&, const SdfOptions&);
template SdfGrid<float> signed_distance_grid(const SignedMesh<BruteForce<float>>&, const GridSpec&,
                                             const SdfOptions&);
template SdfGrid<double> signed_distance_grid(const SignedMesh<BruteForce<double>>&,
                                              const GridSpec&, const SdfOptions&);

}  // namespace prox
