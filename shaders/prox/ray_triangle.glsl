// prox/ray_triangle.glsl — ray against a triangle: Möller–Trumbore (seed 002)
// and the watertight test of Woop, Benthin and Wald (JCGT 2013).
//
// The GLSL twins of prox::ray_triangle_moller_trumbore and
// prox::ray_triangle_watertight (prox/primitives/ray_triangle.hpp), operation
// for operation. Both return ProxRayTriangleHit: hit, t (ray parameter, units
// of the caller's direction, never normalised), u, v (weights of b and c),
// front_face (dot(direction, (b-a)x(c-a)) < 0). A hit needs t in [t_min, t_max].
// Möller–Trumbore: no determinant epsilon; a parallel ray (det == 0) misses;
// culling PROX_CULL_NONE / _BACK_FACES / _FRONT_FACES.
// Watertight: edge functions in the ray's sheared frame, exactly-zero ones
// recomputed in double: a shared edge or vertex is hit by at least one of the
// triangles that share it. Degenerate triangles are never hit; non-finite
// input or a zero direction: a miss. As in C++ since issue 9: the test runs on
// the normalized ray (direction scaled by a power of two), a triangle whose
// det or t numerator leaves float's comfortable range is redone in double, and
// a hit whose t is not a finite float is no hit; a hit whose sheared t
// cancelled (corners far from the origin compared with the plane's distance
// along the ray) gets its t from exact expansions (prox_far_corner_t).
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

ProxRayTriangleHit prox_ray_triangle_moller_trumbore(vec3 origin, vec3 direction, float t_min,
                                                     float t_max, vec3 a, vec3 b, vec3 c,
                                                     uint cull) {
  ProxRayTriangleHit r = prox_ray_miss();
  if (!prox_ray_inputs_finite(origin, direction, t_min, t_max, a, b, c)) return r;
  precise vec3 e1 = b - a;
  precise vec3 e2 = c - a;
  vec3 pv = prox_cross(direction, e2);
  float det = prox_dot(e1, pv);
  if (det == 0.0) return r;
  bool front = det > 0.0;
  if ((cull == PROX_CULL_BACK_FACES && !front) || (cull == PROX_CULL_FRONT_FACES && front))
    return r;
  precise vec3 tv = origin - a;
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

// ---- C++'s detail::far_corner_t (float): exact expansions in double
// (expansion.glsl, the twin of prox/primitives/expansion.hpp).

/// C++'s detail::FarCorners<float>::ratio: the sheared t counts as cancelled
/// when |tn| < ratio (|U az| + |V bz| + |W cz|).
const float PROX_FAR_RATIO = 1.0 / 1024.0;  // 2^-10

/// C++'s detail::far_corner_t for float: t on the normalized ray from the
/// exact coordinates, det[a - o, b - o, c - o] / det[b - a, c - a, d].
float prox_far_corner_t(ProxWatertightRay w, vec3 a, vec3 b, vec3 c) {
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
  double rn[18], rd[18];
  for (int i = 0; i < 3; ++i) {
    precise double o = double(w.origin[i]) * f;
    precise double x0 = double(a[i]) * f;
    precise double x1 = double(b[i]) * f;
    precise double x2 = double(c[i]) * f;
    double hi, lo;
    prox_xp_two_sum(x0, -o, hi, lo); rn[i * 2 + 1] = hi; rn[i * 2] = lo;
    prox_xp_two_sum(x1, -o, hi, lo); rn[(3 + i) * 2 + 1] = hi; rn[(3 + i) * 2] = lo;
    prox_xp_two_sum(x2, -o, hi, lo); rn[(6 + i) * 2 + 1] = hi; rn[(6 + i) * 2] = lo;
    prox_xp_two_sum(x1, -x0, hi, lo); rd[i * 2 + 1] = hi; rd[i * 2] = lo;
    prox_xp_two_sum(x2, -x0, hi, lo); rd[(3 + i) * 2 + 1] = hi; rd[(3 + i) * 2] = lo;
    rd[(6 + i) * 2 + 1] = double(w.direction[i]);
    rd[(6 + i) * 2] = 0.0LF;
  }
  // Both determinants from one call site (a shader compiler inlines every
  // call: one copy of the expansion code).
  double det[2];
  for (int m = 0; m < 2; ++m) {
    double r[18];
    for (int e = 0; e < 18; ++e) r[e] = m == 0 ? rn[e] : rd[e];
    det[m] = prox_xp_det3(r);
  }
  precise double q = det[0] / det[1];
  precise double t = q * prox_pow2_d(j);
  return prox_to_float(t);
}

/// C++'s detail::sheared_hit_rescaled for float: a triangle whose det (~ size^2)
/// or t numerator (~ size^3) left [2^-80, 2^100], recomputed in double from the
/// float sheared coordinates (their products are exact there). A t that is not
/// a finite float is no hit.
ProxRayTriangleHit prox_sheared_hit_rescaled(ProxWatertightRay w, float ax, float ay, float bx,
                                             float by, float cx, float cy, float Az, float Bz,
                                             float Cz, out bool far) {
  far = false;
  ProxRayTriangleHit r = prox_ray_miss();
  double v0 = double(ax), v1 = double(ay), v2 = double(bx), v3 = double(by), v4 = double(cx),
         v5 = double(cy);
  precise double v6 = double(w.sz) * double(Az);
  precise double v7 = double(w.sz) * double(Bz);
  precise double v8 = double(w.sz) * double(Cz);
  precise double U = v4 * v3 - v5 * v2;
  precise double V = v0 * v5 - v1 * v4;
  precise double Wt = v2 * v1 - v3 * v0;
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
  if (abs(tn) < double(PROX_FAR_RATIO) * cancel) {  // t from prox_far_corner_t (the caller)
    far = true;
    return h;
  }
  if (!prox_finite(tt) || !(tt >= w.t_min && tt <= w.t_max)) return r;
  h.t = prox_caller_t(w, tt);
  if (!prox_finite(h.t)) return r;
  return h;
}

/// C++'s detail::ShearedTriangle<float>: the corners relative to the ray's
/// origin, their sheared x and y, and the three edge functions (an exactly zero
/// one recomputed, all three, in double, as C++).
struct ProxShearedTriangle {
  vec3 A, B, C;
  float ax, ay, bx, by, cx, cy;
  float U, V, W;
};

/// C++'s detail::shear_triangle for float (shared by the watertight and the
/// crossing test, crossing.glsl).
ProxShearedTriangle prox_shear_triangle(ProxWatertightRay w, vec3 a, vec3 b, vec3 c) {
  precise vec3 A = a - w.origin;
  precise vec3 B = b - w.origin;
  precise vec3 C = c - w.origin;
  precise float ax = A[w.kx] - w.sx * A[w.kz];
  precise float ay = A[w.ky] - w.sy * A[w.kz];
  precise float bx = B[w.kx] - w.sx * B[w.kz];
  precise float by = B[w.ky] - w.sy * B[w.kz];
  precise float cx = C[w.kx] - w.sx * C[w.kz];
  precise float cy = C[w.ky] - w.sy * C[w.kz];
  precise float U = cx * by - cy * bx;
  precise float V = ax * cy - ay * cx;
  precise float W = bx * ay - by * ax;
  if (U == 0.0 || V == 0.0 || W == 0.0) {
    precise double Ud = double(cx) * double(by) - double(cy) * double(bx);
    precise double Vd = double(ax) * double(cy) - double(ay) * double(cx);
    precise double Wd = double(bx) * double(ay) - double(by) * double(ax);
    U = prox_to_float(Ud);
    V = prox_to_float(Vd);
    W = prox_to_float(Wd);
  }
  return ProxShearedTriangle(A, B, C, ax, ay, bx, by, cx, cy, U, V, W);
}

// det and the t numerator the float test answers itself (C++ sheared_hit).
const float PROX_DET_LO = 1.0 / 1208925819614629174706176.0;  // 2^-80
const float PROX_DET_HI = 1267650600228229401496703205376.0;  // 2^100

/// Watertight test with precomputed ray data (inputs assumed finite).
ProxRayTriangleHit prox_ray_triangle_watertight_pre(ProxWatertightRay w, vec3 a, vec3 b, vec3 c) {
  ProxShearedTriangle s = prox_shear_triangle(w, a, b, c);
  float ax = s.ax, ay = s.ay, bx = s.bx, by = s.by, cx = s.cx, cy = s.cy;
  float U = s.U, V = s.V, W = s.W;
  vec3 A = s.A, B = s.B, C = s.C;
  ProxRayTriangleHit r = prox_ray_miss();
  if ((U < 0.0 || V < 0.0 || W < 0.0) && (U > 0.0 || V > 0.0 || W > 0.0)) return r;
  precise float det = U + V + W;
  precise float az = w.sz * A[w.kz];
  precise float bz = w.sz * B[w.kz];
  precise float cz = w.sz * C[w.kz];
  precise float tn = U * az + V * bz + W * cz;
  // The sheared t cancelled (C++'s far-corner path, in both the float and the
  // rescaled test): h has the edge decision, u, v and side; t comes from
  // prox_far_corner_t, called from this one site. A t that is not finite (or,
  // on the float path, an infinite caller t) is no hit, as in C++.
  bool far = false;
  ProxRayTriangleHit h;
  if (!(abs(det) >= PROX_DET_LO && abs(det) <= PROX_DET_HI && abs(tn) <= PROX_DET_HI)) {
    h = prox_sheared_hit_rescaled(w, ax, ay, bx, by, cx, cy, A[w.kz], B[w.kz], C[w.kz], far);
    if (!far) return h;
  } else {
    if (det == 0.0) return r;
    precise float cancel = abs(U * az) + abs(V * bz) + abs(W * cz);
    precise float bound = PROX_FAR_RATIO * cancel;
    far = abs(tn) < bound;
    h = ProxRayTriangleHit(true, 0.0, prox_plus_zero(prox_div(V, det)),
                           prox_plus_zero(prox_div(W, det)), det > 0.0);
  }
  if (far) {
    float t = prox_far_corner_t(w, a, b, c);
    if (!prox_finite(t) || !(t >= w.t_min && t <= w.t_max)) return r;
    h.t = prox_caller_t(w, t);
    if (!prox_finite(h.t)) return r;
    return h;
  }
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

/// Watertight ray/triangle test, both-sided.
ProxRayTriangleHit prox_ray_triangle_watertight(vec3 origin, vec3 direction, float t_min,
                                                float t_max, vec3 a, vec3 b, vec3 c) {
  if (!prox_ray_inputs_finite(origin, direction, t_min, t_max, a, b, c)) return prox_ray_miss();
  if (direction == vec3(0.0)) return prox_ray_miss();
  return prox_ray_triangle_watertight_pre(prox_watertight_ray(origin, direction, t_min, t_max),
                                          a, b, c);
}
#endif
