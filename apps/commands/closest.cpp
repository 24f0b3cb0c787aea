// apps/commands/closest.cpp — `prox closest MESH POINTS`: the closest mesh point to each point.
//
// Columns (apps/table.hpp writes them as CSV, .npz or .npy; --columns chooses):
//   query                      row of the point in POINTS (0-based), int64
//   distance                   |point - closest|, float64
//   closest_x/y/z              the closest point on the mesh
//   triangle                   its triangle id, int64, -1 for a miss
//   u, v, w                    weights of the triangle's corners 0, 1, 2
//   feature                    int8 code 0..6 = v0 v1 v2 e01 e12 e20 face, -1
//                              for a miss (CSV: the name, "none")
//   normal_x/y/z               the surface normal there (face normal on a face,
//                              edge / vertex pseudonormal on an edge / corner)
//   face_normal_x/y/z          the unit normal of the triangle
//   with --signed (the closest point and its sign from one traversal,
//   prox/mesh/sign.hpp; double index only):
//   signed_distance            negative inside
//   winding_number             the deciding number (winding method only, else NaN)
//   inside_votes               CSV only: parity rays that said inside, "k/n" (else empty)
//   sign_method                int8 1 winding, 2 pseudonormal, 3 parity (CSV: the name), -1 miss
//   confidence                 int8 0 sure, 1 unsure (CSV: the name), -1 miss
// --device gpu: through prox::gpu, in float (apps/gpu_device.hpp): the mesh and
// the points rounded to float once, MeshIndex<float>'s answers; with --signed
// signed by the same --sign-method (a SignedMesh on the float index; the
// pseudonormal sign on the GPU, winding and parity on the CPU): every sign
// column as on the CPU.
// A miss (nothing within --max-distance, or a non-finite point): NaN values,
// triangle -1, feature -1 ("none").
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "gpu_device.hpp"
#include "normals.hpp"
#include "prox/io/read_table.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/sign.hpp"
#include "signing.hpp"
#include "table.hpp"

namespace prox::cli {
namespace {

struct ClosestOptions {
  std::string mesh, points, precision = "double";
  TableOptions table;
  SignChoice sign;
  bool signed_distance = false;
  double max_distance = ScalarTraits<double>::infinity();
  int threads = 0;
  std::string device = "cpu";
};

const char* const kColumnNames =
    "query,distance,closest_x,closest_y,closest_z,triangle,u,v,w,feature,normal_x,normal_y,"
    "normal_z,face_normal_x,face_normal_y,face_normal_z (+ signed_distance,winding_number,"
    "inside_votes,sign_method,confidence with --signed)";

bool wants_normals(const std::string& columns) {
  return columns.empty() || columns.find("normal") != std::string::npos;
}

template <class T>
int run_closest(const ClosestOptions& o) {
  Timer timer;
  const io::LoadedIndex<T> m = load_mesh_as<T>(o.mesh, o.threads);
  const std::vector<Vec3d> input = io::read_points(o.points);
  std::vector<Vec3<T>> points(input.size());
  for (std::size_t i = 0; i < input.size(); ++i)
    points[i] = Vec3<T>{T(input[i][0]), T(input[i][1]), T(input[i][2])};
  const std::size_t n = points.size();
  BatchOptions batch;
  batch.threads = o.threads;
  std::vector<MeshClosestPoint<T>> cp(n);
  std::vector<SignedClosestPoint<double>> sd(o.signed_distance ? n : 0);
  const T max_distance = static_cast<T>(o.max_distance);
  Signer signer;
  const bool gpu = o.device == "gpu";
  if constexpr (std::is_same_v<T, double>) {
    if (o.signed_distance && !gpu) signer = make_signer(m, o.sign, o.mesh, "closest", o.threads);
    if (gpu)
      gpu_closest(m.index->mesh(), points, o.max_distance, cp,
                  o.signed_distance ? &o.sign : nullptr, o.mesh, sd);
  }
  if (!gpu) in_blocks(n, "prox closest", [&](std::size_t b, std::size_t e) {
    const auto in = std::span<const Vec3<T>>(points).subspan(b, e - b);
    if constexpr (std::is_same_v<T, double>) {
      if (o.signed_distance) {
        const SignedMesh<MeshIndex<double>>& sm = *signer.mesh;
        signed_queries(sm, in, std::span<SignedClosestPoint<double>>(sd).subspan(b, e - b),
                       max_distance, batch);
        for (std::size_t i = b; i < e; ++i) cp[i] = sd[i].closest;
        return;
      }
    }
    closest_points(*m.index, in, std::span<MeshClosestPoint<T>>(cp).subspan(b, e - b),
                   max_distance, batch);
  });

  Table t;
  Column& query = t.add("query", ColumnType::i64, "row of the point in POINTS");
  Column& dist = t.add("distance", ColumnType::f64, "distance to the mesh");
  Column* cx[3] = {&t.add("closest_x", ColumnType::f64, "closest point"),
                   &t.add("closest_y", ColumnType::f64, "closest point"),
                   &t.add("closest_z", ColumnType::f64, "closest point")};
  Column& tri = t.add("triangle", ColumnType::i64, "triangle id, -1 for a miss");
  Column* w[3] = {&t.add("u", ColumnType::f64, "weight of corner 0"),
                  &t.add("v", ColumnType::f64, "weight of corner 1"),
                  &t.add("w", ColumnType::f64, "weight of corner 2")};
  Column& feature = t.add("feature", ColumnType::i8, "region of the triangle");
  for (int k = 0; k < 7; ++k) feature.labels.emplace_back(to_string(static_cast<Feature>(k)));
  // Normals cost a pass over the mesh: computed only when a normal column is written.
  const bool normals = wants_normals(o.table.columns);
  Column* nrm[3] = {nullptr, nullptr, nullptr};
  Column* fnrm[3] = {nullptr, nullptr, nullptr};
  for (int k = 0; k < 3; ++k)
    nrm[k] = &t.add(std::string("normal_") + "xyz"[k], ColumnType::f64, "surface normal");
  for (int k = 0; k < 3; ++k)
    fnrm[k] = &t.add(std::string("face_normal_") + "xyz"[k], ColumnType::f64, "face normal");
  Column* sdist = nullptr;
  Column* wind = nullptr;
  Column* votes = nullptr;
  Column* method = nullptr;
  Column* conf = nullptr;
  if (o.signed_distance) {
    sdist = &t.add("signed_distance", ColumnType::f64, "negative inside");
    wind = &t.add("winding_number", ColumnType::f64, "generalized winding number");
    votes = &t.add("inside_votes", ColumnType::text, "parity rays that said inside, k/n");
    method = &t.add("sign_method", ColumnType::i8, "the method that decided");
    conf = &t.add("confidence", ColumnType::i8, "sure or unsure");
    for (int k = 0; k <= static_cast<int>(SignMethod::none); ++k)
      method->labels.emplace_back(to_string(static_cast<SignMethod>(k)));
    for (int k = 0; k <= static_cast<int>(SignConfidence::no_inside); ++k)
      conf->labels.emplace_back(to_string(static_cast<SignConfidence>(k)));
  }
  std::unique_ptr<SurfaceNormals> sn;
  if (normals) sn = std::make_unique<SurfaceNormals>(m.index->mesh());
  std::size_t found = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const MeshClosestPoint<T>& r = cp[i];
    found += r.found() ? 1 : 0;
    query.integer.push_back(static_cast<std::int64_t>(i));
    dist.real.push_back(static_cast<double>(std::sqrt(r.sq_distance)));
    for (int k = 0; k < 3; ++k) {
      cx[k]->real.push_back(static_cast<double>(r.point[k]));
      w[k]->real.push_back(static_cast<double>(r.bary[k]));
    }
    tri.integer.push_back(r.triangle);
    feature.integer.push_back(r.found() ? static_cast<std::int64_t>(r.feature) : -1);
    const Vec3d sn_at = normals ? sn->at(r, m.index->mesh()) : Vec3d::splat(std::nan(""));
    const Vec3d fn = normals ? sn->face(r.triangle) : Vec3d::splat(std::nan(""));
    for (int k = 0; k < 3; ++k) {
      nrm[k]->real.push_back(sn_at[k]);
      fnrm[k]->real.push_back(fn[k]);
    }
    if (o.signed_distance) {
      const SignedClosestPoint<double>& s = sd[i];
      const bool f = s.found() && s.method != SignMethod::none;
      sdist->real.push_back(s.signed_distance);
      wind->real.push_back(s.winding_number);
      votes->text.push_back(s.votes ? std::to_string(s.inside_votes) + "/" + std::to_string(s.votes)
                                    : "");
      method->integer.push_back(f ? static_cast<int>(s.method) : -1);
      conf->integer.push_back(f ? static_cast<int>(s.confidence) : -1);
    }
  }
  write_table(t, o.table);
  summary("prox closest", fmt::format("{} points, {} found, {} triangles ({} index), {:.0f} ms",
                                      with_commas(n), with_commas(found), with_commas(m.triangles),
                                      gpu ? "float, gpu" : o.precision, timer.ms()));
  return 0;
}

}  // namespace

Runner setup_closest(CLI::App& app) {
  auto o = std::make_shared<ClosestOptions>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  app.add_option("POINTS", o->points,
                 "points: text with 3 numbers per line (spaces or commas, # comments), "
                 "a .npy of shape (N, 3), or - for standard input")
      ->required();
  add_table_options(app, o->table, kColumnNames);
  app.add_flag("--signed", o->signed_distance,
               "add signed_distance (negative inside), winding_number, inside_votes, "
               "sign_method and confidence columns");
  add_sign_options(app, o->sign);
  add_positive_option(app, "--max-distance", o->max_distance,
                      "ignore the mesh beyond this distance (a miss: triangle -1)");
  add_precision_option(app, o->precision);
  add_threads_option(app, o->threads);
  add_device_option(app, o->device);
  app.footer("Example: prox closest bunny.off points.txt -o closest.csv");
  return [o]() {
    check_table_output(o->table.out);
    if (!o->signed_distance && (o->sign.reorient || o->sign.method != "auto"))
      throw UsageError("--sign-method and --reorient need --signed");
    if (o->device == "gpu") return run_closest<double>(*o);  // float inside prox::gpu
    if (o->signed_distance && o->precision == "float")
      throw UsageError("--signed needs --precision double (the sign methods run on the double index)");
    return o->precision == "float" ? run_closest<float>(*o) : run_closest<double>(*o);
  };
}

}  // namespace prox::cli
