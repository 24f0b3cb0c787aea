// prox/pseudonormal_sign.glsl — inside or outside from the closest feature's
// angle-weighted pseudonormal (Bærentzen & Aanæs 2005): the GPU twin of
// prox::SignedMesh's pseudonormal method (prox/mesh/sign.hpp).
//
// The table is prox::Pseudonormals (prox/mesh/diagnostics.hpp), uploaded
// unchanged as four std430 buffers (doubles, as computed on the CPU):
// - prox_pn_welded: uint[3 per triangle], the welded vertex of each corner;
// - prox_pn_vertex: double[3 per welded vertex];
// - prox_pn_edge:   double[9 per triangle], edges 01, 12, 20;
// - prox_pn_face:   double[3 per triangle], the unit normal (0: degenerate).
// Bindings: define PROX_PN_SET and PROX_BINDING_PN_WELDED / _VERTEX / _EDGE /
// _FACE before including this file to move them (defaults: set 0, bindings
// 5, 6, 7, 8: after flat_index.glsl's 0-2 and a query and a result buffer).
//
// prox_pseudonormal_sign(p, closest, triangle, feature) is C++'s
//   pr = ((double(p.x) - double(c.x)) * n.x + (double(p.y) - double(c.y)) * n.y)
//        + (double(p.z) - double(c.z)) * n.z
// operation for operation (`precise`: no fused multiply-add), n the normal of
// (triangle, feature) as Pseudonormals::normal picks it: PROX_SIGN_INSIDE when
// pr < 0, PROX_SIGN_UNDECIDED when pr == 0 (no normal there, e.g. an edge of a
// degenerate triangle: C++ then casts parity rays, which the caller must do),
// PROX_SIGN_OUTSIDE otherwise (NaN included, as C++'s `pr != 0 → inside = pr < 0`).
// The feature is the one the closest-point kernel reports (ties between
// triangles: the lowest id, as the CPU), so with the CPU's closest point the
// answer is the CPU's. Double add and multiply must round as IEEE (Vulkan
// requires it for add/sub/mul); a device that flushes double denormals may
// differ only where |pr| < 2^-1022.
#ifndef PROX_PSEUDONORMAL_SIGN_GLSL
#define PROX_PSEUDONORMAL_SIGN_GLSL
#include "common.glsl"
#include "feature.glsl"

#ifndef PROX_PN_SET
#define PROX_PN_SET 0
#endif
#ifndef PROX_BINDING_PN_WELDED
#define PROX_BINDING_PN_WELDED 5
#endif
#ifndef PROX_BINDING_PN_VERTEX
#define PROX_BINDING_PN_VERTEX 6
#endif
#ifndef PROX_BINDING_PN_EDGE
#define PROX_BINDING_PN_EDGE 7
#endif
#ifndef PROX_BINDING_PN_FACE
#define PROX_BINDING_PN_FACE 8
#endif

layout(std430, set = PROX_PN_SET, binding = PROX_BINDING_PN_WELDED) readonly buffer ProxPnWelded {
  uint prox_pn_welded[];
};
layout(std430, set = PROX_PN_SET, binding = PROX_BINDING_PN_VERTEX) readonly buffer ProxPnVertex {
  double prox_pn_vertex[];
};
layout(std430, set = PROX_PN_SET, binding = PROX_BINDING_PN_EDGE) readonly buffer ProxPnEdge {
  double prox_pn_edge[];
};
layout(std430, set = PROX_PN_SET, binding = PROX_BINDING_PN_FACE) readonly buffer ProxPnFace {
  double prox_pn_face[];
};

const int PROX_SIGN_INSIDE = -1;
const int PROX_SIGN_UNDECIDED = 0;
const int PROX_SIGN_OUTSIDE = 1;

/// The pseudonormal of `feature` (PROX_FEATURE_*) of triangle t: Pseudonormals::normal.
dvec3 prox_pseudonormal(uint t, uint feature) {
  if (feature < 3u) {
    uint w = 3u * prox_pn_welded[3u * t + feature];
    return dvec3(prox_pn_vertex[w], prox_pn_vertex[w + 1u], prox_pn_vertex[w + 2u]);
  }
  if (feature < 6u) {
    uint e = 9u * t + 3u * (feature - 3u);
    return dvec3(prox_pn_edge[e], prox_pn_edge[e + 1u], prox_pn_edge[e + 2u]);
  }
  uint f = 3u * t;
  return dvec3(prox_pn_face[f], prox_pn_face[f + 1u], prox_pn_face[f + 2u]);
}

/// The sign of (p - closest) . n, n the pseudonormal of the closest feature.
int prox_pseudonormal_sign(vec3 p, vec3 closest, uint triangle, uint feature) {
  dvec3 n = prox_pseudonormal(triangle, feature);
  precise double dx = double(p.x) - double(closest.x);
  precise double dy = double(p.y) - double(closest.y);
  precise double dz = double(p.z) - double(closest.z);
  precise double pr = dx * n.x;
  pr += dy * n.y;
  pr += dz * n.z;
  if (pr < 0.0lf) return PROX_SIGN_INSIDE;
  if (pr == 0.0lf) return PROX_SIGN_UNDECIDED;
  return PROX_SIGN_OUTSIDE;
}
#endif
