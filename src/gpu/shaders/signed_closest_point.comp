#version 450
// prox::gpu's signed closest point with the pseudonormal sign: the closest
// point over the flat index (bindings 0-2), queries at 3 (x, y, z,
// max_distance), results at 4 (closest_point.comp's layout, the sign code in
// `sign`), the pseudonormal table at 5-8 (prox/pseudonormal_sign.glsl).
#extension GL_GOOGLE_include_directive : require
#include "prox/bvh_closest_point.glsl"
#include "prox/pseudonormal_sign.glsl"

layout(local_size_x = 64) in;

struct SignedOut {  // 48 bytes, mirrored by src/gpu/signed_mesh_gpu.cpp
  float px, py, pz, sq_distance;
  float bx, by, bz;
  int triangle;
  uint feature, status;
  int sign;  // PROX_SIGN_*: the sign of (p - point) . pseudonormal (a miss: 0)
  uint pad;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { vec4 queries[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { SignedOut results[]; };
layout(push_constant) uniform Push { uint count; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  vec4 q = queries[i];
  ProxMeshClosest r = prox_mesh_closest_point(q.xyz, q.w);
  int s = PROX_SIGN_UNDECIDED;
  if (r.triangle >= 0 && r.status == PROX_STATUS_OK)
    s = prox_pseudonormal_sign(q.xyz, r.point, uint(r.triangle), r.feature);
  results[i] = SignedOut(r.point.x, r.point.y, r.point.z, r.sq_distance, r.bary.x, r.bary.y,
                         r.bary.z, r.triangle, r.feature, r.status, s, 0u);
}
