// bench/engine/gpu_rows.cpp — the GPU rows of the benchmark (see gpu_rows.hpp).
//
// For each mesh and workload of WORKLOADS.md, in one process: the upload time
// of the flat index, GPU queries/s (prox::gpu::MeshIndexGpu, float), and
// beside them the CPU engine (MeshIndex<float> through prox's batch
// functions) on 1 thread and on N threads, with the ratio GPU / one CPU core.
// Validation beside the timing: every GPU answer is compared with the CPU's
// (same triangle and bits). +sign rows (after a point workload): SignedMeshGpu
// beside signed_queries (auto's method: pseudonormal on a closed, outward
// mesh), every field compared. +count rows (after a ray workload): the
// crossing count (count_hits) on both.
#include "gpu_rows.hpp"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "prox/gpu/gpu.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/sign.hpp"
#include "workloads.hpp"

namespace prox::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

template <class Fn>
double best_of(int reps, Fn&& fn) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t = Clock::now();
    fn();
    best = std::min(best, seconds_since(t));
  }
  return best;
}

[[gnu::format(printf, 2, 3)]] void print(std::ostream& out, const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  out << buf;
}

TriangleMesh<float> to_mesh(const BenchMesh& m) {
  std::vector<Vec3<float>> v;
  v.reserve(m.vertices.size());
  for (const Vec3d& p : m.vertices) v.push_back(p.cast<float>());
  return TriangleMesh<float>(std::move(v), m.triangles);
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_signed(const SignedClosestPoint<float>& a, const SignedClosestPoint<float>& b) {
  return std::memcmp(&a.closest, &b.closest, sizeof a.closest) == 0 &&
         same_bits(a.signed_distance, b.signed_distance) &&
         same_bits(a.winding_number, b.winding_number) && a.inside_votes == b.inside_votes &&
         a.votes == b.votes && a.method == b.method && a.confidence == b.confidence;
}

template <class T>
std::size_t count_differ(const std::vector<T>& a, const std::vector<T>& b) {
  std::size_t d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += std::memcmp(&a[i], &b[i], sizeof(T)) != 0;
  return d;
}

/// The device's name without the driver's details ("llvmpipe", "NVIDIA H200").
std::string short_name(const gpu::DeviceInfo& d) {
  const std::string n = d.name.substr(0, d.name.find(" ("));
  return n.size() > 16 ? n.substr(0, 16) : n;
}

}  // namespace

int run_gpu_rows(const GpuRowOptions& o, std::ostream& out) {
  std::unique_ptr<gpu::Context> ctx;
  try {
    ctx = std::make_unique<gpu::Context>();
  } catch (const gpu::GpuError& e) {
    if (!o.skip_without_device) throw;
    out << "GPU rows: skipped, no usable Vulkan device (" << e.what() << ")\n";
    return 0;
  }
  const std::string dev = short_name(ctx->device());
  const bool lavapipe = ctx->device().type == "cpu";
  const unsigned cores = o.threads > 0 ? unsigned(o.threads) : std::thread::hardware_concurrency();
  print(out, "GPU rows  device: %s%s\n", ctx->device().summary().c_str(),
        lavapipe ? "  [lavapipe: a CPU driver, its figures are CPU emulation, not GPU figures]"
                 : "");
  print(out, "%-10s %-17s %-16s %9s %10s %12s %12s %12s %9s %s\n", "mesh", "workload", "device",
        "upload s", "queries", "gpu q/s", "cpu1 q/s", "cpuN q/s", "gpu/cpu1", "gpu==cpu");
  bool all_same = true;
  const std::size_t queries = o.queries;
  std::size_t count = 0;  // queries of the workload being timed (ray-primary: side^2)
  const auto row = [&](const std::string& mesh, const std::string& w, double upload, double t_gpu,
                       double t_cpu1, double t_cpun, std::size_t differ) {
    const double n = double(count);
    char cpu1[32] = "-", ratio[32] = "-";
    if (t_cpu1 > 0) {
      std::snprintf(cpu1, sizeof cpu1, "%.4g", n / t_cpu1);
      std::snprintf(ratio, sizeof ratio, "%.3g", t_cpu1 / t_gpu);
    }
    print(out, "%-10s %-17s %-16s %9.3f %10zu %12.4g %12s %12.4g %9s %s\n", mesh.c_str(),
          w.c_str(), dev.c_str(), upload, count, n / t_gpu, cpu1, n / t_cpun, ratio,
          differ == 0 ? "yes" : (std::to_string(differ) + " differ").c_str());
    all_same = all_same && differ == 0;
  };
  BatchOptions one, all;
  one.threads = 1;
  all.threads = o.threads;
  // The CPU columns: best of reps on N threads, one run on one thread.
  const auto cpu = [&](double& t1, double& tn, auto&& on) {
    tn = best_of(o.reps, [&] { on(all); });
    t1 = o.skip_cpu1 ? 0 : best_of(1, [&] { on(one); });
  };
  for (const std::string& name : o.meshes) {
    const BenchMesh bm = make_mesh(name, o.data_dir);
    const MeshIndex<float> index(to_mesh(bm));
    gpu::MeshIndexGpu g(*ctx, index);
    const double upload = g.upload_seconds();
    std::unique_ptr<SignedMesh<MeshIndex<float>>> signer;
    std::unique_ptr<gpu::SignedMeshGpu> signer_gpu;
    if (o.with_sign) {
      signer = std::make_unique<SignedMesh<MeshIndex<float>>>(index);
      signer_gpu = std::make_unique<gpu::SignedMeshGpu>(g, *signer);
      print(out, "%-10s sign: %s (%s), %s; table %.1f MiB uploaded in %.3f s\n", name.c_str(),
            std::string(to_string(signer->method())).c_str(),
            signer->sign_is_exact() ? "exact" : "not exact",
            signer_gpu->sign_on_gpu() ? "on the GPU" : "on the CPU after the GPU's closest points",
            double(signer_gpu->uploaded_bytes()) / 1048576.0, signer_gpu->upload_seconds());
    }
    for (const std::string& w : o.workloads) {
      double t_gpu = 0, t_cpu1 = 0, t_cpun = 0;
      if (!is_ray_workload(w)) {
        std::vector<Vec3<float>> pts;
        for (const Vec3d& p : make_point_queries(bm, w, queries)) pts.push_back(p.cast<float>());
        count = pts.size();
        const std::span<const Vec3<float>> in(pts);
        const float inf = ScalarTraits<float>::infinity();
        std::vector<MeshClosestPoint<float>> a(pts.size()), b(pts.size());
        g.closest_point(pts, a);  // warm-up (pipelines, buffers)
        t_gpu = best_of(o.reps, [&] { g.closest_point(pts, a); });
        cpu(t_cpu1, t_cpun, [&](const BatchOptions& bo) { closest_points(index, in, std::span(b), inf, bo); });
        row(name, w, upload, t_gpu, t_cpu1, t_cpun, count_differ(a, b));
        if (!signer_gpu) continue;
        std::vector<SignedClosestPoint<float>> sa(pts.size()), sb(pts.size());
        signer_gpu->query(pts, sa);
        t_gpu = best_of(o.reps, [&] { signer_gpu->query(pts, sa); });
        cpu(t_cpu1, t_cpun, [&](const BatchOptions& bo) { signed_queries(*signer, in, std::span(sb), bo); });
        std::size_t differ = 0;
        for (std::size_t i = 0; i < pts.size(); ++i) differ += !same_signed(sa[i], sb[i]);
        row(name, w + "+sign", upload + signer_gpu->upload_seconds(), t_gpu, t_cpu1, t_cpun,
            differ);
        continue;
      }
      std::vector<Ray<float>> rs;
      for (const Ray<double>& r : make_ray_queries(bm, w, queries)) {
        Ray<float> f;
        f.origin = r.origin.cast<float>();
        f.direction = r.direction.cast<float>();
        f.t_min = float(r.t_min);
        f.t_max = float(r.t_max);
        rs.push_back(f);
      }
      count = rs.size();
      const std::span<const Ray<float>> in(rs);
      std::vector<MeshRayHit<float>> a(rs.size()), b(rs.size());
      g.first_hit(rs, a);
      t_gpu = best_of(o.reps, [&] { g.first_hit(rs, a); });
      cpu(t_cpu1, t_cpun, [&](const BatchOptions& bo) { first_hits(index, in, std::span(b), bo); });
      row(name, w, upload, t_gpu, t_cpu1, t_cpun, count_differ(a, b));
      if (!o.with_count) continue;
      std::vector<std::uint32_t> ca(rs.size()), cb(rs.size());
      g.count_hits(rs, ca);
      t_gpu = best_of(o.reps, [&] { g.count_hits(rs, ca); });
      cpu(t_cpu1, t_cpun, [&](const BatchOptions& bo) { count_hits(index, in, std::span(cb), bo); });
      row(name, w + "+count", upload, t_gpu, t_cpu1, t_cpun, count_differ(ca, cb));
    }
    print(out,
          "%-10s upload: %.1f MiB in %.3f s; %zu queries answered on the CPU (stack overflow, or "
          "%zu far re-solve)",
          name.c_str(), double(g.uploaded_bytes()) / 1048576.0, upload, g.cpu_fallbacks(),
          g.far_fallbacks());
    if (signer_gpu)
      print(out, "; %zu points signed on the CPU, %zu by parity rays on the GPU",
            signer_gpu->cpu_signs(), signer_gpu->parity_signs());
    out << "\n";
  }
  print(out, "cpuN = %u threads; validation: %s\n", cores,
        all_same ? "GPU answers equal the CPU's on every query"
                 : "GPU answers DIFFER from the CPU's");
  return all_same ? 0 : 1;
}

}  // namespace prox::bench
