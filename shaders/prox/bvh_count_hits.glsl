// prox/bvh_count_hits.glsl — surface crossings of a ray on the indexed mesh
// (flat_index.glsl).
//
// prox_mesh_count_hits has the semantics of prox::MeshIndex<float>::count_hits:
// the number of triangles whose crossing test (prox_ray_triangle_crossing_pre,
// crossing.glsl: C++'s ray_triangle_crossing) reports a hit with t in
// [t_min, t_max]; a ray through an edge or vertex shared by several triangles
// counts once where it crosses a closed mesh, 0 or 2 times where it grazes it,
// so the count's parity says inside or outside. Degenerate triangles are never
// hit. Rays that prox_ray_is_valid rejects (bvh_first_hit.glsl: zero or
// non-finite direction, origin beyond 2^62 or not finite, NaN t_min / t_max,
// t_min > t_max) count 0. The traversal visits every box the ray enters in
// [t_min, t_max] (bvh_ray_nodes.glsl); a stack overflow answers
// PROX_STATUS_STACK_OVERFLOW (prox::gpu then counts that ray on the CPU).
#ifndef PROX_BVH_COUNT_HITS_GLSL
#define PROX_BVH_COUNT_HITS_GLSL
#include "bvh_first_hit.glsl"
#include "bvh_ray_nodes.glsl"
#include "bvh_stack.glsl"
#include "crossing.glsl"
#include "flat_index.glsl"

struct ProxMeshCount {
  uint count;   // crossings
  uint status;  // PROX_STATUS_*
};

ProxMeshCount prox_mesh_count_hits(vec3 origin, vec3 direction, float t_min, float t_max) {
  ProxMeshCount r = ProxMeshCount(0u, PROX_STATUS_OK);
  if (!prox_ray_is_valid(origin, direction, t_min, t_max) || prox_nodes.length() == 0) return r;
  ProxWatertightRay wr = prox_watertight_ray(origin, direction, t_min, t_max);
  ProxRayBoxes q = prox_ray_boxes(wr);
  float t_lo = wr.t_min, t_hi = wr.t_max;
  prox_stack_start(t_lo);
  for (int e = prox_stack_pop(t_hi); e >= 0; e = prox_stack_pop(t_hi)) {
    uint child = prox_stack_child[e], count = prox_stack_count[e];
    if (count > 0u) {
      for (uint s = child; s < child + count; ++s) {
        ProxRayTriangleHit h = prox_ray_triangle_crossing_pre(
            wr, prox_slot_corner(s, 0), prox_slot_corner(s, 1), prox_slot_corner(s, 2));
        if (h.hit) ++r.count;
      }
      continue;
    }
    float key[8];
    uint enter = prox_ray_enter_children(q, child, t_lo, t_hi, key);
    if (!prox_stack_push_children(child, enter, key))
      return ProxMeshCount(r.count, PROX_STATUS_STACK_OVERFLOW);
  }
  return r;
}
#endif
