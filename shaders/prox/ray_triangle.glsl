// prox/ray_triangle.glsl — ray against a triangle: Möller–Trumbore (seed 002)
// and the watertight test of Woop, Benthin and Wald (JCGT 2013).
//
// The GLSL twins of prox::ray_triangle_moller_trumbore and
// prox::ray_triangle_watertight (prox/primitives/ray_triangle.hpp), operation
// for operation. Both return ProxRayTriangleHit: hit, t (ray parameter, units
// of the caller's direction, never normalised), u, v (weights of b and c),
// front_face (dot(direction, (b-a)x(c-a)) < 0). A hit needs t in [t_min, t_max].
// Möller–Trumbore: no determinant epsilon; a parallel ray (det == 0) misses;
// culling PROX_CULL_NONE / _BACK_FACES / _FRONT_FACES; edges, direction or
// origin offset outside C++'s float range (2^+-32): the test in double, as C++.
// Watertight: edge functions in the ray's sheared frame; one within its
// rounding error of 0 is recomputed exactly (expansions in double, C++'s
// detail::exact_edge), so every edge's sign is the exact one for the ray's
// shear, as in C++ since issue 9: a shared edge or vertex is hit by at least
// one of the triangles that share it. Degenerate triangles are never hit; non-finite
// input or a zero direction: a miss. As in C++ since issue 9: the test runs on
// the normalized ray (direction scaled by a power of two), a triangle whose
// det or t numerator leaves float's comfortable range is redone in double, and
// a hit whose t is not a finite float is no hit; a hit whose sheared t
// cancelled (corners far from the origin compared with the plane's distance
// along the ray) or may be moved by the edge functions' rounding (C++'s
// detail::t_unreliable: far slivers) gets its t from exact expansions (C++'s
// far_corner_t).
#ifndef PROX_RAY_TRIANGLE_GLSL
#define PROX_RAY_TRIANGLE_GLSL
#include "common.glsl"
#include "expansion.glsl"

struct ProxRayTriangleHit {
  bool hit;
  float t;          // ray parameter (+inf on a miss)
  float u;          // weight of b
  float v;          // weight of c
  bool front_face;  // dot(direction, (b-a)x(c-a)) < 0
};

const uint PROX_CULL_NONE = 0u;
const uint PROX_CULL_BACK_FACES = 1u;   // only front faces are hit
const uint PROX_CULL_FRONT_FACES = 2u;  // only back faces are hit

ProxRayTriangleHit prox_ray_miss() { return ProxRayTriangleHit(false, prox_inf(), 0.0, 0.0, false); }

bool prox_ray_inputs_finite(vec3 o, vec3 d, float t_min, float t_max, vec3 a, vec3 b, vec3 c) {
  return prox_finite3(o) && prox_finite3(d) && prox_finite3(a) && prox_finite3(b) &&
         prox_finite3(c) && !prox_isnan(t_min) && !prox_isnan(t_max);
}

float prox_max_abs3(vec3 v) { return max(abs(v.x), max(abs(v.y), abs(v.z))); }

/// C++'s detail::moller_trumbore_rescaled for float: the test in double on the
/// offsets from a (every float input is in double's range), rounded; a t that
/// is not a finite float is no hit.
ProxRayTriangleHit prox_moller_trumbore_in_double(vec3 origin, vec3 direction, float t_min,
                                                  float t_max, vec3 a, vec3 b, vec3 c,
                                                  uint cull) {
  ProxRayTriangleHit r = prox_ray_miss();
  dvec3 d = dvec3(direction);
  precise dvec3 e1 = dvec3(b) - dvec3(a);
  precise dvec3 e2 = dvec3(c) - dvec3(a);
  precise dvec3 tv = dvec3(origin) - dvec3(a);
  dvec3 pv = prox_cross_d(d, e2);
  double det = prox_dot_d(e1, pv);
  if (det == 0.0LF) return r;
  bool front = det > 0.0LF;
  if ((cull == PROX_CULL_BACK_FACES && !front) || (cull == PROX_CULL_FRONT_FACES && front))
    return r;
  if (!front) {
    tv = -tv;
    det = -det;
  }
  double u = prox_dot_d(tv, pv);
  if (u < 0.0LF || u > det) return r;
  dvec3 qv = prox_cross_d(tv, e1);
  double v = prox_dot_d(d, qv);
  precise double uv = u + v;
  if (v < 0.0LF || uv > det) return r;
  double t = prox_dot_d(e2, qv);
  precise double lo = double(t_min) * det;
  precise double hi = double(t_max) * det;
  if (t < lo || t > hi) return r;
  precise double tq = t / det;
  precise double uq = u / det;
  precise double vq = v / det;
  float tt = prox_to_float(tq);
  if (!prox_finite(tt)) return r;
  return ProxRayTriangleHit(true, tt, prox_to_float(uq), prox_to_float(vq), front);
}

ProxRayTriangleHit prox_ray_triangle_moller_trumbore(vec3 origin, vec3 direction, float t_min,
                                                     float t_max, vec3 a, vec3 b, vec3 c,
                                                     uint cull) {
  ProxRayTriangleHit r = prox_ray_miss();
  if (!prox_ray_inputs_finite(origin, direction, t_min, t_max, a, b, c)) return r;
  precise vec3 e1 = b - a;
  precise vec3 e2 = c - a;
  precise vec3 tv = origin - a;
  // C++'s range test: edges and direction in [2^-32, 2^32], the origin's
  // offset below 2^32; elsewhere the test in double.
  const float hi_r = 4294967296.0;          // 2^32
  const float lo_r = 1.0 / 4294967296.0;    // 2^-32
  float me = max(prox_max_abs3(e1), prox_max_abs3(e2));
  float md = prox_max_abs3(direction);
  if (!(me >= lo_r && me <= hi_r && md >= lo_r && md <= hi_r && prox_max_abs3(tv) <= hi_r))
    return prox_moller_trumbore_in_double(origin, direction, t_min, t_max, a, b, c, cull);
  vec3 pv = prox_cross(direction, e2);
  float det = prox_dot(e1, pv);
  if (det == 0.0) return r;
  bool front = det > 0.0;
  if ((cull == PROX_CULL_BACK_FACES && !front) || (cull == PROX_CULL_FRONT_FACES && front))
    return r;
  if (!front) {
    tv = -tv;
    det = -det;
  }
  float u = prox_dot(tv, pv);
  if (u < 0.0 || u > det) return r;
  vec3 qv = prox_cross(tv, e1);
  float v = prox_dot(direction, qv);
  precise float uv = u + v;
  if (v < 0.0 || uv > det) return r;
  float t = prox_dot(e2, qv);
  precise float lo = t_min * det;
  precise float hi = t_max * det;
  if (t < lo || t > hi) return r;
  return ProxRayTriangleHit(true, prox_div(t, det), prox_div(u, det), prox_div(v, det), front);
}

/// Per-ray data of the watertight test (reuse it across triangles), on the
/// normalized ray of C++'s prox::NormalizedRay: the direction scaled by 2^-t_exp
/// so that its largest |component| is in [0.5, 1), t_min / t_max scaled to
/// match (t' = t 2^t_exp; t_max first clipped to float's largest). Every
/// operation on it is the caller's scaled exactly, so the bits of a hit do not
/// change, but a direction of 1e-30 or 1e30 no longer overflows 1/d_z or the
/// box tests (issue 9). Hits report t in the caller's units.
struct ProxWatertightRay {
  int kx, ky, kz;  // kz: the direction's dominant axis
  float sx, sy, sz;
  vec3 origin;
  vec3 direction;  // normalized
  float t_min, t_max;  // normalized
  int t_exp;       // t = t' 2^-t_exp
};

/// frexp's exponent of a positive finite float, from its bits (subnormals too).
int prox_frexp_exp(uint bits) {
  uint e = bits >> 23;
  return e != 0u ? int(e) - 126 : findMSB(bits) - 148;
}

ProxWatertightRay prox_watertight_ray(vec3 origin, vec3 direction, float t_min, float t_max) {
  ProxWatertightRay w;
  w.origin = origin;
  w.direction = direction;
  w.t_min = t_min;
  w.t_max = t_max;
  w.t_exp = 0;
  // prox::NormalizedRay: m = max |d_k| compared on the bits (exact for
  // subnormals on any device); zero or non-finite directions stay as given.
  uvec3 mag = floatBitsToUint(direction) & 0x7fffffffu;
  uint m = max(mag.x, max(mag.y, mag.z));
  if (m != 0u && m < 0x7f800000u) {
    w.t_exp = prox_frexp_exp(m);
    if (w.t_exp == 0) {
      if (w.t_max > PROX_FLT_MAX) w.t_max = PROX_FLT_MAX;
    } else {
      for (int k = 0; k < 3; ++k) w.direction[k] = prox_times_pow2(direction[k], -w.t_exp);
      w.t_min = prox_times_pow2(t_min, w.t_exp);
      w.t_max = prox_times_pow2(min(t_max, PROX_FLT_MAX), w.t_exp);
    }
  }
  vec3 d = w.direction;
  w.kz = 0;
  float best = abs(d.x);
  for (int k = 1; k < 3; ++k) {
    float a = abs(d[k]);
    if (a > best) {
      best = a;
      w.kz = k;
    }
  }
  w.kx = w.kz == 2 ? 0 : w.kz + 1;
  w.ky = w.kx == 2 ? 0 : w.kx + 1;
  if (d[w.kz] < 0.0) {  // keep the winding, so front_face
    int tmp = w.kx;
    w.kx = w.ky;
    w.ky = tmp;
  }
  w.sz = prox_div(1.0, d[w.kz]);
  precise float sx = d[w.kx] * w.sz;
  precise float sy = d[w.ky] * w.sz;
  w.sx = sx;
  w.sy = sy;
  return w;
}

/// A t on the normalized ray in the caller's units (WatertightRay::caller_t), and back.
float prox_caller_t(ProxWatertightRay w, float t) {
  return w.t_exp == 0 ? t : prox_times_pow2(t, -w.t_exp);
}
float prox_scaled_t(ProxWatertightRay w, float t) {
  return w.t_exp == 0 ? t : prox_times_pow2(t, w.t_exp);
}

/// -0 as +0 (C++'s `+ T(0)`), on the bits: a compiler that does not preserve
/// signed zeros may drop x + 0.0.
float prox_plus_zero(float x) { return floatBitsToUint(x) == 0x80000000u ? 0.0 : x; }

// ---- The exact paths (float): C++'s detail::exact_edge_scaled, exact_edge and
// far_corner_t, exact expansions in double (expansion.glsl, the twin of
// prox/primitives/expansion.hpp), and the edge functions' error bounds.

/// C++'s detail::FarCorners<float>::ratio: the sheared t counts as cancelled
/// when |tn| < ratio (|U az| + |V bz| + |W cz|).
const float PROX_FAR_RATIO = 1.0 / 1024.0;  // 2^-10

float prox_flt_min() { return uintBitsToFloat(0x00800000u); }  // 2^-126

/// C++'s detail::edge_error_bound<float>: one bound on the rounding error of a
/// sheared triangle's three edge functions, from the largest |sheared
/// coordinate| S and the largest |corner - origin| along kz, Z (constants
/// EdgeBound<float>: 8.2f 2^-23 and 5.2f 2^-46, from their bits).
float prox_edge_error_bound(float S, float Z) {
  precise float N = S + (Z + Z);
  precise float e = (uintBitsToFloat(0x35833333u) * S + uintBitsToFloat(0x29a66666u) * N) * N +
                    prox_flt_min();
  return e;
}

/// C++'s detail::edge_error_bound_tight<float> for edge p -> q (constants
/// 1.51f 2^-23, 1.01f 2^-23, 2.5 2^-46, from their bits).
float prox_edge_error_bound_tight(float xq, float yq, float xp, float yp, float mxq, float myq,
                                  float mxp, float myp) {
  precise float cr = mxq * abs(yp) + abs(xq) * myp + myq * abs(xp) + abs(yq) * mxp;
  precise float pxy = xq * yp;
  precise float pyx = yq * xp;
  precise float prod = abs(pxy) + abs(pyx);
  precise float second = mxq * myp + myq * mxp;
  precise float e = uintBitsToFloat(0x344147aeu) * cr + uintBitsToFloat(0x340147aeu) * prod +
                    uintBitsToFloat(0x29200000u) * second + prox_flt_min();
  return e;
}

/// The rows of C++'s detail::exact_edge_scaled for float, edge k (0: b -> c,
/// 1: c -> a, 2: a -> b): the edge function of p -> q in the ray's sheared
/// frame is -det[d'; P; Q] 2^e, d' = (sx, sy, 1) on (kx, ky, kz), P = p - o and
/// Q = q - o exact (Two-Sum) after the scaling by 2^-j that brings the largest
/// |coordinate| into [0.5, 1). Returns e = 2 j.
int prox_exact_edge_rows(ProxWatertightRay w, int k, vec3 a, vec3 b, vec3 c, out double r[18]) {
  vec3 p = k == 0 ? b : (k == 1 ? c : a);
  vec3 q = k == 0 ? c : (k == 1 ? a : b);
  double big = 0.0LF;
  for (int i = 0; i < 3; ++i) {
    big = max(big, abs(double(p[i])));
    big = max(big, abs(double(q[i])));
    big = max(big, abs(double(w.origin[i])));
  }
  // frexp (0 for 0): big = m 2^j, m in [0.5, 1).
  int j = big == 0.0LF ? 0 : int((unpackDouble2x32(big).y >> 20) & 0x7ffu) - 1022;
  double f = prox_pow2_d(-j);
  int axis[3] = int[3](w.kx, w.ky, w.kz);
  double dn[3] = double[3](double(w.sx), double(w.sy), 1.0LF);
  for (int i = 0; i < 3; ++i) {
    int ax = axis[i];
    precise double o = double(w.origin[ax]) * f;
    precise double pk = double(p[ax]) * f;
    precise double qk = double(q[ax]) * f;
    r[i * 2 + 1] = dn[i];
    r[i * 2] = 0.0LF;
    double hi, lo;
    prox_xp_two_sum(pk, -o, hi, lo); r[(3 + i) * 2 + 1] = hi; r[(3 + i) * 2] = lo;
    prox_xp_two_sum(qk, -o, hi, lo); r[(6 + i) * 2 + 1] = hi; r[(6 + i) * 2] = lo;
  }
  return 2 * j;
}

/// The rows of C++'s detail::far_corner_t for float: m 0, the numerator
/// det[a - o, b - o, c - o], m 1, the denominator det[b - a, c - a, d] (o, d:
/// the normalized ray), both scaled by 2^-j as in C++; t = num / den 2^j.
/// Returns j.
int prox_far_corner_rows(ProxWatertightRay w, vec3 a, vec3 b, vec3 c, int m, out double r[18]) {
  double big = 0.0LF;
  for (int i = 0; i < 3; ++i) {
    big = max(big, abs(double(a[i])));
    big = max(big, abs(double(b[i])));
    big = max(big, abs(double(c[i])));
    big = max(big, abs(double(w.origin[i])));
  }
  // frexp: big = m 2^j, m in [0.5, 1) (big is a normal double: float input).
  int j = int((unpackDouble2x32(big).y >> 20) & 0x7ffu) - 1022;
  double f = prox_pow2_d(-j);
  for (int i = 0; i < 3; ++i) {
    precise double o = double(w.origin[i]) * f;
    precise double x0 = double(a[i]) * f;
    precise double x1 = double(b[i]) * f;
    precise double x2 = double(c[i]) * f;
    double hi, lo;
    if (m == 0) {
      prox_xp_two_sum(x0, -o, hi, lo); r[i * 2 + 1] = hi; r[i * 2] = lo;
      prox_xp_two_sum(x1, -o, hi, lo); r[(3 + i) * 2 + 1] = hi; r[(3 + i) * 2] = lo;
      prox_xp_two_sum(x2, -o, hi, lo); r[(6 + i) * 2 + 1] = hi; r[(6 + i) * 2] = lo;
    } else {
      prox_xp_two_sum(x1, -x0, hi, lo); r[i * 2 + 1] = hi; r[i * 2] = lo;
      prox_xp_two_sum(x2, -x0, hi, lo); r[(3 + i) * 2 + 1] = hi; r[(3 + i) * 2] = lo;
      r[(6 + i) * 2 + 1] = double(w.direction[i]);
      r[(6 + i) * 2] = 0.0LF;
    }
  }
  return j;
}

/// C++'s detail::exact_edge for float: m 2^e rounded to float, a nonzero value
/// below 2^-126 as +-2^-126 (so a device that flushes subnormals reads the same sign).
float prox_exact_edge_float(double m, int e) {
  precise double x = m * prox_pow2_d(e);
  float r = prox_to_float(x);
  if (abs(r) < prox_flt_min() && m != 0.0LF) r = m > 0.0LF ? prox_flt_min() : -prox_flt_min();
  return r;
}

/// C++'s detail::ShearedTriangle<float>: the corners relative to the ray's
/// origin, their sheared x and y, the three edge functions (those within their
/// rounding error of 0 recomputed exactly), which of them are exact (bits 0, 1,
/// 2: U, V, W) with their exact m 2^e (em, ee: sheared_hit_rescaled reuses them
/// where C++ recomputes the same bits), and err (edge_error_bound).
struct ProxShearedTriangle {
  vec3 A, B, C;
  float ax, ay, bx, by, cx, cy;
  float U, V, W;
  uint exact;
  float err;
  dvec3 em;
  ivec3 ee;
};

/// C++'s detail::shear_triangle for float, up to the exact recomputation:
/// the rounded edge functions, err, and in `exact` the edges (bits 0, 1, 2:
/// U, V, W) within their rounding error of 0, which the caller recomputes
/// exactly (prox_shear_set_exact) from its one prox_xp_det3 call site.
ProxShearedTriangle prox_shear_triangle_rounded(ProxWatertightRay w, vec3 a, vec3 b, vec3 c) {
  precise vec3 A = a - w.origin;
  precise vec3 B = b - w.origin;
  precise vec3 C = c - w.origin;
  precise float pxa = w.sx * A[w.kz], pya = w.sy * A[w.kz];
  precise float pxb = w.sx * B[w.kz], pyb = w.sy * B[w.kz];
  precise float pxc = w.sx * C[w.kz], pyc = w.sy * C[w.kz];
  precise float ax = A[w.kx] - pxa;
  precise float ay = A[w.ky] - pya;
  precise float bx = B[w.kx] - pxb;
  precise float by = B[w.ky] - pyb;
  precise float cx = C[w.kx] - pxc;
  precise float cy = C[w.ky] - pyc;
  precise float U = cx * by - cy * bx;
  precise float V = ax * cy - ay * cx;
  precise float W = bx * ay - by * ax;
  float S = max(max(max(abs(ax), abs(ay)), max(abs(bx), abs(by))), max(abs(cx), abs(cy)));
  float Z = max(max(abs(A[w.kz]), abs(B[w.kz])), abs(C[w.kz]));
  float err = prox_edge_error_bound(S, Z);
  uint exact = 0u;
  if (!(abs(U) > err && abs(V) > err && abs(W) > err)) {
    precise float mxa = abs(A[w.kx]) + abs(pxa), mya = abs(A[w.ky]) + abs(pya);
    precise float mxb = abs(B[w.kx]) + abs(pxb), myb = abs(B[w.ky]) + abs(pyb);
    precise float mxc = abs(C[w.kx]) + abs(pxc), myc = abs(C[w.ky]) + abs(pyc);
    // U: edge b -> c; V: c -> a; W: a -> b.
    if (!(abs(U) > prox_edge_error_bound_tight(cx, cy, bx, by, mxc, myc, mxb, myb))) exact |= 1u;
    if (!(abs(V) > prox_edge_error_bound_tight(ax, ay, cx, cy, mxa, mya, mxc, myc))) exact |= 2u;
    if (!(abs(W) > prox_edge_error_bound_tight(bx, by, ax, ay, mxb, myb, mxa, mya))) exact |= 4u;
  }
  return ProxShearedTriangle(A, B, C, ax, ay, bx, by, cx, cy, U, V, W, exact, err, dvec3(0.0LF),
                             ivec3(0));
}

/// Edge k's exact value m 2^e into s (C++'s exact_edge: U, V or W rounded to float).
void prox_shear_set_exact(inout ProxShearedTriangle s, int k, double m, int e) {
  s.em[k] = m;
  s.ee[k] = e;
  float v = prox_exact_edge_float(m, e);
  if (k == 0) s.U = v;
  else if (k == 1) s.V = v;
  else s.W = v;
}

/// 2^-12: C++'s t_unreliable tau for float (4 u / ratio = 2 2^-23 / 2^-10).
const float PROX_T_TAU = 1.0 / 4096.0;

/// C++'s detail::sheared_hit_rescaled for float: a triangle whose det (~ size^2)
/// or t numerator (~ size^3) left [2^-80, 2^100], recomputed in double from the
/// float sheared coordinates (their products are exact there; the exact edges
/// from their exact values). A t that is not a finite float is no hit. far:
/// t_unreliable (cancelled, or moved by the edge functions' rounding), t to
/// come from far_corner_t's expansions (the caller).
ProxRayTriangleHit prox_sheared_hit_rescaled(ProxWatertightRay w, ProxShearedTriangle s,
                                             out bool far) {
  far = false;
  ProxRayTriangleHit r = prox_ray_miss();
  double v0 = double(s.ax), v1 = double(s.ay), v2 = double(s.bx), v3 = double(s.by),
         v4 = double(s.cx), v5 = double(s.cy);
  precise double v6 = double(w.sz) * double(s.A[w.kz]);
  precise double v7 = double(w.sz) * double(s.B[w.kz]);
  precise double v8 = double(w.sz) * double(s.C[w.kz]);
  precise double U = v4 * v3 - v5 * v2;
  precise double V = v0 * v5 - v1 * v4;
  precise double Wt = v2 * v1 - v3 * v0;
  if ((s.exact & 1u) != 0u) U = s.em[0] * prox_pow2_d(s.ee[0]);
  if ((s.exact & 2u) != 0u) V = s.em[1] * prox_pow2_d(s.ee[1]);
  if ((s.exact & 4u) != 0u) Wt = s.em[2] * prox_pow2_d(s.ee[2]);
  if ((U < 0.0LF || V < 0.0LF || Wt < 0.0LF) && (U > 0.0LF || V > 0.0LF || Wt > 0.0LF)) return r;
  precise double det = U + V + Wt;
  if (det == 0.0LF) return r;
  precise double tn = U * v6 + V * v7 + Wt * v8;
  precise double t = tn / det;
  float tt = prox_to_float(t);
  precise double cancel = abs(U * v6) + abs(V * v7) + abs(Wt * v8);
  precise double u = V / det;
  precise double v = Wt / det;
  ProxRayTriangleHit h = ProxRayTriangleHit(true, tt, prox_plus_zero(prox_to_float(u)),
                                            prox_plus_zero(prox_to_float(v)), det > 0.0LF);
  if (abs(tn) < double(PROX_FAR_RATIO) * cancel) {  // t from far_corner_t's expansions (the caller)
    far = true;
    return h;
  }
  // C++'s edge_error_bound_all<float, double>(S, Z): 2^-23 (6.12 N S + 2.05 S^2)
  // + 5.1 2^-46 N^2 + 2^-126 (6.12, 2.05, 5.1 from their bits).
  double S = max(max(max(abs(v0), abs(v1)), max(abs(v2), abs(v3))), max(abs(v4), abs(v5)));
  double Z = max(abs(v6), max(abs(v7), abs(v8)));
  double e23 = prox_pow2_d(-23);
  precise double N = S + 2.0LF * Z;
  precise double eb = e23 * (packDouble2x32(uvec2(0x47ae147bu, 0x40187ae1u)) * N * S +
                             packDouble2x32(uvec2(0x66666666u, 0x40006666u)) * S * S) +
                      packDouble2x32(uvec2(0x66666666u, 0x40146666u)) * e23 * e23 * (N * N) +
                      PROX_FLT_MIN_D;
  precise double e6 = 6.0LF * eb;
  precise double spread = abs(v6 - t) + abs(v7 - t) + abs(v8 - t);
  precise double lhs = 2.0LF * eb * spread;
  precise double rhs = double(PROX_T_TAU) * abs(tn);
  if (!(e6 <= abs(det)) || !(lhs <= rhs)) {
    far = true;
    return h;
  }
  if (!prox_finite(tt) || !(tt >= w.t_min && tt <= w.t_max)) return r;
  h.t = prox_caller_t(w, tt);
  if (!prox_finite(h.t)) return r;
  return h;
}

// det and the t numerator the float test answers itself (C++ sheared_hit).
const float PROX_DET_LO = 1.0 / 1208925819614629174706176.0;  // 2^-80
const float PROX_DET_HI = 1267650600228229401496703205376.0;  // 2^100

/// C++'s detail::sheared_hit for float on a sheared triangle with its exact
/// edges in place: the hit (or miss), or far (t_unreliable: h has the edge
/// decision, u, v and side; the caller computes t from the exact coordinates).
ProxRayTriangleHit prox_sheared_decide(ProxWatertightRay w, ProxShearedTriangle s, out bool far) {
  float U = s.U, V = s.V, W = s.W;
  vec3 A = s.A, B = s.B, C = s.C;
  ProxRayTriangleHit r = prox_ray_miss();
  if ((U < 0.0 || V < 0.0 || W < 0.0) && (U > 0.0 || V > 0.0 || W > 0.0)) return r;
  precise float det = U + V + W;
  precise float az = w.sz * A[w.kz];
  precise float bz = w.sz * B[w.kz];
  precise float cz = w.sz * C[w.kz];
  precise float tn = U * az + V * bz + W * cz;
  // The sheared t unreliable (C++'s t_unreliable, in both the float and the
  // rescaled test): h has the edge decision, u, v and side; the caller computes t.
  far = false;
  ProxRayTriangleHit h;
  if (!(abs(det) >= PROX_DET_LO && abs(det) <= PROX_DET_HI && abs(tn) <= PROX_DET_HI)) {
    h = prox_sheared_hit_rescaled(w, s, far);
    if (!far) return h;
  } else {
    if (det == 0.0) return r;
    precise float cancel = abs(U * az) + abs(V * bz) + abs(W * cz);
    precise float bound = PROX_FAR_RATIO * cancel;
    far = abs(tn) < bound;
    if (!far) {  // the edge functions' rounding (s.err) may move t
      precise float e6 = 6.0 * s.err;
      if (!(e6 <= abs(det))) {
        far = true;
      } else {
        float t = prox_div(tn, det);
        precise float spread = abs(az - t) + abs(bz - t) + abs(cz - t);
        precise float lhs = 2.0 * s.err * spread;
        precise float rhs = PROX_T_TAU * abs(tn);
        far = !(lhs <= rhs);
      }
    }
    h = ProxRayTriangleHit(true, 0.0, prox_plus_zero(prox_div(V, det)),
                           prox_plus_zero(prox_div(W, det)), det > 0.0);
  }
  if (far) return h;
  precise float lo = w.t_min * det;
  precise float hi = w.t_max * det;
  if (det > 0.0) {
    if (tn < lo || tn > hi) return r;
  } else {
    if (tn > lo || tn < hi) return r;
  }
  float u = prox_plus_zero(prox_div(V, det)), v = prox_plus_zero(prox_div(W, det));
  return ProxRayTriangleHit(true, prox_caller_t(w, prox_div(tn, det)), u, v, det > 0.0);
}

/// Watertight test with precomputed ray data (inputs assumed finite); s: the
/// sheared triangle with its exact edges (crossing.glsl reads its edge
/// functions). Every exact determinant of the test comes from the one
/// prox_xp_det3 call site below (a shader compiler inlines every call: one
/// copy of the expansion code): k = 0, 1, 2 the edges shear_triangle
/// recomputes exactly, then the decision, then k = 3, 4 far_corner_t's
/// numerator and denominator when t is unreliable. A t that is not finite (or
/// an infinite caller t) is no hit, as in C++.
ProxRayTriangleHit prox_ray_triangle_watertight_sheared(ProxWatertightRay w, vec3 a, vec3 b,
                                                        vec3 c, out ProxShearedTriangle s) {
  s = prox_shear_triangle_rounded(w, a, b, c);
  ProxRayTriangleHit h = prox_ray_miss();
  double num = 0.0LF;
  int jt = 0;
  for (int k = 0; k < 5; ++k) {
    if (k < 3 && (s.exact & (1u << uint(k))) == 0u) continue;
    if (k == 3) {
      bool far;
      h = prox_sheared_decide(w, s, far);
      if (!far) return h;
    }
    double r[18];
    int e = k < 3 ? prox_exact_edge_rows(w, k, a, b, c, r)
                  : prox_far_corner_rows(w, a, b, c, k - 3, r);
    double d = prox_xp_det3(r);
    if (k < 3) {
      prox_shear_set_exact(s, k, -d, e);
    } else if (k == 3) {
      num = d;
      jt = e;
    } else {
      precise double q = num / d;
      precise double tq = q * prox_pow2_d(jt);
      float t = prox_to_float(tq);
      if (!prox_finite(t) || !(t >= w.t_min && t <= w.t_max)) return prox_ray_miss();
      h.t = prox_caller_t(w, t);
      if (!prox_finite(h.t)) return prox_ray_miss();
      return h;
    }
  }
  return h;
}

/// Watertight test with precomputed ray data (inputs assumed finite).
ProxRayTriangleHit prox_ray_triangle_watertight_pre(ProxWatertightRay w, vec3 a, vec3 b, vec3 c) {
  ProxShearedTriangle s;
  return prox_ray_triangle_watertight_sheared(w, a, b, c, s);
}

/// Watertight ray/triangle test, both-sided.
ProxRayTriangleHit prox_ray_triangle_watertight(vec3 origin, vec3 direction, float t_min,
                                                float t_max, vec3 a, vec3 b, vec3 c) {
  if (!prox_ray_inputs_finite(origin, direction, t_min, t_max, a, b, c)) return prox_ray_miss();
  if (direction == vec3(0.0)) return prox_ray_miss();
  return prox_ray_triangle_watertight_pre(prox_watertight_ray(origin, direction, t_min, t_max),
                                          a, b, c);
}
#endif
