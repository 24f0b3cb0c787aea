// bench/engine/gpu_rows.hpp — the GPU rows of the benchmark (gpu_rows.cpp with
// prox::gpu, gpu_rows_missing.cpp without): `prox bench --gpu` (prox-bench)
// and prox-bench-gpu (bench/gpu) print them.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace prox::bench {

struct GpuRowOptions {
  std::vector<std::string> meshes{"bunny-1m"};
  std::vector<std::string> workloads{"cp-near", "ray-random"};
  std::size_t queries = 1000000;
  std::string data_dir;       ///< resolved (resolve_data_dir) by the caller
  int reps = 3;               ///< timed repetitions, the best reported
  int threads = 0;            ///< CPU threads of the all-cores column (0: all)
  bool skip_cpu1 = false;     ///< leave out the one-thread CPU column
  bool with_sign = false;     ///< +sign rows after point workloads (SignedMeshGpu, auto)
  bool with_count = false;    ///< +count rows after ray workloads (count_hits)
  bool skip_without_device = false;  ///< no Vulkan device: one line and 0, not an error
};

/// For each mesh and workload: the upload time, GPU queries/s and beside them
/// the CPU engine (MeshIndex<float>) on 1 and N threads, the ratio GPU / one
/// core, and every GPU answer compared with the CPU's. The device's name is in
/// every row (lavapipe: labelled as a CPU driver). Returns 0, or 1 when an
/// answer differs; throws std::runtime_error on errors (and when no Vulkan
/// device exists, unless skip_without_device).
int run_gpu_rows(const GpuRowOptions& options, std::ostream& out);

}  // namespace prox::bench
