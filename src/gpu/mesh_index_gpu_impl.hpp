// src/gpu/mesh_index_gpu_impl.hpp — MeshIndexGpu's device state (the flat
// index's buffers, the query/result buffers of one batch, its pipelines) and
// the result layouts of the shaders: shared by mesh_index_gpu.cpp and
// signed_mesh_gpu.cpp. Internal to prox::gpu.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

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

constexpr std::uint32_t kGroup = 64;  // local_size_x of every shader
constexpr std::uint32_t kStackOverflow = 1;

}  // namespace detail

struct MeshIndexGpu::Impl {
  Context::Impl& c;
  Buffer nodes, prims, packs;
  Buffer queries, results;  // host-visible, sized for one batch
  std::size_t capacity = 0;  // queries per batch the buffers hold
  Pipeline closest, rays;
  bool empty = false;

  explicit Impl(Context::Impl& ctx) : c(ctx) {}
  ~Impl() {
    c.destroy(closest);
    c.destroy(rays);
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
