// apps/commands/closest.cpp — `prox closest MESH POINTS`: the closest mesh point to each point.
//
// CSV columns: distance,x,y,z,triangle,u,v,w,feature (+ signed_distance,
// winding_number, inside_votes, sign_method, confidence with --signed); u, v, w
// weight the triangle's corners 0, 1, 2; a miss (nothing within --max-distance,
// or a non-finite point) is "nan,nan,nan,nan,-1,nan,nan,nan,none". With --signed
// the closest point and its sign come from one traversal (prox/mesh/sign.hpp):
// winding_number is the deciding number (winding only, else nan), inside_votes
// the parity rays that said inside, as "k/n" (parity only, else empty), and
// confidence sure / unsure. .npy: float64 (N, 9) or (N, 14), same columns,
// feature as 0..6 = v0 v1 v2 e01 e12 e20 face (-1 for a miss), inside_votes k
// (nan), sign_method 1 winding 2 pseudonormal 3 parity (-1 for a miss),
// confidence 0 sure 1 unsure (-1 for a miss).
#include <cmath>
#include <memory>
#include <vector>

#include "command.hpp"
#include "common.hpp"
#include "prox/io/csv.hpp"
#include "prox/io/npy.hpp"
#include "prox/io/read_table.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/sign.hpp"
#include "signing.hpp"

namespace prox::cli {

Runner setup_closest(CLI::App& app) {
  struct Options {
    std::string mesh, points, out;
    bool signed_distance = false;
    double max_distance = ScalarTraits<double>::infinity();
    int threads = 0;
    SignChoice sign;
  };
  auto o = std::make_shared<Options>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  app.add_option("POINTS", o->points,
                 "points: text with 3 numbers per line (spaces or commas, # comments), "
                 "a .npy of shape (N, 3), or - for standard input")
      ->required();
  app.add_option("-o,--output", o->out, "output .csv (default: standard output) or .npy");
  app.add_flag("--signed", o->signed_distance,
               "add signed_distance (negative inside), winding_number, inside_votes, "
               "sign_method and confidence columns");
  add_sign_options(app, o->sign);
  app.add_option("--max-distance", o->max_distance,
                 "ignore the mesh beyond this distance (a miss: triangle -1)")
      ->check(CLI::PositiveNumber);
  add_threads_option(app, o->threads);
  app.footer("Example: prox closest bunny.off points.txt -o closest.csv");
  return [o]() {
    const std::string ext = lower_extension(o->out);
    const bool npy = ext == ".npy";
    if (!o->out.empty() && o->out != "-" && !npy && ext != ".csv") {
      throw UsageError("-o must name a .csv or .npy file, not '" + o->out + "'");
    }
    if (!o->signed_distance && (o->sign.reorient || o->sign.method != "auto"))
      throw UsageError("--sign-method and --reorient need --signed");
    LoadedMesh m = load_mesh(o->mesh, o->threads);
    if (m.index->mesh().empty())
      std::cerr << "prox closest: warning: " << o->mesh
                << " has no triangles (a point cloud?): every row is a miss\n";
    Signer signer;
    if (o->signed_distance) signer = make_signer(m, o->sign, o->mesh, "closest", o->threads);
    const std::vector<Vec3d> points = io::read_points(o->points);
    const std::size_t n = points.size();
    BatchOptions batch;
    batch.threads = o->threads;
    std::vector<MeshClosestPoint<double>> cp(n);
    std::vector<SignedClosestPoint<double>> sd(o->signed_distance ? n : 0);
    in_blocks(n, "prox closest", [&](std::size_t b, std::size_t e) {
      const auto in = std::span<const Vec3d>(points).subspan(b, e - b);
      if (o->signed_distance) {
        const SignedMesh<MeshIndex<double>>& sm = *signer.mesh;
        const double r = o->max_distance;
        batch_map(std::span<SignedClosestPoint<double>>(sd).subspan(b, e - b),
                  [&](std::size_t i) { return sm.query(in[i], r); }, batch);
        for (std::size_t i = b; i < e; ++i) cp[i] = sd[i].closest;
      } else {
        closest_points(*m.index, in, std::span<MeshClosestPoint<double>>(cp).subspan(b, e - b),
                       o->max_distance, batch);
      }
    });
    const double nan = ScalarTraits<double>::quiet_nan();
    Output out(o->out);
    if (npy) {
      const std::size_t cols = o->signed_distance ? 14 : 9;
      std::vector<double> a;
      a.reserve(n * cols);
      for (std::size_t i = 0; i < n; ++i) {
        const MeshClosestPoint<double>& r = cp[i];
        a.insert(a.end(), {std::sqrt(r.sq_distance), r.point[0], r.point[1], r.point[2],
                           static_cast<double>(r.triangle), r.bary[0], r.bary[1], r.bary[2],
                           r.found() ? static_cast<double>(r.feature) : -1.0});
        if (o->signed_distance) {
          const SignedClosestPoint<double>& s = sd[i];
          const bool f = s.found() && s.method != SignMethod::none;
          a.insert(a.end(), {s.signed_distance, s.winding_number,
                             s.votes ? double(s.inside_votes) : nan,
                             f ? double(static_cast<int>(s.method)) : -1.0,
                             f ? double(static_cast<int>(s.confidence)) : -1.0});
        }
      }
      io::write_npy(out.stream(), a.data(), {n, cols});
    } else {
      std::vector<std::string> columns{"distance", "x", "y", "z", "triangle", "u", "v", "w", "feature"};
      if (o->signed_distance) {
        columns.push_back("signed_distance");
        columns.push_back("winding_number");
        columns.push_back("inside_votes");
        columns.push_back("sign_method");
        columns.push_back("confidence");
      }
      io::CsvWriter csv(out.stream(), columns);
      for (std::size_t i = 0; i < n; ++i) {
        const MeshClosestPoint<double>& r = cp[i];
        csv.field(std::sqrt(r.sq_distance)).field(r.point[0]).field(r.point[1]).field(r.point[2]);
        csv.field(r.triangle).field(r.bary[0]).field(r.bary[1]).field(r.bary[2]);
        csv.text(r.found() ? to_string(r.feature) : "none");
        if (o->signed_distance) {
          const SignedClosestPoint<double>& s = sd[i];
          const bool f = s.found() && s.method != SignMethod::none;
          csv.field(s.signed_distance).field(s.winding_number);
          csv.text(s.votes ? std::to_string(s.inside_votes) + "/" + std::to_string(s.votes) : "");
          csv.text(f ? std::string(to_string(s.method)) : "none");
          csv.text(f ? to_string(s.confidence) : "none");
        }
        csv.end_row();
      }
      csv.flush();
    }
    out.commit();
    return 0;
  };
}

}  // namespace prox::cli
