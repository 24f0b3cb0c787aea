// prox/closest_point_triangle.glsl — closest point on a solid 3D triangle (seed 000).
//
// The GLSL twin of prox::closest_point_triangle (prox/primitives/closest_point_triangle.hpp),
// operation for operation, so it returns the same point, squared distance,
// barycentrics and feature (prox/feature.glsl) bit for bit on a device that
// rounds like IEEE float/double (see common.glsl for division and denormals):
// - Ericson's Voronoi regions (Real-Time Collision Detection 5.1.5): six dot
//   products pick a vertex or edge region; divisions only once a region is
//   known, and never by zero (an edge region's denominator is positive there).
// - The face region drops p onto the plane along n = ab x ac in double and
//   re-checks the projection is strictly inside; otherwise the nearest edge.
// - Degenerate triangles (|ab x ac|^2 == 0 exactly) are their segment or
//   point: the nearest of the three edges' closest points (ties to ab, bc, ca;
//   an edge's interior point beats an endpoint of it that another edge
//   clamped to). Never NaN.
// - Non-finite input: every output NaN, feature face.
// - A triangle too small or too large for float's squares (largest |component|
//   of b - a, c - a below 2^-16 or above 2^16, looked at only when |ab x ac|^2
//   is outside [2^-64, 2^64]) is answered by the whole kernel in double and
//   rounded to float, as C++'s detail::closest_point_rescaled does (issue 9;
//   docs/reliability.md): prox_closest_point_triangle_d, the C++ double
//   kernel's twin (for float inputs it never needs its own rescaling).
#ifndef PROX_CLOSEST_POINT_TRIANGLE_GLSL
#define PROX_CLOSEST_POINT_TRIANGLE_GLSL
#include "common.glsl"
#include "feature.glsl"

struct ProxTriangleResult {
  vec3 point;         // closest point of the triangle
  float sq_distance;  // |p - point|^2
  vec3 bary;          // weights of a, b, c (point = bary . (a, b, c))
  uint feature;       // PROX_FEATURE_*: region that holds point
};

ProxTriangleResult prox_triangle_miss() {
  float nan = prox_nan();
  return ProxTriangleResult(vec3(nan), nan, vec3(nan), PROX_FEATURE_FACE);
}

vec3 prox_corner(vec3 a, vec3 b, vec3 c, int i) { return i == 0 ? a : (i == 1 ? b : c); }

uint prox_edge_feature(int i, int j) {
  if (i == j) return uint(i);  // v0, v1, v2
  int s = i + j;               // {0,1} -> 1, {1,2} -> 3, {0,2} -> 2
  return s == 1 ? PROX_FEATURE_E01 : (s == 3 ? PROX_FEATURE_E12 : PROX_FEATURE_E20);
}

/// Result on edge (i, j) at parameter s (0 at corner i), as detail::on_edge.
ProxTriangleResult prox_on_edge(vec3 p, vec3 a, vec3 b, vec3 c, int i, int j, float s) {
  ProxTriangleResult r;
  r.bary = vec3(0.0);
  vec3 ci = prox_corner(a, b, c, i), cj = prox_corner(a, b, c, j);
  if (s <= 0.0) {
    r.point = ci;
    r.bary[i] = 1.0;
    r.feature = uint(i);
  } else if (s >= 1.0) {
    r.point = cj;
    r.bary[j] = 1.0;
    r.feature = uint(j);
  } else {
    r.point = prox_lerp(ci, cj, s);
    precise float w = 1.0 - s;
    r.bary[i] = w;
    r.bary[j] = s;
    r.feature = prox_edge_feature(i, j);
  }
  r.sq_distance = prox_sq_distance(p, r.point);
  return r;
}

ProxTriangleResult prox_closest_on_edge(vec3 p, vec3 a, vec3 b, vec3 c, int i, int j) {
  vec3 ci = prox_corner(a, b, c, i), cj = prox_corner(a, b, c, j);
  precise vec3 d = cj - ci;
  float dd = prox_dot(d, d);
  if (dd == 0.0) return prox_on_edge(p, a, b, c, i, j, 0.0);
  float s = prox_div(prox_dot(p - ci, d), dd);
  return prox_on_edge(p, a, b, c, i, j, s);
}

bool prox_is_vertex_feature(uint f) { return f <= PROX_FEATURE_V2; }

/// r is a corner result, q inside edge (i, j), and r's point is corner i or j.
bool prox_beaten_by_interior(ProxTriangleResult r, ProxTriangleResult q, vec3 a, vec3 b, vec3 c) {
  if (!prox_is_vertex_feature(r.feature)) return false;
  int i, j;
  if (q.feature == PROX_FEATURE_E01) { i = 0; j = 1; }
  else if (q.feature == PROX_FEATURE_E12) { i = 1; j = 2; }
  else if (q.feature == PROX_FEATURE_E20) { i = 2; j = 0; }
  else return false;
  return r.point == prox_corner(a, b, c, i) || r.point == prox_corner(a, b, c, j);
}

ProxTriangleResult prox_closest_on_edges(vec3 p, vec3 a, vec3 b, vec3 c) {
  ProxTriangleResult cand[3];
  cand[0] = prox_closest_on_edge(p, a, b, c, 0, 1);
  cand[1] = prox_closest_on_edge(p, a, b, c, 1, 2);
  cand[2] = prox_closest_on_edge(p, a, b, c, 2, 0);
  int best = 0;
  for (int i = 1; i < 3; ++i) {
    if (prox_beaten_by_interior(cand[i], cand[best], a, b, c)) continue;
    if (prox_beaten_by_interior(cand[best], cand[i], a, b, c) ||
        cand[i].sq_distance < cand[best].sq_distance)
      best = i;
  }
  return cand[best];
}

/// Face answer in double when the projection is strictly inside, else the edges.
ProxTriangleResult prox_face_or_edges(vec3 p, vec3 a, vec3 b, vec3 c) {
  dvec3 pw = dvec3(p), aw = dvec3(a), bw = dvec3(b), cw = dvec3(c);
  dvec3 n = prox_cross_d(bw - aw, cw - aw);
  double nn = prox_dot_d(n, n);
  double wc = prox_dot_d(prox_cross_d(bw - aw, pw - aw), n);
  double wa = prox_dot_d(prox_cross_d(cw - bw, pw - bw), n);
  double wb = prox_dot_d(prox_cross_d(aw - cw, pw - cw), n);
  if (!(nn > 0.0LF && wa > 0.0LF && wb > 0.0LF && wc > 0.0LF))
    return prox_closest_on_edges(p, a, b, c);
  precise double k = prox_dot_d(n, pw - aw) / nn;
  ProxTriangleResult r;
  precise dvec3 q = pw - n * k;
  r.point = vec3(q);
  precise double b1 = wb / nn;
  precise double b2 = wc / nn;
  r.bary.y = float(b1);
  r.bary.z = float(b2);
  precise float b0 = 1.0 - r.bary.y - r.bary.z;
  r.bary.x = b0;
  r.feature = PROX_FEATURE_FACE;
  r.sq_distance = prox_sq_distance(p, r.point);
  return r;
}

// ---- The double kernel (C++ closest_point_triangle<double>), for the rescaled path.

struct ProxTriangleResultD {
  dvec3 point;
  double sq_distance;
  dvec3 bary;
  uint feature;
};

dvec3 prox_corner_d(dvec3 a, dvec3 b, dvec3 c, int i) { return i == 0 ? a : (i == 1 ? b : c); }

ProxTriangleResultD prox_on_edge_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c, int i, int j, double s) {
  ProxTriangleResultD r;
  r.bary = dvec3(0.0LF);
  dvec3 ci = prox_corner_d(a, b, c, i), cj = prox_corner_d(a, b, c, j);
  if (s <= 0.0LF) {
    r.point = ci;
    r.bary[i] = 1.0LF;
    r.feature = uint(i);
  } else if (s >= 1.0LF) {
    r.point = cj;
    r.bary[j] = 1.0LF;
    r.feature = uint(j);
  } else {
    r.point = prox_lerp_d(ci, cj, s);
    precise double w = 1.0LF - s;
    r.bary[i] = w;
    r.bary[j] = s;
    r.feature = prox_edge_feature(i, j);
  }
  r.sq_distance = prox_sq_distance_d(p, r.point);
  return r;
}

ProxTriangleResultD prox_closest_on_edge_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c, int i, int j) {
  dvec3 ci = prox_corner_d(a, b, c, i), cj = prox_corner_d(a, b, c, j);
  precise dvec3 d = cj - ci;
  double dd = prox_dot_d(d, d);
  if (dd == 0.0LF) return prox_on_edge_d(p, a, b, c, i, j, 0.0LF);
  precise double s = prox_dot_d(p - ci, d) / dd;
  return prox_on_edge_d(p, a, b, c, i, j, s);
}

bool prox_beaten_by_interior_d(ProxTriangleResultD r, ProxTriangleResultD q, dvec3 a, dvec3 b,
                               dvec3 c) {
  if (!prox_is_vertex_feature(r.feature)) return false;
  int i, j;
  if (q.feature == PROX_FEATURE_E01) { i = 0; j = 1; }
  else if (q.feature == PROX_FEATURE_E12) { i = 1; j = 2; }
  else if (q.feature == PROX_FEATURE_E20) { i = 2; j = 0; }
  else return false;
  return r.point == prox_corner_d(a, b, c, i) || r.point == prox_corner_d(a, b, c, j);
}

ProxTriangleResultD prox_closest_on_edges_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c) {
  ProxTriangleResultD cand[3];
  cand[0] = prox_closest_on_edge_d(p, a, b, c, 0, 1);
  cand[1] = prox_closest_on_edge_d(p, a, b, c, 1, 2);
  cand[2] = prox_closest_on_edge_d(p, a, b, c, 2, 0);
  int best = 0;
  for (int i = 1; i < 3; ++i) {
    if (prox_beaten_by_interior_d(cand[i], cand[best], a, b, c)) continue;
    if (prox_beaten_by_interior_d(cand[best], cand[i], a, b, c) ||
        cand[i].sq_distance < cand[best].sq_distance)
      best = i;
  }
  return cand[best];
}

ProxTriangleResultD prox_face_or_edges_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c) {
  dvec3 n = prox_cross_d(b - a, c - a);
  double nn = prox_dot_d(n, n);
  double wc = prox_dot_d(prox_cross_d(b - a, p - a), n);
  double wa = prox_dot_d(prox_cross_d(c - b, p - b), n);
  double wb = prox_dot_d(prox_cross_d(a - c, p - c), n);
  if (!(nn > 0.0LF && wa > 0.0LF && wb > 0.0LF && wc > 0.0LF))
    return prox_closest_on_edges_d(p, a, b, c);
  precise double k = prox_dot_d(n, p - a) / nn;
  ProxTriangleResultD r;
  precise dvec3 q = p - n * k;
  r.point = q;
  precise double b1 = wb / nn;
  precise double b2 = wc / nn;
  precise double b0 = 1.0LF - b1 - b2;
  r.bary = dvec3(b0, b1, b2);
  r.feature = PROX_FEATURE_FACE;
  r.sq_distance = prox_sq_distance_d(p, r.point);
  return r;
}

/// The C++ double kernel on finite inputs whose edges are within
/// [2^-200, 2^200] (every float triangle's are: its own rescaling never runs).
ProxTriangleResultD prox_closest_point_triangle_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c) {
  precise dvec3 ab = b - a;
  precise dvec3 ac = c - a;
  dvec3 n = prox_cross_d(ab, ac);
  if (prox_dot_d(n, n) == 0.0LF) return prox_closest_on_edges_d(p, a, b, c);

  ProxTriangleResultD r;
  r.bary = dvec3(0.0LF);
  precise dvec3 ap = p - a;
  double d1 = prox_dot_d(ab, ap);
  double d2 = prox_dot_d(ac, ap);
  if (d1 <= 0.0LF && d2 <= 0.0LF) {  // vertex region a
    r.point = a;
    r.bary.x = 1.0LF;
    r.feature = PROX_FEATURE_V0;
    r.sq_distance = prox_sq_distance_d(p, a);
    return r;
  }
  precise dvec3 bp = p - b;
  double d3 = prox_dot_d(ab, bp);
  double d4 = prox_dot_d(ac, bp);
  if (d3 >= 0.0LF && d4 <= d3) {  // vertex region b
    r.point = b;
    r.bary.y = 1.0LF;
    r.feature = PROX_FEATURE_V1;
    r.sq_distance = prox_sq_distance_d(p, b);
    return r;
  }
  precise double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0LF && d1 >= 0.0LF && d3 <= 0.0LF) {  // edge region ab
    precise double s = d1 / (d1 - d3);
    return prox_on_edge_d(p, a, b, c, 0, 1, s);
  }
  precise dvec3 cp = p - c;
  double d5 = prox_dot_d(ab, cp);
  double d6 = prox_dot_d(ac, cp);
  if (d6 >= 0.0LF && d5 <= d6) {  // vertex region c
    r.point = c;
    r.bary.z = 1.0LF;
    r.feature = PROX_FEATURE_V2;
    r.sq_distance = prox_sq_distance_d(p, c);
    return r;
  }
  precise double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0LF && d2 >= 0.0LF && d6 <= 0.0LF) {  // edge region ca (from a towards c)
    precise double s = d2 / (d2 - d6);
    return prox_on_edge_d(p, a, b, c, 0, 2, s);
  }
  precise double va = d3 * d6 - d5 * d4;
  precise double d43 = d4 - d3;
  precise double d56 = d5 - d6;
  if (va <= 0.0LF && d43 >= 0.0LF && d56 >= 0.0LF) {  // edge region bc
    precise double s = d43 / (d43 + d56);
    return prox_on_edge_d(p, a, b, c, 1, 2, s);
  }
  return prox_face_or_edges_d(p, a, b, c);
}

// Edge sizes the float kernel answers itself: the largest |component| m of
// b - a and c - a, rounded to float, in [2^-16, 2^16]. m is taken from the
// double differences (a device may flush a subnormal float difference to 0):
// float(m_d) is C++'s float m (a float difference rounded through double is
// the float difference), and it is below 2^-16 exactly when m_d is below the
// midpoint 2^-16 - 2^-41, above 2^16 when m_d is above 2^16 + 2^-8 (ties go to
// the even power of two).
const double PROX_RESCALE_BELOW = 1.0LF / 65536.0LF - 1.0LF / 2199023255552.0LF;
const double PROX_RESCALE_ABOVE = 65536.0LF + 1.0LF / 256.0LF;
const float PROX_NN_LO = 1.0 / 18446744073709551616.0;  // 2^-64
const float PROX_NN_HI = 18446744073709551616.0;        // 2^64

/// C++'s detail::closest_point_rescaled for float: the double kernel, rounded.
ProxTriangleResult prox_closest_point_rescaled(vec3 p, vec3 a, vec3 b, vec3 c) {
  ProxTriangleResultD w = prox_closest_point_triangle_d(dvec3(p), dvec3(a), dvec3(b), dvec3(c));
  return ProxTriangleResult(prox_to_float3(w.point), prox_to_float(w.sq_distance),
                            prox_to_float3(w.bary), w.feature);
}

/// Closest point on the solid triangle (a, b, c) to p.
ProxTriangleResult prox_closest_point_triangle(vec3 p, vec3 a, vec3 b, vec3 c) {
  if (!prox_finite3(p) || !prox_finite3(a) || !prox_finite3(b) || !prox_finite3(c))
    return prox_triangle_miss();
  precise vec3 ab = b - a;
  precise vec3 ac = c - a;
  vec3 n = prox_cross(ab, ac);
  float nn = prox_dot(n, n);
  if (!(nn >= PROX_NN_LO && nn <= PROX_NN_HI)) {
    precise dvec3 abd = dvec3(b) - dvec3(a);
    precise dvec3 acd = dvec3(c) - dvec3(a);
    dvec3 e = max(abs(abd), abs(acd));
    double m = max(e.x, max(e.y, e.z));
    if (m > 0.0LF && (m < PROX_RESCALE_BELOW || m > PROX_RESCALE_ABOVE))
      return prox_closest_point_rescaled(p, a, b, c);
  }
  if (nn == 0.0) return prox_closest_on_edges(p, a, b, c);

  ProxTriangleResult r;
  r.bary = vec3(0.0);
  precise vec3 ap = p - a;
  float d1 = prox_dot(ab, ap);
  float d2 = prox_dot(ac, ap);
  if (d1 <= 0.0 && d2 <= 0.0) {  // vertex region a
    r.point = a;
    r.bary.x = 1.0;
    r.feature = PROX_FEATURE_V0;
    r.sq_distance = prox_sq_distance(p, a);
    return r;
  }
  precise vec3 bp = p - b;
  float d3 = prox_dot(ab, bp);
  float d4 = prox_dot(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) {  // vertex region b
    r.point = b;
    r.bary.y = 1.0;
    r.feature = PROX_FEATURE_V1;
    r.sq_distance = prox_sq_distance(p, b);
    return r;
  }
  precise float vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {  // edge region ab
    precise float den = d1 - d3;
    return prox_on_edge(p, a, b, c, 0, 1, prox_div(d1, den));
  }
  precise vec3 cp = p - c;
  float d5 = prox_dot(ab, cp);
  float d6 = prox_dot(ac, cp);
  if (d6 >= 0.0 && d5 <= d6) {  // vertex region c
    r.point = c;
    r.bary.z = 1.0;
    r.feature = PROX_FEATURE_V2;
    r.sq_distance = prox_sq_distance(p, c);
    return r;
  }
  precise float vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {  // edge region ca (from a towards c)
    precise float den = d2 - d6;
    return prox_on_edge(p, a, b, c, 0, 2, prox_div(d2, den));
  }
  precise float va = d3 * d6 - d5 * d4;
  precise float d43 = d4 - d3;
  precise float d56 = d5 - d6;
  if (va <= 0.0 && d43 >= 0.0 && d56 >= 0.0) {  // edge region bc
    precise float den = d43 + d56;
    return prox_on_edge(p, a, b, c, 1, 2, prox_div(d43, den));
  }
  return prox_face_or_edges(p, a, b, c);
}
#endif
