// prox/flat_index.glsl — the mesh index's flat layout as std430 storage buffers.
//
// The same bytes as prox::FlatIndex<float> (prox/mesh/flat_index.hpp,
// prox/bvh/bvh8.hpp), uploaded unchanged from MeshIndex<float>::layout():
// - prox_nodes: Node8[], 256 bytes: child boxes lo[axis][child], hi[axis][child]
//   (float, rounded outward), child[8] (inner node index or first leaf slot),
//   count[8] (0: inner node or unused; n > 0: leaf of n slots). Root = 0.
//   Unused children: child = PROX_INVALID, empty box.
// - prox_prims: uint[] triangle id per slot (PROX_INVALID: padding).
// - prox_packs: LeafPack[], 144 bytes: slot s is lane s % 4 of pack s / 4,
//   c[(corner * 3 + axis) * 4 + lane].
// Bindings: define PROX_INDEX_SET and PROX_BINDING_NODES / _PRIMS / _PACKS
// before including this file to move them (defaults: set 0, bindings 0, 1, 2).
#ifndef PROX_FLAT_INDEX_GLSL
#define PROX_FLAT_INDEX_GLSL
#include "common.glsl"

#ifndef PROX_INDEX_SET
#define PROX_INDEX_SET 0
#endif
#ifndef PROX_BINDING_NODES
#define PROX_BINDING_NODES 0
#endif
#ifndef PROX_BINDING_PRIMS
#define PROX_BINDING_PRIMS 1
#endif
#ifndef PROX_BINDING_PACKS
#define PROX_BINDING_PACKS 2
#endif

struct ProxNode8 {
  float lo[3][8];
  float hi[3][8];
  uint child[8];
  uint count[8];
};

struct ProxLeafPack {
  float c[36];
};

layout(std430, set = PROX_INDEX_SET, binding = PROX_BINDING_NODES) readonly buffer ProxNodes {
  ProxNode8 prox_nodes[];
};
layout(std430, set = PROX_INDEX_SET, binding = PROX_BINDING_PRIMS) readonly buffer ProxPrims {
  uint prox_prims[];
};
layout(std430, set = PROX_INDEX_SET, binding = PROX_BINDING_PACKS) readonly buffer ProxPacks {
  ProxLeafPack prox_packs[];
};

/// Corner k (0, 1, 2) of slot s's triangle.
vec3 prox_slot_corner(uint s, int k) {
  uint pk = s >> 2, lane = s & 3u;
  int base = k * 12 + int(lane);
  return vec3(prox_packs[pk].c[base], prox_packs[pk].c[base + 4], prox_packs[pk].c[base + 8]);
}

// Traversal stack depth (entries; a node pushes at most 8). A query that
// would overflow it stops with status PROX_STATUS_STACK_OVERFLOW and no
// answer, which the caller must compute elsewhere (prox::gpu does so on the
// CPU). 7 entries per level plus one suffice for a tree of depth 18.
#ifndef PROX_STACK_SIZE
#define PROX_STACK_SIZE 128
#endif
const uint PROX_STATUS_OK = 0u;
const uint PROX_STATUS_STACK_OVERFLOW = 1u;
// The closest-point search met a triangle on the kernel's far re-solve path
// (bvh_closest_point.glsl): no answer; the caller must compute it elsewhere
// (prox::gpu does so on the CPU).
const uint PROX_STATUS_FAR_SOLVE = 2u;

// The engine's conservative box arithmetic (prox/bvh/traverse.hpp): lower
// bounds shrunk, upper bounds grown by 2^-20, so rounding never prunes a box
// that holds the answer, whatever the device's last-bit behaviour.
const float PROX_SHRINK = 1.0 - 1.0 / 1048576.0;
const float PROX_GROW = 1.0 + 1.0 / 1048576.0;
#endif
