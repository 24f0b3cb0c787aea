// bench/engine/run.cpp — the benchmark driver: meshes x workloads x peers x threads.
//
// For each mesh: every peer builds (timed in a TBB arena of each thread count,
// median of `runs`), then for each workload every peer answers the same queries
// (timed, median of `runs` per thread count). Checksums cover all queries;
// the agreement check compares each peer, on an evenly spaced subsample, with
// prox's BruteForce<double> twin, to a tolerance relative to the mesh's bounding
// box diagonal (float peers 1e-5, double peers 1e-9): a wrong triangle shows,
// float rounding does not.
#include <tbb/task_arena.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "bench_api.hpp"
#include "gpu_rows.hpp"
#include "hausdorff_peer.hpp"
#include "sign_rows.hpp"
#include "peer.hpp"
#include "report.hpp"

namespace prox::bench {
namespace {

using Clock = std::chrono::steady_clock;

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

__attribute__((format(printf, 1, 2))) std::string printf_string(const char* f, ...) {
  char buf[512];
  va_list args;
  va_start(args, f);
  std::vsnprintf(buf, sizeof buf, f, args);
  va_end(args);
  return buf;
}

// A field of /proc/self/status ("VmRSS:", "VmHWM:") in bytes; 0 where unreadable.
std::size_t resident_bytes(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0) return std::size_t(std::stoull(line.substr(n))) * 1024;
  }
  return 0;
}

// Resets VmHWM to the current resident size (Linux: "5" to /proc/self/clear_refs).
void reset_peak_resident() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
}

std::size_t mesh_bytes(const BenchMesh& mesh) {
  return mesh.vertices.size() * sizeof(mesh.vertices[0]) +
         mesh.triangles.size() * sizeof(mesh.triangles[0]);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void validate(const Options& o) {
  auto check_names = [](const std::vector<std::string>& given,
                        const std::vector<std::string>& known, const char* what) {
    if (given.empty()) throw std::runtime_error(std::string("no ") + what + " given");
    for (const std::string& g : given) {
      if (std::find(known.begin(), known.end(), g) == known.end()) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        throw std::runtime_error(std::string("unknown ") + what + " '" + g + "' (known: " +
                                 list + ")");
      }
    }
  };
  check_names(o.meshes, mesh_names(), "mesh");
  check_names(o.workloads, workload_names(), "workload");
  if (!o.peers.empty()) check_names(o.peers, {"embree", "embree16", "cgal", "prox-given-order"}, "peer");
  check_names(o.precisions, {"float", "double"}, "precision");
  if (o.queries < 1) throw std::runtime_error("--queries must be at least 1");
  if (o.runs < 1) throw std::runtime_error("--runs must be at least 1");
  if (o.check < 0) throw std::runtime_error("--check must be at least 0");
  if (o.threads.empty()) throw std::runtime_error("no thread counts given");
  for (int t : o.threads) {
    if (t < 1) throw std::runtime_error("thread counts must be at least 1");
  }
}

/// Builds `peer` `runs` times in an arena of each thread count; returns median ms per count.
std::vector<double> time_builds(Peer& peer, const BenchMesh& mesh, const Options& o,
                                std::ostream& err) {
  std::vector<double> ms;
  for (int t : o.threads) {
    std::vector<double> runs;
    for (int r = 0; r < o.runs; ++r) {
      err << "  [" << mesh.name << "] build " << peer.name() << ", " << t << " thread(s), run "
          << r + 1 << "/" << o.runs << "\n";
      tbb::task_arena arena(t);
      double s = 0;
      arena.execute([&] {
        const Clock::time_point start = Clock::now();
        peer.build(mesh);
        s = seconds_since(start);
      });
      runs.push_back(1e3 * s);
    }
    ms.push_back(median(runs));
  }
  return ms;
}

/// Evenly spaced subsample of [0, n): `count` indices at most.
std::vector<std::size_t> subsample(std::size_t n, std::size_t count) {
  std::vector<std::size_t> idx;
  count = std::min(count, n);
  for (std::size_t k = 0; k < count; ++k) idx.push_back(k * n / count);
  return idx;
}

/// Queries/s (median of runs) at each thread count of one peer on the current workload.
template <class Call>
std::vector<double> time_queries(const std::string& label, std::size_t n, const Options& o,
                                 std::ostream& err, Call&& call) {
  std::vector<double> qps;
  for (int t : o.threads) {
    std::vector<double> runs;
    for (int r = 0; r < o.runs; ++r) {
      err << "  " << label << ", " << t << " thread(s), run " << r + 1 << "/" << o.runs << "\n";
      // 1 thread: the process's CPU time, which other jobs on a shared machine
      // do not inflate (they only take turns on the core); more: wall time.
      const double cpu0 = process_cpu_seconds();
      const Clock::time_point start = Clock::now();
      call(t);
      const double s = t == 1 ? process_cpu_seconds() - cpu0 : seconds_since(start);
      runs.push_back(static_cast<double>(n) / std::max(s, 1e-9));
    }
    qps.push_back(median(runs));
  }
  return qps;
}

Agreement compare_cp(const std::vector<CpAnswer>& got, const std::vector<std::size_t>& idx,
                     const std::vector<CpAnswer>& want, double tolerance) {
  Agreement a;
  a.checked = idx.size();
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const double err = std::abs(got[idx[k]].distance - want[k].distance);
    if (std::isnan(err) && std::isnan(got[idx[k]].distance) == std::isnan(want[k].distance)) {
      ++a.agreed;
      continue;
    }
    a.max_error = std::max(a.max_error, std::isnan(err) ? INFINITY : err);
    if (err <= tolerance) ++a.agreed;
  }
  return a;
}

Agreement compare_rays(const std::vector<RayAnswer>& got, const std::vector<std::size_t>& idx,
                       const std::vector<RayAnswer>& want, double tolerance) {
  Agreement a;
  a.checked = idx.size();
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const bool hit = got[idx[k]].triangle >= 0, hit_want = want[k].triangle >= 0;
    if (hit != hit_want) {
      ++a.hit_miss;
      continue;
    }
    if (!hit) {
      ++a.agreed;
      continue;
    }
    const double err = std::abs(got[idx[k]].t - want[k].t);
    a.max_error = std::max(a.max_error, err);
    if (err <= tolerance) ++a.agreed;
  }
  return a;
}

double tolerance_for(const Peer& peer, const BenchMesh& mesh) {
  return (peer.single_precision() ? 1e-5 : 1e-9) * mesh.diagonal();
}

/// One workload on one mesh for every peer: timing rows, checksums, agreement.
void run_workload(const BenchMesh& mesh, const std::string& workload,
                  std::vector<std::unique_ptr<Peer>>& peers, const Options& o, Report& report,
                  std::ostream& err) {
  const std::size_t count = static_cast<std::size_t>(o.queries);
  const bool rays = is_ray_workload(workload);
  std::vector<Vec3d> points;
  std::vector<Ray<double>> ray_list;
  if (rays) {
    ray_list = make_ray_queries(mesh, workload, count);
  } else {
    points = make_point_queries(mesh, workload, count);
  }
  const std::size_t n = rays ? ray_list.size() : points.size();

  // The oracle: brute force over every triangle, so the subsample is capped by work.
  const double budget = 4e8 / static_cast<double>(std::max<std::size_t>(1, mesh.triangles.size()));
  const std::size_t checks = std::min(static_cast<std::size_t>(o.check),
                                      std::max<std::size_t>(100, static_cast<std::size_t>(budget)));
  const std::vector<std::size_t> idx = subsample(n, checks);
  const int oracle_threads = *std::max_element(o.threads.begin(), o.threads.end());
  std::vector<CpAnswer> cp_oracle;
  std::vector<RayAnswer> ray_oracle;
  bool have_oracle = false;
  if (!idx.empty()) {
    err << "  [" << mesh.name << "] " << workload << ": brute force on " << idx.size()
        << " queries\n";
    if (rays) {
      std::vector<Ray<double>> sub;
      for (std::size_t i : idx) sub.push_back(ray_list[i]);
      have_oracle = brute_force_first_hits(mesh, sub, oracle_threads, ray_oracle);
    } else {
      std::vector<Vec3d> sub;
      for (std::size_t i : idx) sub.push_back(points[i]);
      have_oracle = brute_force_closest(mesh, sub, oracle_threads, cp_oracle);
    }
  }

  // Every other row is also compared with the first prox row on all queries, at the
  // float tolerance: checksums can hide offsetting differences, this cannot.
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  const double float_tolerance = 1e-5 * mesh.diagonal();
  std::vector<CpAnswer> cp_prox;
  std::vector<RayAnswer> ray_prox;
  bool have_prox = false;

  for (auto& peer : peers) {
    if (!peer->runs(workload)) continue;
    Row row;
    row.mesh = mesh.name;
    row.workload = workload;
    row.peer = peer->name();
    row.queries = n;
    const std::string label = "[" + mesh.name + "] " + workload + " " + peer->name();
    if (rays) {
      peer->set_rays(ray_list);
      row.qps = time_queries(label, n, o, err, [&](int t) { peer->first_hits(t); });
      const std::vector<RayAnswer> answers = peer->ray_answers();
      for (const RayAnswer& a : answers) {
        if (a.triangle >= 0) {
          ++row.hits;
          row.checksum += a.t;
        }
      }
      if (have_oracle) {
        row.agreement = compare_rays(answers, idx, ray_oracle, tolerance_for(*peer, mesh));
      }
      if (have_prox) {
        row.versus_prox = compare_rays(answers, all, ray_prox, float_tolerance);
      } else if (peer->name().rfind("prox", 0) == 0) {
        ray_prox = answers;
        have_prox = true;
      }
    } else {
      peer->set_points(points);
      row.qps = time_queries(label, n, o, err, [&](int t) { peer->closest_points(t); });
      const std::vector<CpAnswer> answers = peer->cp_answers();
      for (const CpAnswer& a : answers) row.checksum += a.distance;
      if (have_oracle) {
        row.agreement = compare_cp(answers, idx, cp_oracle, tolerance_for(*peer, mesh));
      }
      if (have_prox) {
        row.versus_prox = compare_cp(answers, all, cp_prox, float_tolerance);
      } else if (peer->name().rfind("prox", 0) == 0) {
        cp_prox = answers;
        have_prox = true;
      }
    }
    row.agreement.diagonal = mesh.diagonal();
    row.versus_prox.diagonal = mesh.diagonal();
    row.is_ray = rays;
    row.is_prox = peer->name().rfind("prox", 0) == 0;
    report.add_row(row);
  }
}

}  // namespace

void apply_quick(Options& o) {
  o.meshes = {"bunny"};
  o.queries = std::min<std::int64_t>(o.queries, 2000);
  o.runs = 1;
  o.check = std::min<std::int64_t>(o.check, 200);
}

int run(const Options& options, std::ostream& out, std::ostream& err) {
  Options o = options;
  if (o.quick) apply_quick(o);
  std::erase(o.peers, std::string());
  validate(o);

  std::vector<std::unique_ptr<Peer>> peers;
  std::vector<std::string> missing;
  for (const std::string& p : o.precisions) {
    auto peer = make_prox_peer(p == "double");
    if (peer) {
      peers.push_back(std::move(peer));
    } else {
      missing.push_back("prox (" + p + "): not built (the mesh engine, prox::mesh, is missing)");
    }
  }
  for (const std::string& name : o.peers) {
    auto peer = name == "embree"             ? make_embree_peer()
                : name == "embree16"         ? make_embree16_peer()
                : name == "prox-given-order" ? make_prox_peer(false, false)
                                             : make_cgal_peer();
    if (peer) {
      peers.push_back(std::move(peer));
    } else {
      missing.push_back(name + ": not built (library not found at configure time)");
    }
  }

  const bool only = o.hausdorff_only || o.sign_only || o.gpu_only;
  Report report(o, out);
  report.header(peers, missing, !only);

  bool need_files = o.hausdorff || o.hausdorff_only || o.sign || o.sign_only;
  if (o.gpu || o.gpu_only)
    for (const std::string& m : o.meshes) need_files |= m != "soup-1m";
  for (const std::string& m : o.meshes) need_files |= (m == "bunny" || m == "armadillo" ||
                                                       m == "bunny-1m" || m == "bunny-19m");
  const std::string data_dir = need_files ? resolve_data_dir(o.data_dir) : o.data_dir;

  for (const std::string& mesh_name : only ? std::vector<std::string>{} : o.meshes) {
    err << "[" << mesh_name << "] preparing mesh\n";
    const BenchMesh mesh = make_mesh(mesh_name, data_dir);
    report.mesh_header(mesh);
    std::vector<std::string> memory_lines;
    for (auto& peer : peers) {
      // Peak resident growth while this peer builds (index, build temporaries),
      // over what the process held before (the mesh, earlier peers' indexes).
      reset_peak_resident();
      const std::size_t before = resident_bytes("VmRSS:");
      BuildRow b;
      b.mesh = mesh.name;
      b.peer = peer->name();
      b.ms = time_builds(*peer, mesh, o, err);
      b.bytes = peer->memory_bytes();
      b.memory_method = peer->memory_method();
      b.triangles = mesh.triangles.size();
      report.add_build(b);
      const std::size_t peak = resident_bytes("VmHWM:");
      if (peak > 0) {
        const double tri = double(std::max<std::size_t>(mesh.triangles.size(), 1));
        const double growth = double(peak > before ? peak - before : 0);
        memory_lines.push_back(printf_string(
            "  %-16s peak resident %8.1f MiB; growth while building %8.1f MiB = %6.1f B/tri; "
            "index %6.1f B/tri",
            peer->name().c_str(), double(peak) / 1048576.0, growth / 1048576.0, growth / tri,
            double(b.bytes) / tri));
      }
    }
    report.print_builds(mesh.name);
    if (!memory_lines.empty()) {
      out << "Resident memory (/proc/self/status VmHWM, reset before each peer's builds; mesh "
             "arrays held by the benchmark: "
          << printf_string("%.1f", double(mesh_bytes(mesh)) / 1048576.0) << " MiB):\n";
      for (const std::string& line : memory_lines) out << line << "\n";
    }
    for (const std::string& w : o.workloads) {
      run_workload(mesh, w, peers, o, report, err);
      report.print_workload(mesh.name, w);
    }
  }
  if (!only) report.print_targets();
  if (o.hausdorff || o.hausdorff_only) run_hausdorff_rows(o, data_dir, out, err);
  if (o.sign || o.sign_only) run_sign_rows(o, data_dir, out, err);
  int gpu_status = 0;
  if (o.gpu || o.gpu_only) {
    GpuRowOptions g;
    g.meshes = o.meshes;
    g.workloads = o.workloads;
    g.queries = std::size_t(o.queries);
    g.data_dir = data_dir;
    g.reps = o.runs;
    g.threads = *std::max_element(o.threads.begin(), o.threads.end());
    g.with_sign = true;
    g.with_count = true;
    g.skip_without_device = true;
    err << "[gpu] GPU rows\n";
    gpu_status = run_gpu_rows(g, out);
  }
  return report.prox_agrees() && gpu_status == 0 ? 0 : 1;
}

int run(const Options& options) { return run(options, std::cout, std::cerr); }

}  // namespace prox::bench
