// prox/closest_point_segment.glsl — closest point on the segment [a, b] to p.
//
// The GLSL twin of prox::closest_point_segment (prox/primitives/closest_point_segment.hpp):
// project onto the line, clamp t to [0, 1] on the numerator before dividing,
// so an endpoint answer is that endpoint exactly. Degenerate segment (a == b):
// its point, t = 0. Non-finite input: every output NaN. Same roundings as C++.
#ifndef PROX_CLOSEST_POINT_SEGMENT_GLSL
#define PROX_CLOSEST_POINT_SEGMENT_GLSL
#include "common.glsl"

struct ProxSegmentResult {
  vec3 point;         // closest point of the segment
  float sq_distance;  // |p - point|^2
  float t;            // fraction along a -> b, in [0, 1]
};

ProxSegmentResult prox_closest_point_segment(vec3 p, vec3 a, vec3 b) {
  ProxSegmentResult r;
  if (!prox_finite3(p) || !prox_finite3(a) || !prox_finite3(b)) {
    float nan = prox_nan();
    r.point = vec3(nan);
    r.sq_distance = nan;
    r.t = nan;
    return r;
  }
  precise vec3 d = b - a;
  float num = prox_dot(p - a, d);
  float dd = prox_dot(d, d);
  if (num <= 0.0 || dd == 0.0) {
    r.point = a;
    r.t = 0.0;
  } else if (num >= dd) {
    r.point = b;
    r.t = 1.0;
  } else {
    r.t = prox_div(num, dd);
    r.point = prox_lerp(a, b, r.t);
  }
  r.sq_distance = prox_sq_distance(p, r.point);
  return r;
}
#endif
