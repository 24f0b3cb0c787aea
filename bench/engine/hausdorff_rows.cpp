// bench/engine/hausdorff_rows.cpp — the Hausdorff and Chamfer rows of prox-bench
// (--hausdorff): bunny against a perturbed bunny.
//
// The pair: bunny (WORKLOADS.md) and a copy whose every vertex is moved by a
// uniform random offset in [-a, a]^3, a = 0.2% of the diagonal (64-bit
// Mersenne Twister, seed 1). prox: hausdorff_one_sided / hausdorff at 1e-4 of
// the diagonal of the two meshes' joint box, on 1 and 2 threads (median of
// runs; the indexes are built before the clock starts, their build time is
// printed apart). CGAL: bounded_error_Hausdorff_distance and
// bounded_error_symmetric_Hausdorff_distance with error_bound = the same
// absolute tolerance, Sequential_tag (the only one CGAL 5.5 implements), which
// build their own trees inside the call. "agrees": CGAL's estimate lies in
// prox's certified [lower, upper] widened by CGAL's own bound on each side.
// Chamfer: 1,000,000 stratified samples per side (prox::sample_surface), then
// their distances to the other mesh; sampling and distances timed together.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <ostream>
#include <random>
#include <ctime>
#include <string>
#include <vector>

#include <tbb/task_arena.h>

#include "bench_api.hpp"
#include "hausdorff_peer.hpp"
#include "prox/mesh/hausdorff.hpp"
#include "prox/mesh/sample_surface.hpp"
#include "workloads.hpp"

namespace prox::bench {
namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// The process's CPU time (ms, all threads): on a shared machine the fair
/// measure of a 1-thread call (other jobs inflate its wall time, not this).
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

struct Times {
  double wall = 0, cpu = 0;
};

/// Median wall time and median process CPU time (ms) of `runs` calls of fn.
Times median_times(int runs, const std::function<void()>& fn) {
  std::vector<double> w, c;
  for (int r = 0; r < std::max(runs, 1); ++r) {
    const double s = now_ms(), sc = cpu_ms();
    fn();
    c.push_back(cpu_ms() - sc);
    w.push_back(now_ms() - s);
  }
  std::sort(w.begin(), w.end());
  std::sort(c.begin(), c.end());
  return {w[w.size() / 2], c[c.size() / 2]};
}

double median_ms(int runs, const std::function<void()>& fn) { return median_times(runs, fn).wall; }

BenchMesh perturbed(const BenchMesh& m, double amplitude) {
  BenchMesh p = m;
  p.name = m.name + "-perturbed";
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  for (Vec3d& v : p.vertices) v = v + Vec3d{u(rng), u(rng), u(rng)};
  p.update_bounds();
  return p;
}

TriangleMesh<double> to_mesh(const BenchMesh& m) { return TriangleMesh<double>(m.vertices, m.triangles); }

}  // namespace

void run_hausdorff_rows(const Options& o, const std::string& data_dir, std::ostream& out,
                        std::ostream& err) {
  err << "[hausdorff] preparing bunny and a perturbed bunny\n";
  const BenchMesh a = make_mesh("bunny", data_dir);
  const BenchMesh b = perturbed(a, 0.002 * a.diagonal());
  double build_ms = now_ms();
  const MeshIndex<double> ia(to_mesh(a)), ib(to_mesh(b));
  build_ms = now_ms() - build_ms;
  HausdorffOptions ho;
  ho.relative_tolerance = 1e-4;
  const double tol = hausdorff_tolerance(ia.mesh(), ib.mesh(), ho);
  ho.tolerance = tol;

  out << "\n## Hausdorff: bunny vs bunny perturbed by up to 0.2% of the diagonal per coordinate\n"
      << "tolerance " << tol << " (1e-4 of the joint diagonal); prox index builds (both) "
      << build_ms << " ms, not in the times below; CGAL's calls build their own trees\n";
  out << "| what | threads | value / [lower, upper] | ms wall (median of " << o.runs
      << ") | ms CPU, process (median) |\n"
      << "|---|---|---|---|---|\n";
  double tb_ms = now_ms();
  const HausdorffTarget<double> tb(ib);
  tb_ms = now_ms() - tb_ms;
  HausdorffSide one{};
  HausdorffResult sym{};
  double one_ms1 = 0, sym_ms1 = 0, one_cpu1 = 0, sym_cpu1 = 0;
  for (int threads : o.threads) {
    ho.threads = threads;
    tbb::task_arena arena(threads);
    const Times t1 = median_times(o.runs, [&] {
      arena.execute([&] { one = hausdorff_one_sided(ia.mesh(), ib, ho); });
    });
    const Times t2 = median_times(o.runs, [&] { arena.execute([&] { sym = hausdorff(ia, ib, ho); }); });
    // B prepared once (HausdorffTarget, built outside the clock): the calls of
    // a user comparing many meshes with one.
    HausdorffSide onep{};
    const Times t3 = median_times(o.runs, [&] {
      arena.execute([&] { onep = hausdorff_one_sided(ia.mesh(), tb, ho); });
    });
    if (onep.lower != one.lower || onep.upper != one.upper)
      err << "[hausdorff] MISMATCH: the prepared target's bracket differs\n";
    const double ms1 = t1.wall, ms2 = t2.wall;
    if (threads == 1) {
      one_ms1 = ms1;
      sym_ms1 = ms2;
      one_cpu1 = t1.cpu;
      sym_cpu1 = t2.cpu;
    }
    out << "| prox one-sided A->B | " << threads << " | [" << one.lower << ", " << one.upper
        << "] | " << ms1 << " | " << t1.cpu << " |\n";
    out << "| prox one-sided A->B, B prepared (" << tb_ms << " ms, once) | " << threads << " | ["
        << onep.lower << ", " << onep.upper << "] | " << t3.wall << " | " << t3.cpu << " |\n";
    out << "| prox symmetric | " << threads << " | [" << sym.lower << ", " << sym.upper << "] | "
        << ms2 << " | " << t2.cpu << " |\n";
    err << "[hausdorff] prox " << threads << " thread(s): " << ms1 << " ms one-sided, " << ms2
        << " ms symmetric\n";
  }
  bool peers_cgal = std::find(o.peers.begin(), o.peers.end(), "cgal") != o.peers.end();
  if (peers_cgal && cgal_hausdorff_available()) {
    double c1_ms = 0, c2_ms = 0;
    err << "[hausdorff] CGAL bounded_error_Hausdorff_distance\n";
    double cpu0 = cpu_ms();
    const double c1 = cgal_hausdorff(a, b, tol, false, &c1_ms);
    const double c1_cpu = cpu_ms() - cpu0;
    cpu0 = cpu_ms();
    const double c2 = cgal_hausdorff(a, b, tol, true, &c2_ms);
    const double c2_cpu = cpu_ms() - cpu0;
    const bool agree1 = c1 >= one.lower - tol && c1 <= one.upper + tol;
    const bool agree2 = c2 >= sym.lower - tol && c2 <= sym.upper + tol;
    out << "| CGAL " << cgal_hausdorff_version() << " one-sided A->B | 1 | " << c1 << " | " << c1_ms
        << " | " << c1_cpu << " |\n";
    out << "| CGAL symmetric | 1 | " << c2 << " | " << c2_ms << " | " << c2_cpu << " |\n";
    out << "CGAL / prox time, 1 thread: one-sided " << c1_cpu / one_cpu1 << "x, symmetric "
        << c2_cpu / sym_cpu1 << "x (CPU time; wall: " << c1_ms / one_ms1 << "x, " << c2_ms / sym_ms1
        << "x); CGAL's value within prox's interval +- both tolerances: "
        << (agree1 ? "yes" : "NO") << " (one-sided), " << (agree2 ? "yes" : "NO")
        << " (symmetric); CGAL's estimate minus prox's certified lower bound: one-sided "
        << c1 - one.lower << ", symmetric " << c2 - sym.lower << "\n";
  } else {
    out << "(CGAL " << (peers_cgal ? "not built" : "not asked for") << ")\n";
  }
  out << "prox one-sided, 1 thread: " << one_cpu1 << " ms CPU (goal <= 100 ms: "
      << (one_cpu1 <= 100 ? "met" : "missed") << "), symmetric " << sym_cpu1 << " ms CPU; " << one.subtriangles << " sub-triangles, "
      << one.searches << " BVH searches, " << one.point_queries << " point queries, "
      << one.rounds << " levels\n";

  const std::size_t n = 1000000;
  out << "\n## Chamfer: 1,000,000 stratified samples per side, point-to-surface\n"
      << "| threads | chamfer L2 (mean d^2 + mean d^2) | chamfer L1 | ms (median of " << o.runs
      << ", sampling + distances) |\n|---|---|---|---|\n";
  for (int threads : o.threads) {
    ChamferDistance c{};
    const double ms = median_ms(o.runs, [&] {
      const auto sa = sample_surface(ia.mesh(), n, 1, SampleMethod::stratified, threads);
      const auto sb = sample_surface(ib.mesh(), n, 2, SampleMethod::stratified, threads);
      const auto da = sample_distances(std::span<const Vec3d>(sa.points), ib, threads);
      const auto db = sample_distances(std::span<const Vec3d>(sb.points), ia, threads);
      c = chamfer(da, db);
    });
    out << "| " << threads << " | " << c.chamfer_l2 << " | " << c.chamfer_l1 << " | " << ms << " |\n";
  }
  // The same with float indexes picking the nearest triangles and double
  // measuring them (sample_distances(points, float index, double mesh)).
  double fbuild = now_ms();
  const MeshIndex<float> fa(float_mesh(ia.mesh())), fb(float_mesh(ib.mesh()));
  fbuild = now_ms() - fbuild;
  out << "float indexes pick, double measures (float index builds " << fbuild
      << " ms, not in the times; distances above the double ones by at most "
      << std::max(float_pick_error(ia.mesh(), 0.01 * a.diagonal()),
                  float_pick_error(ib.mesh(), 0.01 * a.diagonal()))
      << " each):\n| threads | chamfer L2 | chamfer L1 | ms (median of " << o.runs
      << ", sampling + distances) |\n|---|---|---|---|\n";
  for (int threads : o.threads) {
    ChamferDistance c{};
    const double ms = median_ms(o.runs, [&] {
      const auto sa = sample_surface(ia.mesh(), n, 1, SampleMethod::stratified, threads);
      const auto sb = sample_surface(ib.mesh(), n, 2, SampleMethod::stratified, threads);
      const auto da = sample_distances(std::span<const Vec3d>(sa.points), fb, ib.mesh(), threads);
      const auto db = sample_distances(std::span<const Vec3d>(sb.points), fa, ia.mesh(), threads);
      c = chamfer(da, db);
    });
    out << "| " << threads << " | " << c.chamfer_l2 << " | " << c.chamfer_l1 << " | " << ms << " |\n";
  }
}

}  // namespace prox::bench
