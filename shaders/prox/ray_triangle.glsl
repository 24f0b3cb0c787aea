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
// input or a zero direction: a miss.
#ifndef PROX_RAY_TRIANGLE_GLSL
#define PROX_RAY_TRIANGLE_GLSL
#include "common.glsl"

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

/// Per-ray data of the watertight test (reuse it across triangles).
struct ProxWatertightRay {
  int kx, ky, kz;  // kz: the direction's dominant axis
  float sx, sy, sz;
  vec3 origin;
  float t_min, t_max;
};

ProxWatertightRay prox_watertight_ray(vec3 origin, vec3 direction, float t_min, float t_max) {
  ProxWatertightRay w;
  w.kz = 0;
  float best = abs(direction.x);
  for (int k = 1; k < 3; ++k) {
    float m = abs(direction[k]);
    if (m > best) {
      best = m;
      w.kz = k;
    }
  }
  w.kx = w.kz == 2 ? 0 : w.kz + 1;
  w.ky = w.kx == 2 ? 0 : w.kx + 1;
  if (direction[w.kz] < 0.0) {  // keep the winding, so front_face
    int tmp = w.kx;
    w.kx = w.ky;
    w.ky = tmp;
  }
  w.sz = prox_div(1.0, direction[w.kz]);
  precise float sx = direction[w.kx] * w.sz;
  precise float sy = direction[w.ky] * w.sz;
  w.sx = sx;
  w.sy = sy;
  w.origin = origin;
  w.t_min = t_min;
  w.t_max = t_max;
  return w;
}

/// Watertight test with precomputed ray data (inputs assumed finite).
ProxRayTriangleHit prox_ray_triangle_watertight_pre(ProxWatertightRay w, vec3 a, vec3 b, vec3 c) {
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
    U = float(Ud);
    V = float(Vd);
    W = float(Wd);
  }
  ProxRayTriangleHit r = prox_ray_miss();
  if ((U < 0.0 || V < 0.0 || W < 0.0) && (U > 0.0 || V > 0.0 || W > 0.0)) return r;
  precise float det = U + V + W;
  if (det == 0.0) return r;
  precise float az = w.sz * A[w.kz];
  precise float bz = w.sz * B[w.kz];
  precise float cz = w.sz * C[w.kz];
  precise float tn = U * az + V * bz + W * cz;
  precise float lo = w.t_min * det;
  precise float hi = w.t_max * det;
  if (det > 0.0) {
    if (tn < lo || tn > hi) return r;
  } else {
    if (tn > lo || tn < hi) return r;
  }
  // -0 weights become +0, as C++'s `+ T(0)` does (on the bits: a compiler
  // may drop x + 0.0 when it does not preserve signed zeros).
  float u = prox_div(V, det), v = prox_div(W, det);
  if (floatBitsToUint(u) == 0x80000000u) u = 0.0;
  if (floatBitsToUint(v) == 0x80000000u) v = 0.0;
  return ProxRayTriangleHit(true, prox_div(tn, det), u, v, det > 0.0);
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
