// python/src/gpu_device.hpp — the device="gpu" side of the bindings.
//
// One process-wide prox::gpu::Context, made on the first GPU call and kept to
// the end of the process (Vulkan drivers keep process-wide state), and one
// GpuIndex per mesh: a MeshIndex<float> uploaded to it once. A Context is used
// by one thread at a time, so every call here takes one process-wide lock;
// callers release the GIL first (nothing here needs it), so a thread waiting
// for the lock never holds the GIL.
//
// The answers are prox::gpu's: those of MeshIndex<float> (docs/gpu.md). Without
// a Vulkan device every entry throws std::runtime_error (Python's RuntimeError)
// "device='gpu': gpu: no Vulkan device (...)" or "...: no Vulkan loader (...)";
// in a module built without prox::gpu (no Vulkan headers or glslc at build
// time; PROX_PYTHON_GPU 0) it says that instead.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "prox/core/ray.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/results.hpp"
#include "prox/mesh/sign.hpp"

namespace prox::python {

/// Whether this module was built with prox::gpu.
bool gpu_built();

/// "cpu" -> false, "gpu" -> true; anything else std::invalid_argument.
bool parse_device(const std::string& device);

/// The GPU the process uses ("NAME (TYPE, Vulkan X.Y.Z)"), making the context
/// on first use; throws std::runtime_error as above when there is none.
std::string gpu_device_summary();

/// A MeshIndex<float> uploaded to the process-wide context.
class GpuIndex {
 public:
  /// Uploads `index` (kept alive by this object). Throws as above.
  explicit GpuIndex(std::shared_ptr<const MeshIndex<float>> index);
  ~GpuIndex();
  GpuIndex(const GpuIndex&) = delete;
  GpuIndex& operator=(const GpuIndex&) = delete;

  const MeshIndex<float>& index() const { return *index_; }

  void closest_point(std::span<const Vec3<float>> points, std::span<MeshClosestPoint<float>> out,
                     float max_distance);
  void first_hit(std::span<const Ray<float>> rays, std::span<MeshRayHit<float>> out);
  void any_hit(std::span<const Ray<float>> rays, std::span<std::uint8_t> out);
  void count_hits(std::span<const Ray<float>> rays, std::span<std::uint32_t> out);
  /// signer must wrap index().
  void signed_closest_point(const SignedMesh<MeshIndex<float>>& signer,
                            std::span<const Vec3<float>> points,
                            std::span<SignedClosestPoint<float>> out);

  struct Impl;

 private:
  std::shared_ptr<const MeshIndex<float>> index_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace prox::python
