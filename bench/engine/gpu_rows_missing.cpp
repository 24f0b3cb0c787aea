// bench/engine/gpu_rows_missing.cpp — the GPU rows in a build without prox::gpu.
#include <ostream>
#include <stdexcept>

#include "gpu_rows.hpp"

namespace prox::bench {

int run_gpu_rows(const GpuRowOptions& options, std::ostream& out) {
  const char* why = "GPU rows: not built (no prox::gpu: Vulkan headers or glslc were missing at "
                    "configure time; scripts/install-deps.sh installs them)";
  if (!options.skip_without_device) throw std::runtime_error(why);
  out << why << "\n";
  return 0;
}

}  // namespace prox::bench
