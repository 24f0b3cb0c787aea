// apps/gpu_device_missing.cpp — `--device gpu` in a prox built without prox::gpu.
#include <stdexcept>

#include "gpu_device.hpp"

namespace prox::cli {

namespace {
[[noreturn]] void missing() {
  throw std::runtime_error(
      "--device gpu: this prox was built without prox::gpu (Vulkan headers and glslc were not "
      "found at build time; scripts/install-deps.sh installs them)");
}
}  // namespace

void add_device_option(CLI::App& app, std::string& device) {
  app.add_option("--device", device, "cpu (default) or gpu (not built in this prox)")
      ->check(CLI::IsMember({"cpu", "gpu"}));
}
void gpu_closest(const TriangleMesh<double>&, std::span<const Vec3d>, double,
                 std::span<MeshClosestPoint<double>>, const SignChoice*, const std::string&,
                 std::span<SignedClosestPoint<double>>) {
  missing();
}
void gpu_first_hits(const TriangleMesh<double>&, std::span<const Ray<double>>,
                    std::span<MeshRayHit<double>>) {
  missing();
}
void gpu_any_hits(const TriangleMesh<double>&, std::span<const Ray<double>>,
                  std::span<std::uint8_t>) {
  missing();
}
void gpu_count_hits(const TriangleMesh<double>&, std::span<const Ray<double>>,
                    std::span<std::uint32_t>) {
  missing();
}

}  // namespace prox::cli
