#version 450
// prox::gpu's crossing count: MeshIndex<float>::count_hits over the flat index
// (bindings 0-2); rays at 3 (origin, t_min; direction, t_max), counts at 4.
#extension GL_GOOGLE_include_directive : require
#include "prox/bvh_count_hits.glsl"

layout(local_size_x = 64) in;

struct CountOut {  // 8 bytes, mirrored by src/gpu/mesh_index_gpu_impl.hpp
  uint count, status;
};
layout(std430, set = 0, binding = 3) readonly buffer Rays { vec4 rays[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Results { CountOut results[]; };
layout(push_constant) uniform Push { uint count; uint mode; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  vec4 o = rays[2u * i], d = rays[2u * i + 1u];
  ProxMeshCount c = prox_mesh_count_hits(o.xyz, d.xyz, o.w, d.w);
  results[i] = CountOut(c.count, c.status);
}
