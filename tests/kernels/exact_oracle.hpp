// tests/kernels/exact_oracle.hpp — shared machinery of the exact-oracle tests.
//
// Cases are drawn in float, so the same inputs are exact in double and in
// mpq_class: the exact answer is computed once per case (kernel instantiated
// on mpq_class) and the float and double kernels are compared with it.
// Errors are measured exactly (result converted to mpq minus the exact value)
// and reported in units of the case's scale s = max(longest edge, largest
// absolute input coordinate): the magnitude the inputs carry. A float result
// cannot be closer than half an ulp of its own coordinates, so that is the
// unit in which "a few ulps" is meaningful, also far from the origin.
#pragma once

#include <gmpxx.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "prox/prox.hpp"

namespace prox::test {

using Q = mpq_class;
using V3f = Vec3<float>;
using V3d = Vec3<double>;
using V3q = Vec3<Q>;

inline V3q to_q(const V3f& v) { return V3q{Q(double(v[0])), Q(double(v[1])), Q(double(v[2]))}; }
inline V3d to_d(const V3f& v) { return v.cast<double>(); }

/// |x - exact| as a double, computed exactly then rounded.
template <class T>
double abs_err(const T& x, const Q& exact) {
  const Q d = Q(double(x)) - exact;
  return std::fabs(d.get_d());
}

/// Euclidean |x - exact| (rounded at the end only).
template <class T>
double point_err(const Vec3<T>& x, const V3q& exact) {
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    const double e = abs_err(x[i], exact[i]);
    s += e * e;
  }
  return std::sqrt(s);
}

inline double norm_d(const V3f& v) {
  return std::sqrt(double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2]);
}
inline double max_abs(const V3f& v) {
  return std::max({std::fabs(double(v[0])), std::fabs(double(v[1])), std::fabs(double(v[2]))});
}

/// A triangle query: p, a, b, c, all float.
struct TriCase {
  V3f p, a, b, c;
  double scale() const {
    const double e = std::max({norm_d(b - a), norm_d(c - b), norm_d(a - c)});
    return std::max({e, max_abs(p), max_abs(a), max_abs(b), max_abs(c),
                     std::numeric_limits<double>::min()});
  }
};

/// Worst value seen, with the case that produced it (for the failure message).
struct Worst {
  double value = 0;
  std::int64_t index = -1;
  void add(double v, std::int64_t i) {
    if (!(v <= value)) {  // NaN counts as worst
      value = v;
      index = i;
    }
  }
};

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : g_(seed) {}
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g_); }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g_); }
  float f(double lo, double hi) { return float(uniform(lo, hi)); }
  V3f vec(double lo, double hi) { return V3f{f(lo, hi), f(lo, hi), f(lo, hi)}; }
  /// Dyadic coordinates k / 2^10, |k| <= range: sums of a few stay exact in float.
  V3f dyadic(int range) {
    return V3f{float(integer(-range, range)) / 1024.0f, float(integer(-range, range)) / 1024.0f,
               float(integer(-range, range)) / 1024.0f};
  }
  std::mt19937_64& engine() { return g_; }

 private:
  std::mt19937_64 g_;
};

/// Unit-ish float vector in a random direction.
inline V3f random_dir(Rng& rng) {
  for (;;) {
    const V3d v{rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
    const double n2 = squared_norm(v);
    if (n2 > 0.01 && n2 <= 1) {
      const double n = std::sqrt(n2);
      return V3f{float(v[0] / n), float(v[1] / n), float(v[2] / n)};
    }
  }
}

inline std::string fmt_err(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%9.2e", v);
  return buf;
}

}  // namespace prox::test
