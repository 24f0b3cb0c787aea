// prox/bvh/bvh8.hpp — an 8-wide bounding volume hierarchy over boxes: the flat
// layout every backend reads (CPU traversal, save/load, the GPU upload).
//
// The BVH is a pure index over primitive boxes: it knows nothing of triangles.
// Built by binned SAH into a binary tree, then collapsed so that each node holds
// up to eight children (the largest-area inner child is opened first).
//
// Node8, 256 bytes = four 64-byte cache lines, 64-byte aligned:
//   bytes   0..31   lo_x[8]   child box minima along x (child k in lane k)
//   bytes  32..63   lo_y[8]
//   bytes  64..95   lo_z[8]
//   bytes  96..127  hi_x[8]   child box maxima
//   bytes 128..159  hi_y[8]
//   bytes 160..191  hi_z[8]
//   bytes 192..223  child[8]  u32: inner node index, or first slot of a leaf
//   bytes 224..255  count[8]  u32: 0 = inner node or unused slot; n > 0 = leaf of n
// so one 256-bit load (or two 128-bit ones) fetches one bound of all eight
// children. Children always have larger node indices than their parent (a
// reverse sweep refits bottom-up); used slots come first, unused ones have
// child = kInvalid, count 0 and an empty box (lo = +inf, hi = -inf).
// Boxes are float, rounded outward from the primitives' own precision, so a
// double mesh is traversed at float speed and a box always contains its
// primitives.
//
// Leaves and slots: `prims` maps slots to primitive ids. A leaf of n primitives
// starts at a slot that is a multiple of kLeafAlign (4) and covers slots
// [child, child + n); the slots up to the next multiple of 4 are padding
// (prims[slot] = kInvalid). So per-primitive data stored by slot in blocks of
// four (the mesh's LeafPack) starts every leaf on a block boundary.
// All integers are little-endian u32 on every supported platform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prox/bvh/build_options.hpp"

namespace prox::bvh {

inline constexpr std::uint32_t kInvalid = 0xffffffffu;
/// Children per node.
inline constexpr int kWidth = 8;
/// Leaves start at slots that are multiples of this.
inline constexpr std::uint32_t kLeafAlign = 4;
/// Most primitives in a leaf (BuildOptions::max_leaf_size is clamped to it).
inline constexpr std::uint32_t kMaxLeafSize = 16;

/// Most levels a Bvh8 may have. The builder stays below 48 + 32 binary levels
/// (SAH until level 48, then object medians), hence as many wide levels at
/// most; load() rejects deeper trees, so traversal stacks never overflow.
inline constexpr int kMaxTreeDepth = 128;

struct alignas(64) Node8 {
  float lo[3][8];             ///< lo[axis][child]
  float hi[3][8];             ///< hi[axis][child]
  std::uint32_t child[8];     ///< inner node index, or first slot of a leaf
  std::uint32_t count[8];     ///< 0: inner node / unused slot; > 0: leaf size
};
static_assert(sizeof(Node8) == 256, "Node8 is four cache lines");
static_assert(offsetof(Node8, hi) == 96 && offsetof(Node8, child) == 192 &&
                  offsetof(Node8, count) == 224,
              "Node8 layout is documented to the byte");

/// The built hierarchy: nodes (root = nodes[0]) and the slot -> primitive map.
struct Bvh8 {
  std::vector<Node8> nodes;           ///< empty when there are no primitives
  std::vector<std::uint32_t> prims;   ///< primitive id per slot (kInvalid: padding)
  BuildStats stats;

  bool empty() const { return nodes.empty(); }
  std::size_t memory_bytes() const {
    return nodes.capacity() * sizeof(Node8) + prims.capacity() * sizeof(std::uint32_t);
  }
};

}  // namespace prox::bvh
