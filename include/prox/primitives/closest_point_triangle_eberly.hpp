// prox/primitives/closest_point_triangle_eberly.hpp — closest point on a solid 3D
// triangle by Eberly's parametric regions.
//
// Algorithm: Schneider & Eberly, Geometric Tools for Computer Graphics, 10.3.2
// (seed 001). Minimise the quadratic Q(s, t) = |B + s e0 + t e1 - P|^2 over the
// domain s, t >= 0, s + t <= 1. The unconstrained minimum (s, t) = (be - cd,
// bd - ae) / (ac - b^2) falls in one of seven regions of the st-plane (0: the
// face; 1, 3, 5: beyond an edge; 2, 4, 6: beyond a vertex); each region
// decides its edge by the signs of directional derivatives. Divisions are
// deferred to the branch that needs one. Fixes to the seed's text: region 1's
// numerator is c + e - b - d (the seed prints "c+d-b-d"), and the sign of e is
// +e1 . (B - P) throughout, as in the code.
//
// Region 0 (the face) is answered as closest_point_triangle's face is: p
// projected along the normal and re-checked, instead of B + s e0 + t e1 with
// s, t divided by ac - b^2, whose rounding a sliver amplifies (same point
// exactly).
//
// Same contract as closest_point_triangle (Ericson): `point`, `sq_distance`
// (squared), `bary` (weights of a, b, c), `feature`. An answer on an edge or a
// vertex reports that edge or vertex, including when region 0 lands exactly on
// the boundary, so exact scalar types give the same result as Ericson's.
//
// Numerics: det, s and t are computed as |e0 x e1|^2, -(diff x e1) . n and
// (diff x e0) . n (Lagrange's identity), not as the seed's 2x2 determinants of
// dot products, whose cancellation squares the triangle's condition.
//
// Degenerate triangles: ac - b^2 = |e0 x e1|^2 is zero exactly for collinear or
// coincident corners, and then the triangle is its segment or point (the
// nearest of its three edges), never NaN. In floating point a sliver can round
// ac - b^2 to zero or below; it takes the same edge path (its width is within
// rounding of zero). Non-finite input: a miss, every output NaN.
//
// Scale: det ~ m^4 and s, t ~ m^3 |p - a| (m: the edges' size) overflow or
// underflow in T's own arithmetic for edges beyond 2^+-16 (float; double
// 2^+-200) or p farther than 2^60 (2^400) from a; there the kernel runs in
// double (float) or on inputs scaled by a power of two (double), as
// closest_point_triangle does (detail::reference_rescaled).
#pragma once

#include "prox/primitives/closest_point_triangle.hpp"

namespace prox {

namespace detail {

/// Point B + s e0 + t e1 on edge ab (t == 0) or edge ca (s == 0).
template <class T>
ClosestPointTriangleResult<T> eberly_result(const Vec3<T>& p, const Vec3<T>* corners,
                                            const T& s, const T& t) {
  if (t == T(0)) return on_edge(p, corners, 0, 1, s);  // edge ab (or a, b)
  return on_edge(p, corners, 0, 2, t);                 // edge ca (or c)
}

/// Minimum of Q on edge t = 0 or s = 0: parameter -b/a clamped to [0, 1].
template <class T>
T eberly_clamp(const T& b, const T& a) {
  if (b >= T(0)) return T(0);
  if (-b >= a) return T(1);
  const T x = -b / a;
  return x;
}

}  // namespace detail

namespace detail {

/// Eberly's regions on finite input in T's range (reference_in_range).
template <class T>
ClosestPointTriangleResult<T> eberly_regions(const Vec3<T>& p, const Vec3<T>& a,
                                             const Vec3<T>& b, const Vec3<T>& c) {
  const Vec3<T> corners[3] = {a, b, c};
  const Vec3<T> e0 = b - a;
  const Vec3<T> e1 = c - a;
  const Vec3<T> diff = a - p;
  const T a00 = dot(e0, e0);
  const T a01 = dot(e0, e1);
  const T a11 = dot(e1, e1);
  const T b0 = dot(diff, e0);
  const T b1 = dot(diff, e1);
  // det = a00 a11 - a01^2, s = a01 b1 - a11 b0 and t = a01 b0 - a00 b1, each
  // evaluated through Lagrange's identity as dot products of cross products:
  // equal exactly, but the Gram-determinant form loses 1/sin^2 of the smallest
  // angle to cancellation (a sliver's regions become noise, in double too),
  // this form only 1/sin.
  const Vec3<T> n = cross(e0, e1);
  const T det = dot(n, n);
  if (!(det > T(0))) return detail::closest_on_edges(p, corners);
  T s = -dot(cross(diff, e1), n);
  T t = dot(cross(diff, e0), n);
  if (s + t <= det) {
    if (s < T(0)) {
      if (t < T(0)) {  // region 4: vertex a, or edge ab, or edge ac
        if (b0 < T(0)) {
          t = T(0);
          s = detail::eberly_clamp(b0, a00);
        } else {
          s = T(0);
          t = detail::eberly_clamp(b1, a11);
        }
      } else {  // region 3: edge ac (s = 0)
        s = T(0);
        t = detail::eberly_clamp(b1, a11);
      }
    } else if (t < T(0)) {  // region 5: edge ab (t = 0)
      t = T(0);
      s = detail::eberly_clamp(b0, a00);
    } else {  // region 0: the face (boundary included)
      // Exactly on an edge: report the edge, with its own parameter.
      if (t == T(0)) return detail::on_edge(p, corners, 0, 1, T(s / det));
      if (s == T(0)) return detail::on_edge(p, corners, 0, 2, T(t / det));
      if (s + t == det) return detail::on_edge(p, corners, 1, 2, T(t / det));
      // Inside: the projection of p, re-checked (see detail::face_or_edges).
      return detail::face_or_edges(p, corners);
    }
  } else {
    const T denom = a00 - T(2) * a01 + a11;  // |e0 - e1|^2 > 0
    if (s < T(0)) {  // region 2: vertex c, or edge bc, or edge ac
      const T tmp0 = a01 + b0;
      const T tmp1 = a11 + b1;
      if (tmp1 > tmp0) {
        const T numer = tmp1 - tmp0;
        s = numer >= denom ? T(1) : T(numer / denom);
        t = T(1) - s;
      } else {
        s = T(0);
        t = tmp1 <= T(0) ? T(1) : detail::eberly_clamp(b1, a11);
      }
    } else if (t < T(0)) {  // region 6: vertex b, or edge bc, or edge ab
      const T tmp0 = a01 + b1;
      const T tmp1 = a00 + b0;
      if (tmp1 > tmp0) {
        const T numer = tmp1 - tmp0;
        t = numer >= denom ? T(1) : T(numer / denom);
        s = T(1) - t;
      } else {
        t = T(0);
        s = tmp1 <= T(0) ? T(1) : detail::eberly_clamp(b0, a00);
      }
    } else {  // region 1: edge bc
      const T numer = a11 + b1 - a01 - b0;
      if (numer <= T(0)) {
        s = T(0);
      } else {
        s = numer >= denom ? T(1) : T(numer / denom);
      }
      t = T(1) - s;
    }
  }
  // On edge bc, (s, t) = (1 - w, w): report it through the bc parameter w = t
  // so that the point is b + w (c - b), as the other edges are built.
  if (s != T(0) && t != T(0)) {
    return detail::on_edge(p, corners, 1, 2, t);
  }
  return detail::eberly_result(p, corners, s, t);
}

}  // namespace detail

/// Closest point on the solid triangle (a, b, c) to p (Eberly's parametric regions).
template <class T>
ClosestPointTriangleResult<T> closest_point_triangle_eberly(const Vec3<T>& p, const Vec3<T>& a,
                                                            const Vec3<T>& b, const Vec3<T>& c) {
  if (!detail::all_finite(p, a, b, c)) return detail::triangle_miss<T>();
  if constexpr (ScalarTraits<T>::is_ieee) {
    if (!detail::reference_in_range(b - a, c - a, p - a)) {
      return detail::reference_rescaled(p, a, b, c, [](const auto& q, const auto& qa,
                                                       const auto& qb, const auto& qc) {
        return detail::eberly_regions(q, qa, qb, qc);
      });
    }
  }
  return detail::eberly_regions(p, a, b, c);
}

}  // namespace prox
