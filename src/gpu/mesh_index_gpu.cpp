// src/gpu/mesh_index_gpu.cpp — MeshIndexGpu: the flat layout uploaded once,
// queries streamed in batches through the embedded compute shaders.
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include <tbb/parallel_for.h>

#include "prox/gpu/gpu.hpp"
#include "prox/mesh/fast_winding.hpp"
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
const std::uint32_t kCountHitsSpv[] = {
#include "count_hits.spv.inc"
};

using detail::ClosestOut;
using detail::CountOut;
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
  m.crossings = m.c.cached_pipeline(kCountHitsSpv, 5, 8);
  if (!m.empty) {
    m.nodes = detail::upload_buffer(m.c, x.nodes, uploaded_bytes_);
    m.prims = detail::upload_buffer(m.c, x.prims, uploaded_bytes_);
    m.packs = detail::upload_buffer(m.c, x.packs, uploaded_bytes_);
  }
  upload_seconds_ = detail::seconds_since(start);
}

MeshIndexGpu::~MeshIndexGpu() = default;

void MeshIndexGpu::closest_point(std::span<const Vec3<float>> points,
                                 std::span<MeshClosestPoint<float>> out, float max_distance) {
  detail::check_sizes("closest_point", points.size(), "points", out.size());
  Impl& m = *impl_;
  far_queries_.clear();
  if (m.empty) {
    for (auto& r : out) r = MeshClosestPoint<float>{};
    return;
  }
  const std::size_t batch = std::min(batch_, points.size());
  m.reserve(batch);
  std::vector<std::size_t> cpu;  // queries of this batch the CPU answers
  for (std::size_t first = 0; first < points.size(); first += batch) {
    const std::size_t n = std::min(batch, points.size() - first);
    detail::write_points(m.queries.mapped, points.subspan(first, n), max_distance);
    m.run(m.closest, std::uint32_t(n), 0);
    const ClosestOut* r = static_cast<const ClosestOut*>(m.results.mapped);
    cpu.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (detail::needs_cpu(r[i].status)) {
        cpu.push_back(first + i);
        if (r[i].status == detail::kFarSolve) far_queries_.push_back(first + i);
        continue;
      }
      out[first + i] = detail::to_closest(r[i]);
    }
    // The CPU's answers (MeshIndex<float>, the reference): stack overflows and
    // searches that met a triangle on the far re-solve path (a far-corner soup
    // sends most of its queries here), on all cores.
    tbb::parallel_for(std::size_t(0), cpu.size(), [&](std::size_t j) {
      out[cpu[j]] = index_.closest_point(points[cpu[j]], max_distance);
    });
    cpu_fallbacks_ += cpu.size();
  }
  far_fallbacks_ += far_queries_.size();
}

namespace {
/// Runs pipeline p (a ray shader: first_hit.comp or count_hits.comp) over the
/// rays in batches; on_result(i, result) for each, Out the shader's result.
template <class Out, class OnResult>
void trace(MeshIndexGpu::Impl& m, const Pipeline& p, std::size_t batch_size,
           std::span<const Ray<float>> rays, std::uint32_t mode, OnResult&& on_result) {
  if (rays.empty()) return;
  const std::size_t batch = std::min(batch_size, rays.size());
  m.reserve(batch);
  for (std::size_t first = 0; first < rays.size(); first += batch) {
    const std::size_t n = std::min(batch, rays.size() - first);
    detail::write_rays(m.queries.mapped, rays.subspan(first, n));
    m.run(p, std::uint32_t(n), mode);
    const Out* h = static_cast<const Out*>(m.results.mapped);
    for (std::size_t i = 0; i < n; ++i) on_result(first + i, h[i]);
  }
}
}  // namespace

void MeshIndexGpu::first_hit(std::span<const Ray<float>> rays, std::span<MeshRayHit<float>> out) {
  detail::check_sizes("first_hit", rays.size(), "rays", out.size());
  if (impl_->empty) {
    for (auto& r : out) r = MeshRayHit<float>{};
    return;
  }
  trace<HitOut>(*impl_, impl_->rays, batch_, rays, 0, [&](std::size_t i, const HitOut& h) {
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
  detail::check_sizes("any_hit", rays.size(), "rays", out.size());
  if (impl_->empty) {
    for (auto& r : out) r = 0;
    return;
  }
  trace<HitOut>(*impl_, impl_->rays, batch_, rays, 1, [&](std::size_t i, const HitOut& h) {
    if (h.status == kStackOverflow) {
      out[i] = index_.any_hit(rays[i]) ? 1 : 0;
      ++cpu_fallbacks_;
      return;
    }
    out[i] = h.triangle >= 0 ? 1 : 0;
  });
}

void MeshIndexGpu::count_hits(std::span<const Ray<float>> rays, std::span<std::uint32_t> out) {
  detail::check_sizes("count_hits", rays.size(), "rays", out.size());
  if (impl_->empty) {
    for (auto& r : out) r = 0;
    return;
  }
  trace<CountOut>(*impl_, impl_->crossings, batch_, rays, 0, [&](std::size_t i, const CountOut& c) {
    if (c.status == kStackOverflow) {
      out[i] = std::uint32_t(index_.count_hits(rays[i]));
      ++cpu_fallbacks_;
      return;
    }
    out[i] = c.count;
  });
}

void MeshIndexGpu::signed_distance(std::span<const Vec3<float>> points,
                                   std::span<MeshSignedDistance<float>> out) {
  detail::check_sizes("signed_distance", points.size(), "points", out.size());
  std::vector<MeshClosestPoint<float>> cp(points.size());
  closest_point(points, cp);
  const std::shared_ptr<const FastWindingNumber<float>> fast = index_.fast_winding();
  // MeshIndex::signed_distance's rule (src/mesh/mesh_index.cpp): a point
  // outside prox's range is a miss; the certified winding number
  // (FastWindingNumber::decide_sign); inside when |w| >= 1/2.
  tbb::parallel_for(std::size_t(0), points.size(), [&](std::size_t i) {
    MeshSignedDistance<float> s;
    if (CoordinateRange<float>::contains(points[i])) {
      const float w = fast->decide_sign(points[i]).winding_number;
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
