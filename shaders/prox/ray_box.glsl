// prox/ray_box.glsl — ray against a solid axis-aligned box: the slab test.
//
// The GLSL twin of prox::ray_box (prox/primitives/ray_box.hpp): per axis the
// interval [(lo - o) / d, (hi - o) / d] (ends chosen by the sign of d), a zero
// direction component decided without dividing, inverse directions kept
// finite (+-FLT_MAX), NaN bounds never widening the interval. Result: hit and
// [t_near, t_far] within [t_min, t_max]. Empty box, non-finite origin or
// direction, NaN t_min / t_max: a miss (t_near = +inf, t_far = -inf).
#ifndef PROX_RAY_BOX_GLSL
#define PROX_RAY_BOX_GLSL
#include "common.glsl"

struct ProxRayBoxHit {
  bool hit;
  float t_near;  // entry parameter (+inf on a miss)
  float t_far;   // exit parameter (-inf on a miss)
};

ProxRayBoxHit prox_ray_box(vec3 origin, vec3 direction, float t_min, float t_max, vec3 lo,
                           vec3 hi) {
  ProxRayBoxHit miss = ProxRayBoxHit(false, prox_inf(), -prox_inf());
  if (!prox_finite3(origin) || !prox_finite3(direction) || prox_isnan(t_min) ||
      prox_isnan(t_max))
    return miss;
  float t_near = t_min, t_far = t_max;
  for (int k = 0; k < 3; ++k) {
    float o = origin[k], d = direction[k], l = lo[k], h = hi[k];
    if (!(l <= h)) return miss;
    if (d == 0.0) {
      if (o < l || o > h) return miss;
      continue;
    }
    float inv = prox_div(1.0, d);
    if (!prox_finite(inv)) inv = d > 0.0 ? PROX_FLT_MAX : -PROX_FLT_MAX;
    precise float t0 = ((d > 0.0 ? l : h) - o) * inv;
    precise float t1 = ((d > 0.0 ? h : l) - o) * inv;
    if (t0 > t_near) t_near = t0;
    if (t1 < t_far) t_far = t1;
  }
  if (!(t_near <= t_far)) return miss;
  return ProxRayBoxHit(true, t_near, t_far);
}
#endif
