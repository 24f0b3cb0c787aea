// bench/engine/sign_rows.cpp — the signed distance, winding number and SDF
// grid rows of prox-bench (--sign, --sign-only; issue 10), on the WORKLOADS.md
// meshes (bunny, bunny-1m; --meshes picks among them).
//
// Rows: plain closest point on cp-near points, the certified
// MeshIndex::signed_distance, SignedMesh per sign method (auto, winding,
// pseudonormal, parity: the method auto chose, and how many answers were
// unsure), the fast winding number alone on points in the box padded 10%
// (1 thread each), and the SDF grid of bunny over its box padded 10% at each
// --sdf-grids resolution and --threads count (wall seconds), with the largest
// difference of 20,000 sampled nodes from independent queries (must be 0).
// Every figure is measured in this one process, one after the other, so the
// ratios hold on a shared machine where absolute rates wander.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "bench_api.hpp"
#include "prox/mesh.hpp"
#include "sign_rows.hpp"
#include "workloads.hpp"

namespace prox::bench {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class Fn>
double rate(std::size_t n, Fn&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return double(n) / seconds_since(t0);
}

[[gnu::format(printf, 2, 3)]] void print(std::ostream& out, const char* f, ...) {
  char line[512];
  va_list a;
  va_start(a, f);
  std::vsnprintf(line, sizeof line, f, a);
  va_end(a);
  out << line;
}

}  // namespace

void run_sign_rows(const Options& o, const std::string& data_dir, std::ostream& out,
                   std::ostream& err) {
  const std::size_t queries = std::size_t(std::max<std::int64_t>(o.quick ? 2000 : o.queries / 5, 1));
  const std::size_t sample = o.quick ? 2000 : 20000;
  std::vector<std::string> meshes;
  for (const std::string& m : o.meshes)
    if (m == "bunny" || m == "bunny-1m") meshes.push_back(m);
  out << "\nSigned distance, winding number, SDF grid (issue 10; " << queries
      << " queries a row, 1 thread; grids: wall seconds)\n";
  BatchOptions one;
  one.threads = 1;
  for (const std::string& name : meshes) {
    err << "[" << name << "] signed rows\n";
    const BenchMesh bm = make_mesh(name, data_dir);
    const MeshIndex<double> index(TriangleMesh<double>(bm.vertices, bm.triangles));
    const std::vector<Vec3d> pts = make_point_queries(bm, "cp-near", queries);
    std::vector<MeshClosestPoint<double>> cp(pts.size());
    const double r_cp = rate(pts.size(), [&] {
      closest_points(index, std::span<const Vec3d>(pts), std::span(cp),
                     ScalarTraits<double>::infinity(), one);
    });
    print(out, "%-10s closest point (cp-near, 1 thread)        %10.0f q/s\n", name.c_str(), r_cp);
    std::vector<MeshSignedDistance<double>> old(pts.size());
    const double r_old = rate(pts.size(), [&] {
      signed_distances(index, std::span<const Vec3d>(pts), std::span(old), one);
    });
    print(out, "%-10s MeshIndex::signed_distance (certified)  %10.0f q/s  (%.2fx closest)\n",
                name.c_str(), r_old, r_old / r_cp);
    for (SignMethod m : {SignMethod::automatic, SignMethod::winding, SignMethod::pseudonormal,
                         SignMethod::parity}) {
      const SignedMesh<MeshIndex<double>> sm(index, {m});
      if (m == SignMethod::winding) index.build_far_field();
      std::vector<SignedClosestPoint<double>> ans(pts.size());
      const double r = rate(pts.size(), [&] {
        signed_queries(sm, std::span<const Vec3d>(pts), std::span(ans), one);
      });
      std::size_t unsure = 0;
      for (const auto& s : ans) unsure += s.confidence != SignConfidence::sure;
      print(out, "%-10s signed, %-13s -> %-12s       %10.0f q/s  (%.2fx closest, %zu unsure)\n",
                  name.c_str(), std::string(to_string(m)).c_str(),
                  std::string(to_string(sm.method())).c_str(), r, r / r_cp, unsure);
    }
    // The fast winding number alone, on points in the box padded 10%.
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> u(-0.1, 1.1);
    std::vector<Vec3d> box(queries);
    const Vec3d lo = bm.bounds.lo, d = bm.bounds.hi - bm.bounds.lo;
    for (Vec3d& p : box) p = lo + Vec3d{u(rng) * d[0], u(rng) * d[1], u(rng) * d[2]};
    std::vector<double> w(box.size());
    const double r_w = rate(box.size(), [&] {
      winding_numbers(index, std::span<const Vec3d>(box), std::span(w), one);
    });
    print(out, "%-10s fast winding number (padded box, 1 thr) %10.0f q/s  (%.2f us a query)\n",
                name.c_str(), r_w, 1e6 / r_w);
    // The certified fast winding number (FastWindingNumber::decide_sign: the
    // sign and SignedMesh's unsure band settled by a rigorous bound, else the
    // exact sum), on the same box points and on the cp-near points.
    // On a closed mesh decide_sign answers the integer (the grid of free
    // cells, then the traversal to the integer); the "thresholds" rows run the
    // traversal to the six thresholds +-0.3, +-0.5, +-0.7 instead (what every
    // mesh got before the grid).
    const auto t_build = std::chrono::steady_clock::now();
    const FastWindingNumber<double> fast(index);
    print(out, "%-10s certified fast winding: built in %.3f s (%s, grid %zu cells, %.1f MB)\n",
          name.c_str(), seconds_since(t_build), fast.closed() ? "closed" : "not closed",
          fast.grid_cells(), double(fast.memory_bytes()) / 1e6);
    static constexpr double kThresholds[6] = {-0.7, -0.5, -0.3, 0.3, 0.5, 0.7};
    // The row: --queries points (1M by default) in the padded box, on
    // a fresh object (the grid learns its components' integers as it goes).
    std::vector<Vec3d> many(o.quick ? queries : std::size_t(std::max<std::int64_t>(o.queries, 1)));
    for (Vec3d& p : many) p = lo + Vec3d{u(rng) * d[0], u(rng) * d[1], u(rng) * d[2]};
    const std::string many_label = "box, " + std::to_string(many.size()) + " pts";
    {
      const FastWindingNumber<double> fresh(index);
      std::vector<CertifiedWinding<double>> cw(many.size());
      const double r_c = rate(many.size(), [&] {
        batch_map(std::span(cw), [&](std::size_t i) { return fresh.decide_sign(many[i]); }, one);
      });
      std::size_t stepped = 0, exact = 0, grid = 0;
      for (const auto& c : cw) {
        exact += c.exact;
        grid += c.integral && c.clusters == 0 && c.triangles == 0;
        stepped += c.integral && (c.clusters > 0 || c.triangles > 0);
      }
      print(out, "%-10s certified fast winding (%-16s, 1 thr) %8.0f q/s  (%.2f us; %.1f%% from the "
                 "grid, %.1f%% traversed, %zu exact)\n",
            name.c_str(), many_label.c_str(), r_c, 1e6 / r_c, 100.0 * double(grid) / double(cw.size()),
            100.0 * double(stepped) / double(cw.size()), exact);
    }
    for (const auto& [label, set, integer] :
         {std::tuple<const char*, const std::vector<Vec3d>*, bool>{"padded box", &box, true},
          {"cp-near", &pts, true},
          {"box, thresholds", &box, false},
          {"near, thresholds", &pts, false}}) {
      std::vector<CertifiedWinding<double>> cw(set->size());
      const double r_c = rate(set->size(), [&] {
        batch_map(std::span(cw), [&](std::size_t i) {
          return integer ? fast.decide_sign((*set)[i])
                         : fast.evaluate((*set)[i], std::span<const double>(kThresholds));
        }, one);
      });
      double clusters = 0, tris = 0;
      std::size_t exact = 0;
      for (const auto& c : cw) {
        clusters += c.clusters;
        tris += c.triangles;
        exact += c.exact;
      }
      print(out, "%-10s certified fast winding (%-16s, 1 thr) %8.0f q/s  (%.2f us; %.0f clusters, "
                 "%.0f triangles a query; %zu exact)\n",
            name.c_str(), label, r_c, 1e6 / r_c, clusters / double(cw.size()),
            tris / double(cw.size()), exact);
    }
  }
  // SDF grid of bunny.
  const BenchMesh bm = make_mesh("bunny", data_dir);
  const MeshIndex<double> index(TriangleMesh<double>(bm.vertices, bm.triangles));
  const SignedMesh<MeshIndex<double>> sm(index);
  for (const int g : o.quick ? std::vector<int>{24} : o.sdf_grids) {
    err << "[bunny] sdf grid " << g << "^3\n";
    const GridSpec spec = grid_over_box(bm.bounds, 0.1, std::size_t(g));
    SdfGrid<double> last;
    for (const int t : o.threads) {
      SdfOptions so;
      so.batch.threads = t;
      sdf_detail::LuneStats stats;
      so.lune_stats = &stats;
      const auto t0 = std::chrono::steady_clock::now();
      last = signed_distance_grid(sm, spec, so);
      const double s = seconds_since(t0);
      const double searches = double(std::max<std::size_t>(stats.queries, 1));
      print(out, "bunny      sdf grid %d^3 (%zux%zux%zu), %d thread(s)  %8.2f s  (%s, %zu signed, "
                  "%zu unsure; %.1f nodes, %.2f kernel calls a search)\n",
                  g, spec.dims[0], spec.dims[1], spec.dims[2], t, s,
                  std::string(to_string(last.method)).c_str(), last.sign_evaluations,
                  last.unsure, double(stats.nodes_visited) / searches,
                  double(stats.triangles_tested) / searches);
    }
    std::mt19937_64 pick(2);
    double worst = 0;
    std::size_t differ = 0;
    for (std::size_t n = 0; n < sample; ++n) {
      const std::size_t i = pick() % spec.dims[0], j = pick() % spec.dims[1],
                        k = pick() % spec.dims[2];
      const double want = sm.query(spec.node(i, j, k)).signed_distance;
      const double got = last.values[spec.index(i, j, k)];
      worst = std::max(worst, std::abs(got - want));
      differ += !(got == want);
    }
    print(out, "bunny      sdf grid %d^3: largest difference from %zu independent queries: %g "
               "(%zu not bit-equal)\n", g, sample, worst, differ);
  }
}

}  // namespace prox::bench
