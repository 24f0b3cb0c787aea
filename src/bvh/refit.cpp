// src/bvh/refit.cpp — refit (new boxes, same tree) and structural validation of
// a Bvh8 (the checks load() relies on before it trusts a file's tree).
#include <algorithm>
#include <string>
#include <vector>

#include "prox/bvh/build.hpp"

namespace prox::bvh {

using Box3f = Box3<float>;

void refit_bvh8(Bvh8& bvh, std::span<const Box3f> boxes) {
  for (std::size_t i = bvh.nodes.size(); i-- > 0;) {
    Node8& n = bvh.nodes[i];
    for (int k = 0; k < kWidth; ++k) {
      Box3f b = Box3f::empty();
      if (n.count[k] > 0) {
        for (std::uint32_t j = 0; j < n.count[k]; ++j) b.extend(boxes[bvh.prims[n.child[k] + j]]);
      } else if (n.child[k] != kInvalid) {
        const Node8& c = bvh.nodes[n.child[k]];
        for (int q = 0; q < kWidth; ++q)
          for (int a = 0; a < 3; ++a) {
            b.lo[a] = std::min(b.lo[a], c.lo[a][q]);
            b.hi[a] = std::max(b.hi[a], c.hi[a][q]);
          }
      }
      for (int a = 0; a < 3; ++a) {
        n.lo[a][k] = b.lo[a];
        n.hi[a][k] = b.hi[a];
      }
    }
  }
}

std::string validate_bvh8(const Bvh8& bvh, std::size_t num_prims) {
  if (num_prims == 0)
    return bvh.nodes.empty() && bvh.prims.empty() ? "" : "nodes without primitives";
  if (bvh.nodes.empty()) return "no nodes";
  if (bvh.prims.size() % kLeafAlign != 0) return "slot count is not a multiple of 4";
  std::vector<char> seen(num_prims, 0);
  std::size_t ids = 0;
  for (std::uint32_t p : bvh.prims) {
    if (p == kInvalid) continue;
    if (p >= num_prims || seen[p]) return "primitive order is not a permutation";
    seen[p] = 1;
    ++ids;
  }
  if (ids != num_prims)
    return "index has " + std::to_string(ids) + " primitives, mesh has " +
           std::to_string(num_prims);
  std::vector<char> covered(bvh.prims.size(), 0);
  std::vector<int> parents(bvh.nodes.size(), 0);
  for (std::size_t i = 0; i < bvh.nodes.size(); ++i) {
    const Node8& n = bvh.nodes[i];
    for (int k = 0; k < kWidth; ++k) {
      if (n.count[k] > kMaxLeafSize) return "node " + std::to_string(i) + " has an oversized leaf";
      if (n.count[k] > 0) {
        if (n.child[k] % kLeafAlign != 0)
          return "node " + std::to_string(i) + " has a leaf not aligned to 4 slots";
        if (std::size_t(n.child[k]) + n.count[k] > bvh.prims.size())
          return "node " + std::to_string(i) + " has a leaf out of range";
        for (std::uint32_t j = 0; j < n.count[k]; ++j) {
          if (covered[n.child[k] + j]) return "leaves overlap";
          if (bvh.prims[n.child[k] + j] == kInvalid) return "a leaf covers a padding slot";
          covered[n.child[k] + j] = 1;
        }
      } else if (n.child[k] != kInvalid) {
        if (n.child[k] <= i || n.child[k] >= bvh.nodes.size())
          return "node " + std::to_string(i) + " has a child index out of order";
        if (++parents[n.child[k]] > 1) return "node with two parents";
      }
    }
  }
  for (std::size_t i = 1; i < bvh.nodes.size(); ++i)
    if (parents[i] != 1) return "node " + std::to_string(i) + " is unreachable";
  // Depth: traversal stacks are sized for the builder's bound (kMaxTreeDepth).
  std::vector<int> depth(bvh.nodes.size(), 1);
  for (std::size_t i = 0; i < bvh.nodes.size(); ++i) {
    if (depth[i] > kMaxTreeDepth)
      return "tree deeper than " + std::to_string(kMaxTreeDepth) + " levels";
    for (int k = 0; k < kWidth; ++k) {
      const Node8& n = bvh.nodes[i];
      if (n.count[k] == 0 && n.child[k] != kInvalid) depth[n.child[k]] = depth[i] + 1;
    }
  }
  for (std::size_t j = 0; j < bvh.prims.size(); ++j)
    if (bvh.prims[j] != kInvalid && !covered[j]) return "a primitive is in no leaf";
  return "";
}

}  // namespace prox::bvh
