// bench/engine/sign_bench.cpp — `prox-sign-bench`: signed distance per sign
// method beside plain closest point, the fast winding number alone, and the
// SDF grid (issue 10's rows), on the WORKLOADS.md meshes (bunny, bunny-1m).
//
// Every figure is measured in this one process, one after the other, so the
// ratios hold even on a shared machine where absolute rates wander.
//   prox-sign-bench [--data DIR] [--queries N] [--meshes bunny,bunny-1m]
//                   [--grids 128,256] [--threads 1,2] [--sample N]
// Output: one line per row, "row  value  unit  (details)".
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "prox/mesh.hpp"
#include "workloads.hpp"

using namespace prox;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

template <class Fn>
double rate(std::size_t n, Fn&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return double(n) / seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"prox-sign-bench: signed distance, winding number and SDF grid rates"};
  std::string data, meshes = "bunny,bunny-1m", grids = "128", threads = "1,2";
  std::size_t queries = 200000, sample = 20000;
  app.add_option("--data", data, "folder with bunny00.off (default: the CGAL data cache)");
  app.add_option("--queries", queries, "cp-near points per signed row, box points for winding");
  app.add_option("--meshes", meshes, "meshes for the signed rows");
  app.add_option("--grids", grids, "SDF grid resolutions of bunny (longest axis), e.g. 128,256");
  app.add_option("--threads", threads, "thread counts for the grid rows");
  app.add_option("--sample", sample, "grid nodes checked against independent queries");
  CLI11_PARSE(app, argc, argv);
  const std::string dir = bench::resolve_data_dir(data);
  BatchOptions one;
  one.threads = 1;
  for (const std::string& name : split(meshes)) {
    const bench::BenchMesh bm = bench::make_mesh(name, dir);
    const MeshIndex<double> index(TriangleMesh<double>(bm.vertices, bm.triangles));
    const std::vector<Vec3d> pts = bench::make_point_queries(bm, "cp-near", queries);
    std::vector<MeshClosestPoint<double>> cp(pts.size());
    const double r_cp = rate(pts.size(), [&] {
      closest_points(index, std::span<const Vec3d>(pts), std::span(cp),
                     ScalarTraits<double>::infinity(), one);
    });
    std::printf("%-10s closest point (cp-near, 1 thread)        %10.0f q/s\n", name.c_str(), r_cp);
    std::vector<MeshSignedDistance<double>> old(pts.size());
    const double r_old = rate(pts.size(), [&] {
      signed_distances(index, std::span<const Vec3d>(pts), std::span(old), one);
    });
    std::printf("%-10s MeshIndex::signed_distance (old)        %10.0f q/s  (%.2fx closest)\n",
                name.c_str(), r_old, r_old / r_cp);
    for (SignMethod m : {SignMethod::automatic, SignMethod::winding, SignMethod::pseudonormal,
                         SignMethod::parity}) {
      const SignedMesh<MeshIndex<double>> sm(index, {m});
      if (m == SignMethod::winding) index.build_far_field();
      std::vector<SignedClosestPoint<double>> out(pts.size());
      const double r = rate(pts.size(), [&] {
        signed_queries(sm, std::span<const Vec3d>(pts), std::span(out), one);
      });
      std::size_t unsure = 0;
      for (const auto& s : out) unsure += s.confidence != SignConfidence::sure;
      std::printf("%-10s signed, %-13s -> %-12s       %10.0f q/s  (%.2fx closest, %zu unsure)\n",
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
    std::printf("%-10s fast winding number (padded box, 1 thr) %10.0f q/s  (%.2f us a query)\n",
                name.c_str(), r_w, 1e6 / r_w);
  }
  // SDF grid of bunny.
  const bench::BenchMesh bm = bench::make_mesh("bunny", dir);
  const MeshIndex<double> index(TriangleMesh<double>(bm.vertices, bm.triangles));
  const SignedMesh<MeshIndex<double>> sm(index);
  for (const std::string& g : split(grids)) {
    const GridSpec spec = grid_over_box(bm.bounds, 0.1, std::size_t(std::stoul(g)));
    SdfGrid<double> last;
    for (const std::string& t : split(threads)) {
      SdfOptions o;
      o.batch.threads = std::stoi(t);
      const auto t0 = std::chrono::steady_clock::now();
      last = signed_distance_grid(sm, spec, o);
      const double s = seconds_since(t0);
      std::printf("bunny      sdf grid %s^3 (%zux%zux%zu), %s thread(s)  %8.2f s  (%s, %zu signed, "
                  "%zu unsure)\n",
                  g.c_str(), spec.dims[0], spec.dims[1], spec.dims[2], t.c_str(), s,
                  std::string(to_string(last.method)).c_str(), last.sign_evaluations,
                  last.unsure);
    }
    std::mt19937_64 pick(2);
    double worst = 0;
    for (std::size_t n = 0; n < sample; ++n) {
      const std::size_t i = pick() % spec.dims[0], j = pick() % spec.dims[1],
                        k = pick() % spec.dims[2];
      const double want = sm.query(spec.node(i, j, k)).signed_distance;
      worst = std::max(worst, std::abs(last.values[spec.index(i, j, k)] - want));
    }
    std::printf("bunny      sdf grid %s^3: largest difference from %zu independent queries: %g\n",
                g.c_str(), sample, worst);
  }
  return 0;
}
