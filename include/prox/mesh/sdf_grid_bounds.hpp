// prox/mesh/sdf_grid_bounds.hpp — the per-triangle half of the SDF grid
// search's distance lower bound (lower_bound1 / lower_bound4 in
// prox/mesh/sdf_grid_lune_impl.hpp): every product of that bound that depends
// on the triangle alone (normal, edge normals, squared edge lengths and their
// products, the margin's scale), computed once per triangle instead of once
// per triangle and grid node.
//
// Why: the bound ran on ~35 triangles a node (bunny at 128^3), and two thirds
// of its arithmetic did not depend on the node (callgrind: 333 instructions a
// pack of four, 34% of the grid's search). The terms are the same IEEE double
// operations in the same order as the bound computed them before, so the bound
// has the same bits with or without the table (and the grid the same bytes:
// the bound only prunes; tests/mesh/test_sdf_grid.cpp compares both).
// Not in prox/mesh.hpp (see prox/mesh/sdf_grid_lune.hpp).
#pragma once

#include <cmath>
#include <cstddef>
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

/// TriangleTerms of the four lanes of one LeafPack, structure of arrays (what
/// the AVX2 leaf loads); ok is 1.0 or 0.0.
struct alignas(32) TriangleTerms4 {
  double n[3][4], mk[3][3][4], el[3][4], pk[3][4], e3[4], n2[4], rn[4], gs[4], ne[3][4], ok[4];
};

/// Lane `lane` of a table entry as TriangleTerms.
inline TriangleTerms lane_terms(const TriangleTerms4& t, unsigned lane) {
  TriangleTerms r;
  for (int a = 0; a < 3; ++a) {
    r.n[a] = t.n[a][lane];
    r.el[a] = t.el[a][lane];
    r.pk[a] = t.pk[a][lane];
    r.ne[a] = t.ne[a][lane];
    for (int b = 0; b < 3; ++b) r.mk[a][b] = t.mk[a][b][lane];
  }
  r.e3 = t.e3[lane];
  r.n2 = t.n2[lane];
  r.rn = t.rn[lane];
  r.gs = t.gs[lane];
  r.ok = t.ok[lane] != 0.0;
  return r;
}
/// Stores TriangleTerms as lane `lane` of a table entry.
inline void set_lane_terms(TriangleTerms4& t, unsigned lane, const TriangleTerms& r) {
  for (int a = 0; a < 3; ++a) {
    t.n[a][lane] = r.n[a];
    t.el[a][lane] = r.el[a];
    t.pk[a][lane] = r.pk[a];
    t.ne[a][lane] = r.ne[a];
    for (int b = 0; b < 3; ++b) t.mk[a][b][lane] = r.mk[a][b];
  }
  t.e3[lane] = r.e3;
  t.n2[lane] = r.n2;
  t.rn[lane] = r.rn;
  t.gs[lane] = r.gs;
  t.ok[lane] = r.ok ? 1.0 : 0.0;
}

/// The terms of every pack of x (one per LeafPack, same order), or an empty
/// vector when they would take more than max_bytes (the search then computes
/// them per visit, as before: the same bits). The edges are those the search
/// computes: differences of the corners converted to double.
template <class T>
std::vector<TriangleTerms4> triangle_terms_table(const FlatIndex<T>& x, std::size_t max_bytes,
                                                 int threads);

}  // namespace prox::sdf_detail
