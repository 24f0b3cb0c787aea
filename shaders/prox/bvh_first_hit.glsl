// prox/bvh_first_hit.glsl — first hit and any hit of a ray on the indexed mesh
// (flat_index.glsl).
//
// prox_mesh_first_hit has the semantics of prox::MeshIndex<float>::first_hit:
// the smallest t in [t_min, t_max] that the watertight test
// (prox_ray_triangle_watertight_pre, the C++ kernel's twin) reports over every
// triangle, lowest triangle id on equal t. With any_hit true it stops at the
// first hit found (MeshIndex::any_hit: only `triangle >= 0` means anything).
// A ray with a zero or non-finite direction, an origin outside prox's float
// range (|coordinate| > 2^62, NaN, infinite), NaN t_min / t_max or
// t_min > t_max misses; so does a hit whose t is not a finite float. Slab tests as the
// engine's (bvh_ray_nodes.glsl), front to back.
#ifndef PROX_BVH_FIRST_HIT_GLSL
#define PROX_BVH_FIRST_HIT_GLSL
#include "bvh_stack.glsl"
#include "bvh_ray_nodes.glsl"
#include "flat_index.glsl"
#include "ray_triangle.glsl"

struct ProxMeshHit {
  float t;          // +inf on a miss
  float u, v;       // weights of corners 1 and 2
  int triangle;     // -1: miss
  bool front_face;  // dot(direction, (c1-c0)x(c2-c0)) < 0
  uint status;      // PROX_STATUS_*
};

ProxMeshHit prox_mesh_hit_miss(uint status) {
  return ProxMeshHit(prox_inf(), 0.0, 0.0, -1, false, status);
}

/// C++'s detail::ray_is_valid: origin within prox's float range (every
/// |coordinate| <= 2^62: prox_in_range, bvh_closest_point.glsl's twin is the
/// same test), finite non-zero direction, t_min and t_max not NaN, t_min <= t_max.
const float PROX_RAY_MAX_ABS = 4611686018427387904.0;  // 2^62
bool prox_ray_is_valid(vec3 origin, vec3 direction, float t_min, float t_max) {
  bool origin_ok = abs(origin.x) <= PROX_RAY_MAX_ABS && abs(origin.y) <= PROX_RAY_MAX_ABS &&
                   abs(origin.z) <= PROX_RAY_MAX_ABS;
  return origin_ok && prox_finite3(direction) && direction != vec3(0.0) &&
         !prox_isnan(t_min) && !prox_isnan(t_max) && t_min <= t_max;
}

ProxMeshHit prox_mesh_first_hit(vec3 origin, vec3 direction, float t_min, float t_max,
                                bool any_hit) {
  if (!prox_ray_is_valid(origin, direction, t_min, t_max) || prox_nodes.length() == 0)
    return prox_mesh_hit_miss(PROX_STATUS_OK);
  // The boxes are tested on the kernel's normalized ray (t' = t 2^t_exp), as
  // the engine does since issue 9.
  ProxWatertightRay wr = prox_watertight_ray(origin, direction, t_min, t_max);
  ProxRayBoxes q = prox_ray_boxes(wr);
  float t_lo = wr.t_min, t_hi = wr.t_max;
  ProxMeshHit best = prox_mesh_hit_miss(PROX_STATUS_OK);

  prox_stack_start(t_lo);
  for (int e = prox_stack_pop(t_hi); e >= 0; e = prox_stack_pop(t_hi)) {
    uint child = prox_stack_child[e], count = prox_stack_count[e];
    if (count > 0u) {
      for (uint s = child; s < child + count; ++s) {
        ProxRayTriangleHit h = prox_ray_triangle_watertight_pre(
            wr, prox_slot_corner(s, 0), prox_slot_corner(s, 1), prox_slot_corner(s, 2));
        if (!h.hit) continue;
        int id = int(prox_prims[s]);
        if (h.t < best.t || (h.t == best.t && id < best.triangle)) {
          best = ProxMeshHit(h.t, h.u, h.v, id, h.front_face, PROX_STATUS_OK);
          if (any_hit) return best;
          t_hi = min(t_hi, prox_scaled_t(wr, h.t));
        }
      }
      continue;
    }
    float key[8];
    uint enter = prox_ray_enter_children(q, child, t_lo, t_hi, key);
    if (!prox_stack_push_children(child, enter, key))
      return prox_mesh_hit_miss(PROX_STATUS_STACK_OVERFLOW);
  }
  return best;
}
#endif
