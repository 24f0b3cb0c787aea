// bench/engine/peer_prox.cpp — prox's MeshIndex through its batch API (the
// calls the CLI and Python use), and the BruteForce twin for the agreement check.
#include <cmath>
#include <span>

#include "peer.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/brute_force.hpp"
#include "prox/mesh/isa.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/triangle_mesh.hpp"

namespace prox::bench {
namespace {

template <class T>
TriangleMesh<T> to_prox_mesh(const BenchMesh& mesh) {
  std::vector<Vec3<T>> vertices(mesh.vertices.size());
  for (std::size_t i = 0; i < vertices.size(); ++i) vertices[i] = mesh.vertices[i].cast<T>();
  std::vector<typename TriangleMesh<T>::Triangle> triangles(mesh.triangles.begin(),
                                                            mesh.triangles.end());
  return TriangleMesh<T>(std::move(vertices), std::move(triangles));
}

template <class T>
Ray<T> to_prox_ray(const Ray<double>& r) {
  return Ray<T>{r.origin.cast<T>(), r.direction.cast<T>(), T(r.t_min), T(r.t_max)};
}

template <class T>
class ProxPeer final : public Peer {
 public:
  explicit ProxPeer(bool spatial_order) : spatial_order_(spatial_order) {}
  std::string name() const override {
    return std::string(std::is_same_v<T, float> ? "prox" : "prox-double") +
           (spatial_order_ ? "" : "-given-order");
  }
  std::string description() const override {
    return std::string("prox MeshIndex<") + (std::is_same_v<T, float> ? "float" : "double") +
           ">, batch API (closest_points, first_hits); engine ISA path " + isa_description() +
           (spatial_order_ ? ""
                           : "; BatchOptions::spatial_order = false (points visited in the "
                             "workload's order, not sorted)");
  }
  bool single_precision() const override { return std::is_same_v<T, float>; }
  void build(const BenchMesh& mesh) override {
    index_.reset();
    index_ = std::make_unique<MeshIndex<T>>(to_prox_mesh<T>(mesh));
  }
  std::size_t memory_bytes() const override { return index_ ? index_->memory_bytes() : 0; }
  std::string memory_method() const override { return "MeshIndex::memory_bytes()"; }

  void set_points(const std::vector<Vec3d>& points) override {
    points_.resize(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) points_[i] = points[i].cast<T>();
    cp_.assign(points.size(), MeshClosestPoint<T>{});
  }
  void closest_points(int threads) override {
    BatchOptions options;
    options.threads = threads;
    options.spatial_order = spatial_order_;
    prox::closest_points(*index_, std::span<const Vec3<T>>(points_),
                         std::span<MeshClosestPoint<T>>(cp_), ScalarTraits<T>::infinity(),
                         options);
  }
  std::vector<CpAnswer> cp_answers() const override {
    std::vector<CpAnswer> out(cp_.size());
    for (std::size_t i = 0; i < cp_.size(); ++i) {
      out[i].distance = std::sqrt(static_cast<double>(cp_[i].sq_distance));
      out[i].triangle = cp_[i].triangle;
    }
    return out;
  }

  void set_rays(const std::vector<Ray<double>>& rays) override {
    rays_.resize(rays.size());
    for (std::size_t i = 0; i < rays.size(); ++i) rays_[i] = to_prox_ray<T>(rays[i]);
    hits_.assign(rays.size(), MeshRayHit<T>{});
  }
  void first_hits(int threads) override {
    BatchOptions options;
    options.threads = threads;
    options.spatial_order = spatial_order_;
    prox::first_hits(*index_, std::span<const Ray<T>>(rays_), std::span<MeshRayHit<T>>(hits_),
                     options);
  }
  std::vector<RayAnswer> ray_answers() const override {
    std::vector<RayAnswer> out(hits_.size());
    for (std::size_t i = 0; i < hits_.size(); ++i) {
      if (!hits_[i].found()) continue;
      out[i].t = static_cast<double>(hits_[i].t);
      out[i].triangle = hits_[i].triangle;
    }
    return out;
  }

 private:
  bool spatial_order_;
  std::unique_ptr<MeshIndex<T>> index_;
  std::vector<Vec3<T>> points_;
  std::vector<MeshClosestPoint<T>> cp_;
  std::vector<Ray<T>> rays_;
  std::vector<MeshRayHit<T>> hits_;
};

}  // namespace

std::unique_ptr<Peer> make_prox_peer(bool double_precision, bool spatial_order) {
  if (double_precision) return std::make_unique<ProxPeer<double>>(spatial_order);
  return std::make_unique<ProxPeer<float>>(spatial_order);
}

bool brute_force_closest(const BenchMesh& mesh, const std::vector<Vec3d>& points, int threads,
                         std::vector<CpAnswer>& out) {
  const BruteForce<double> brute(to_prox_mesh<double>(mesh));
  std::vector<MeshClosestPoint<double>> cp(points.size());
  BatchOptions options;
  options.threads = threads;
  prox::closest_points(brute, std::span<const Vec3d>(points),
                       std::span<MeshClosestPoint<double>>(cp),
                       ScalarTraits<double>::infinity(), options);
  out.assign(points.size(), CpAnswer{});
  for (std::size_t i = 0; i < cp.size(); ++i) {
    out[i].distance = std::sqrt(cp[i].sq_distance);
    out[i].triangle = cp[i].triangle;
  }
  return true;
}

bool brute_force_first_hits(const BenchMesh& mesh, const std::vector<Ray<double>>& rays,
                            int threads, std::vector<RayAnswer>& out) {
  const BruteForce<double> brute(to_prox_mesh<double>(mesh));
  std::vector<MeshRayHit<double>> hits(rays.size());
  BatchOptions options;
  options.threads = threads;
  prox::first_hits(brute, std::span<const Ray<double>>(rays),
                   std::span<MeshRayHit<double>>(hits), options);
  out.assign(rays.size(), RayAnswer{});
  for (std::size_t i = 0; i < hits.size(); ++i) {
    if (!hits[i].found()) continue;
    out[i].t = hits[i].t;
    out[i].triangle = hits[i].triangle;
  }
  return true;
}

}  // namespace prox::bench
