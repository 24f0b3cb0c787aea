// src/gpu/signed_mesh_gpu.cpp — SignedMeshGpu: the pseudonormal sign in the
// closest point's dispatch (shaders/signed_closest_point.comp), the other
// methods on the CPU after the GPU's closest points.
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

template <class T>
void upload_table(Context::Impl& c, Buffer& b, const std::vector<T>& v, std::size_t& bytes) {
  const std::span<const std::byte> s = std::as_bytes(std::span<const T>(v));
  b = c.create_buffer(s.size(), Memory::device_local);
  if (!s.empty()) c.upload(b, s);
  bytes += s.size();
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
  on_gpu_ = signer.method() == SignMethod::pseudonormal && !index.impl_->empty;
  if (!on_gpu_) return;
  const auto start = std::chrono::steady_clock::now();
  Context::Impl& c = index.context_.impl();
  impl_ = std::make_unique<Impl>(c);
  const Pseudonormals& n = signer.normals();
  const std::size_t nt = index.index_.mesh().num_triangles();
  if (n.welded.size() != 3 * nt || n.edge.size() != 9 * nt || n.face.size() != 3 * nt)
    throw std::logic_error("gpu::SignedMeshGpu: the pseudonormal table does not match the mesh");
  impl_->pipeline = c.cached_pipeline(kSignedClosestPointSpv, 9, 8);
  upload_table(c, impl_->welded, n.welded, uploaded_bytes_);
  upload_table(c, impl_->vertex, n.vertex, uploaded_bytes_);
  upload_table(c, impl_->edge, n.edge, uploaded_bytes_);
  upload_table(c, impl_->face, n.face, uploaded_bytes_);
  upload_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

SignedMeshGpu::~SignedMeshGpu() = default;

void SignedMeshGpu::query(std::span<const Vec3<float>> points,
                          std::span<SignedClosestPoint<float>> out, float max_distance) {
  if (points.size() != out.size())
    throw std::invalid_argument("gpu::SignedMeshGpu::query: " + std::to_string(points.size()) +
                                " points but " + std::to_string(out.size()) + " results");
  if (!on_gpu_) {
    // Winding, parity or no inside: the GPU's closest points, signed on the CPU.
    std::vector<MeshClosestPoint<float>> cp(points.size());
    index_.closest_point(points, cp, max_distance);
    tbb::parallel_for(std::size_t(0), points.size(),
                      [&](std::size_t i) { out[i] = signer_.sign(points[i], cp[i]); });
    cpu_signs_ += points.size();
    return;
  }
  if (points.empty()) return;
  MeshIndexGpu::Impl& m = *index_.impl_;
  const std::size_t batch = std::min(index_.batch_, points.size());
  m.reserve(batch);
  {
    const Buffer* b[9] = {&m.nodes,       &m.prims,        &m.packs,      &m.queries, &m.results,
                          &impl_->welded, &impl_->vertex, &impl_->edge, &impl_->face};
    m.c.bind(impl_->pipeline, b);  // the batch buffers may have been reallocated
  }
  const bool exact = signer_.sign_is_exact();
  std::vector<std::size_t> on_cpu;  // zero products: SignedMesh::sign casts parity rays
  for (std::size_t first = 0; first < points.size(); first += batch) {
    const std::size_t n = std::min(batch, points.size() - first);
    float* q = static_cast<float*>(m.queries.mapped);
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3<float>& p = points[first + i];
      q[4 * i] = p[0], q[4 * i + 1] = p[1], q[4 * i + 2] = p[2], q[4 * i + 3] = max_distance;
    }
    m.run(impl_->pipeline, std::uint32_t(n), 0);
    const auto* r = static_cast<const detail::SignedOut*>(m.results.mapped);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t k = first + i;
      SignedClosestPoint<float>& s = out[k];
      if (r[i].status == detail::kStackOverflow) {
        s = signer_.query(points[k], max_distance);
        ++index_.cpu_fallbacks_;
        ++cpu_signs_;
        continue;
      }
      s = SignedClosestPoint<float>{};
      if (r[i].triangle < 0) continue;  // a miss: nothing signed, as SignedMesh::sign
      MeshClosestPoint<float>& cp = s.closest;
      cp.point = Vec3<float>{r[i].px, r[i].py, r[i].pz};
      cp.sq_distance = r[i].sq_distance;
      cp.bary = Vec3<float>{r[i].bx, r[i].by, r[i].bz};
      cp.triangle = r[i].triangle;
      cp.feature = Feature(r[i].feature);
      // SignedMesh::sign's pseudonormal branch, with the product's sign from the GPU.
      const float d = std::sqrt(cp.sq_distance);
      s.method = SignMethod::pseudonormal;
      if (d == 0.0f) {
        s.signed_distance = 0.0f;
        s.confidence = SignConfidence::sure;
      } else if (r[i].sign == 0) {
        on_cpu.push_back(k);
      } else {
        s.signed_distance = r[i].sign < 0 ? -d : d;
        s.confidence = exact ? SignConfidence::sure : SignConfidence::unsure;
      }
    }
  }
  tbb::parallel_for(std::size_t(0), on_cpu.size(), [&](std::size_t j) {
    const std::size_t k = on_cpu[j];
    out[k] = signer_.sign(points[k], out[k].closest);
  });
  cpu_signs_ += on_cpu.size();
}

}  // namespace prox::gpu
