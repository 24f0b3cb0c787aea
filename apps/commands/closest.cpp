// apps/commands/closest.cpp — `prox closest MESH POINTS`: the closest mesh point to each point.
//
// CSV columns: distance,x,y,z,triangle,u,v,w,feature (+ signed_distance,
// winding_number with --signed); u, v, w weight the triangle's corners 0, 1, 2;
// a miss (nothing within --max-distance, or a non-finite point) is
// "nan,nan,nan,nan,-1,nan,nan,nan,none". .npy: float64 (N, 9) or (N, 11), same
// columns, feature as 0..6 = v0 v1 v2 e01 e12 e20 face (-1 for a miss).
// --device gpu: through prox::gpu, in float (apps/gpu_device.hpp); signs from
// the CPU's winding number.
#include <cmath>
#include <memory>
#include <vector>

#include "command.hpp"
#include "common.hpp"
#include "gpu_device.hpp"
#include "prox/io/csv.hpp"
#include "prox/io/npy.hpp"
#include "prox/io/read_table.hpp"
#include "prox/mesh/batch.hpp"

namespace prox::cli {

Runner setup_closest(CLI::App& app) {
  struct Options {
    std::string mesh, points, out;
    bool signed_distance = false;
    double max_distance = ScalarTraits<double>::infinity();
    int threads = 0;
    std::string device = "cpu";
  };
  auto o = std::make_shared<Options>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  app.add_option("POINTS", o->points,
                 "points: text with 3 numbers per line (spaces or commas, # comments), "
                 "a .npy of shape (N, 3), or - for standard input")
      ->required();
  app.add_option("-o,--output", o->out, "output .csv (default: standard output) or .npy");
  app.add_flag("--signed", o->signed_distance,
               "add signed_distance (negative inside) and winding_number columns");
  app.add_option("--max-distance", o->max_distance,
                 "ignore the mesh beyond this distance (a miss: triangle -1)")
      ->check(CLI::PositiveNumber);
  add_threads_option(app, o->threads);
  add_device_option(app, o->device);
  app.footer("Example: prox closest bunny.off points.txt -o closest.csv");
  return [o]() {
    const std::string ext = lower_extension(o->out);
    const bool npy = ext == ".npy";
    if (!o->out.empty() && o->out != "-" && !npy && ext != ".csv") {
      throw UsageError("-o must name a .csv or .npy file, not '" + o->out + "'");
    }
    LoadedMesh m = load_mesh(o->mesh, o->threads);
    const std::vector<Vec3d> points = io::read_points(o->points);
    const std::size_t n = points.size();
    BatchOptions batch;
    batch.threads = o->threads;
    std::vector<MeshClosestPoint<double>> cp(n);
    std::vector<MeshSignedDistance<double>> sd(o->signed_distance ? n : 0);
    if (o->device == "gpu") gpu_closest(m.index->mesh(), points, o->max_distance, cp, sd);
    else in_blocks(n, "prox closest", [&](std::size_t b, std::size_t e) {
      const auto in = std::span<const Vec3d>(points).subspan(b, e - b);
      closest_points(*m.index, in, std::span<MeshClosestPoint<double>>(cp).subspan(b, e - b),
                     o->max_distance, batch);
      if (o->signed_distance) {
        signed_distances(*m.index, in, std::span<MeshSignedDistance<double>>(sd).subspan(b, e - b),
                         batch);
      }
    });
    Output out(o->out);
    if (npy) {
      const std::size_t cols = o->signed_distance ? 11 : 9;
      std::vector<double> a;
      a.reserve(n * cols);
      for (std::size_t i = 0; i < n; ++i) {
        const MeshClosestPoint<double>& r = cp[i];
        a.insert(a.end(), {std::sqrt(r.sq_distance), r.point[0], r.point[1], r.point[2],
                           static_cast<double>(r.triangle), r.bary[0], r.bary[1], r.bary[2],
                           r.found() ? static_cast<double>(r.feature) : -1.0});
        if (o->signed_distance) a.insert(a.end(), {sd[i].signed_distance, sd[i].winding_number});
      }
      io::write_npy(out.stream(), a.data(), {n, cols});
    } else {
      std::vector<std::string> columns{"distance", "x", "y", "z", "triangle", "u", "v", "w", "feature"};
      if (o->signed_distance) {
        columns.push_back("signed_distance");
        columns.push_back("winding_number");
      }
      io::CsvWriter csv(out.stream(), columns);
      for (std::size_t i = 0; i < n; ++i) {
        const MeshClosestPoint<double>& r = cp[i];
        csv.field(std::sqrt(r.sq_distance)).field(r.point[0]).field(r.point[1]).field(r.point[2]);
        csv.field(r.triangle).field(r.bary[0]).field(r.bary[1]).field(r.bary[2]);
        csv.text(r.found() ? to_string(r.feature) : "none");
        if (o->signed_distance) csv.field(sd[i].signed_distance).field(sd[i].winding_number);
        csv.end_row();
      }
      csv.flush();
    }
    out.commit();
    return 0;
  };
}

}  // namespace prox::cli
