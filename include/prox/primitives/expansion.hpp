// prox/primitives/expansion.hpp — exact floating-point expansion arithmetic
// for the kernels' rare far-corner paths (ray_triangle.hpp's far_corner_t,
// closest_point_triangle.hpp's edge answers from far ends).
//
// Algorithm: Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast
// Robust Geometric Predicates" (1997): Two-Sum, Two-Product (with a fused
// multiply-add), Scale-Expansion and Fast-Expansion-Sum (merge by magnitude,
// then a Two-Sum chain), both with zero elimination. An expansion is a sum of
// doubles stored in increasing magnitude, non-overlapping, so its rounded sum
// is within about an ulp of its exact value. Exact while no product
// overflows or underflows. prox builds with -ffp-contract=off (no fused
// operation changes a Two-Sum).
// The functions are static (internal linkage): the mesh engine's ISA objects
// (src/mesh/engine_isa.cpp) each keep their own copy instead of sharing one
// weak symbol built for another ISA (the engine_isa_symbols test).
#pragma once

#include <algorithm>
#include <cmath>

namespace prox::detail {

namespace xp {
static inline void two_sum(double a, double b, double& x, double& y) {
  x = a + b;
  const double bv = x - a;
  const double av = x - bv;
  y = (a - av) + (b - bv);
}
/// h = e b exactly (e: n components); returns h's length (<= 2n).
static inline int scale(const double* e, int n, double b, double* h) {
  int k = 0;
  double q = e[0] * b;
  double hh = std::fma(e[0], b, -q);
  if (hh != 0) h[k++] = hh;
  for (int i = 1; i < n; ++i) {
    const double p1 = e[i] * b;
    const double p0 = std::fma(e[i], b, -p1);
    double s = 0;
    two_sum(q, p0, s, hh);
    if (hh != 0) h[k++] = hh;
    two_sum(p1, s, q, hh);
    if (hh != 0) h[k++] = hh;
  }
  if (q != 0 || k == 0) h[k++] = q;
  return k;
}
/// h = e + f exactly; returns h's length (<= n + m).
static inline int sum(const double* e, int n, const double* f, int m, double* h) {
  int i = 0, j = 0, k = 0;
  auto next = [&]() {
    if (j >= m || (i < n && std::abs(e[i]) < std::abs(f[j]))) return e[i++];
    return f[j++];
  };
  double q = next();
  while (i < n || j < m) {
    const double g = next();
    double nq = 0, hh = 0;
    two_sum(q, g, nq, hh);
    q = nq;
    if (hh != 0) h[k++] = hh;
  }
  if (q != 0 || k == 0) h[k++] = q;
  return k;
}
/// The value of an expansion, rounded (within about one ulp).
static inline double approx(const double* e, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += e[i];
  return s;
}
/// l1 r1 - l2 r2 for 2-component expansions (x[0] the smaller part), as an
/// exact expansion in out (16 components at most); returns its length.
static inline int diff_of_products(const double* l1, const double* r1, const double* l2,
                            const double* r2, double* out) {
  double t[4], u[4], p[8], q[8];
  int n1 = scale(r1, 2, l1[0], t);
  int n2 = scale(r1, 2, l1[1], u);
  const int np = sum(t, n1, u, n2, p);
  n1 = scale(r2, 2, -l2[0], t);
  n2 = scale(r2, 2, -l2[1], u);
  const int nq = sum(t, n1, u, n2, q);
  return sum(p, np, q, nq, out);
}

/// (p - a) x (b - a), each component the rounding (within about an ulp) of
/// its exact value: no cancellation error, however far a and b are from p.
static inline void cross_of_differences(const double* p, const double* a, const double* b,
                                 double* out) {
  double pa[3][2], ba[3][2];
  for (int i = 0; i < 3; ++i) {
    two_sum(p[i], -a[i], pa[i][1], pa[i][0]);
    two_sum(b[i], -a[i], ba[i][1], ba[i][0]);
  }
  static constexpr int jk[3][2] = {{1, 2}, {2, 0}, {0, 1}};
  for (int i = 0; i < 3; ++i) {
    double e[16];
    const int j = jk[i][0], k = jk[i][1];
    out[i] = approx(e, diff_of_products(pa[j], ba[k], pa[k], ba[j], e));
  }
}

/// det[r0; r1; r2] of a 3x3 matrix whose entries are 2-component
/// expansions (r[i][j][0] the smaller part), nearly rounded: its exact
/// expansion, summed. Exact while no product over- or underflows.
static inline double det3(const double (&r)[3][3][2]) {
  double acc[192], tmp[192], m[16], s0[32], s1[32], term[64];
  int na = 0;
  static constexpr int jk[3][2] = {{1, 2}, {2, 0}, {0, 1}};
  for (int i = 0; i < 3; ++i) {
    const int j = jk[i][0], k = jk[i][1];
    const int nm = diff_of_products(r[1][j], r[2][k], r[1][k], r[2][j], m);
    const int n0 = scale(m, nm, r[0][i][0], s0);
    const int n1 = scale(m, nm, r[0][i][1], s1);
    const int nt = sum(s0, n0, s1, n1, term);
    na = sum(acc, na, term, nt, tmp);
    for (int c = 0; c < na; ++c) acc[c] = tmp[c];
  }
  return approx(acc, na);
}
}  // namespace xp

}  // namespace prox::detail
