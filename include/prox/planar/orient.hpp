// prox/planar/orient.hpp — the exact sign of the 2D orientation determinant.
//
// orient2d(a, b, p) = sign of cross(b - a, p - a): +1 when p is to the left of
// a -> b (counter-clockwise in y-up axes), -1 to the right, 0 on the line.
// Every inside test and validity check in prox::planar decides with it, so
// "is p inside / on the outline" is exact for float and double input, not only
// for exact scalar types.
//
// Algorithm: Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast
// Robust Geometric Predicates" (1997). Stage A: the determinant in double with
// his error bound (3 + 16 eps) eps (|left| + |right|); almost every call ends
// there. Otherwise the exact sign: each coordinate difference is split exactly
// into a rounded value and its error (Two-Diff), the two products are expanded
// exactly with fused multiply-adds (Two-Product), and the 16 terms are summed
// into a non-overlapping expansion (Grow-Expansion with zero elimination), whose
// largest component carries the sign. Hand-written because no Debian package
// ships a header-only robust predicate for templates (CGAL's kernels are far
// heavier than one function).
// Float input is promoted to double (exact). Exact types (mpq_class) use the
// plain cross product, which is exact for them. Coordinates above 2^500 or
// below 2^-450 in magnitude are first scaled by a power of two (exact), so
// the sign is exact over the whole double range but where the coordinates
// span more than about 2^900; NaN input gives 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "prox/core/vec.hpp"

namespace prox::planar {
namespace detail {

/// a - b = s + e exactly (Knuth / Shewchuk Two-Diff).
inline void two_diff(double a, double b, double& s, double& e) {
  s = a - b;
  const double bv = a - s;
  const double av = s + bv;
  e = (a - av) + (bv - b);
}

/// 2^-e with m 2^-e in [0.5, 1) (m > 0, finite): multiplying by it scales a
/// value to m's order of magnitude exactly (orient2d here; the circle and
/// capsule tests through needs_rescale, prox/planar/shapes.hpp).
template <class T>
T rescale_factor(T m) {
  int e = 0;
  std::frexp(m, &e);
  return std::ldexp(T(1), -e);
}

/// a + b = s + e exactly (Two-Sum).
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bv = s - a;
  const double av = s - bv;
  e = (a - av) + (b - bv);
}

/// Adds b to the non-overlapping expansion h[0..n) (increasing magnitude), in place;
/// returns the new length (zero components dropped).
inline int grow_expansion(double* h, int n, double b) {
  double q = b;
  int m = 0;
  for (int i = 0; i < n; ++i) {
    double s, e;
    two_sum(q, h[i], s, e);
    q = s;
    if (e != 0) h[m++] = e;
  }
  if (q != 0) h[m++] = q;
  return m;
}

/// Exact sign of (ax - cx)(by - cy) - (ay - cy)(bx - cx) style determinant
/// l1 * r1 - l2 * r2 with each factor given as an exact difference x - y.
inline int orient2d_exact(double bx, double ax, double py, double ay, double by, double px) {
  double a1, a0, d1, d0, b1, b0, c1, c0;
  two_diff(bx, ax, a1, a0);  // bx - ax
  two_diff(py, ay, d1, d0);  // py - ay
  two_diff(by, ay, b1, b0);  // by - ay
  two_diff(px, ax, c1, c0);  // px - ax
  const double left[2] = {a1, a0}, down[2] = {d1, d0};
  const double up[2] = {b1, b0}, right[2] = {c1, c0};
  double h[40];
  int n = 0;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      const double p = left[i] * down[j];
      const double pe = std::fma(left[i], down[j], -p);
      const double q = up[i] * right[j];
      const double qe = std::fma(up[i], right[j], -q);
      n = grow_expansion(h, n, pe);
      n = grow_expansion(h, n, p);
      n = grow_expansion(h, n, -qe);
      n = grow_expansion(h, n, -q);
    }
  }
  if (n == 0) return 0;
  const double top = h[n - 1];
  return top > 0 ? 1 : (top < 0 ? -1 : 0);
}

}  // namespace detail

/// Sign of cross(b - a, p - a): +1 p left of a -> b, -1 right, 0 on the line (exact).
template <class T>
int orient2d(const Vec2<T>& a, const Vec2<T>& b, const Vec2<T>& p) {
  if constexpr (std::is_floating_point_v<T>) {
    double ax = double(a[0]), ay = double(a[1]);
    double bx = double(b[0]), by = double(b[1]);
    double px = double(p[0]), py = double(p[1]);
    // Coordinates whose differences' products would overflow or underflow
    // are scaled by a power of two first (exact but for values 2^900 times
    // smaller than the largest): the sign is the same, and now computed
    // exactly (found from outside, stop 40: (1e308, 1e308) was inside the
    // triangle (0,0), (1,0), (0,1)).
    const double m = std::max({std::abs(ax), std::abs(ay), std::abs(bx), std::abs(by),
                               std::abs(px), std::abs(py)});
    if (m > 0x1p500 || (m > 0 && m < 0x1p-450)) {
      const double s = detail::rescale_factor(m);
      ax *= s, ay *= s, bx *= s, by *= s, px *= s, py *= s;
    }
    const double left = (bx - ax) * (py - ay);
    const double right = (by - ay) * (px - ax);
    const double det = left - right;
    constexpr double eps = std::numeric_limits<double>::epsilon() / 2;  // 2^-53
    const double bound = (3.0 + 16.0 * eps) * eps * (std::abs(left) + std::abs(right));
    if (det > bound) return 1;
    if (-det > bound) return -1;
    return detail::orient2d_exact(bx, ax, py, ay, by, px);
  } else {
    const T c = cross(b - a, p - a);
    return c > T(0) ? 1 : (c < T(0) ? -1 : 0);
  }
}

}  // namespace prox::planar
