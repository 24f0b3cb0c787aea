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
// - Far corners (issue 9), as C++: a corner 2^16 times nearer to p than
//   another (prox_far_corners) sends the triangle to the double kernel, which
//   answers it from the nearest corner (prox_closest_point_from_nearest_d); an
//   edge or face answer measured from corners 2^10 times farther than the
//   answer and p is redone from exact expansions (expansion.glsl;
//   prox_far_solve, prox_far_solve_d), the edges then through
//   prox_closest_on_edge_far. All in double (shaderFloat64, which prox::gpu
//   requires of a device; docs/gpu.md).
#ifndef PROX_CLOSEST_POINT_TRIANGLE_GLSL
#define PROX_CLOSEST_POINT_TRIANGLE_GLSL
#include "common.glsl"
#include "expansion.glsl"
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

/// C++'s detail::closest_on_edge_far (float): closest_on_edge, then an answer
/// inside the edge is p minus its offset from the line, d x ((p - ci) x d) /
/// |d|^2 (d = cj - ci) in double with the cross product from exact
/// expansions: the offset's error is a few ulps of the distance, not eps times
/// the distance from p to the edge's ends. Region and weights: the ordinary ones.
ProxTriangleResult prox_closest_on_edge_far(vec3 p, vec3 a, vec3 b, vec3 c, int i, int j) {
  ProxTriangleResult r = prox_closest_on_edge(p, a, b, c, i, j);
  if (prox_is_vertex_feature(r.feature)) return r;
  dvec3 pw = dvec3(p);
  dvec3 ci = dvec3(prox_corner(a, b, c, i)), cj = dvec3(prox_corner(a, b, c, j));
  dvec3 x = prox_xp_cross_of_differences(pw, ci, cj);
  precise dvec3 d = cj - ci;
  precise double inv = 1.0LF / prox_dot_d(d, d);
  precise dvec3 off = prox_cross_d(d, x) * inv;
  precise dvec3 q = pw - off;
  vec3 point = prox_to_float3(q);
  if (prox_finite3(point)) {
    r.point = point;
    r.sq_distance = prox_sq_distance(p, point);
  }
  return r;
}

/// C++'s closest_on_edges<float, Tag, true> (corners nearest first): edges
/// ab, bc and ca parametrized from a, each by prox_closest_on_edge_far (one
/// loop body, so that a shader compiler that inlines everything keeps one copy).
ProxTriangleResult prox_closest_on_edges_near(vec3 p, vec3 a, vec3 b, vec3 c) {
  ProxTriangleResult cand[3];
  for (int k = 0; k < 3; ++k)
    cand[k] = prox_closest_on_edge_far(p, a, b, c, k == 2 ? 0 : k, k == 2 ? 2 : k + 1);
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

/// The face part of C++'s detail::far_solve (both types): n = ab x ac and the
/// three weights (c - b) x (p - b) . n, ... from exact cross products; when
/// p's projection is strictly inside, q = p - n det[b - a, c - a, p - a] / |n|^2
/// (the determinant exact, rounded once) and the weights of b and c.
bool prox_far_face_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c, out dvec3 q, out double b1,
                     out double b2) {
  // x[0] = (b - a) x (c - a) = n, x[1] = (p - b) x (c - b), x[2] = (p - c) x
  // (a - c), x[3] = (p - a) x (b - a); one loop body (one inlined copy).
  dvec3 x[4];
  for (int k = 0; k < 4; ++k)
    x[k] = prox_xp_cross_of_differences(k == 0 ? b : p, k == 1 ? b : (k == 2 ? c : a),
                                        k == 2 ? a : (k == 3 ? b : c));
  dvec3 n = x[0], xa = x[1], xb = x[2], xc = x[3];
  precise double wa = -prox_dot_d(xa, n);
  precise double wb = -prox_dot_d(xb, n);
  precise double wc = -prox_dot_d(xc, n);
  double nn = prox_dot_d(n, n);
  q = dvec3(0.0LF);
  b1 = 0.0LF;
  b2 = 0.0LF;
  if (!(nn > 0.0LF && wa > 0.0LF && wb > 0.0LF && wc > 0.0LF)) return false;
  double rows[18];  // rows[(row 3 + col) 2 + part]: b - a, c - a, p - a
  for (int i = 0; i < 3; ++i) {
    double hi, lo;
    prox_xp_two_sum(b[i], -a[i], hi, lo); rows[i * 2 + 1] = hi; rows[i * 2] = lo;
    prox_xp_two_sum(c[i], -a[i], hi, lo); rows[(3 + i) * 2 + 1] = hi; rows[(3 + i) * 2] = lo;
    prox_xp_two_sum(p[i], -a[i], hi, lo); rows[(6 + i) * 2 + 1] = hi; rows[(6 + i) * 2] = lo;
  }
  precise double k = prox_xp_det3(rows) / nn;
  precise dvec3 qq = p - n * k;
  q = qq;
  precise double w1 = wb / nn;
  precise double w2 = wc / nn;
  b1 = w1;
  b2 = w2;
  return true;
}

/// C++'s detail::far_solve<float>: the answer for a triangle whose corners
/// are all far from p compared with the answer, from exact expansions; inside:
/// the face point, outside: the nearest edge by prox_closest_on_edge_far.
ProxTriangleResult prox_far_solve(vec3 p, vec3 a, vec3 b, vec3 c) {
  dvec3 q;
  double b1, b2;
  if (prox_far_face_d(dvec3(p), dvec3(a), dvec3(b), dvec3(c), q, b1, b2)) {
    ProxTriangleResult r;
    r.point = prox_to_float3(q);
    r.bary.y = prox_to_float(b1);
    r.bary.z = prox_to_float(b2);
    precise float b0 = 1.0 - r.bary.y - r.bary.z;
    r.bary.x = b0;
    r.feature = PROX_FEATURE_FACE;
    r.sq_distance = prox_sq_distance(p, r.point);
    if (prox_finite3(r.point)) return r;
  }
  return prox_closest_on_edges_near(p, a, b, c);
}

/// C++'s detail::far_corners: one corner about 2^16 times nearer to p than
/// another (s: the squared distances from p to the corners; a corner at p
/// does not count).
bool prox_far_corners(float s0, float s1, float s2) {
  precise float sum = s0 + s1;
  sum += s2;
  precise float t = (1.0 / 4294967296.0) * sum;  // 2^-32
  return (s0 < t && s0 > 0.0) || (s1 < t && s1 > 0.0) || (s2 < t && s2 > 0.0);
}
bool prox_far_corners_d(double s0, double s1, double s2) {
  precise double sum = s0 + s1;
  sum += s2;
  precise double t = (1.0LF / 4294967296.0LF) * sum;
  return (s0 < t && s0 > 0.0LF) || (s1 < t && s1 > 0.0LF) || (s2 < t && s2 > 0.0LF);
}

/// C++'s detail::far_answer: the corners (m: the squared distance an answer
/// at squared distance d2 was measured from) more than 2^10 times farther than
/// the answer and p.
bool prox_far_answer(float d2, float m, vec3 p) {
  precise float lhs = m * (1.0 / 1048576.0);  // 2^-20
  precise float rhs = d2 + prox_dot(p, p);
  return lhs > rhs;
}
bool prox_far_answer_d(double d2, double m, dvec3 p) {
  precise double lhs = m * (1.0LF / 1048576.0LF);
  precise double rhs = d2 + prox_dot_d(p, p);
  return lhs > rhs;
}

bool prox_finite_d(double x) { return (unpackDouble2x32(x).y & 0x7ff00000u) != 0x7ff00000u; }

// ---- The double kernel (C++ closest_point_triangle<double>), for the rescaled
// and the nearest-corner paths.

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

/// C++'s detail::closest_on_edge_far<double> (see prox_closest_on_edge_far).
ProxTriangleResultD prox_closest_on_edge_far_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c, int i,
                                               int j) {
  ProxTriangleResultD r = prox_closest_on_edge_d(p, a, b, c, i, j);
  if (prox_is_vertex_feature(r.feature)) return r;
  dvec3 ci = prox_corner_d(a, b, c, i), cj = prox_corner_d(a, b, c, j);
  dvec3 x = prox_xp_cross_of_differences(p, ci, cj);
  precise dvec3 d = cj - ci;
  precise double inv = 1.0LF / prox_dot_d(d, d);
  precise dvec3 off = prox_cross_d(d, x) * inv;
  precise dvec3 q = p - off;
  if (prox_finite_d(q.x) && prox_finite_d(q.y) && prox_finite_d(q.z)) {
    r.point = q;
    r.sq_distance = prox_sq_distance_d(p, q);
  }
  return r;
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

/// C++'s closest_on_edges<double> (near: kNearFirst, the corners nearest
/// first: edge ca from a, every edge by prox_closest_on_edge_far_d). One loop
/// body (one inlined copy of the far edge).
ProxTriangleResultD prox_closest_on_edges_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c, bool near) {
  ProxTriangleResultD cand[3];
  for (int k = 0; k < 3; ++k) {
    int i = k == 2 ? (near ? 0 : 2) : k;
    int j = k == 2 ? (near ? 2 : 0) : k + 1;
    cand[k] = near ? prox_closest_on_edge_far_d(p, a, b, c, i, j)
                   : prox_closest_on_edge_d(p, a, b, c, i, j);
  }
  int best = 0;
  for (int i = 1; i < 3; ++i) {
    if (prox_beaten_by_interior_d(cand[i], cand[best], a, b, c)) continue;
    if (prox_beaten_by_interior_d(cand[best], cand[i], a, b, c) ||
        cand[i].sq_distance < cand[best].sq_distance)
      best = i;
  }
  return cand[best];
}

/// The face part of C++'s face_or_edges<double> (near: kNearFirst, the weight
/// of b measured from a): inside = p's projection strictly inside (then r is
/// the face answer); otherwise the caller takes the edges.
ProxTriangleResultD prox_face_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c, bool near, out bool inside) {
  dvec3 n = prox_cross_d(b - a, c - a);
  double nn = prox_dot_d(n, n);
  double wc = prox_dot_d(prox_cross_d(b - a, p - a), n);
  double wa = prox_dot_d(prox_cross_d(c - b, p - b), n);
  double wb = near ? prox_dot_d(prox_cross_d(p - a, c - a), n)
                   : prox_dot_d(prox_cross_d(a - c, p - c), n);
  ProxTriangleResultD r;
  r.point = p;
  r.sq_distance = 0.0LF;
  r.bary = dvec3(0.0LF);
  r.feature = PROX_FEATURE_FACE;
  inside = nn > 0.0LF && wa > 0.0LF && wb > 0.0LF && wc > 0.0LF;
  if (!inside) return r;
  precise double k = prox_dot_d(n, p - a) / nn;
  precise dvec3 q = p - n * k;
  r.point = q;
  precise double b1 = wb / nn;
  precise double b2 = wc / nn;
  precise double b0 = 1.0LF - b1 - b2;
  r.bary = dvec3(b0, b1, b2);
  r.sq_distance = prox_sq_distance_d(p, r.point);
  return r;
}

/// C++'s detail::far_solve<double>.
ProxTriangleResultD prox_far_solve_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c) {
  dvec3 q;
  double b1, b2;
  if (prox_far_face_d(p, a, b, c, q, b1, b2) && prox_finite_d(q.x) && prox_finite_d(q.y) &&
      prox_finite_d(q.z)) {
    ProxTriangleResultD r;
    r.point = q;
    precise double b0 = 1.0LF - b1 - b2;
    r.bary = dvec3(b0, b1, b2);
    r.feature = PROX_FEATURE_FACE;
    r.sq_distance = prox_sq_distance_d(p, q);
    return r;
  }
  return prox_closest_on_edges_d(p, a, b, c, true);
}

/// The face exit's far check of C++'s ericson_regions / closest_point_from_nearest
/// (double): the offset measured from corners at squared distance m, along n
/// known to eps over the sine there: m |u1|^2 |u2|^2 2^-20 > (d2 + |p|^2) |u1 x u2|^2.
bool prox_far_face_answer_d(double m, dvec3 u1, dvec3 u2, double d2, double pp) {
  double nn = prox_dot_d(prox_cross_d(u1, u2), prox_cross_d(u1, u2));
  precise double l = m * (prox_dot_d(u1, u1) * prox_dot_d(u2, u2));
  precise double lhs = l * (1.0LF / 1048576.0LF);
  precise double rhs = (d2 + pp) * nn;
  return lhs > rhs;
}

// Paths of the kernels' region passes (the drivers below take them, each
// rare path from one call site: a shader compiler inlines every function, so
// each call site would be another copy of the expansion code).
const uint PROX_CP_DONE = 0u;        // r is the answer
const uint PROX_CP_EDGES = 1u;       // the nearest of the three edges
const uint PROX_CP_FACE = 2u;        // r: the face answer; then the face's far check
const uint PROX_CP_FACE_EDGES = 3u;  // the edges, then the face's far check
const uint PROX_CP_NEAREST = 4u;     // from the nearest corner (closest_point_from_nearest)
const uint PROX_CP_FAR = 5u;         // far_solve
const uint PROX_CP_DOUBLE = 6u;      // float kernel: the double kernel

/// The region pass of C++'s closest_point_triangle<double> (inputs finite,
/// edges within [2^-200, 2^200]: every float triangle's are, so its own
/// rescaling never runs): s, the squared distances from p to the corners.
/// C++'s region_product_unsure: |v| within 64 eps |ab| |ac| |q1| |q2|, every
/// factor first scaled by 2^-e (e: the exponent of ab2 as C++ reads it from
/// the bits, frexp's less one; exact), compared squared in double.
bool prox_region_unsure_w(double v, double ab2, double ac2, double q1, double q2, double k2) {
  int e;
  frexp(ab2, e);
  precise double down = ldexp(1.0LF, 1 - e);
  precise double vw = v * down;
  vw *= down;
  precise double lhs = vw * vw;
  precise double rhs = k2 * (ab2 * down);
  rhs *= ac2 * down;
  rhs *= q1 * down;
  rhs *= q2 * down;
  return !(lhs > rhs);
}
bool prox_region_unsure_d(double v, double ab2, double ac2, double q1, double q2) {
  return prox_region_unsure_w(v, ab2, ac2, q1, q2,
                              4096.0LF * (1.0LF / 4503599627370496.0LF) * (1.0LF / 4503599627370496.0LF));
}
bool prox_region_unsure(float v, float ab2, float ac2, float q1, float q2) {
  return prox_region_unsure_w(double(v), double(ab2), double(ac2), double(q1), double(q2),
                              4096.0LF * (1.0LF / 8388608.0LF) * (1.0LF / 8388608.0LF));
}

ProxTriangleResultD prox_regions_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c, out uint path,
                                   out double s[3]) {
  path = PROX_CP_DONE;
  precise dvec3 ab = b - a;
  precise dvec3 ac = c - a;
  dvec3 n = prox_cross_d(ab, ac);
  precise dvec3 ap = p - a;
  ProxTriangleResultD r;
  r.point = dvec3(0.0LF);
  r.sq_distance = 0.0LF;
  r.bary = dvec3(0.0LF);
  r.feature = PROX_FEATURE_FACE;
  s = double[3](0.0LF, 0.0LF, 0.0LF);
  if (prox_dot_d(n, n) == 0.0LF) {
    s = double[3](prox_dot_d(ap, ap), prox_sq_distance_d(p, b), prox_sq_distance_d(p, c));
    path = prox_far_corners_d(s[0], s[1], s[2]) ? PROX_CP_NEAREST : PROX_CP_EDGES;
    return r;
  }
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
  precise dvec3 cp = p - c;
  s = double[3](prox_dot_d(ap, ap), prox_dot_d(bp, bp), prox_dot_d(cp, cp));
  if (prox_far_corners_d(s[0], s[1], s[2])) {
    path = PROX_CP_NEAREST;
    return r;
  }
  precise double m = s[0] + s[1];
  m += s[2];
  double d3 = prox_dot_d(ab, bp);
  double d4 = prox_dot_d(ac, bp);
  if (d3 >= 0.0LF && d4 <= d3) {  // vertex region b
    r.point = b;
    r.bary.y = 1.0LF;
    r.feature = PROX_FEATURE_V1;
    r.sq_distance = prox_sq_distance_d(p, b);
    return r;
  }
  // An edge region whose product's sign is in doubt takes the face path
  // (C++'s region_product_unsure): unsure skips the remaining regions.
  bool unsure = false;
  precise double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0LF && d1 >= 0.0LF && d3 <= 0.0LF) {  // edge region ab
    unsure = prox_region_unsure_d(vc, prox_dot_d(ab, ab), prox_dot_d(ac, ac), s[0], s[1]);
    if (!unsure) {
      precise double t = d1 / (d1 - d3);
      r = prox_on_edge_d(p, a, b, c, 0, 1, t);
      if (prox_far_answer_d(r.sq_distance, m, p)) path = PROX_CP_FAR;
      return r;
    }
  }
  if (!unsure) {
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
      unsure = prox_region_unsure_d(vb, prox_dot_d(ab, ab), prox_dot_d(ac, ac), s[0], s[2]);
      if (!unsure) {
        precise double t = d2 / (d2 - d6);
        r = prox_on_edge_d(p, a, b, c, 0, 2, t);
        if (prox_far_answer_d(r.sq_distance, m, p)) path = PROX_CP_FAR;
        return r;
      }
    }
    if (!unsure) {
      precise double va = d3 * d6 - d5 * d4;
      precise double d43 = d4 - d3;
      precise double d56 = d5 - d6;
      if (va <= 0.0LF && d43 >= 0.0LF && d56 >= 0.0LF) {  // edge region bc
        unsure = prox_region_unsure_d(va, prox_dot_d(ab, ab), prox_dot_d(ac, ac), s[1], s[2]);
        if (!unsure) {
          precise double t = d43 / (d43 + d56);
          r = prox_on_edge_d(p, a, b, c, 1, 2, t);
          if (prox_far_answer_d(r.sq_distance, m, p)) path = PROX_CP_FAR;
          return r;
        }
      }
    }
  }
  bool inside;
  r = prox_face_d(p, a, b, c, false, inside);
  path = inside ? PROX_CP_FACE : PROX_CP_FACE_EDGES;
  return r;
}

/// The C++ double kernel (closest_point_triangle<double>) on finite inputs
/// whose edges are within [2^-200, 2^200], up to its far re-solve: the region
/// pass, then its rare paths in C++'s order. PROX_CP_NEAREST is C++'s
/// closest_point_from_nearest: the corners ordered by their distance to p
/// (nearest first, o[k] the caller's index of the k-th), the face answer when
/// p's projection is strictly inside, else the nearest edge, each edge
/// parametrized from its nearer end; the face's far check measured from the
/// nearest corner of the answer's feature. far: the answer needs
/// prox_far_solve_d(p, q0, q1, q2) (r is then the ordinary path's); then
/// prox_map_back_d maps features and weights back (near).
ProxTriangleResultD prox_paths_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c, out bool far,
                                 out bool near, out int o[3], out dvec3 q0, out dvec3 q1,
                                 out dvec3 q2) {
  uint path;
  double s[3];
  ProxTriangleResultD r = prox_regions_d(p, a, b, c, path, s);
  o = int[3](0, 1, 2);
  q0 = a, q1 = b, q2 = c;
  near = path == PROX_CP_NEAREST;
  far = path == PROX_CP_FAR;
  if (path == PROX_CP_DONE || far) return r;
  if (near) {
    int t;
    if (s[o[1]] < s[o[0]]) { t = o[0]; o[0] = o[1]; o[1] = t; }
    if (s[o[2]] < s[o[1]]) { t = o[1]; o[1] = o[2]; o[2] = t; }
    if (s[o[1]] < s[o[0]]) { t = o[0]; o[0] = o[1]; o[1] = t; }
    q0 = prox_corner_d(a, b, c, o[0]);
    q1 = prox_corner_d(a, b, c, o[1]);
    q2 = prox_corner_d(a, b, c, o[2]);
    precise dvec3 e1 = q1 - q0;
    precise dvec3 e2 = q2 - q0;
    dvec3 n = prox_cross_d(e1, e2);
    if (prox_dot_d(n, n) == 0.0LF) {
      path = PROX_CP_EDGES;
    } else {
      bool inside;
      r = prox_face_d(p, q0, q1, q2, true, inside);
      path = inside ? PROX_CP_FACE : PROX_CP_FACE_EDGES;
    }
  }
  if (path == PROX_CP_EDGES || path == PROX_CP_FACE_EDGES)
    r = prox_closest_on_edges_d(p, q0, q1, q2, near);
  if (path == PROX_CP_FACE || path == PROX_CP_FACE_EDGES) {
    // The plane offset, measured from a (the nearest corner of the feature on
    // the nearest-corner path, whose corner answers are not checked).
    precise dvec3 u1 = q1 - q0;
    precise dvec3 u2 = q2 - q0;
    precise double m = s[0] + s[1];
    m += s[2];
    if (near) m = r.feature == PROX_FEATURE_E12 ? s[o[1]] : s[o[0]];
    if (!(near && prox_is_vertex_feature(r.feature)) &&
        prox_far_face_answer_d(m, u1, u2, r.sq_distance, prox_dot_d(p, p)))
      far = true;
  }
  return r;
}

/// The nearest-corner path's features and weights, from the order o back to
/// the caller's corners.
ProxTriangleResultD prox_map_back_d(ProxTriangleResultD r, int o[3]) {
  uint f = r.feature;
  if (f <= PROX_FEATURE_V2) r.feature = uint(o[f]);
  else if (f == PROX_FEATURE_E01) r.feature = prox_edge_feature(o[0], o[1]);
  else if (f == PROX_FEATURE_E12) r.feature = prox_edge_feature(o[1], o[2]);
  else if (f == PROX_FEATURE_E20) r.feature = prox_edge_feature(o[2], o[0]);
  dvec3 bary;
  for (int k = 0; k < 3; ++k) bary[o[k]] = r.bary[k];
  r.bary = bary;
  return r;
}

/// The C++ double kernel (closest_point_triangle<double>) on finite inputs
/// whose edges are within [2^-200, 2^200]: prox_paths_d, the far re-solve
/// when it asks for it, the features and weights mapped back.
ProxTriangleResultD prox_closest_point_triangle_d(dvec3 p, dvec3 a, dvec3 b, dvec3 c) {
  bool far, near;
  int o[3];
  dvec3 q0, q1, q2;
  ProxTriangleResultD r = prox_paths_d(p, a, b, c, far, near, o, q0, q1, q2);
  if (far) r = prox_far_solve_d(p, q0, q1, q2);
  if (near) r = prox_map_back_d(r, o);
  return r;
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

ProxTriangleResult prox_rounded(ProxTriangleResultD w) {
  return ProxTriangleResult(prox_to_float3(w.point), prox_to_float(w.sq_distance),
                            prox_to_float3(w.bary), w.feature);
}

/// C++'s detail::closest_point_rescaled for float: the double kernel, rounded.
ProxTriangleResult prox_closest_point_rescaled(vec3 p, vec3 a, vec3 b, vec3 c) {
  return prox_rounded(prox_closest_point_triangle_d(dvec3(p), dvec3(a), dvec3(b), dvec3(c)));
}

/// prox_closest_point_rescaled without the double kernel's far re-solve:
/// far set when it would take it (r is then not C++'s answer).
ProxTriangleResult prox_closest_point_rescaled_mesh(vec3 p, vec3 a, vec3 b, vec3 c, out bool far) {
  bool near;
  int o[3];
  dvec3 q0, q1, q2;
  ProxTriangleResultD w = prox_paths_d(dvec3(p), dvec3(a), dvec3(b), dvec3(c), far, near, o, q0,
                                       q1, q2);
  if (near) w = prox_map_back_d(w, o);
  return prox_rounded(w);
}

/// The region pass of C++'s closest_point_triangle<float> (finite inputs):
/// path PROX_CP_DONE (r is the answer), PROX_CP_DOUBLE (a triangle too small
/// or too large for float's squares, or a corner 2^16 times nearer to p than
/// another: C++'s closest_point_rescaled / closest_point_from_nearest<float>,
/// both the double kernel) or PROX_CP_FAR (an edge or face answer measured
/// from far corners: C++'s far_solve<float>).
ProxTriangleResult prox_regions(vec3 p, vec3 a, vec3 b, vec3 c, out uint path) {
  path = PROX_CP_DONE;
  ProxTriangleResult r;
  r.point = vec3(0.0);
  r.sq_distance = 0.0;
  r.bary = vec3(0.0);
  r.feature = PROX_FEATURE_FACE;
  precise vec3 ab = b - a;
  precise vec3 ac = c - a;
  vec3 n = prox_cross(ab, ac);
  float nn = prox_dot(n, n);
  if (!(nn >= PROX_NN_LO && nn <= PROX_NN_HI)) {
    precise dvec3 abd = dvec3(b) - dvec3(a);
    precise dvec3 acd = dvec3(c) - dvec3(a);
    dvec3 e = max(abs(abd), abs(acd));
    double m = max(e.x, max(e.y, e.z));
    if (m > 0.0LF && (m < PROX_RESCALE_BELOW || m > PROX_RESCALE_ABOVE)) {
      path = PROX_CP_DOUBLE;
      return r;
    }
  }
  precise vec3 ap = p - a;
  if (nn == 0.0) {
    if (prox_far_corners(prox_dot(ap, ap), prox_sq_distance(p, b), prox_sq_distance(p, c)))
      path = PROX_CP_DOUBLE;
    else
      r = prox_closest_on_edges(p, a, b, c);
    return r;
  }
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
  precise vec3 cp = p - c;
  float s0 = prox_dot(ap, ap), s1 = prox_dot(bp, bp), s2 = prox_dot(cp, cp);
  if (prox_far_corners(s0, s1, s2)) {
    path = PROX_CP_DOUBLE;
    return r;
  }
  precise float m = s0 + s1;
  m += s2;
  float d3 = prox_dot(ab, bp);
  float d4 = prox_dot(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) {  // vertex region b
    r.point = b;
    r.bary.y = 1.0;
    r.feature = PROX_FEATURE_V1;
    r.sq_distance = prox_sq_distance(p, b);
    return r;
  }
  // An edge region whose product's sign is in doubt takes the face path
  // (C++'s region_product_unsure): unsure skips the remaining regions.
  bool unsure = false;
  precise float vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {  // edge region ab
    unsure = prox_region_unsure(vc, prox_dot(ab, ab), prox_dot(ac, ac), s0, s1);
    if (!unsure) {
      precise float den = d1 - d3;
      r = prox_on_edge(p, a, b, c, 0, 1, prox_div(d1, den));
      if (prox_far_answer(r.sq_distance, m, p)) path = PROX_CP_FAR;
      return r;
    }
  }
  if (!unsure) {
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
      unsure = prox_region_unsure(vb, prox_dot(ab, ab), prox_dot(ac, ac), s0, s2);
      if (!unsure) {
        precise float den = d2 - d6;
        r = prox_on_edge(p, a, b, c, 0, 2, prox_div(d2, den));
        if (prox_far_answer(r.sq_distance, m, p)) path = PROX_CP_FAR;
        return r;
      }
    }
    if (!unsure) {
      precise float va = d3 * d6 - d5 * d4;
      precise float d43 = d4 - d3;
      precise float d56 = d5 - d6;
      if (va <= 0.0 && d43 >= 0.0 && d56 >= 0.0) {  // edge region bc
        unsure = prox_region_unsure(va, prox_dot(ab, ab), prox_dot(ac, ac), s1, s2);
        if (!unsure) {
          precise float den = d43 + d56;
          r = prox_on_edge(p, a, b, c, 1, 2, prox_div(d43, den));
          if (prox_far_answer(r.sq_distance, m, p)) path = PROX_CP_FAR;
          return r;
        }
      }
    }
  }
  r = prox_face_or_edges(p, a, b, c);
  // The plane offset, measured from a along n (known to eps over the sine at
  // a), checked in double as C++ does (its WideScalar<float>).
  if (prox_far_face_answer_d(double(m), dvec3(ab), dvec3(ac), double(r.sq_distance),
                             double(prox_dot(p, p))))
    path = PROX_CP_FAR;
  return r;
}

/// The mesh traversal's kernel (bvh_closest_point.glsl): prox_closest_point_triangle
/// without the far-corner re-solves (prox_far_solve, and prox_far_solve_d in
/// the double kernel of huge, tiny and nearest-corner triangles). far is set
/// when the triangle needs one (C++'s far_solve<float> or far_solve<double>):
/// r is then the ordinary path's answer, off by up to ~ eps times the
/// corners' distance, not C++'s, and the traversal gives the query up
/// (PROX_STATUS_FAR_SOLVE; prox::gpu answers it on the CPU). Otherwise r is
/// prox_closest_point_triangle's answer, bit for bit (every other path is
/// here). Why not re-solve here: with prox_far_solve in any loop of the
/// traversal shader, lavapipe
/// 22.3.6 (LLVM 15) returned a farther triangle than the nearest for a few of
/// 1,500 points around the bunny in one batch (each point alone, and each
/// triangle alone, was right; bunny has no far-corner triangle), i.e. its code
/// changes other invocations' results; not understood (docs/gpu.md).
ProxTriangleResult prox_closest_point_triangle_mesh(vec3 p, vec3 a, vec3 b, vec3 c, out bool far) {
  far = false;
  if (!prox_finite3(p) || !prox_finite3(a) || !prox_finite3(b) || !prox_finite3(c))
    return prox_triangle_miss();
  uint path;
  ProxTriangleResult r = prox_regions(p, a, b, c, path);
  if (path == PROX_CP_DOUBLE) return prox_closest_point_rescaled_mesh(p, a, b, c, far);
  far = path == PROX_CP_FAR;
  return r;
}

/// Closest point on the solid triangle (a, b, c) to p.
ProxTriangleResult prox_closest_point_triangle(vec3 p, vec3 a, vec3 b, vec3 c) {
  if (!prox_finite3(p) || !prox_finite3(a) || !prox_finite3(b) || !prox_finite3(c))
    return prox_triangle_miss();
  uint path;
  ProxTriangleResult r = prox_regions(p, a, b, c, path);
  if (path == PROX_CP_DOUBLE) return prox_closest_point_rescaled(p, a, b, c);
  if (path == PROX_CP_FAR) return prox_far_solve(p, a, b, c);
  return r;
}
#endif
