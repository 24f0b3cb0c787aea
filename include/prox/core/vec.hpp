// prox/core/vec.hpp — fixed-size vectors Vec<T,N> (N = 2 or 3 in practice).
//
// An aggregate (`Vec3d{1, 2, 3}` works), trivially copyable for float/double,
// with no algorithms beyond the arithmetic every kernel needs. Results are
// computed into named T temporaries, never `auto`, so that expression-template
// scalars (mpq_class) evaluate exactly where the code says.
#pragma once

#include <cstddef>

#include "prox/core/scalar.hpp"

namespace prox {

template <class T, int N>
struct Vec {
  T v[N];

  constexpr T& operator[](int i) { return v[i]; }
  constexpr const T& operator[](int i) const { return v[i]; }
  static constexpr int size() { return N; }

  /// Every component set to s.
  static Vec splat(const T& s) {
    Vec r;
    for (int i = 0; i < N; ++i) r.v[i] = s;
    return r;
  }
  static Vec zero() { return splat(T(0)); }

  /// Component-wise conversion (float <-> double <-> exact).
  template <class U>
  Vec<U, N> cast() const {
    Vec<U, N> r;
    for (int i = 0; i < N; ++i) {
      if constexpr (std::is_same_v<U, float> && std::is_same_v<T, double>) {
        r.v[i] = to_float(v[i]);  // stays rounded (see to_float)
      } else {
        r.v[i] = U(v[i]);
      }
    }
    return r;
  }
};

template <class T> using Vec2 = Vec<T, 2>;
template <class T> using Vec3 = Vec<T, 3>;
using Vec2f = Vec<float, 2>;
using Vec2d = Vec<double, 2>;
using Vec3f = Vec<float, 3>;
using Vec3d = Vec<double, 3>;

template <class T, int N>
inline Vec<T, N> operator+(const Vec<T, N>& a, const Vec<T, N>& b) {
  Vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = a[i] + b[i];
  return r;
}
template <class T, int N>
inline Vec<T, N> operator-(const Vec<T, N>& a, const Vec<T, N>& b) {
  Vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = a[i] - b[i];
  return r;
}
template <class T, int N>
inline Vec<T, N> operator-(const Vec<T, N>& a) {
  Vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = -a[i];
  return r;
}
template <class T, int N>
inline Vec<T, N> operator*(const Vec<T, N>& a, const T& s) {
  Vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = a[i] * s;
  return r;
}
template <class T, int N>
inline Vec<T, N> operator*(const T& s, const Vec<T, N>& a) {
  return a * s;
}
template <class T, int N>
inline Vec<T, N> operator/(const Vec<T, N>& a, const T& s) {
  Vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = a[i] / s;
  return r;
}
template <class T, int N>
inline Vec<T, N>& operator+=(Vec<T, N>& a, const Vec<T, N>& b) {
  for (int i = 0; i < N; ++i) a[i] += b[i];
  return a;
}
template <class T, int N>
inline Vec<T, N>& operator-=(Vec<T, N>& a, const Vec<T, N>& b) {
  for (int i = 0; i < N; ++i) a[i] -= b[i];
  return a;
}
template <class T, int N>
inline bool operator==(const Vec<T, N>& a, const Vec<T, N>& b) {
  for (int i = 0; i < N; ++i)
    if (!(a[i] == b[i])) return false;
  return true;
}
template <class T, int N>
inline bool operator!=(const Vec<T, N>& a, const Vec<T, N>& b) {
  return !(a == b);
}

template <class T, int N>
inline T dot(const Vec<T, N>& a, const Vec<T, N>& b) {
  T s = a[0] * b[0];
  for (int i = 1; i < N; ++i) s += a[i] * b[i];
  return s;
}

template <class T, int N>
inline T squared_norm(const Vec<T, N>& a) {
  return dot(a, a);
}

template <class T, int N>
inline T squared_distance(const Vec<T, N>& a, const Vec<T, N>& b) {
  T s(0);
  for (int i = 0; i < N; ++i) {
    T d = a[i] - b[i];
    s += d * d;
  }
  return s;
}

template <class T>
inline Vec<T, 3> cross(const Vec<T, 3>& a, const Vec<T, 3>& b) {
  Vec<T, 3> r;
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
  return r;
}

/// 2D cross product (z of the 3D one): positive when b is counter-clockwise of a.
template <class T>
inline T cross(const Vec<T, 2>& a, const Vec<T, 2>& b) {
  T r = a[0] * b[1] - a[1] * b[0];
  return r;
}

template <class T, int N>
inline Vec<T, N> min(const Vec<T, N>& a, const Vec<T, N>& b) {
  Vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = b[i] < a[i] ? b[i] : a[i];
  return r;
}
template <class T, int N>
inline Vec<T, N> max(const Vec<T, N>& a, const Vec<T, N>& b) {
  Vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = a[i] < b[i] ? b[i] : a[i];
  return r;
}

/// a + t * (b - a).
template <class T, int N>
inline Vec<T, N> lerp(const Vec<T, N>& a, const Vec<T, N>& b, const T& t) {
  Vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = a[i] + t * (b[i] - a[i]);
  return r;
}

template <class T, int N>
inline bool all_finite(const Vec<T, N>& a) {
  for (int i = 0; i < N; ++i)
    if (!is_finite(a[i])) return false;
  return true;
}

}  // namespace prox
