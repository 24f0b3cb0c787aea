// python/src/gpu_device.cpp — device="gpu" through prox::gpu (see gpu_device.hpp),
// or, in a module built without prox::gpu, entries that say so.
#include "gpu_device.hpp"

#include <mutex>
#include <stdexcept>
#include <utility>

#ifndef PROX_PYTHON_GPU
#define PROX_PYTHON_GPU 0
#endif
#if PROX_PYTHON_GPU
#include "prox/gpu/gpu.hpp"
#endif

namespace prox::python {

bool gpu_built() { return PROX_PYTHON_GPU != 0; }

bool parse_device(const std::string& device) {
  if (device == "cpu") return false;
  if (device == "gpu") return true;
  throw std::invalid_argument("device must be 'cpu' or 'gpu', got '" + device + "'");
}

#if PROX_PYTHON_GPU

namespace {

/// Every use of the context and of the indexes uploaded to it holds this.
std::mutex& gpu_mutex() {
  static std::mutex m;
  return m;
}

/// The process-wide context (caller holds gpu_mutex). Made on first use; a
/// failed attempt is not remembered, so a later call tries again (after the
/// user installed a driver or set VK_ICD_FILENAMES, say). Never destroyed: the
/// process keeps it to the end, as the driver keeps its own state.
gpu::Context& context() {
  static gpu::Context* ctx = nullptr;
  if (!ctx) {
    try {
      ctx = new gpu::Context();
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("device='gpu': ") + e.what());
    }
  }
  return *ctx;
}

/// Runs fn under the lock, with prox::gpu's errors named as device='gpu' ones.
template <class Fn>
auto locked(Fn&& fn) {
  std::lock_guard<std::mutex> lock(gpu_mutex());
  try {
    return fn();
  } catch (const gpu::GpuError& e) {
    throw std::runtime_error(std::string("device='gpu': ") + e.what());
  }
}

}  // namespace

struct GpuIndex::Impl {
  gpu::MeshIndexGpu device;
  Impl(gpu::Context& c, const MeshIndex<float>& index) : device(c, index) {}
};

std::string gpu_device_summary() {
  return locked([] { return context().device().summary(); });
}

GpuIndex::GpuIndex(std::shared_ptr<const MeshIndex<float>> index) : index_(std::move(index)) {
  impl_ = locked([&] { return std::make_unique<Impl>(context(), *index_); });
}

GpuIndex::~GpuIndex() {
  std::lock_guard<std::mutex> lock(gpu_mutex());
  impl_.reset();
}

void GpuIndex::closest_point(std::span<const Vec3<float>> points,
                             std::span<MeshClosestPoint<float>> out, float max_distance) {
  locked([&] { impl_->device.closest_point(points, out, max_distance); });
}

void GpuIndex::first_hit(std::span<const Ray<float>> rays, std::span<MeshRayHit<float>> out) {
  locked([&] { impl_->device.first_hit(rays, out); });
}

void GpuIndex::any_hit(std::span<const Ray<float>> rays, std::span<std::uint8_t> out) {
  locked([&] { impl_->device.any_hit(rays, out); });
}

void GpuIndex::count_hits(std::span<const Ray<float>> rays, std::span<std::uint32_t> out) {
  locked([&] { impl_->device.count_hits(rays, out); });
}

void GpuIndex::signed_closest_point(const SignedMesh<MeshIndex<float>>& signer,
                                    std::span<const Vec3<float>> points,
                                    std::span<SignedClosestPoint<float>> out) {
  locked([&] { impl_->device.signed_closest_point(signer, points, out); });
}

#else  // no prox::gpu in this build

namespace {
[[noreturn]] void missing() {
  throw std::runtime_error(
      "device='gpu': this prox module was built without prox::gpu (Vulkan headers and glslc "
      "were not found when it was built; scripts/install-deps.sh installs them)");
}
}  // namespace

struct GpuIndex::Impl {};

std::string gpu_device_summary() { missing(); }
GpuIndex::GpuIndex(std::shared_ptr<const MeshIndex<float>> index) : index_(std::move(index)) {
  missing();
}
GpuIndex::~GpuIndex() = default;
void GpuIndex::closest_point(std::span<const Vec3<float>>, std::span<MeshClosestPoint<float>>,
                             float) {
  missing();
}
void GpuIndex::first_hit(std::span<const Ray<float>>, std::span<MeshRayHit<float>>) { missing(); }
void GpuIndex::any_hit(std::span<const Ray<float>>, std::span<std::uint8_t>) { missing(); }
void GpuIndex::count_hits(std::span<const Ray<float>>, std::span<std::uint32_t>) { missing(); }
void GpuIndex::signed_closest_point(const SignedMesh<MeshIndex<float>>&,
                                    std::span<const Vec3<float>>,
                                    std::span<SignedClosestPoint<float>>) {
  missing();
}

#endif

}  // namespace prox::python
