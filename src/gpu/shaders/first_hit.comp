#version 450
// prox::gpu's ray batch: first hit (mode 0) or any hit (mode 1) over the flat
// index (bindings 0-2); rays at 3 (origin, t_min; direction, t_max), results at 4.
#extension GL_GOOGLE_include_directive : require
#include "prox/bvh_first_hit.glsl"

layout(local_size_x = 64) in;

struct HitOut {  // 32 bytes, mirrored by src/gpu/mesh_index_gpu.cpp
  float t, u, v;
  int triangle;
  uint front_face, status, pad0, pad1;
};
layout(std430, set = 0, binding = 3) readonly buffer Rays { vec4 rays[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { HitOut results[]; };
layout(push_constant) uniform Push { uint count; uint any_hit; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  vec4 o = rays[2u * i], d = rays[2u * i + 1u];
  ProxMeshHit h = prox_mesh_first_hit(o.xyz, d.xyz, o.w, d.w, pc.any_hit != 0u);
  results[i] = HitOut(h.t, h.u, h.v, h.triangle, h.front_face ? 1u : 0u, h.status, 0u, 0u);
}
