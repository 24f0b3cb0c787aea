// prox/primitives/closest_point_triangle.hpp — closest point on a solid 3D triangle.
//
// Algorithm: Ericson, Real-Time Collision Detection, 5.1.5 (seed 000): classify
// p into one of the seven Voronoi regions with six dot products, then project
// onto that vertex, edge or the face. No square roots; one division at most.
//
// Inputs: query p, corners a, b, c. Output: `point`, `sq_distance` (squared),
// `bary` (weights of a, b, c; they sum to 1 and point = bary . (a, b, c)),
// `feature` (the region).
//
// Degenerate triangles (collinear or coincident corners, detected exactly:
// |ab x ac|^2 == 0) are the segment or point they collapse to: the nearest of
// the closest points of the three edges (whose union is that segment); never NaN. Sliver triangles that are not exactly
// degenerate go through the ordinary path, whose face branch is guarded so
// that a rounding-induced zero denominator falls back to the edges.
// Non-finite input (NaN/Inf in any coordinate): a miss — every output NaN,
// feature face. Exact scalar types (mpq_class) give the exact answer.
#pragma once

#include "prox/core/vec.hpp"
#include "prox/primitives/feature.hpp"

namespace prox {

template <class T>
struct ClosestPointTriangleResult {
  Vec3<T> point;     ///< closest point of the triangle
  T sq_distance;     ///< |p - point|^2
  Vec3<T> bary;      ///< weights of a, b, c
  Feature feature;   ///< region of the triangle that holds `point`
};

namespace detail {

template <class T>
ClosestPointTriangleResult<T> triangle_miss() {
  const T nan = ScalarTraits<T>::quiet_nan();
  return {Vec3<T>::splat(nan), nan, Vec3<T>::splat(nan), Feature::face};
}

template <class T>
bool all_finite(const Vec3<T>& p, const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
  if constexpr (ScalarTraits<T>::is_ieee) {
    return prox::all_finite(p) && prox::all_finite(a) && prox::all_finite(b) &&
           prox::all_finite(c);
  } else {
    return true;
  }
}

/// Result on edge (i, j) with parameter s along it (0 at corner i).
template <class T>
ClosestPointTriangleResult<T> on_edge(const Vec3<T>& p, const Vec3<T>* corners, int i, int j,
                                      const T& s) {
  static constexpr Feature edge_of[3][3] = {{Feature::v0, Feature::e01, Feature::e20},
                                            {Feature::e01, Feature::v1, Feature::e12},
                                            {Feature::e20, Feature::e12, Feature::v2}};
  ClosestPointTriangleResult<T> r;
  r.bary = Vec3<T>::zero();
  if (s <= T(0)) {
    r.point = corners[i];
    r.bary[i] = T(1);
    r.feature = edge_of[i][i];
  } else if (s >= T(1)) {
    r.point = corners[j];
    r.bary[j] = T(1);
    r.feature = edge_of[j][j];
  } else {
    r.point = lerp(corners[i], corners[j], s);
    r.bary[i] = T(1) - s;
    r.bary[j] = s;
    r.feature = edge_of[i][j];
  }
  r.sq_distance = squared_distance(p, r.point);
  return r;
}

/// Closest point of segment (corners[i], corners[j]) as a triangle result.
template <class T>
ClosestPointTriangleResult<T> closest_on_edge(const Vec3<T>& p, const Vec3<T>* corners, int i,
                                              int j) {
  const Vec3<T> d = corners[j] - corners[i];
  const T dd = dot(d, d);
  if (dd == T(0)) return on_edge(p, corners, i, j, T(0));
  const T s = dot(p - corners[i], d) / dd;
  return on_edge(p, corners, i, j, s);
}

/// Nearest of the three edges; ties go to the first edge in the order ab, bc, ca.
template <class T>
ClosestPointTriangleResult<T> closest_on_edges(const Vec3<T>& p, const Vec3<T>* corners) {
  ClosestPointTriangleResult<T> best = closest_on_edge(p, corners, 0, 1);
  ClosestPointTriangleResult<T> r = closest_on_edge(p, corners, 1, 2);
  if (r.sq_distance < best.sq_distance) best = r;
  r = closest_on_edge(p, corners, 2, 0);
  if (r.sq_distance < best.sq_distance) best = r;
  return best;
}

}  // namespace detail

/// Closest point on the solid triangle (a, b, c) to p (Ericson's Voronoi regions).
template <class T>
ClosestPointTriangleResult<T> closest_point_triangle(const Vec3<T>& p, const Vec3<T>& a,
                                                     const Vec3<T>& b, const Vec3<T>& c) {
  if (!detail::all_finite(p, a, b, c)) return detail::triangle_miss<T>();
  const Vec3<T> corners[3] = {a, b, c};
  const Vec3<T> ab = b - a;
  const Vec3<T> ac = c - a;
  const Vec3<T> n = cross(ab, ac);
  if (squared_norm(n) == T(0)) return detail::closest_on_edges(p, corners);

  ClosestPointTriangleResult<T> r;
  r.bary = Vec3<T>::zero();
  const Vec3<T> ap = p - a;
  const T d1 = dot(ab, ap);
  const T d2 = dot(ac, ap);
  if (d1 <= T(0) && d2 <= T(0)) {  // vertex region a
    r.point = a;
    r.bary[0] = T(1);
    r.feature = Feature::v0;
    r.sq_distance = squared_distance(p, r.point);
    return r;
  }
  const Vec3<T> bp = p - b;
  const T d3 = dot(ab, bp);
  const T d4 = dot(ac, bp);
  if (d3 >= T(0) && d4 <= d3) {  // vertex region b
    r.point = b;
    r.bary[1] = T(1);
    r.feature = Feature::v1;
    r.sq_distance = squared_distance(p, r.point);
    return r;
  }
  const T vc = d1 * d4 - d3 * d2;
  if (vc <= T(0) && d1 >= T(0) && d3 <= T(0)) {  // edge region ab
    const T s = d1 / (d1 - d3);
    return detail::on_edge(p, corners, 0, 1, s);
  }
  const Vec3<T> cp = p - c;
  const T d5 = dot(ab, cp);
  const T d6 = dot(ac, cp);
  if (d6 >= T(0) && d5 <= d6) {  // vertex region c
    r.point = c;
    r.bary[2] = T(1);
    r.feature = Feature::v2;
    r.sq_distance = squared_distance(p, r.point);
    return r;
  }
  const T vb = d5 * d2 - d1 * d6;
  if (vb <= T(0) && d2 >= T(0) && d6 <= T(0)) {  // edge region ca
    const T s = d2 / (d2 - d6);  // from a towards c
    return detail::on_edge(p, corners, 0, 2, s);
  }
  const T va = d3 * d6 - d5 * d4;
  const T d43 = d4 - d3;
  const T d56 = d5 - d6;
  if (va <= T(0) && d43 >= T(0) && d56 >= T(0)) {  // edge region bc
    const T s = d43 / (d43 + d56);
    return detail::on_edge(p, corners, 1, 2, s);
  }
  // Face region. In floating point a sliver can reach here with va + vb + vc
  // rounded to zero or of the wrong sign; the edges are then the answer.
  const T denom = va + vb + vc;
  if (!(denom > T(0))) return detail::closest_on_edges(p, corners);
  const T v = vb / denom;
  const T w = vc / denom;
  r.bary[0] = T(1) - v - w;
  r.bary[1] = v;
  r.bary[2] = w;
  r.point = a + ab * v + ac * w;
  r.feature = Feature::face;
  r.sq_distance = squared_distance(p, r.point);
  return r;
}

}  // namespace prox
