// prox/core/scalar.hpp — scalar traits shared by every kernel.
//
// Kernels are templated on the scalar T: float, double, or an exact type such
// as GMP's mpq_class (used by the tests as an oracle). Everything a kernel needs
// to know about T beyond + - * / and comparison lives here, so an exact type
// compiles without special cases in the kernels themselves.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

namespace prox {

template <class T>
struct ScalarTraits {
  /// True for IEEE types, whose values can be NaN or infinite.
  static constexpr bool is_ieee = std::is_floating_point_v<T>;

  /// +infinity for IEEE types; for exact types the largest finite double, which
  /// is the widest interval an exact test needs ("no upper bound").
  static T infinity() {
    if constexpr (is_ieee) {
      return std::numeric_limits<T>::infinity();
    } else {
      return T(std::numeric_limits<double>::max());
    }
  }

  /// Quiet NaN for IEEE types; exact types have none and get infinity().
  static T quiet_nan() {
    if constexpr (is_ieee) {
      return std::numeric_limits<T>::quiet_NaN();
    } else {
      return infinity();
    }
  }

  static bool is_finite(const T& x) {
    if constexpr (is_ieee) {
      return std::isfinite(x);
    } else {
      (void)x;
      return true;
    }
  }
};

/// x rounded to float, and kept rounded: widening the result again gives the
/// float's value. GCC 12.2 (Debian 12's compiler) at -O2 and above folds an
/// inlined double -> float -> double round trip of two adjacent lanes (its SLP
/// vectorizer pairs the conversions, then drops the pair) back to the
/// unrounded double: `float f[2] = {float(x0), float(x1)}; y0 = f[0];` gives
/// y0 == x0. The empty asm makes the rounded float opaque to that fold, at the
/// cost of nothing (the value is already in a vector register). Every
/// double-to-float narrowing in prox's headers whose result may be widened
/// again in the same function goes through here (Vec::cast<float>, the BVH's
/// outward rounding); tests/core/test_narrowing.cpp checks the patterns with
/// the vectorizer on.
inline float to_float(double x) {
  float f = static_cast<float>(x);
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
  __asm__("" : "+x"(f));
#elif defined(__GNUC__) && !defined(__clang__) && defined(__aarch64__)
  __asm__("" : "+w"(f));
#endif
  return f;
}

template <class T>
inline bool is_finite(const T& x) {
  return ScalarTraits<T>::is_finite(x);
}

/// Clamp without std::clamp's reference-to-temporary trap for expression types.
template <class T>
inline T clamp01(const T& x) {
  if (x < T(0)) return T(0);
  if (x > T(1)) return T(1);
  return x;
}

}  // namespace prox
