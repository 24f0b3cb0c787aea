// bench/gpu/bench_gpu.cpp — prox-bench-gpu: the GPU rows of the benchmark
// (bench/engine/gpu_rows.cpp; `prox bench --gpu` prints the same rows after
// the CPU table).
//
// For each mesh and workload of WORKLOADS.md (default bunny-1m; cp-near and
// ray-random), in one process: the upload time of the flat index, GPU
// queries/s (prox::gpu::MeshIndexGpu, float), and beside them the CPU engine
// (MeshIndex<float> through prox's batch functions) on 1 thread and on all
// threads, with the ratio GPU / one CPU core. Validation beside the timing:
// every GPU answer is compared with the CPU's (same triangle and bits; the
// run fails when any differs). Prints the device; lavapipe rows are labelled
// so. --signed adds, after each point workload, its signed row ("+sign"):
// prox::gpu::SignedMeshGpu beside SignedMesh::query through signed_queries on
// the CPU (auto's method; a closed, outward mesh such as bunny-1m:
// pseudonormal), every field compared. --count adds, after each ray workload,
// the crossing count ("+count", count_hits) on both.
// Exit status: 0 ok, 1 mismatch or error (no Vulkan device included), 2 usage.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "gpu_rows.hpp"
#include "workloads.hpp"

int main(int argc, char** argv) {
  CLI::App app{"prox-bench-gpu: GPU rows of the prox benchmark (Vulkan compute)"};
  prox::bench::GpuRowOptions o;
  std::string data;
  app.add_option("--meshes", o.meshes, "bunny,armadillo,bunny-1m,soup-1m")->delimiter(',');
  app.add_option("--workloads", o.workloads, "cp-near,cp-far,ray-primary,ray-random")
      ->delimiter(',');
  app.add_option("--queries", o.queries, "queries per workload (WORKLOADS.md: 1000000)");
  app.add_option("--data", data, "directory holding bunny00.off and armadillo.off");
  app.add_option("--reps", o.reps, "timed repetitions (best is reported)")
      ->check(CLI::Range(1, 100));
  app.add_option("--threads", o.threads, "CPU threads of the all-cores row (0: all)");
  app.add_flag("--skip-cpu1", o.skip_cpu1, "leave out the one-thread CPU row (slow on big runs)");
  app.add_flag("--signed", o.with_sign,
               "after each point workload, its signed row (+sign: closest point and sign, "
               "SignedMesh's auto method; pseudonormal and parity sign on the GPU)");
  app.add_flag("--count", o.with_count,
               "after each ray workload, its crossing-count row (+count: count_hits)");
  CLI11_PARSE(app, argc, argv);
  try {
    o.data_dir = prox::bench::resolve_data_dir(data);
    return prox::bench::run_gpu_rows(o, std::cout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "prox-bench-gpu: %s\n", e.what());
    return 1;
  }
}
