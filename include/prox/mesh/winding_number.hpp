// prox/mesh/winding_number.hpp — solid angle of a triangle seen from a point,
// the building block of the generalized winding number (Jacobson et al. 2013).
//
// Algorithm: Van Oosterom & Strackee (1983): with a, b, c the corners relative
// to p, tan(Omega / 2) = a.(b x c) / (|a||b||c| + (a.b)|c| + (a.c)|b| + (b.c)|a|),
// evaluated with atan2 so the full range (-2 pi, 2 pi] is kept. The solid angle
// is signed: positive when the triangle's normal (b-a)x(c-a) points away from p.
// The winding number of a mesh at p is the sum over its triangles / (4 pi):
// 1 inside a closed outward-oriented mesh, 0 outside, fractional near holes.
// MeshIndex::winding_number and BruteForce::winding_number sum it over every
// triangle (exact sum; no far-field approximation yet).
//
// Degenerate triangles (|ab x ac|^2 == 0) have no area and contribute 0.
// p on the triangle's plane inside it: +-2 pi by the sign of the zero (any
// value is as right as another). Float and double only (needs atan2, sqrt).
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "prox/core/vec.hpp"

namespace prox {

/// Signed solid angle subtended by triangle (a, b, c) at p, in steradians.
/// The formula is homogeneous (degree 3 over degree 3), so when the corners'
/// offsets from p are too small or too large for T's arithmetic (largest
/// |offset component| outside 2^+-250 in double, 2^+-28 in float, where the
/// degeneracy test's edge^4 and the formula's cubes stay normal) they are
/// scaled by a power of two first (exact); inside that range the arithmetic is
/// unchanged.
template <class T>
T triangle_solid_angle(const Vec3<T>& p, const Vec3<T>& a, const Vec3<T>& b,
                       const Vec3<T>& c) {
  Vec3<T> qa = a - p, qb = b - p, qc = c - p;
  constexpr int range = std::is_same_v<T, float> ? 28 : 250;
  using std::abs;
  T m = T(0);
  for (int i = 0; i < 3; ++i) m = std::max(m, std::max(abs(qa[i]), std::max(abs(qb[i]), abs(qc[i]))));
  if (m > T(0) && (m < std::ldexp(T(1), -range) || m > std::ldexp(T(1), range))) {
    if (!std::isfinite(m)) return T(0);
    int e = 0;
    std::frexp(m, &e);
    for (Vec3<T>* q : {&qa, &qb, &qc})
      for (int i = 0; i < 3; ++i) (*q)[i] = std::ldexp((*q)[i], -e);
    if (squared_norm(cross(qb - qa, qc - qa)) == T(0)) return T(0);
  } else if (squared_norm(cross(b - a, c - a)) == T(0)) {
    return T(0);
  }
  const T la = std::sqrt(squared_norm(qa));
  const T lb = std::sqrt(squared_norm(qb));
  const T lc = std::sqrt(squared_norm(qc));
  const T num = dot(qa, cross(qb, qc));
  const T den = la * lb * lc + dot(qa, qb) * lc + dot(qa, qc) * lb + dot(qb, qc) * la;
  return T(2) * std::atan2(num, den);
}

/// 1 / (4 pi) in T: winding number = sum of solid angles * this.
template <class T>
constexpr T inverse_four_pi() {
  return T(0.079577471545947667884441881686257181017229822870228224373833);
}

}  // namespace prox
