// prox/bvh_closest_point.glsl — closest point of the indexed mesh (flat_index.glsl).
//
// prox_mesh_closest_point(p, max_distance) has the semantics of
// prox::MeshIndex<float>::closest_point: the smallest squared distance over
// every triangle within max_distance, ties to the lowest triangle id, each
// triangle answered by prox_closest_point_triangle (the C++ kernel's twin), so
// the answer is the C++ answer. Non-finite p, NaN or negative max_distance,
// empty index: a miss (triangle -1, NaN). Depth first, nearest child on top;
// box lower bounds prune, farthest-corner bounds tighten the radius early.
#ifndef PROX_BVH_CLOSEST_POINT_GLSL
#define PROX_BVH_CLOSEST_POINT_GLSL
#include "closest_point_triangle.glsl"
#include "flat_index.glsl"

struct ProxMeshClosest {
  vec3 point;
  float sq_distance;
  vec3 bary;         // weights of the triangle's corners 0, 1, 2
  int triangle;      // -1: miss
  uint feature;      // PROX_FEATURE_*
  uint status;       // PROX_STATUS_*
};

ProxMeshClosest prox_mesh_closest_miss(uint status) {
  float nan = prox_nan();
  return ProxMeshClosest(vec3(nan), nan, vec3(nan), -1, PROX_FEATURE_FACE, status);
}

ProxMeshClosest prox_mesh_closest_point(vec3 p, float max_distance) {
  if (!prox_finite3(p) || prox_nodes.length() == 0) return prox_mesh_closest_miss(PROX_STATUS_OK);
  if (!(max_distance >= 0.0)) return prox_mesh_closest_miss(PROX_STATUS_OK);
  precise float r2 = max_distance * max_distance;
  precise float bound = r2 * PROX_GROW;
  ProxMeshClosest best = prox_mesh_closest_miss(PROX_STATUS_OK);
  best.sq_distance = prox_inf();

  uint st_child[PROX_STACK_SIZE];
  uint st_count[PROX_STACK_SIZE];
  float st_key[PROX_STACK_SIZE];
  int sp = 0;
  st_child[0] = 0u;
  st_count[0] = 0u;
  st_key[0] = 0.0;
  sp = 1;
  while (sp > 0) {
    --sp;
    if (st_key[sp] > bound) continue;
    uint child = st_child[sp], count = st_count[sp];
    if (count > 0u) {
      for (uint s = child; s < child + count; ++s) {
        vec3 a = prox_slot_corner(s, 0), b = prox_slot_corner(s, 1), c = prox_slot_corner(s, 2);
        // The triangle's own box first (shrunk by 2^-20, far beyond its few
        // roundings): a cheap, conservative skip of the full kernel.
        precise vec3 gap = max(max(min(min(a, b), c) - p, p - max(max(a, b), c)), vec3(0.0));
        precise float box_lb = (gap.x * gap.x + gap.y * gap.y + gap.z * gap.z) * PROX_SHRINK;
        if (box_lb > bound) continue;
        ProxTriangleResult r = prox_closest_point_triangle(p, a, b, c);
        int id = int(prox_prims[s]);
        if (r.sq_distance <= r2 && (r.sq_distance < best.sq_distance ||
                                    (r.sq_distance == best.sq_distance && id < best.triangle))) {
          best.point = r.point;
          best.sq_distance = r.sq_distance;
          best.bary = r.bary;
          best.triangle = id;
          best.feature = r.feature;
          precise float nb = r.sq_distance * PROX_GROW;
          bound = min(bound, nb);
        }
      }
      continue;
    }
    float key[8];
    uint enter = 0u;
    for (int k = 0; k < 8; ++k) {
      precise float l = 0.0, u = 0.0;
      for (int a = 0; a < 3; ++a) {
        float lo = prox_nodes[child].lo[a][k], hi = prox_nodes[child].hi[a][k];
        precise float d = max(max(lo - p[a], p[a] - hi), 0.0);
        l += d * d;
        precise float f = max(hi - p[a], p[a] - lo);
        u += f * f;
      }
      precise float lb = l * PROX_SHRINK;
      precise float ub = u * PROX_GROW;
      key[k] = lb;
      if (prox_nodes[child].child[k] != PROX_INVALID) {
        bound = min(bound, ub);
        enter |= 1u << k;
      }
    }
    // Push entered children farthest first, so the nearest is popped next.
    for (int k = 0; k < 8; ++k)
      if (!(key[k] <= bound)) enter &= ~(1u << k);
    while (enter != 0u) {
      int far = findLSB(enter);
      for (uint m = enter & (enter - 1u); m != 0u; m &= m - 1u) {
        int k = findLSB(m);
        if (key[k] > key[far]) far = k;
      }
      enter &= ~(1u << far);
      if (sp == PROX_STACK_SIZE) return prox_mesh_closest_miss(PROX_STATUS_STACK_OVERFLOW);
      st_child[sp] = prox_nodes[child].child[far];
      st_count[sp] = prox_nodes[child].count[far];
      st_key[sp] = key[far];
      ++sp;
    }
  }
  if (best.triangle < 0) return prox_mesh_closest_miss(PROX_STATUS_OK);
  return best;
}
#endif
