#version 450
// prox::gpu's closest-point batch: one query per invocation over the flat index
// (bindings 0-2), queries at 3 (x, y, z, max_distance), results at 4.
#extension GL_GOOGLE_include_directive : require
#include "prox/bvh_closest_point.glsl"

layout(local_size_x = 64) in;

struct ClosestOut {  // 48 bytes, mirrored by src/gpu/mesh_index_gpu.cpp
  float px, py, pz, sq_distance;
  float bx, by, bz;
  int triangle;
  uint feature, status, pad0, pad1;
};
layout(std430, set = 0, binding = 3) readonly buffer Queries { vec4 queries[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { ClosestOut results[]; };
layout(push_constant) uniform Push { uint count; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  vec4 q = queries[i];
  ProxMeshClosest r = prox_mesh_closest_point(q.xyz, q.w);
  results[i] = ClosestOut(r.point.x, r.point.y, r.point.z, r.sq_distance, r.bary.x, r.bary.y,
                          r.bary.z, r.triangle, r.feature, r.status, 0u, 0u);
}
