// bench/gpu/bench_gpu.cpp — prox-bench-gpu: the GPU rows of the benchmark.
//
// For each mesh and workload of WORKLOADS.md (default bunny-1m; cp-near and
// ray-random), in one process: the upload time of the flat index, GPU
// queries/s (prox::gpu::MeshIndexGpu, float), and beside them the CPU engine
// (MeshIndex<float> through prox's batch functions) on 1 thread and on all
// threads, with the ratio GPU / one CPU core. Validation beside the timing:
// every GPU answer is compared with the CPU's (same triangle and bits; the
// run fails when any differs). Prints the device; lavapipe rows are labelled
// so. --signed adds, after each point workload, its signed row ("+sign"):
// prox::gpu::SignedMeshGpu (closest point and pseudonormal sign on the GPU)
// beside SignedMesh::query through signed_queries on the CPU (auto's method;
// a closed, outward mesh such as bunny-1m: pseudonormal), every field compared.
// Exit status: 0 ok, 1 mismatch or error, 2 usage.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "prox/gpu/gpu.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/sign.hpp"
#include "workloads.hpp"

namespace {

using namespace prox;
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

TriangleMesh<float> to_mesh(const bench::BenchMesh& m) {
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"prox-bench-gpu: GPU rows of the prox benchmark (Vulkan compute)"};
  std::vector<std::string> meshes{"bunny-1m"};
  std::vector<std::string> workloads{"cp-near", "ray-random"};
  std::size_t queries = 1000000;
  std::string data;
  int reps = 3;
  int threads = 0;
  bool skip_cpu1 = false;
  bool with_sign = false;
  app.add_option("--meshes", meshes, "bunny,armadillo,bunny-1m,soup-1m")->delimiter(',');
  app.add_option("--workloads", workloads, "cp-near,cp-far,ray-primary,ray-random")
      ->delimiter(',');
  app.add_option("--queries", queries, "queries per workload (WORKLOADS.md: 1000000)");
  app.add_option("--data", data, "directory holding bunny00.off and armadillo.off");
  app.add_option("--reps", reps, "timed repetitions (best is reported)")->check(CLI::Range(1, 100));
  app.add_option("--threads", threads, "CPU threads of the all-cores row (0: all)");
  app.add_flag("--skip-cpu1", skip_cpu1, "leave out the one-thread CPU row (slow on big runs)");
  app.add_flag("--signed", with_sign,
               "after each point workload, its signed row (+sign: closest point and sign, "
               "SignedMesh's auto method; pseudonormal signs on the GPU)");
  CLI11_PARSE(app, argc, argv);

  try {
    gpu::Context ctx;
    const std::string dev = ctx.device().summary();
    const bool lavapipe = ctx.device().type == "cpu";
    const unsigned cores = threads > 0 ? unsigned(threads) : std::thread::hardware_concurrency();
    std::printf("prox-bench-gpu  device: %s%s\n", dev.c_str(),
                lavapipe ? "  [lavapipe: a CPU driver, figures are not GPU figures]" : "");
    std::printf("%-10s %-12s %-14s %9s %10s %12s %12s %12s %9s %s\n", "mesh", "workload", "device",
                "upload s", "queries", "gpu q/s", "cpu1 q/s", "cpuN q/s", "gpu/cpu1",
                "gpu==cpu");
    bool all_same = true;
    const std::string data_dir = bench::resolve_data_dir(data);
    const auto row = [&](const std::string& mesh, const std::string& w, double upload,
                         double t_gpu, double t_cpu1, double t_cpun, std::size_t differ) {
      const double n = double(queries);
      char cpu1[32] = "-", ratio[32] = "-";
      if (t_cpu1 > 0) {
        std::snprintf(cpu1, sizeof cpu1, "%.4g", n / t_cpu1);
        std::snprintf(ratio, sizeof ratio, "%.3g", t_cpu1 / t_gpu);
      }
      std::printf("%-10s %-12s %-14s %9.3f %10zu %12.4g %12s %12.4g %9s %s\n", mesh.c_str(),
                  w.c_str(), lavapipe ? "lavapipe" : "gpu", upload, queries, n / t_gpu, cpu1,
                  n / t_cpun, ratio, differ == 0 ? "yes" : (std::to_string(differ) + " differ").c_str());
      all_same = all_same && differ == 0;
    };
    for (const std::string& name : meshes) {
      const bench::BenchMesh bm = bench::make_mesh(name, data_dir);
      const MeshIndex<float> index(to_mesh(bm));
      const auto t_up = Clock::now();
      gpu::MeshIndexGpu g(ctx, index);
      const double upload = seconds_since(t_up);
      std::unique_ptr<SignedMesh<MeshIndex<float>>> signer;
      std::unique_ptr<gpu::SignedMeshGpu> signer_gpu;
      double sign_upload = 0;
      if (with_sign) {
        signer = std::make_unique<SignedMesh<MeshIndex<float>>>(index);
        const auto t = Clock::now();
        signer_gpu = std::make_unique<gpu::SignedMeshGpu>(g, *signer);
        sign_upload = seconds_since(t);
        std::printf("%-10s sign: %s (%s), %s; table %.1f MiB uploaded in %.3f s\n", name.c_str(),
                    std::string(to_string(signer->method())).c_str(),
                    signer->sign_is_exact() ? "exact" : "not exact",
                    signer_gpu->sign_on_gpu() ? "on the GPU" : "on the CPU after the GPU's closest points",
                    double(signer_gpu->uploaded_bytes()) / 1048576.0, sign_upload);
      }
      for (const std::string& w : workloads) {
        const bool rays = bench::is_ray_workload(w);
        double t_gpu = 0, t_cpu1 = 0, t_cpun = 0;
        std::size_t differ = 0;
        BatchOptions one, all;
        one.threads = 1;
        all.threads = threads;
        if (!rays) {
          std::vector<Vec3<float>> pts;
          for (const Vec3d& p : bench::make_point_queries(bm, w, queries)) pts.push_back(p.cast<float>());
          std::vector<MeshClosestPoint<float>> a(pts.size()), b(pts.size());
          g.closest_point(pts, a);  // warm-up (pipelines, buffers)
          t_gpu = best_of(reps, [&] { g.closest_point(pts, a); });
          t_cpun = best_of(reps, [&] { closest_points(index, std::span<const Vec3<float>>(pts), std::span(b), ScalarTraits<float>::infinity(), all); });
          if (!skip_cpu1)
            t_cpu1 = best_of(1, [&] { closest_points(index, std::span<const Vec3<float>>(pts), std::span(b), ScalarTraits<float>::infinity(), one); });
          for (std::size_t i = 0; i < pts.size(); ++i)
            differ += std::memcmp(&a[i], &b[i], sizeof(a[i])) != 0;
          if (with_sign) {
            row(name, w, upload, t_gpu, t_cpu1, t_cpun, differ);
            differ = 0;
            t_cpu1 = 0;
            std::vector<SignedClosestPoint<float>> sa(pts.size()), sb(pts.size());
            signer_gpu->query(pts, sa);
            t_gpu = best_of(reps, [&] { signer_gpu->query(pts, sa); });
            t_cpun = best_of(reps, [&] { signed_queries(*signer, std::span<const Vec3<float>>(pts), std::span(sb), all); });
            if (!skip_cpu1)
              t_cpu1 = best_of(1, [&] { signed_queries(*signer, std::span<const Vec3<float>>(pts), std::span(sb), one); });
            for (std::size_t i = 0; i < pts.size(); ++i) differ += !same_signed(sa[i], sb[i]);
            row(name, w + "+sign", upload + sign_upload, t_gpu, t_cpu1, t_cpun, differ);
            continue;
          }
        } else {
          std::vector<Ray<float>> rs;
          for (const Ray<double>& r : bench::make_ray_queries(bm, w, queries)) {
            Ray<float> f;
            f.origin = r.origin.cast<float>();
            f.direction = r.direction.cast<float>();
            f.t_min = float(r.t_min);
            f.t_max = float(r.t_max);
            rs.push_back(f);
          }
          std::vector<MeshRayHit<float>> a(rs.size()), b(rs.size());
          g.first_hit(rs, a);
          t_gpu = best_of(reps, [&] { g.first_hit(rs, a); });
          t_cpun = best_of(reps, [&] { first_hits(index, std::span<const Ray<float>>(rs), std::span(b), all); });
          if (!skip_cpu1)
            t_cpu1 = best_of(1, [&] { first_hits(index, std::span<const Ray<float>>(rs), std::span(b), one); });
          for (std::size_t i = 0; i < rs.size(); ++i)
            differ += std::memcmp(&a[i], &b[i], sizeof(a[i])) != 0;
        }
        row(name, w, upload, t_gpu, t_cpu1, t_cpun, differ);
      }
      std::printf("%-10s upload: %.1f MiB in %.3f s; %zu queries answered on the CPU (stack)",
                  name.c_str(), double(g.uploaded_bytes()) / 1048576.0, upload, g.cpu_fallbacks());
      if (signer_gpu) std::printf("; %zu points signed on the CPU", signer_gpu->cpu_signs());
      std::printf("\n");
    }
    std::printf("cpuN = %u threads; validation: %s\n", cores,
                all_same ? "GPU answers equal the CPU's on every query"
                         : "GPU answers DIFFER from the CPU's");
    return all_same ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "prox-bench-gpu: %s\n", e.what());
    return 1;
  }
}
