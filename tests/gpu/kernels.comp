#version 450
// Test driver of prox's GLSL kernels: one case per invocation, inputs as five
// vec4 per case, outputs as the raw bits of eight words per case (so NaN and
// -0 come back unchanged). Built twice: with the per-file includes and with
// the concatenated header prox_kernels.glsl (-DPROX_TEST_CONCAT).
#extension GL_GOOGLE_include_directive : require
#ifdef PROX_TEST_CONCAT
#include "prox_kernels.glsl"
#else
#include "prox/closest_point_segment.glsl"
#include "prox/closest_point_triangle.glsl"
#include "prox/ray_box.glsl"
#include "prox/ray_triangle.glsl"
#endif

layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Cases { vec4 cases[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Outs { uvec4 outs[]; };
layout(push_constant) uniform Push { uint count; uint mode; } pc;

uvec4 bits(vec4 v) { return floatBitsToUint(v); }

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  vec4 c0 = cases[5u * i], c1 = cases[5u * i + 1u], c2 = cases[5u * i + 2u],
       c3 = cases[5u * i + 3u], c4 = cases[5u * i + 4u];
  uvec4 o0 = uvec4(0u), o1 = uvec4(0u);
  if (pc.mode == 0u) {  // closest point on triangle (p, a, b, c)
    ProxTriangleResult r = prox_closest_point_triangle(c0.xyz, c1.xyz, c2.xyz, c3.xyz);
    o0 = bits(vec4(r.point, r.sq_distance));
    o1 = uvec4(bits(vec4(r.bary, 0.0)).xyz, r.feature);
  } else if (pc.mode == 6u) {  // the mesh traversal's kernel: feature | 256 when far
    bool far;
    ProxTriangleResult r = prox_closest_point_triangle_mesh(c0.xyz, c1.xyz, c2.xyz, c3.xyz, far);
    o0 = bits(vec4(r.point, r.sq_distance));
    o1 = uvec4(bits(vec4(r.bary, 0.0)).xyz, r.feature | (far ? 256u : 0u));
  } else if (pc.mode == 1u) {  // closest point on segment (p, a, b)
    ProxSegmentResult r = prox_closest_point_segment(c0.xyz, c1.xyz, c2.xyz);
    o0 = bits(vec4(r.point, r.sq_distance));
    o1 = uvec4(floatBitsToUint(r.t), 0u, 0u, 0u);
  } else if (pc.mode == 2u || pc.mode == 3u) {  // ray (o, t_min; d, t_max) / triangle
    ProxRayTriangleHit h = pc.mode == 2u
        ? prox_ray_triangle_watertight(c0.xyz, c1.xyz, c0.w, c1.w, c2.xyz, c3.xyz, c4.xyz)
        : prox_ray_triangle_moller_trumbore(c0.xyz, c1.xyz, c0.w, c1.w, c2.xyz, c3.xyz, c4.xyz,
                                            floatBitsToUint(c4.w));
    o0 = uvec4(h.hit ? 1u : 0u, floatBitsToUint(h.t), floatBitsToUint(h.u), floatBitsToUint(h.v));
    o1 = uvec4(h.front_face ? 1u : 0u, 0u, 0u, 0u);
  } else if (pc.mode == 5u) {  // roundings: prox_to_float(double bits c0.xy), prox_times_pow2(c0.z, e = c0.w)
    double x = packDouble2x32(floatBitsToUint(c0.xy));
    o0 = uvec4(floatBitsToUint(prox_to_float(x)),
               floatBitsToUint(prox_times_pow2(c0.z, int(floatBitsToUint(c0.w)))), 0u, 0u);
  } else if (pc.mode == 4u) {  // ray / box (lo, hi)
    ProxRayBoxHit h = prox_ray_box(c0.xyz, c1.xyz, c0.w, c1.w, c2.xyz, c3.xyz);
    o0 = uvec4(h.hit ? 1u : 0u, floatBitsToUint(h.t_near), floatBitsToUint(h.t_far), 0u);
  }
  outs[2u * i] = o0;
  outs[2u * i + 1u] = o1;
}
