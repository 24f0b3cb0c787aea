// bench/engine/report.cpp — printing the benchmark table.
//
// Layout: a header (compiler, flags, ISA, CPU, peers), then per mesh a build
// block and one block per workload, each with a "prox x" column: how many
// times faster the first prox row is than that row (>1: prox faster; for build
// time that is peer ms / prox ms, for queries prox q/s / peer q/s). Last, the
// issue's targets against Embree (queries at 1 thread, build at 2), met or not.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <thread>

#include "prox/core/platform.hpp"

#ifndef PROX_BENCH_CXX_FLAGS
#define PROX_BENCH_CXX_FLAGS "(unknown)"
#endif
#ifndef PROX_BENCH_NATIVE
#define PROX_BENCH_NATIVE 0
#endif

namespace prox::bench {
namespace {

__attribute__((format(printf, 1, 2))) std::string format(const char* f, ...) {
  char buf[512];
  va_list args;
  va_start(args, f);
  std::vsnprintf(buf, sizeof buf, f, args);
  va_end(args);
  return buf;
}

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

std::string isa_of_this_build() { return PROX_COMPILER_TARGET; }

/// A speed-up: two decimals, or two significant digits when tiny.
std::string ratio_text(double x) { return format(x >= 0.01 ? "%.2f" : "%.1e", x); }

std::string threads_label(int t) { return std::to_string(t) + "t"; }

std::string agreement_text(const Agreement& a) {
  if (a.checked == 0) return "not checked (no brute-force twin)";
  std::string s = format("%zu/%zu agree", a.agreed, a.checked);
  if (a.hit_miss) s += format(", %zu hit/miss differ", a.hit_miss);
  s += format(", max err %.1e diag", a.max_error / a.diagonal);
  return s;
}

}  // namespace

void Report::header(const std::vector<std::unique_ptr<Peer>>& peers,
                    const std::vector<std::string>& missing, bool cpu_table) {
  out_ << "prox-bench: WORKLOADS.md v2, prox beside its peers in one process\n";
  #ifdef __clang__
  const char* compiler = "clang ";
#else
  const char* compiler = "GCC ";
#endif
  out_ << "compiler: " << compiler << __VERSION__
       << "; flags: " << PROX_BENCH_CXX_FLAGS << "; -march=native: "
       << (PROX_BENCH_NATIVE ? "yes (PROX_NATIVE=ON)" : "no (PROX_NATIVE=OFF)")
       << "; baseline compile flags target: " << isa_of_this_build()
       << " (prox's hot queries also carry AVX2 and AVX-512 paths; the prox row says which ran)\n";
  out_ << "machine: " << cpu_name() << ", " << std::thread::hardware_concurrency()
       << " hardware threads\n";
  if (!cpu_table) {
    std::string rows;
    if (options_.hausdorff_only) rows += " --hausdorff-only";
    if (options_.sign_only) rows += " --sign-only";
    if (options_.gpu_only) rows += " --gpu-only";
    out_ << "CPU table: not run (" << rows.substr(1) << "); only those rows follow\n";
    return;
  }
  out_ << "queries per workload: " << options_.queries << " (ray-primary "
       << primary_image_side(static_cast<std::size_t>(options_.queries)) << "^2), runs: "
       << options_.runs << " (median), agreement subsample: up to " << options_.check
       << " vs prox::BruteForce<double>\n";
  out_ << "timing: 1-thread query rates from the process's CPU time (steady on a shared "
          "machine), other thread counts and builds from wall time\n";
  for (const auto& p : peers) out_ << "  " << p->name() << ": " << p->description() << "\n";
  for (const std::string& m : missing) out_ << "  " << m << "\n";
  out_ << "\"prox x\" = how many times faster the first prox row is than the row (>1: prox "
          "faster; build: peer ms / prox ms, queries: prox q/s / peer q/s)\n";
}

void Report::mesh_header(const BenchMesh& mesh) {
  out_ << "\n== " << mesh.name << ": " << mesh.vertices.size() << " vertices, "
       << mesh.triangles.size() << " triangles, bbox diagonal " << format("%.6g", mesh.diagonal())
       << " ==\n";
}

void Report::print_builds(const std::string& mesh) {
  std::string head = format("%-14s", "build");
  for (int t : options_.threads) head += format(" %9s", ("ms@" + threads_label(t)).c_str());
  for (int t : options_.threads) head += format(" %8s", ("prox x@" + threads_label(t)).c_str());
  head += format(" %10s  %s", "bytes/tri", "memory measured by");
  out_ << head << "\n";
  const BuildRow* ref = nullptr;
  for (const BuildRow& b : builds_) {
    if (b.mesh == mesh && b.peer.rfind("prox", 0) == 0) {
      ref = &b;
      break;
    }
  }
  for (const BuildRow& b : builds_) {
    if (b.mesh != mesh) continue;
    std::string line = format("  %-12s", b.peer.c_str());
    for (double ms : b.ms) line += format(" %9.1f", ms);
    for (std::size_t i = 0; i < b.ms.size(); ++i) {
      line += format(" %8s", ref ? ratio_text(b.ms[i] / ref->ms[i]).c_str() : "-");
    }
    const double per_tri =
        b.bytes ? static_cast<double>(b.bytes) / static_cast<double>(b.triangles) : NAN;
    line += b.bytes ? format(" %10.1f", per_tri) : format(" %10s", "?");
    line += "  ";
    line += b.memory_method;
    out_ << line << "\n";
  }
  out_.flush();
}

void Report::print_workload(const std::string& mesh, const std::string& workload) {
  const Row* ref = nullptr;
  for (const Row& r : rows_) {
    if (r.mesh == mesh && r.workload == workload && r.is_prox) {
      ref = &r;
      break;
    }
  }
  std::string head = format("%-14s", workload.c_str());
  for (int t : options_.threads) head += format(" %9s", ("Mq/s@" + threads_label(t)).c_str());
  for (int t : options_.threads) head += format(" %8s", ("prox x@" + threads_label(t)).c_str());
  head += format(" %6s  %-34s %s", "hit%", "checksum", "agreement with brute force");
  out_ << head << "\n";
  for (const Row& r : rows_) {
    if (r.mesh != mesh || r.workload != workload) continue;
    std::string line = format("  %-12s", r.peer.c_str());
    for (double q : r.qps) line += format(" %9.4g", q / 1e6);
    for (std::size_t i = 0; i < r.qps.size(); ++i) {
      line += format(" %8s", ref ? ratio_text(ref->qps[i] / r.qps[i]).c_str() : "-");
    }
    const double n = static_cast<double>(std::max<std::size_t>(1, r.queries));
    if (r.is_ray) {
      line += format(" %6.2f  hits %-9zu sum t %-14.9g", 100.0 * static_cast<double>(r.hits) / n,
                     r.hits, r.checksum);
    } else {
      line += format(" %6s  sum d %-28.12g", "-", r.checksum);
    }
    line += " ";
    line += agreement_text(r.agreement);
    if (r.versus_prox.checked) {
      const Agreement& v = r.versus_prox;
      line += v.agreed == v.checked
                  ? format("; all %zu agree with prox", v.checked)
                  : format("; vs prox: %zu of %zu differ", v.checked - v.agreed, v.checked);
      if (v.hit_miss) line += format(" (%zu hit/miss)", v.hit_miss);
      line += format(", max %.1e diag", v.max_error / v.diagonal);
    }
    out_ << line << "\n";
  }
  out_.flush();
}

namespace {

// Issue 8's goals, prox speed / Embree speed at 1 thread.
double target_ratio(const std::string& workload) {
  if (is_ray_workload(workload)) return 1.2;
  return workload == "cp-near" ? 2.5 : 3.0;
}

}  // namespace

void Report::print_targets() {
  out_ << "\n== targets: 1 thread, prox vs embree (x = prox speed / embree speed) ==\n";
  const std::size_t t1 = static_cast<std::size_t>(
      std::find(options_.threads.begin(), options_.threads.end(), 1) - options_.threads.begin());
  // The build goal is at 2 threads; with no 2-thread column, 1 thread is shown.
  const std::size_t t2 = static_cast<std::size_t>(
      std::find(options_.threads.begin(), options_.threads.end(), 2) - options_.threads.begin());
  const std::size_t tb = t2 < options_.threads.size() ? t2 : t1;
  std::string head = format("%-12s", "mesh");
  for (const std::string& w : options_.workloads) {
    head += format(" %-20s", format("%s (>=%.1fx)", w.c_str(), target_ratio(w)).c_str());
  }
  // Coherent rays: prox's batch (packets) against Embree's rtcIntersect16.
  const bool packets = std::any_of(rows_.begin(), rows_.end(), [](const Row& r) {
    return r.peer == "embree16" && r.workload == "ray-primary";
  });
  if (packets) head += format(" %-28s", "ray-primary vs embree16 (>=1x)");
  out_ << head << " build at " << (tb == t2 ? "2 threads" : "1 thread")
       << " (prox ms <= embree ms)\n";
  for (const std::string& mesh : options_.meshes) {
    std::string line = format("  %-10s", mesh.c_str());
    auto find_row = [&](const std::string& w, bool prox) -> const Row* {
      for (const Row& r : rows_) {
        if (r.mesh == mesh && r.workload == w && (prox ? r.is_prox : r.peer == "embree")) {
          return &r;
        }
      }
      return nullptr;
    };
    for (const std::string& w : options_.workloads) {
      const Row* p = find_row(w, true);
      const Row* e = find_row(w, false);
      if (!p || !e || t1 == options_.threads.size()) {
        line += format(" %-20s", "n/a");
        continue;
      }
      const double x = p->qps[t1] / e->qps[t1];
      const double goal = target_ratio(w);
      line += format(" %-20s", format("%.2fx %s", x, x >= goal ? "met" : "MISSED").c_str());
    }
    if (packets) {
      const Row* p = find_row("ray-primary", true);
      const Row* e = nullptr;
      for (const Row& r : rows_)
        if (r.mesh == mesh && r.workload == "ray-primary" && r.peer == "embree16") e = &r;
      if (p && e && t1 < options_.threads.size()) {
        const double x = p->qps[t1] / e->qps[t1];
        line += format(" %-28s", format("%.2fx %s", x, x >= 1.0 ? "met" : "MISSED").c_str());
      } else {
        line += format(" %-28s", "n/a");
      }
    }
    const BuildRow* pb = nullptr;
    const BuildRow* eb = nullptr;
    for (const BuildRow& b : builds_) {
      if (b.mesh != mesh) continue;
      if (!pb && b.peer.rfind("prox", 0) == 0) pb = &b;
      if (b.peer == "embree") eb = &b;
    }
    if (pb && eb && tb < options_.threads.size()) {
      line += format(" %.1f vs %.1f ms %s", pb->ms[tb], eb->ms[tb],
                     pb->ms[tb] <= eb->ms[tb] ? "met" : "MISSED");
    } else {
      line += " n/a";
    }
    out_ << line << "\n";
  }
  std::size_t checked = 0;
  for (const Row& r : rows_) checked += r.is_prox ? r.agreement.checked : 0;
  if (!prox_agrees()) {
    out_ << "PROX DISAGREES with its brute-force twin (see the agreement column)\n";
  } else if (checked == 0) {
    out_ << "prox was not checked against its brute-force twin\n";
  } else {
    out_ << "prox agrees with its brute-force twin on every checked query (" << checked
         << " queries)\n";
  }
  out_.flush();
}

bool Report::prox_agrees() const {
  for (const Row& r : rows_) {
    if (r.is_prox && r.agreement.agreed != r.agreement.checked) return false;
  }
  return true;
}

}  // namespace prox::bench
