// prox/bvh_closest_point.glsl — closest point of the indexed mesh (flat_index.glsl).
//
// prox_mesh_closest_point(p, max_distance) has the semantics of
// prox::MeshIndex<float>::closest_point: the smallest squared distance over
// every triangle within max_distance, ties to the lowest triangle id, each
// triangle answered by prox_closest_point_triangle (the C++ kernel's twin), so
// the answer is the C++ answer. p outside prox's float range (a |coordinate|
// above 2^62, NaN or infinite: docs/reliability.md), NaN or negative
// max_distance, empty index: a miss (triangle -1, NaN). Depth first, nearest child on top;
// box lower bounds prune, farthest-corner bounds tighten the radius early.
// A search that meets a triangle on the kernel's far re-solve path (corners
// 2^10 times farther than the answer and p: slivers and huge triangles next
// to p; no ordinary mesh has them) stops there with status
// PROX_STATUS_FAR_SOLVE and no answer: the traversal does not run the
// re-solve (prox_closest_point_triangle_mesh says why), and the caller
// answers such a query elsewhere (prox::gpu: on the CPU, MeshIndex<float>).
#ifndef PROX_BVH_CLOSEST_POINT_GLSL
#define PROX_BVH_CLOSEST_POINT_GLSL
#include "bvh_stack.glsl"
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

/// C++'s CoordinateRange<float>::contains: every |coordinate| at most 2^62
/// (false for NaN and infinities). Queries outside it miss (issue 9).
const float PROX_MAX_ABS = 4611686018427387904.0;  // 2^62
bool prox_in_range(vec3 p) {
  return abs(p.x) <= PROX_MAX_ABS && abs(p.y) <= PROX_MAX_ABS && abs(p.z) <= PROX_MAX_ABS;
}

// The engine's floor on box upper bounds (prox/bvh/traverse.hpp): squares of
// tiny extents round to 0 (or flush), and a bound of 0 would prune the nearest.
const float PROX_UB_FLOOR = 1.0 / 1329227995784915872903807060280344576.0;  // 2^-120

ProxMeshClosest prox_mesh_closest_point(vec3 p, float max_distance) {
  if (!prox_in_range(p) || prox_nodes.length() == 0) return prox_mesh_closest_miss(PROX_STATUS_OK);
  if (!(max_distance >= 0.0)) return prox_mesh_closest_miss(PROX_STATUS_OK);
  precise float r2 = max_distance * max_distance;
  precise float bound = r2 * PROX_GROW;
  ProxMeshClosest best = prox_mesh_closest_miss(PROX_STATUS_OK);
  best.sq_distance = prox_inf();

  prox_stack_start(0.0);
  for (int e = prox_stack_pop(bound); e >= 0; e = prox_stack_pop(bound)) {
    uint child = prox_stack_child[e], count = prox_stack_count[e];
    if (count > 0u) {
      for (uint s = child; s < child + count; ++s) {
        vec3 a = prox_slot_corner(s, 0), b = prox_slot_corner(s, 1), c = prox_slot_corner(s, 2);
        // The triangle's own box first (shrunk by 2^-20, far beyond its few
        // roundings): a cheap, conservative skip of the full kernel.
        precise vec3 gap = max(max(min(min(a, b), c) - p, p - max(max(a, b), c)), vec3(0.0));
        precise float box_lb = (gap.x * gap.x + gap.y * gap.y + gap.z * gap.z) * PROX_SHRINK;
        if (box_lb > bound) continue;
        bool far;
        ProxTriangleResult r = prox_closest_point_triangle_mesh(p, a, b, c, far);  // see there
        // Conservative: every triangle the search evaluates is checked, so
        // until the first far one every value (and so every bound and prune)
        // is the C++ kernel's. A search that never meets one therefore returns
        // the C++ answer; one whose nearest triangle needs the re-solve meets
        // it (it is evaluated unless pruned, and only a bound from an earlier
        // far triangle's unreliable value could prune it: the box bounds are
        // conservative and every other value is exact), so it stops here.
        if (far) return prox_mesh_closest_miss(PROX_STATUS_FAR_SOLVE);
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
      precise float ub = max(u * PROX_GROW, PROX_UB_FLOOR);
      key[k] = lb;
      if (prox_nodes[child].child[k] != PROX_INVALID) {
        bound = min(bound, ub);
        enter |= 1u << k;
      }
    }
    for (int k = 0; k < 8; ++k)
      if (!(key[k] <= bound)) enter &= ~(1u << k);
    if (!prox_stack_push_children(child, enter, key))
      return prox_mesh_closest_miss(PROX_STATUS_STACK_OVERFLOW);
  }
  if (best.triangle < 0) return prox_mesh_closest_miss(PROX_STATUS_OK);
  return best;
}
#endif
