// bench/engine/bench_cli.hpp — the benchmark's command-line options (prox-bench's;
// `prox bench` runs prox-bench with its arguments, so both accept the same flags).
#pragma once

#include <CLI/CLI.hpp>

#include "bench_api.hpp"

namespace prox::bench {

/// Adds --meshes, --workloads, --queries, --threads, --runs, --peers, --precision,
/// --data, --check, --quick, --hausdorff(-only), --sign(-only), --gpu(-only),
/// --sdf-grids to `app`, writing into `options`.
inline void add_cli_options(CLI::App& app, Options& options) {
  app.add_option("--meshes", options.meshes, "bunny,armadillo,bunny-1m,soup-1m")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--workloads", options.workloads, "cp-near,cp-far,ray-primary,ray-random")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--queries", options.queries,
                 "queries per workload (WORKLOADS.md: 1000000; ray-primary uses a square "
                 "image of about this many pixels)")
      ->capture_default_str();
  app.add_option("--threads", options.threads, "thread counts to measure, e.g. 1,2")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--runs", options.runs, "timed runs per figure (the median is printed)")
      ->capture_default_str();
  app.add_option("--peers", options.peers, "peers beside prox: embree,embree16,cgal,prox-given-order (prox with "
                 "BatchOptions::spatial_order off; none: '')")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--precision", options.precisions, "prox rows: float,double")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--data", options.data_dir,
                 "folder with bunny00.off and armadillo.off (default: extracted from "
                 "/usr/share/doc/libcgal-dev/data.tar.gz into ~/.cache/prox)");
  app.add_option("--check", options.check,
                 "queries per workload checked against the brute-force twin (capped on big "
                 "meshes)")
      ->capture_default_str();
  app.add_flag("--quick", options.quick, "smoke test: bunny only, 2000 queries, 1 run");
  app.add_flag("--hausdorff", options.hausdorff,
               "also Hausdorff (prox vs CGAL) and Chamfer on bunny vs a perturbed bunny");
  app.add_flag("--hausdorff-only", options.hausdorff_only, "only the Hausdorff and Chamfer rows");
  app.add_flag("--sign", options.sign,
               "also signed distance per sign method, the fast winding number and SDF grids");
  app.add_flag("--sign-only", options.sign_only, "only the signed distance and SDF grid rows");
  app.add_flag("--gpu", options.gpu,
               "also the GPU rows (prox::gpu: upload, queries/s beside 1 and N CPU threads, "
               "+sign and +count rows, answers compared; one line when no Vulkan device exists)");
  app.add_flag("--gpu-only", options.gpu_only, "only the GPU rows");
  app.add_option("--sdf-grids", options.sdf_grids, "SDF grid resolutions of bunny (with --sign)")
      ->delimiter(',')
      ->check(CLI::Range(2, 2048))
      ->capture_default_str();
}

}  // namespace prox::bench
