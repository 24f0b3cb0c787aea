// prox/bvh/build_options.hpp — how a BVH is built, and what the build produced.
#pragma once

#include <cstddef>

namespace prox {

/// Options of the binned-SAH build (defaults are what the benchmark uses).
struct BuildOptions {
  int max_leaf_size = 8;  ///< triangles per leaf at most (1..16)
  int sah_bins = 8;       ///< SAH bins per axis (4..64)
  int threads = 0;        ///< build threads; 0 = all cores
};

/// Figures of a built index.
struct BuildStats {
  std::size_t nodes = 0;        ///< wide (8-child) nodes
  std::size_t leaves = 0;       ///< leaves (groups of <= max_leaf_size primitives)
  std::size_t primitives = 0;   ///< primitives indexed
  int depth = 0;                ///< wide-node levels, root = 1 (0: empty)
  double build_ms = 0;          ///< wall time of the build (or refit/load)
  double sah_cost = 0;          ///< SAH cost of the binary tree, relative to the root area
};

}  // namespace prox
