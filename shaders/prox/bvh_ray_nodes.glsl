// prox/bvh_ray_nodes.glsl — the slab test of a ray against a node's eight
// child boxes, shared by the ray traversals (bvh_first_hit.glsl,
// bvh_count_hits.glsl), as the engine's (prox/bvh/traverse.hpp): on the
// kernel's normalized ray (ProxWatertightRay: t' = t 2^t_exp), inverse
// directions as bvh::slab_inverse makes them, entry and exit widened by 2^-20
// of their size, a NaN slab ignored.
#ifndef PROX_BVH_RAY_NODES_GLSL
#define PROX_BVH_RAY_NODES_GLSL
#include "flat_index.glsl"
#include "ray_triangle.glsl"

struct ProxRayBoxes {
  vec3 origin;
  vec3 inv;   // 1 / direction (prox::bvh::slab_inverse): +-inf for d = +-0, NaN
              // where d is not 0 but 1 / d overflows (that axis is ignored)
  bvec3 neg;  // the sign bit of the direction
};

ProxRayBoxes prox_ray_boxes(ProxWatertightRay wr) {
  ProxRayBoxes q;
  q.origin = wr.origin;
  for (int k = 0; k < 3; ++k) {
    float d = wr.direction[k];
    bool negative = (floatBitsToUint(d) >> 31) != 0u;
    // A plane the ray runs in gives (plane - o) * inf = NaN: ignored below (the
    // ray stays in the closed slab); FLT_MAX there once gave 0, a false exit.
    float iv = d == 0.0 ? (negative ? -prox_inf() : prox_inf()) : prox_div(1.0, d);
    if (d != 0.0 && !prox_finite(iv)) iv = prox_nan();
    q.inv[k] = iv;
    q.neg[k] = negative;
  }
  return q;
}

/// The children of inner node `node` whose boxes the ray enters within
/// [t_lo, t_hi] (normalized t): a bit per child, key[k] its entry t.
uint prox_ray_enter_children(ProxRayBoxes q, uint node, float t_lo, float t_hi,
                             inout float key[8]) {
  const float g = 1.0 / 1048576.0;
  uint enter = 0u;
  for (int k = 0; k < 8; ++k) {
    if (prox_nodes[node].child[k] == PROX_INVALID) continue;
    float tn = -prox_inf(), tf = prox_inf();
    for (int a = 0; a < 3; ++a) {
      float lo = prox_nodes[node].lo[a][k], hi = prox_nodes[node].hi[a][k];
      precise float x = ((q.neg[a] ? hi : lo) - q.origin[a]) * q.inv[a];
      precise float y = ((q.neg[a] ? lo : hi) - q.origin[a]) * q.inv[a];
      if (x > tn) tn = x;  // a NaN slab is ignored, as in the engine
      if (y < tf) tf = y;
    }
    precise float tnw = tn - abs(tn) * g;
    precise float tfw = tf + abs(tf) * g;
    if (prox_isnan(tnw) || prox_isnan(tfw)) continue;
    float e = max(t_lo, tnw), x = min(t_hi, tfw);
    if (e <= x) {
      key[k] = e;
      enter |= 1u << k;
    }
  }
  return enter;
}
#endif
