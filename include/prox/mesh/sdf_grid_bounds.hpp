// prox/mesh/sdf_grid_bounds.hpp — the per-triangle half of the SDF grid
// search's distance lower bounds (prox/mesh/sdf_grid_lune_impl.hpp):
// - TriangleTerms / triangle_terms: the triangle-only products of the double
//   bound (lower_bound1 / lower_bound4), which the search computes at each visit
//   when it has no table;
// - FloatTerms8 / FloatBoundTable: the grid's table for the float bound
//   (float_bound8): per leaf chunk of 8 slots, each triangle's corners (less
//   the table's origin), unit normal, unit edge normals and directions and edge
//   lengths, computed in double and rounded to float once per grid.
//
// Why a float table: the double bound ran on every pack a node's search
// reaches, two thirds of the search's instructions with its terms tabulated in
// double (208 bytes a triangle); in unit terms its float form has an error
// relative to the distances at hand (2^-18 of them, see float_bound8), far
// below how much farther the losing triangles of a node are, and tests eight
// triangles at once: the search runs 21% fewer instructions (callgrind, bunny
// 64^3), the table takes about 190 bytes a triangle. The bound only prunes,
// so the grid has the same bytes either way (tests/mesh/test_sdf_grid.cpp).
// Not in prox/mesh.hpp (see prox/mesh/sdf_grid_lune.hpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "prox/mesh/flat_index.hpp"

namespace prox::sdf_detail {

/// The triangle-only terms of lower_bound1 for edges ed[k] (corner k + 1 minus
/// corner k), with n = ed[2] x ed[0] (see lower_bound1 in sdf_grid_lune_impl.hpp).
struct TriangleTerms {
  double n[3];      ///< the normal ed[2] x ed[0]
  double mk[3][3];  ///< ed[k] x n: edge k's outward normal in the plane, times |ed[k]| |n|
  double el[3];     ///< |ed[k]|^2
  double pk[3];     ///< el[k + 1] el[k + 2]
  double e3;        ///< pk[0] el[0]
  double n2;        ///< |n|^2
  double rn;        ///< |n|
  double gs;        ///< 2^-36 G (G: the squared sum of the edges' 1-norms)
  double ne[3];     ///< |ed[k]|_1
  bool ok;          ///< |n|^2 >= 2^-100 and G <= 2^100: the bound may prune
};

inline TriangleTerms triangle_terms(const double (&ed)[3][3]) {
  auto dot = [](const double* a, const double* b) { return (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]; };
  auto norm1 = [](const double* a) { return (std::fabs(a[0]) + std::fabs(a[1])) + std::fabs(a[2]); };
  TriangleTerms t;
  t.n[0] = ed[2][1] * ed[0][2] - ed[2][2] * ed[0][1];
  t.n[1] = ed[2][2] * ed[0][0] - ed[2][0] * ed[0][2];
  t.n[2] = ed[2][0] * ed[0][1] - ed[2][1] * ed[0][0];
  t.n2 = dot(t.n, t.n);
  for (int k = 0; k < 3; ++k) t.ne[k] = norm1(ed[k]);
  const double g1 = (t.ne[0] + t.ne[1]) + t.ne[2];
  const double g = g1 * g1;
  t.ok = t.n2 >= 0x1p-100 && g <= 0x1p100;
  for (int k = 0; k < 3; ++k) t.el[k] = dot(ed[k], ed[k]);
  t.pk[0] = t.el[1] * t.el[2];
  t.pk[1] = t.el[2] * t.el[0];
  t.pk[2] = t.el[0] * t.el[1];
  t.e3 = t.pk[0] * t.el[0];
  t.gs = 0x1p-36 * g;
  for (int k = 0; k < 3; ++k) {
    t.mk[k][0] = ed[k][1] * t.n[2] - ed[k][2] * t.n[1];
    t.mk[k][1] = ed[k][2] * t.n[0] - ed[k][0] * t.n[2];
    t.mk[k][2] = ed[k][0] * t.n[1] - ed[k][1] * t.n[0];
  }
  t.rn = std::sqrt(t.n2);
  return t;
}

/// The float bound's data for one chunk of a leaf: up to 8 consecutive slots
/// (lane = slot - the chunk's first slot), structure of arrays, every value a
/// double computed from the triangle's own corners and rounded to float once.
/// What the search's 8-lane float bound (float_bound8, prox/mesh/sdf_grid_lune_impl.hpp)
/// loads: 33 rows of 8 floats (1,056 bytes) and a lane mask.
struct alignas(32) FloatTerms8 {
  float c[3][3][8];  ///< c[k][a]: corner k minus the table's origin, axis a
  float n[3][8];     ///< the unit normal
  float m[3][3][8];  ///< m[k]: edge k's unit normal in the plane, pointing out of the triangle
  float u[3][3][8];  ///< u[k]: edge k's unit direction (corner k to corner k + 1)
  float len[3][8];   ///< |edge k|
  std::uint32_t ok = 0;  ///< bit per lane: the lane's values are set (else all 0: never pruned)
};

/// The float bound's table of one grid (see float_bound_table).
struct FloatBoundTable {
  double origin[3] = {0, 0, 0};  ///< subtracted from corners and nodes before rounding to float
  double reach = 0;              ///< the largest |corner - origin| coordinate of any lane
  std::vector<std::uint32_t> chunk_of;  ///< per pack: the chunk whose first slot it holds, or kInvalid
  std::vector<FloatTerms8> chunks;
  bool empty() const { return chunks.empty(); }
  const FloatTerms8& chunk(std::uint32_t first_slot) const {
    return chunks[chunk_of[first_slot / bvh::kLeafAlign]];
  }
};

/// Sets lane `lane` of t from a triangle's corners (in double) and the
/// table's origin. The lane is marked ok only where the float bound's error
/// analysis holds: the normal n = e2 x e0 is well conditioned (|n|^2 >= 2^-40
/// |e2|^2 |e0|^2: its relative error, from rounding the edges and their
/// products in double, is below 2^-30), and every coordinate of corner minus
/// origin is at most 2^60. Returns whether it did.
inline bool set_float_lane(FloatTerms8& t, unsigned lane, const double (&corner)[3][3],
                           const double (&origin)[3]) {
  auto dot = [](const double* a, const double* b) { return (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]; };
  auto cross = [](const double* a, const double* b, double* o) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
  };
  double ed[3][3], local[3][3];
  bool ok = true;
  for (int k = 0; k < 3; ++k)
    for (int a = 0; a < 3; ++a) {
      ed[k][a] = corner[(k + 1) % 3][a] - corner[k][a];
      local[k][a] = corner[k][a] - origin[a];
      ok = ok && std::fabs(local[k][a]) <= 0x1p60;
    }
  double n[3];
  cross(ed[2], ed[0], n);
  const double n2 = dot(n, n);
  ok = ok && n2 > 0 && n2 >= 0x1p-40 * dot(ed[2], ed[2]) * dot(ed[0], ed[0]) && std::isfinite(n2);
  for (int k = 0; k < 3; ++k)
    for (int a = 0; a < 3; ++a) t.c[k][a][lane] = t.m[k][a][lane] = t.u[k][a][lane] = 0.0f;
  for (int a = 0; a < 3; ++a) t.n[a][lane] = t.len[a][lane] = 0.0f;
  t.ok &= ~(1u << lane);
  if (!ok) return false;
  const double rn = std::sqrt(n2);
  for (int k = 0; k < 3; ++k) {
    double m[3];
    cross(ed[k], n, m);  // in the plane, perpendicular to edge k, away from the triangle
    const double rm = std::sqrt(dot(m, m)), le = std::sqrt(dot(ed[k], ed[k]));
    for (int a = 0; a < 3; ++a) {
      t.c[k][a][lane] = float(local[k][a]);
      t.m[k][a][lane] = float(m[a] / rm);
      t.u[k][a][lane] = float(ed[k][a] / le);
    }
    t.len[k][lane] = float(le);
    t.n[k][lane] = float(n[k] / rn);
  }
  t.ok |= 1u << lane;
  return true;
}

/// The float bound's table for every leaf of x: one chunk per 8 slots of a
/// leaf (a leaf of up to 8 slots is one chunk, 9 to 16 two), the origin at
/// the centre of the triangles' box. Empty when it would take more than
/// max_bytes (the search then computes the double bound at each visit).
template <class T>
FloatBoundTable float_bound_table(const FlatIndex<T>& x, std::size_t max_bytes, int threads);

}  // namespace prox::sdf_detail
