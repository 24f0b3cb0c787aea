// prox/gpu/gpu.hpp — batch mesh queries on a GPU through Vulkan compute.
//
// prox::gpu runs the GLSL twins of prox's kernels (shaders/prox/*.glsl) over
// the engine's flat layout (MeshIndex<float>::layout(), uploaded unchanged),
// so its answers are the CPU's: closest_point, first_hit, any_hit and
// count_hits equal MeshIndex<float> (same triangle; same point, distance,
// barycentrics and feature, or t, u, v and side; the same crossing count) on a
// device that rounds IEEE float/double as
// the Vulkan spec's correctly rounded operations do; the tests check this on
// Mesa's lavapipe. Float denormals: a device that flushes them (lavapipe,
// Vulkan's default) may differ on values below 2^-126. docs/gpu.md says more.
// Queries whose traversal would overflow the shader's fixed stack, and
// closest-point queries whose search meets a triangle on the kernel's far
// re-solve path (corners 2^10 times farther than the answer and the query:
// slivers and huge triangles; the traversal shader does not run that
// re-solve, docs/gpu.md), are answered on the CPU by the MeshIndex
// (cpu_fallbacks() counts them, far_fallbacks() the second kind).
// Signs: SignedMeshGpu (and signed_closest_point) is SignedMesh::query field
// for field; with the pseudonormal method (what `auto` picks on a closed,
// consistently and outward oriented mesh) the sign is computed on the GPU in
// the closest point's dispatch (the closest feature's pseudonormal, one double
// dot product, prox/pseudonormal_sign.glsl); points whose product is exactly
// 0 are signed by parity rays, as SignedMesh does. With the parity method (and
// for those points) the parity rays are counted on the GPU (count_hits). The
// winding method signs on the CPU. signed_distance is
// MeshIndex::signed_distance (GPU distance, the CPU's winding number).
//
// The Vulkan loader (libvulkan.so.1) is opened at run time: a program linked
// with prox::gpu starts on machines without Vulkan, and Context() throws
// GpuError naming what is missing. Device choice: PROX_GPU_DEVICE (an index
// or a substring of the device name), else the first discrete GPU, else
// integrated, else any (lavapipe). Requires shaderFloat64.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "prox/core/ray.hpp"
#include "prox/core/vec.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/results.hpp"
#include "prox/mesh/sign.hpp"

namespace prox::gpu {

/// Thrown for every Vulkan failure: no loader, no device, a call that failed.
class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DeviceInfo {
  std::string name;         ///< e.g. "llvmpipe (LLVM 15.0.6, 256 bits)", "NVIDIA H200"
  std::string type;         ///< "discrete", "integrated", "virtual", "cpu", "other"
  std::uint32_t api_version = 0;
  std::string summary() const;  ///< "NAME (TYPE, Vulkan X.Y.Z)"
};

/// One storage buffer of a compute dispatch (see Context::run_compute).
struct ComputeBuffer {
  std::span<std::byte> data;  ///< copied in before, and back after, the dispatch
};

/// A Vulkan instance, device and compute queue. Not thread-safe: one thread
/// at a time uses a Context and the indexes uploaded to it.
class Context {
 public:
  /// Opens the Vulkan loader and a device; throws GpuError when none is usable.
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceInfo& device() const;

  /// Runs a compute shader (SPIR-V words; entry point "main") once:
  /// buffers are bound at set 0, bindings 0, 1, ... in order, push constants
  /// (at most 128 bytes) are given, `groups` workgroups along x. Every buffer
  /// is copied back. For tests and users' own kernels built on prox's GLSL.
  void run_compute(std::span<const std::uint32_t> spirv, std::span<const ComputeBuffer> buffers,
                   std::span<const std::byte> push_constants, std::uint32_t groups);

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// Tells whether a Vulkan device is usable here: empty when yes, else why not.
std::string unavailable_reason();

/// A MeshIndex<float> uploaded to a device once; queries stream in batches.
/// The MeshIndex must outlive this object (fallbacks and signs use it).
class MeshIndexGpu {
 public:
  MeshIndexGpu(Context& context, const MeshIndex<float>& index);
  ~MeshIndexGpu();
  MeshIndexGpu(const MeshIndexGpu&) = delete;
  MeshIndexGpu& operator=(const MeshIndexGpu&) = delete;

  /// out[i] = index.closest_point(points[i], max_distance).
  void closest_point(std::span<const Vec3<float>> points, std::span<MeshClosestPoint<float>> out,
                     float max_distance = ScalarTraits<float>::infinity());
  /// out[i] = index.first_hit(rays[i]).
  void first_hit(std::span<const Ray<float>> rays, std::span<MeshRayHit<float>> out);
  /// out[i] = index.any_hit(rays[i]) (1 or 0).
  void any_hit(std::span<const Ray<float>> rays, std::span<std::uint8_t> out);
  /// out[i] = index.count_hits(rays[i]): surface crossings in [t_min, t_max],
  /// a ray through a shared edge or vertex counted once where it crosses
  /// (prox/crossing.glsl, the twin of prox/mesh/ray_crossing.hpp).
  void count_hits(std::span<const Ray<float>> rays, std::span<std::uint32_t> out);
  /// out[i] = index.signed_distance(points[i]): distances from the GPU, the
  /// winding number (and so the sign) from the CPU.
  void signed_distance(std::span<const Vec3<float>> points,
                       std::span<MeshSignedDistance<float>> out);
  /// out[i] = signer.query(points[i], max_distance), every field: a
  /// SignedMeshGpu made for this call (pseudonormal: the sign on the GPU, its
  /// table uploaded each call; keep a SignedMeshGpu to upload it once).
  /// signer must wrap this object's MeshIndex (std::invalid_argument otherwise).
  void signed_closest_point(const SignedMesh<MeshIndex<float>>& signer,
                            std::span<const Vec3<float>> points,
                            std::span<SignedClosestPoint<float>> out,
                            float max_distance = ScalarTraits<float>::infinity());

  /// Seconds the upload (buffers, copies) took.
  double upload_seconds() const { return upload_seconds_; }
  /// Bytes uploaded (nodes, slot map, packs).
  std::size_t uploaded_bytes() const { return uploaded_bytes_; }
  /// Queries answered on the CPU so far (shader stack overflow, far re-solve).
  std::size_t cpu_fallbacks() const { return cpu_fallbacks_; }
  /// Closest-point queries answered on the CPU so far because their search
  /// met a triangle on the kernel's far re-solve path (part of cpu_fallbacks()).
  std::size_t far_fallbacks() const { return far_fallbacks_; }
  /// Those of the last call that computed closest points (closest_point,
  /// signed_distance, signed_closest_point, SignedMeshGpu::query): indices
  /// into its points, ascending.
  const std::vector<std::size_t>& last_far_queries() const { return far_queries_; }
  /// Queries per dispatch (default 1 << 18).
  void set_batch_size(std::size_t n) { batch_ = n == 0 ? 1 : n; }

  struct Impl;

 private:
  friend class SignedMeshGpu;
  Context& context_;
  const MeshIndex<float>& index_;
  std::unique_ptr<Impl> impl_;
  double upload_seconds_ = 0;
  std::size_t uploaded_bytes_ = 0;
  std::size_t cpu_fallbacks_ = 0;
  std::size_t far_fallbacks_ = 0;
  std::vector<std::size_t> far_queries_;
  std::size_t batch_ = std::size_t(1) << 18;
};

/// A SignedMesh's signs beside a MeshIndexGpu. With the pseudonormal method
/// the pseudonormal table (SignedMesh::normals(): 120 bytes a triangle on a
/// closed mesh) is uploaded once and each point's closest point and sign come
/// from one dispatch: the closest feature's pseudonormal n (vertex, edge or
/// face of the GPU's closest triangle, which is the CPU's: ties to the lowest
/// triangle id, the feature from the kernel's regions) and the sign of
/// (p - closest) . n in double, as SignedMesh::sign computes it. A product of
/// exactly 0 (no normal there: a degenerate closest triangle) is signed by
/// parity rays, as SignedMesh::sign does. Parity (that method, and those
/// points): the closest points, then the options().parity_rays fixed rays of
/// each point counted on the GPU (count_hits), the votes, sign and confidence
/// as SignedMesh::sign forms them. Winding signs on the CPU (all cores) after
/// the GPU's closest points.
/// Both objects must outlive this one; same threading rule as Context.
class SignedMeshGpu {
 public:
  /// signer must wrap index's MeshIndex (std::invalid_argument otherwise).
  SignedMeshGpu(MeshIndexGpu& index, const SignedMesh<MeshIndex<float>>& signer);
  ~SignedMeshGpu();
  SignedMeshGpu(const SignedMeshGpu&) = delete;
  SignedMeshGpu& operator=(const SignedMeshGpu&) = delete;

  /// out[i] = signer.query(points[i], max_distance): closest point, signed
  /// distance, method, confidence, winding number and votes.
  void query(std::span<const Vec3<float>> points, std::span<SignedClosestPoint<float>> out,
             float max_distance = ScalarTraits<float>::infinity());

  /// Whether signs are computed on the GPU (the pseudonormal or parity
  /// method, a non-empty mesh).
  bool sign_on_gpu() const { return on_gpu_; }
  /// Points SignedMesh::sign handled on the CPU so far (winding, no inside:
  /// every point; pseudonormal: points whose traversal overflowed the
  /// shader's stack or met a far re-solve triangle, answered by
  /// SignedMesh::query; parity: none, a fallback's closest point is still
  /// signed by rays on the GPU).
  std::size_t cpu_signs() const { return cpu_signs_; }
  /// Points signed by parity rays counted on the GPU so far (parity: every
  /// point off the surface; pseudonormal: the zero products).
  std::size_t parity_signs() const { return parity_signs_; }
  /// Bytes of the pseudonormal table uploaded (0 unless sign_on_gpu()).
  std::size_t uploaded_bytes() const { return uploaded_bytes_; }
  double upload_seconds() const { return upload_seconds_; }

  struct Impl;

 private:
  // The two GPU methods' first pass; `parity` gets the points left to the rays.
  void query_parity(std::span<const Vec3<float>> points, std::span<SignedClosestPoint<float>> out,
                    float max_distance, std::vector<std::size_t>& parity);
  void query_pseudonormal(std::span<const Vec3<float>> points,
                          std::span<SignedClosestPoint<float>> out, float max_distance,
                          std::vector<std::size_t>& parity);
  MeshIndexGpu& index_;
  const SignedMesh<MeshIndex<float>>& signer_;
  std::unique_ptr<Impl> impl_;
  bool on_gpu_ = false;
  std::size_t cpu_signs_ = 0;
  std::size_t parity_signs_ = 0;
  std::size_t uploaded_bytes_ = 0;
  double upload_seconds_ = 0;
};

}  // namespace prox::gpu
