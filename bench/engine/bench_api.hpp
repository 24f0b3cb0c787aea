// bench/engine/bench_api.hpp — the peer benchmark as a library call.
//
// prox::bench::run() measures WORKLOADS.md (meshes x query workloads) for prox
// beside Embree 3 and CGAL's AABB_tree in one process, and prints one table:
// build ms, bytes per triangle, queries/s at each thread count (median of
// `runs`), prox/peer ratios, checksums, and each peer's agreement with prox's
// brute-force twin on a subsample. `prox-bench` calls it (`prox bench` runs `prox-bench`).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace prox::bench {

/// What to run. Defaults: the whole of WORKLOADS.md.
struct Options {
  std::vector<std::string> meshes{"bunny", "armadillo", "bunny-1m", "soup-1m"};
  std::vector<std::string> workloads{"cp-near", "cp-far", "ray-primary", "ray-random"};
  std::int64_t queries = 1000000;       ///< per workload (ray-primary: ~side^2 pixels)
  std::vector<int> threads{1, 2};       ///< thread counts to measure
  int runs = 3;                         ///< timed runs per figure; the median is printed
  std::vector<std::string> peers{"embree", "embree16", "cgal"};  ///< beside prox
  std::vector<std::string> precisions{"float"};      ///< prox rows: float and/or double
  std::string data_dir;                 ///< holds bunny00.off, armadillo.off; "" = extract
  std::int64_t check = 2000;            ///< subsample checked against BruteForce<double>
  bool quick = false;                   ///< smoke test: bunny only, small counts, 1 run
  bool hausdorff = false;               ///< also the Hausdorff and Chamfer rows (hausdorff_rows.cpp)
  bool hausdorff_only = false;          ///< only those rows
  bool sign = false;                    ///< also the signed distance / SDF grid rows (sign_rows.cpp)
  bool sign_only = false;               ///< only those rows
  std::vector<int> sdf_grids{128};      ///< SDF grid resolutions of bunny for those rows
  bool gpu = false;                     ///< also the GPU rows (gpu_rows.cpp; skipped without a device)
  bool gpu_only = false;                ///< only those rows
};

/// Applies --quick's settings (bunny, 2,000 queries, 1 run, 200 checks) to `options`.
void apply_quick(Options& options);

/// Runs the benchmark, printing the table to `out` and progress to `err`.
/// Returns 0, or 1 if prox disagrees with its brute-force twin beyond tolerance
/// (the table still prints); throws std::runtime_error on bad options or data.
int run(const Options& options, std::ostream& out, std::ostream& err);
/// Same, on std::cout and std::cerr.
int run(const Options& options);

}  // namespace prox::bench
