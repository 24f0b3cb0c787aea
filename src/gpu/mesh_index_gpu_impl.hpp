// src/gpu/mesh_index_gpu_impl.hpp — MeshIndexGpu's device state (the flat
// index's buffers, the query/result buffers of one batch, its pipelines) and
// the result layouts of the shaders, and the helpers both query classes use:
// shared by mesh_index_gpu.cpp and signed_mesh_gpu.cpp. Internal to prox::gpu.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "prox/gpu/gpu.hpp"
#include "vulkan.hpp"

namespace prox::gpu {

namespace detail {

struct ClosestOut {  // closest_point.comp's ClosestOut
  float px, py, pz, sq_distance;
  float bx, by, bz;
  std::int32_t triangle;
  std::uint32_t feature, status, pad0, pad1;
};
static_assert(sizeof(ClosestOut) == 48);
struct HitOut {  // first_hit.comp's HitOut
  float t, u, v;
  std::int32_t triangle;
  std::uint32_t front_face, status, pad0, pad1;
};
static_assert(sizeof(HitOut) == 32);
struct SignedOut {  // signed_closest_point.comp's SignedOut: ClosestOut and the sign
  float px, py, pz, sq_distance;
  float bx, by, bz;
  std::int32_t triangle;
  std::uint32_t feature, status;
  std::int32_t sign;  // -1 inside, 1 outside, 0 undecided (zero product) or a miss
  std::uint32_t pad;
};
static_assert(sizeof(SignedOut) == sizeof(ClosestOut));
struct CountOut {  // count_hits.comp's CountOut
  std::uint32_t count, status;
};
static_assert(sizeof(CountOut) <= sizeof(ClosestOut));

constexpr std::uint32_t kGroup = 64;  // local_size_x of every shader
// PROX_STATUS_* (shaders/prox/flat_index.glsl).
constexpr std::uint32_t kOk = 0;
constexpr std::uint32_t kStackOverflow = 1;
constexpr std::uint32_t kFarSolve = 2;  // closest point: met a far re-solve triangle

/// Whether a closest-point result must be answered on the CPU (its status is
/// kStackOverflow or kFarSolve); throws std::logic_error on any other status
/// than those and kOk (a shader that does not match this library).
inline bool needs_cpu(std::uint32_t status) {
  if (status == kOk) return false;
  if (status == kStackOverflow || status == kFarSolve) return true;
  throw std::logic_error("gpu: the closest-point shader returned unknown status " +
                         std::to_string(status));
}

/// Throws std::invalid_argument "gpu::WHAT: N ITEMS but M results" unless n == m.
inline void check_sizes(const char* what, std::size_t n, const char* items, std::size_t m) {
  if (n != m)
    throw std::invalid_argument(std::string("gpu::") + what + ": " + std::to_string(n) + " " +
                                items + " but " + std::to_string(m) + " results");
}

/// Wall-clock seconds since `start` (upload_seconds()).
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// A device-local buffer holding `bytes` (uploaded now); adds their size to total.
inline Buffer upload_buffer(Context::Impl& c, std::span<const std::byte> bytes, std::size_t& total) {
  Buffer b = c.create_buffer(bytes.size(), Memory::device_local);
  if (!bytes.empty()) c.upload(b, bytes);
  total += bytes.size();
  return b;
}
template <class T>
Buffer upload_buffer(Context::Impl& c, std::span<const T> v, std::size_t& total) {
  return upload_buffer(c, std::as_bytes(v), total);
}

/// The point queries of one batch (x, y, z, max_distance as vec4) into the mapped buffer.
inline void write_points(void* mapped, std::span<const Vec3<float>> points, float max_distance) {
  float* q = static_cast<float*>(mapped);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Vec3<float>& p = points[i];
    q[4 * i] = p[0], q[4 * i + 1] = p[1], q[4 * i + 2] = p[2], q[4 * i + 3] = max_distance;
  }
}

/// The ray queries of one batch ((origin, t_min), (direction, t_max)) into the mapped buffer.
inline void write_rays(void* mapped, std::span<const Ray<float>> rays) {
  float* q = static_cast<float*>(mapped);
  for (std::size_t i = 0; i < rays.size(); ++i) {
    const Ray<float>& r = rays[i];
    float* e = q + 8 * i;
    e[0] = r.origin[0], e[1] = r.origin[1], e[2] = r.origin[2], e[3] = r.t_min;
    e[4] = r.direction[0], e[5] = r.direction[1], e[6] = r.direction[2], e[7] = r.t_max;
  }
}

/// A shader's closest-point result (ClosestOut or SignedOut) as MeshClosestPoint.
template <class Out>
MeshClosestPoint<float> to_closest(const Out& r) {
  MeshClosestPoint<float> o;
  if (r.triangle < 0) return o;
  o.point = Vec3<float>{r.px, r.py, r.pz};
  o.sq_distance = r.sq_distance;
  o.bary = Vec3<float>{r.bx, r.by, r.bz};
  o.triangle = r.triangle;
  o.feature = Feature(r.feature);
  return o;
}

}  // namespace detail

struct MeshIndexGpu::Impl {
  Context::Impl& c;
  Buffer nodes, prims, packs;
  Buffer queries, results;  // host-visible, sized for one batch
  std::size_t capacity = 0;  // queries per batch the buffers hold
  Pipeline closest, rays, crossings;
  bool empty = false;

  explicit Impl(Context::Impl& ctx) : c(ctx) {}
  ~Impl() {
    c.destroy(closest);
    c.destroy(rays);
    c.destroy(crossings);
    for (Buffer* b : {&nodes, &prims, &packs, &queries, &results}) c.destroy(*b);
  }

  /// Buffers for n queries at a time (vec4 x 2 in, 48 bytes out at most).
  void reserve(std::size_t n) {
    if (n <= capacity) return;
    c.destroy(queries);
    c.destroy(results);
    queries = c.create_buffer(n * 32, Memory::host_upload);
    results = c.create_buffer(n * sizeof(detail::ClosestOut), Memory::host_readback);
    if (!queries.mapped || !results.mapped) throw GpuError("gpu: no host-visible memory for queries");
    capacity = n;
    const Buffer* b[5] = {&nodes, &prims, &packs, &queries, &results};
    c.bind(closest, b);
    c.bind(rays, b);
    c.bind(crossings, b);
  }

  void run(const Pipeline& p, std::uint32_t count, std::uint32_t mode) {
    const std::uint32_t push[2] = {count, mode};
    const std::uint32_t groups = (count + detail::kGroup - 1) / detail::kGroup;
    c.submit_and_wait([&](VkCommandBuffer cmd) {
      c.record_dispatch(cmd, p, std::as_bytes(std::span<const std::uint32_t>(push)), groups);
    });
    c.invalidate(results);
  }
};

}  // namespace prox::gpu
