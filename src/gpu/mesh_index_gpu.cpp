// src/gpu/mesh_index_gpu.cpp — MeshIndexGpu: the flat layout uploaded once,
// queries streamed in batches through the two embedded compute shaders.
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include <tbb/parallel_for.h>

#include "prox/gpu/gpu.hpp"
#include "mesh_index_gpu_impl.hpp"
#include "vulkan.hpp"

namespace prox::gpu {

namespace {

// SPIR-V of src/gpu/shaders/*.comp, compiled by glslc at build time.
const std::uint32_t kClosestPointSpv[] = {
#include "closest_point.spv.inc"
};
const std::uint32_t kFirstHitSpv[] = {
#include "first_hit.spv.inc"
};

template <class T>
std::span<const std::byte> bytes_of(std::span<const T> s) {
  return std::as_bytes(s);
}

using detail::ClosestOut;
using detail::HitOut;
using detail::kStackOverflow;

}  // namespace

MeshIndexGpu::MeshIndexGpu(Context& context, const MeshIndex<float>& index)
    : context_(context), index_(index) {
  const auto start = std::chrono::steady_clock::now();
  impl_ = std::make_unique<Impl>(context.impl());
  Impl& m = *impl_;
  const FlatIndex<float> x = index.layout();
  m.empty = x.nodes.empty();
  m.closest = m.c.cached_pipeline(kClosestPointSpv, 5, 8);
  m.rays = m.c.cached_pipeline(kFirstHitSpv, 5, 8);
  if (!m.empty) {
    m.nodes = m.c.create_buffer(x.nodes.size_bytes(), Memory::device_local);
    m.prims = m.c.create_buffer(x.prims.size_bytes(), Memory::device_local);
    m.packs = m.c.create_buffer(x.packs.size_bytes(), Memory::device_local);
    m.c.upload(m.nodes, bytes_of(x.nodes));
    m.c.upload(m.prims, bytes_of(x.prims));
    m.c.upload(m.packs, bytes_of(x.packs));
    uploaded_bytes_ = x.nodes.size_bytes() + x.prims.size_bytes() + x.packs.size_bytes();
  }
  upload_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

MeshIndexGpu::~MeshIndexGpu() = default;

void MeshIndexGpu::closest_point(std::span<const Vec3<float>> points,
                                 std::span<MeshClosestPoint<float>> out, float max_distance) {
  if (points.size() != out.size())
    throw std::invalid_argument("gpu::closest_point: " + std::to_string(points.size()) +
                                " points but " + std::to_string(out.size()) + " results");
  Impl& m = *impl_;
  if (m.empty) {
    for (auto& r : out) r = MeshClosestPoint<float>{};
    return;
  }
  const std::size_t batch = std::min(batch_, points.size());
  m.reserve(batch);
  for (std::size_t first = 0; first < points.size(); first += batch) {
    const std::size_t n = std::min(batch, points.size() - first);
    float* q = static_cast<float*>(m.queries.mapped);
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3<float>& p = points[first + i];
      q[4 * i] = p[0], q[4 * i + 1] = p[1], q[4 * i + 2] = p[2], q[4 * i + 3] = max_distance;
    }
    m.run(m.closest, std::uint32_t(n), 0);
    const ClosestOut* r = static_cast<const ClosestOut*>(m.results.mapped);
    for (std::size_t i = 0; i < n; ++i) {
      MeshClosestPoint<float>& o = out[first + i];
      if (r[i].status == kStackOverflow) {
        o = index_.closest_point(points[first + i], max_distance);
        ++cpu_fallbacks_;
        continue;
      }
      o = MeshClosestPoint<float>{};
      if (r[i].triangle < 0) continue;
      o.point = Vec3<float>{r[i].px, r[i].py, r[i].pz};
      o.sq_distance = r[i].sq_distance;
      o.bary = Vec3<float>{r[i].bx, r[i].by, r[i].bz};
      o.triangle = r[i].triangle;
      o.feature = Feature(r[i].feature);
    }
  }
}

namespace {
template <class OnResult>
void trace(MeshIndexGpu::Impl& m, std::size_t batch_size, std::span<const Ray<float>> rays,
           std::uint32_t mode, OnResult&& on_result) {
  const std::size_t batch = std::min(batch_size, rays.size());
  m.reserve(batch);
  for (std::size_t first = 0; first < rays.size(); first += batch) {
    const std::size_t n = std::min(batch, rays.size() - first);
    float* q = static_cast<float*>(m.queries.mapped);
    for (std::size_t i = 0; i < n; ++i) {
      const Ray<float>& r = rays[first + i];
      float* e = q + 8 * i;
      e[0] = r.origin[0], e[1] = r.origin[1], e[2] = r.origin[2], e[3] = r.t_min;
      e[4] = r.direction[0], e[5] = r.direction[1], e[6] = r.direction[2], e[7] = r.t_max;
    }
    m.run(m.rays, std::uint32_t(n), mode);
    const HitOut* h = static_cast<const HitOut*>(m.results.mapped);
    for (std::size_t i = 0; i < n; ++i) on_result(first + i, h[i]);
  }
}
}  // namespace

void MeshIndexGpu::first_hit(std::span<const Ray<float>> rays, std::span<MeshRayHit<float>> out) {
  if (rays.size() != out.size())
    throw std::invalid_argument("gpu::first_hit: " + std::to_string(rays.size()) +
                                " rays but " + std::to_string(out.size()) + " results");
  if (impl_->empty) {
    for (auto& r : out) r = MeshRayHit<float>{};
    return;
  }
  trace(*impl_, batch_, rays, 0, [&](std::size_t i, const HitOut& h) {
    if (h.status == kStackOverflow) {
      out[i] = index_.first_hit(rays[i]);
      ++cpu_fallbacks_;
      return;
    }
    MeshRayHit<float> o;
    if (h.triangle >= 0) {
      o.t = h.t;
      o.u = h.u;
      o.v = h.v;
      o.triangle = h.triangle;
      o.front_face = h.front_face != 0;
    }
    out[i] = o;
  });
}

void MeshIndexGpu::any_hit(std::span<const Ray<float>> rays, std::span<std::uint8_t> out) {
  if (rays.size() != out.size())
    throw std::invalid_argument("gpu::any_hit: " + std::to_string(rays.size()) + " rays but " +
                                std::to_string(out.size()) + " results");
  if (impl_->empty) {
    for (auto& r : out) r = 0;
    return;
  }
  trace(*impl_, batch_, rays, 1, [&](std::size_t i, const HitOut& h) {
    if (h.status == kStackOverflow) {
      out[i] = index_.any_hit(rays[i]) ? 1 : 0;
      ++cpu_fallbacks_;
      return;
    }
    out[i] = h.triangle >= 0 ? 1 : 0;
  });
}

void MeshIndexGpu::signed_distance(std::span<const Vec3<float>> points,
                                   std::span<MeshSignedDistance<float>> out) {
  if (points.size() != out.size())
    throw std::invalid_argument("gpu::signed_distance: " + std::to_string(points.size()) +
                                " points but " + std::to_string(out.size()) + " results");
  std::vector<MeshClosestPoint<float>> cp(points.size());
  closest_point(points, cp);
  index_.build_far_field();
  // MeshIndex::signed_distance's rule (src/mesh/mesh_index.cpp): a point
  // outside prox's range is a miss; the far-field winding number, the exact
  // sum when it is within 0.2 of 1/2 (or NaN); inside when |w| >= 1/2.
  tbb::parallel_for(std::size_t(0), points.size(), [&](std::size_t i) {
    MeshSignedDistance<float> s;
    if (CoordinateRange<float>::contains(points[i])) {
      float w = index_.winding_number(points[i]);
      const float aw = std::abs(w);
      if (!(aw <= 0.3f || aw >= 0.7f)) w = index_.exact_winding_number(points[i]);
      s.winding_number = w;
      if (cp[i].found()) {
        const float d = std::sqrt(cp[i].sq_distance);
        s.signed_distance = std::abs(w) >= 0.5f ? -d : d;
      }
    }
    out[i] = s;
  });
}

void MeshIndexGpu::signed_closest_point(const SignedMesh<MeshIndex<float>>& signer,
                                        std::span<const Vec3<float>> points,
                                        std::span<SignedClosestPoint<float>> out,
                                        float max_distance) {
  SignedMeshGpu(*this, signer).query(points, out, max_distance);
}

}  // namespace prox::gpu
