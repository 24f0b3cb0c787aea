// prox/bvh/bvh4.hpp — a 4-wide bounding volume hierarchy over boxes.
//
// The BVH is a pure index over primitive boxes: it knows nothing of triangles.
// Built by binned SAH into a binary tree, then collapsed so that each node holds
// up to four children (the largest-area child is opened first).
//
// Memory layout (documented to the byte, as tinybvh does): one Node4 is 128
// bytes = two cache lines. The first 96 bytes are the four child boxes
// structure-of-arrays (lo.x[4], lo.y[4], lo.z[4], hi.x[4], hi.y[4], hi.z[4]),
// so one 128-bit load fetches one bound of all four children; the last 32
// bytes are child[4] and count[4]. count == 0: child is an inner node index
// (children always have larger indices than their parent, so a reverse sweep
// refits bottom-up); count > 0: a leaf of `count` primitives starting at
// prims[child]. An unused slot has an empty box (lo = +inf, hi = -inf) that no
// query can enter, count 0 and child = kInvalid.
// Boxes are float, rounded outward from the primitives' own precision, so a
// double mesh is traversed at float speed and a box always contains its
// primitives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prox/bvh/build_options.hpp"

namespace prox::bvh {

inline constexpr std::uint32_t kInvalid = 0xffffffffu;

/// Most levels a Bvh4 may have. The builder stays below 48 + 32 (SAH until
/// level 48, then object medians); load() rejects deeper trees, so traversal
/// stacks (3 entries per level at most) never overflow.
inline constexpr int kMaxTreeDepth = 128;

struct alignas(64) Node4 {
  float lo[3][4];             ///< lo[axis][child]
  float hi[3][4];             ///< hi[axis][child]
  std::uint32_t child[4];     ///< inner node index, or first primitive of a leaf
  std::uint32_t count[4];     ///< 0: inner node / unused slot; > 0: leaf size
};
static_assert(sizeof(Node4) == 128, "Node4 is two cache lines");

/// The built hierarchy: nodes (root = nodes[0]) and the primitive order.
struct Bvh4 {
  std::vector<Node4> nodes;           ///< empty when there are no primitives
  std::vector<std::uint32_t> prims;   ///< primitive ids in leaf order
  BuildStats stats;

  bool empty() const { return nodes.empty(); }
  std::size_t memory_bytes() const {
    return nodes.capacity() * sizeof(Node4) + prims.capacity() * sizeof(std::uint32_t);
  }
};

}  // namespace prox::bvh
