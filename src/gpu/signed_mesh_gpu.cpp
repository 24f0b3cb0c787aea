// src/gpu/signed_mesh_gpu.cpp — SignedMeshGpu: the pseudonormal sign in the
// closest point's dispatch (shaders/signed_closest_point.comp), parity rays
// counted on the GPU (count_hits.comp), winding on the CPU after the GPU's
// closest points.
#include <chrono>
#include <cmath>
#include <vector>

#include <tbb/parallel_for.h>

#include "mesh_index_gpu_impl.hpp"
#include "prox/gpu/gpu.hpp"
#include "vulkan.hpp"

namespace prox::gpu {

namespace {

const std::uint32_t kSignedClosestPointSpv[] = {
#include "signed_closest_point.spv.inc"
};

/// Signs out[k] for every k in `which` (found, off the surface) by parity
/// rays counted on the GPU: SignedMesh::sign's parity branch (its vote()),
/// the rays SignedMesh::kParityDirections from the point, t in [0, inf).
void parity_on_gpu(MeshIndexGpu& g, const SignedMesh<MeshIndex<float>>& sm,
                   std::span<const Vec3<float>> points, std::span<const std::size_t> which,
                   std::span<SignedClosestPoint<float>> out) {
  const std::size_t nr = std::size_t(sm.options().parity_rays);
  const bool closed = sm.diagnostics().closed();  // SignedMesh's suits_parity
  const std::size_t chunk = std::size_t(1) << 16;  // points per count_hits call
  std::vector<Ray<float>> rays;
  std::vector<std::uint32_t> counts;
  for (std::size_t first = 0; first < which.size(); first += chunk) {
    const std::size_t n = std::min(chunk, which.size() - first);
    rays.resize(n * nr);
    counts.resize(n * nr);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t r = 0; r < nr; ++r) {
        const auto& d = SignedMesh<MeshIndex<float>>::kParityDirections[r];
        rays[j * nr + r] = Ray<float>{points[which[first + j]],
                                      Vec3<float>{float(d[0]), float(d[1]), float(d[2])}, 0.0f,
                                      ScalarTraits<float>::infinity()};
      }
    g.count_hits(rays, counts);
    for (std::size_t j = 0; j < n; ++j) {
      SignedClosestPoint<float>& s = out[which[first + j]];
      std::uint8_t inside_votes = 0;
      for (std::size_t r = 0; r < nr; ++r) inside_votes += counts[j * nr + r] % 2 == 1;
      s.votes = std::uint8_t(nr);
      s.inside_votes = inside_votes;
      s.method = SignMethod::parity;
      const bool inside = 2 * s.inside_votes > s.votes;
      const bool sure = closed && (s.inside_votes == 0 || s.inside_votes == s.votes);
      const float d = std::sqrt(s.closest.sq_distance);
      s.signed_distance = inside ? -d : d;
      s.confidence = sure ? SignConfidence::sure : SignConfidence::unsure;
    }
  }
}

}  // namespace

struct SignedMeshGpu::Impl {
  Context::Impl& c;
  Buffer welded, vertex, edge, face;
  Pipeline pipeline;

  explicit Impl(Context::Impl& ctx) : c(ctx) {}
  ~Impl() {
    c.destroy(pipeline);
    for (Buffer* b : {&welded, &vertex, &edge, &face}) c.destroy(*b);
  }
};

SignedMeshGpu::SignedMeshGpu(MeshIndexGpu& index, const SignedMesh<MeshIndex<float>>& signer)
    : index_(index), signer_(signer) {
  if (&signer.index() != &index.index_)
    throw std::invalid_argument(
        "gpu::SignedMeshGpu: the SignedMesh wraps another MeshIndex than the one uploaded");
  on_gpu_ = (signer.method() == SignMethod::pseudonormal ||
             signer.method() == SignMethod::parity) &&
            !index.impl_->empty;
  if (!on_gpu_ || signer.method() != SignMethod::pseudonormal) return;
  const auto start = std::chrono::steady_clock::now();
  Context::Impl& c = index.context_.impl();
  impl_ = std::make_unique<Impl>(c);
  const Pseudonormals& n = signer.normals();
  const std::size_t nt = index.index_.mesh().num_triangles();
  if (n.welded.size() != 3 * nt || n.edge.size() != 9 * nt || n.face.size() != 3 * nt)
    throw std::logic_error("gpu::SignedMeshGpu: the pseudonormal table does not match the mesh");
  impl_->pipeline = c.cached_pipeline(kSignedClosestPointSpv, 9, 8);
  impl_->welded = detail::upload_buffer(c, std::span(n.welded), uploaded_bytes_);
  impl_->vertex = detail::upload_buffer(c, std::span(n.vertex), uploaded_bytes_);
  impl_->edge = detail::upload_buffer(c, std::span(n.edge), uploaded_bytes_);
  impl_->face = detail::upload_buffer(c, std::span(n.face), uploaded_bytes_);
  upload_seconds_ = detail::seconds_since(start);
}

SignedMeshGpu::~SignedMeshGpu() = default;

void SignedMeshGpu::query(std::span<const Vec3<float>> points,
                          std::span<SignedClosestPoint<float>> out, float max_distance) {
  detail::check_sizes("SignedMeshGpu::query", points.size(), "points", out.size());
  index_.far_queries_.clear();
  if (!on_gpu_) {
    // Winding or no inside: the GPU's closest points, signed on the CPU.
    std::vector<MeshClosestPoint<float>> cp(points.size());
    index_.closest_point(points, cp, max_distance);
    tbb::parallel_for(std::size_t(0), points.size(),
                      [&](std::size_t i) { out[i] = signer_.sign(points[i], cp[i]); });
    cpu_signs_ += points.size();
    return;
  }
  if (points.empty()) return;
  std::vector<std::size_t> parity;  // points the parity rays sign
  if (signer_.method() == SignMethod::parity)
    query_parity(points, out, max_distance, parity);
  else
    query_pseudonormal(points, out, max_distance, parity);
  parity_on_gpu(index_, signer_, points, parity, out);
  parity_signs_ += parity.size();
}

void SignedMeshGpu::query_parity(std::span<const Vec3<float>> points,
                                 std::span<SignedClosestPoint<float>> out, float max_distance,
                                 std::vector<std::size_t>& parity) {
  std::vector<MeshClosestPoint<float>> cp(points.size());
  index_.closest_point(points, cp, max_distance);
  for (std::size_t i = 0; i < points.size(); ++i) {
    SignedClosestPoint<float>& s = out[i];
    s = SignedClosestPoint<float>{};
    s.closest = cp[i];
    if (!cp[i].found()) continue;  // a miss: nothing signed, as SignedMesh::sign
    s.method = SignMethod::parity;
    if (std::sqrt(cp[i].sq_distance) == 0.0f) {  // on the surface
      s.signed_distance = 0.0f;
      s.confidence = SignConfidence::sure;
    } else {
      parity.push_back(i);
    }
  }
}

void SignedMeshGpu::query_pseudonormal(std::span<const Vec3<float>> points,
                                       std::span<SignedClosestPoint<float>> out,
                                       float max_distance, std::vector<std::size_t>& parity) {
  MeshIndexGpu::Impl& m = *index_.impl_;
  const std::size_t batch = std::min(index_.batch_, points.size());
  m.reserve(batch);
  {
    const Buffer* b[9] = {&m.nodes,       &m.prims,        &m.packs,      &m.queries, &m.results,
                          &impl_->welded, &impl_->vertex, &impl_->edge, &impl_->face};
    m.c.bind(impl_->pipeline, b);  // the batch buffers may have been reallocated
  }
  const bool exact = signer_.sign_is_exact();
  std::vector<std::size_t> cpu;  // queries of this batch the CPU answers
  std::vector<std::size_t> check;  // pseudonormal signs of this batch to certify
  std::vector<unsigned char> doubt;
  index_.far_queries_.clear();
  for (std::size_t first = 0; first < points.size(); first += batch) {
    const std::size_t n = std::min(batch, points.size() - first);
    detail::write_points(m.queries.mapped, points.subspan(first, n), max_distance);
    m.run(impl_->pipeline, std::uint32_t(n), 0);
    const auto* r = static_cast<const detail::SignedOut*>(m.results.mapped);
    cpu.clear();
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t k = first + i;
      SignedClosestPoint<float>& s = out[k];
      if (detail::needs_cpu(r[i].status)) {  // stack overflow, far re-solve
        cpu.push_back(k);
        if (r[i].status == detail::kFarSolve) index_.far_queries_.push_back(k);
        continue;
      }
      s = SignedClosestPoint<float>{};
      s.closest = detail::to_closest(r[i]);
      if (!s.closest.found()) continue;  // a miss: nothing signed, as SignedMesh::sign
      // SignedMesh::sign's pseudonormal branch, with the product's sign from the GPU.
      const float d = std::sqrt(s.closest.sq_distance);
      s.method = SignMethod::pseudonormal;
      if (d == 0.0f) {
        s.signed_distance = 0.0f;
        s.confidence = SignConfidence::sure;
      } else if (r[i].sign == 0) {
        parity.push_back(k);  // no normal here: the rays decide
      } else {
        s.signed_distance = r[i].sign < 0 ? -d : d;
        s.confidence = exact ? SignConfidence::sure : SignConfidence::unsure;
        if (exact) check.push_back(k);
      }
    }
    // SignedMesh::sign's certificate of a pseudonormal sign (near-surface
    // points, small products, near ties between sheets): on the CPU, on all
    // cores; the points it cannot certify go to the rays.
    doubt.assign(check.size(), 0);
    tbb::parallel_for(std::size_t(0), check.size(), [&](std::size_t j) {
      const std::size_t k = check[j];
      doubt[j] = !signer_.pseudonormal_certain(
          points[k], out[k].closest, signer_.pseudonormal_product(points[k], out[k].closest));
    });
    for (std::size_t j = 0; j < check.size(); ++j)
      if (doubt[j]) parity.push_back(check[j]);
    check.clear();
    // The whole query on the CPU (SignedMesh::query), on all cores.
    tbb::parallel_for(std::size_t(0), cpu.size(), [&](std::size_t j) {
      out[cpu[j]] = signer_.query(points[cpu[j]], max_distance);
    });
    index_.cpu_fallbacks_ += cpu.size();
    cpu_signs_ += cpu.size();
  }
  index_.far_fallbacks_ += index_.far_queries_.size();
}

}  // namespace prox::gpu
