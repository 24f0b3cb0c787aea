// apps/gpu_device.cpp — `--device gpu` through prox::gpu (see gpu_device.hpp).
#include "gpu_device.hpp"

#include <cstdio>
#include <iostream>
#include <memory>

#include "prox/gpu/gpu.hpp"
#include "prox/mesh/diagnostics.hpp"

namespace prox::cli {

void add_device_option(CLI::App& app, std::string& device) {
  app.add_option("--device", device,
                 "cpu (default) or gpu: Vulkan compute through prox::gpu, in float (mesh and "
                 "queries rounded to float; answers equal the CPU's float answers)")
      ->check(CLI::IsMember({"cpu", "gpu"}));
}

namespace {

struct GpuMesh {
  std::unique_ptr<gpu::Context> context;
  std::unique_ptr<MeshIndex<float>> index;
  std::unique_ptr<gpu::MeshIndexGpu> device_index;
};

GpuMesh upload(const TriangleMesh<double>& mesh) {
  GpuMesh g;
  try {
    g.context = std::make_unique<gpu::Context>();
  } catch (const gpu::GpuError& e) {
    throw std::runtime_error(std::string("--device gpu: ") + e.what());
  }
  std::fprintf(stderr, "prox: --device gpu on %s\n", g.context->device().summary().c_str());
  std::vector<Vec3<float>> v;
  v.reserve(mesh.num_vertices());
  for (const Vec3d& p : mesh.vertices()) v.push_back(p.cast<float>());
  try {
    g.index = std::make_unique<MeshIndex<float>>(TriangleMesh<float>(std::move(v), mesh.triangles()));
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("--device gpu: the mesh in float: ") + e.what());
  }
  g.device_index = std::make_unique<gpu::MeshIndexGpu>(*g.context, *g.index);
  return g;
}

std::vector<Ray<float>> to_float(std::span<const Ray<double>> rays) {
  std::vector<Ray<float>> out;
  out.reserve(rays.size());
  for (const Ray<double>& r : rays) {
    Ray<float> f;
    f.origin = r.origin.cast<float>();
    f.direction = r.direction.cast<float>();
    f.t_min = float(r.t_min);
    f.t_max = float(r.t_max);
    out.push_back(f);
  }
  return out;
}

}  // namespace

MeshClosestPoint<double> widen(const MeshClosestPoint<float>& r) {
  MeshClosestPoint<double> o;
  if (r.found()) {
    o.point = r.point.cast<double>();
    o.sq_distance = r.sq_distance;
    o.bary = r.bary.cast<double>();
    o.triangle = r.triangle;
    o.feature = r.feature;
  }
  return o;
}

void gpu_closest(const TriangleMesh<double>& mesh, std::span<const Vec3d> points,
                 double max_distance, std::span<MeshClosestPoint<double>> cp,
                 const SignChoice* sign, const std::string& path,
                 std::span<SignedClosestPoint<double>> sd) {
  // --reorient: the reoriented mesh is the one indexed and answered, as on the CPU.
  const TriangleMesh<double>* src = &mesh;
  Reoriented<double> re;
  if (sign && sign->reorient) {
    re = reorient(mesh);
    std::cerr << "prox closest: " << path << ": reoriented, " << re.flipped << " triangles flipped";
    if (re.conflicts) std::cerr << " (" << re.conflicts << " edges cannot agree: non-orientable)";
    std::cerr << "\n";
    src = &re.mesh;
  }
  GpuMesh g = upload(*src);
  std::vector<Vec3<float>> p;
  p.reserve(points.size());
  for (const Vec3d& q : points) p.push_back(q.cast<float>());
  if (!sign) {
    std::vector<MeshClosestPoint<float>> r(points.size());
    g.device_index->closest_point(p, r, float(max_distance));
    for (std::size_t i = 0; i < r.size(); ++i) cp[i] = widen(r[i]);
    return;
  }
  SignOptions o;
  o.method = parse_sign_method(sign->method);
  const SignedMesh<MeshIndex<float>> sm(*g.index, o);
  check_signable(sm, o.method, path, "closest");
  std::vector<SignedClosestPoint<float>> s(points.size());
  gpu::SignedMeshGpu signer(*g.device_index, sm);
  signer.query(p, s, float(max_distance));
  if (signer.sign_on_gpu() && sm.method() == SignMethod::pseudonormal)
    std::fprintf(stderr, "prox closest: --device gpu: sign by pseudonormal on the GPU (%zu of %zu "
                 "points by parity rays on the GPU: zero products; %zu on the CPU)\n",
                 signer.parity_signs(), points.size(), signer.cpu_signs());
  else if (signer.sign_on_gpu())
    std::fprintf(stderr, "prox closest: --device gpu: sign by parity on the GPU (%d rays a point, "
                 "counted on the GPU)\n", o.parity_rays);
  else if (sm.method() != SignMethod::none)
    std::fprintf(stderr, "prox closest: --device gpu: sign by %s on the CPU (closest points on "
                 "the GPU)\n", std::string(to_string(sm.method())).c_str());
  for (std::size_t i = 0; i < s.size(); ++i) {
    SignedClosestPoint<double>& d = sd[i];
    d.closest = widen(s[i].closest);
    d.signed_distance = s[i].signed_distance;
    d.winding_number = s[i].winding_number;
    d.inside_votes = s[i].inside_votes;
    d.votes = s[i].votes;
    d.method = s[i].method;
    d.confidence = s[i].confidence;
    cp[i] = d.closest;
  }
}

void gpu_first_hits(const TriangleMesh<double>& mesh, std::span<const Ray<double>> rays,
                    std::span<MeshRayHit<double>> out) {
  GpuMesh g = upload(mesh);
  std::vector<MeshRayHit<float>> h(rays.size());
  g.device_index->first_hit(to_float(rays), h);
  for (std::size_t i = 0; i < h.size(); ++i) {
    MeshRayHit<double> o;
    if (h[i].found()) {
      o.t = h[i].t;
      o.u = h[i].u;
      o.v = h[i].v;
      o.triangle = h[i].triangle;
      o.front_face = h[i].front_face;
    }
    out[i] = o;
  }
}

void gpu_any_hits(const TriangleMesh<double>& mesh, std::span<const Ray<double>> rays,
                  std::span<std::uint8_t> out) {
  GpuMesh g = upload(mesh);
  g.device_index->any_hit(to_float(rays), out);
}

void gpu_count_hits(const TriangleMesh<double>& mesh, std::span<const Ray<double>> rays,
                    std::span<std::uint32_t> out) {
  GpuMesh g = upload(mesh);
  g.device_index->count_hits(to_float(rays), out);
}

}  // namespace prox::cli
