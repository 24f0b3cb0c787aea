// apps/commands/sample.cpp — `prox sample MESH -n N -o points.npy`: area-weighted surface samples.
//
// .npy: float64 (N, 7), columns x, y, z, triangle, w0, w1, w2 (the triangle's
// id and the weights of its corners 0, 1, 2: point = w0 c0 + w1 c1 + w2 c2).
// .csv (or standard output): the same columns with a header row.
// Samples are prox::sample_surface's: seeded, the same for any thread count.
#include <iostream>
#include <memory>
#include <vector>

#include "command.hpp"
#include "common.hpp"
#include "prox/io/csv.hpp"
#include "prox/io/npy.hpp"
#include "prox/mesh/sample_surface.hpp"

namespace prox::cli {

SampleMethod parse_sample_method(const std::string& name) {
  if (name == "uniform") return SampleMethod::uniform;
  if (name == "stratified") return SampleMethod::stratified;
  if (name == "poisson") return SampleMethod::poisson;
  throw UsageError("the sampling method must be uniform, stratified or poisson, not '" + name + "'");
}

Runner setup_sample(CLI::App& app) {
  struct Options {
    std::string mesh, out, method = "uniform";
    std::size_t n = 0;
    std::uint64_t seed = 1;
    int threads = 0;
  };
  auto o = std::make_shared<Options>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  app.add_option("-n,--count", o->n, "number of samples (at least 1)")->required();
  app.add_option("-o,--output", o->out,
                 ".npy: float64 (N, 7) x, y, z, triangle, w0, w1, w2; .csv or - (standard "
                 "output): the same columns")
      ->required();
  app.add_option("--method", o->method,
                 "uniform (independent samples) | stratified (one per 1/N of the area) | poisson "
                 "(Poisson-disk: every two samples at least r apart, r printed on standard error)")
      ->capture_default_str();
  app.add_option("--seed", o->seed, "random seed")->capture_default_str();
  add_threads_option(app, o->threads);
  app.footer("Example: prox sample bunny.off -n 100000 -o samples.npy");
  return [o]() {
    const std::string ext = lower_extension(o->out);
    const bool npy = ext == ".npy";
    if (o->out != "-" && !npy && ext != ".csv")
      throw UsageError("-o must name a .npy or .csv file (or - for standard output), not '" +
                       o->out + "'");
    if (o->method != "uniform" && o->method != "stratified" && o->method != "poisson")
      throw UsageError("--method must be uniform, stratified or poisson, not '" + o->method + "'");
    if (o->n == 0) throw UsageError("-n must be at least 1");
    if (o->n > (std::size_t(1) << 31))
      throw UsageError("-n " + std::to_string(o->n) + " is more than 2^31 samples");
    LoadedMesh m = load_mesh(o->mesh, o->threads);
    const SurfaceSamples<double> s =
        sample_surface(m.index->mesh(), o->n, o->seed, parse_sample_method(o->method), o->threads);
    if (s.min_distance > 0)
      std::cerr << "poisson: " << s.size() << " samples, every two at least " << s.min_distance
                << " apart\n";
    Output out(o->out);
    if (npy) {
      std::vector<double> a;
      a.reserve(s.size() * 7);
      for (std::size_t i = 0; i < s.size(); ++i)
        a.insert(a.end(), {s.points[i][0], s.points[i][1], s.points[i][2], double(s.triangles[i]),
                           s.bary[i][0], s.bary[i][1], s.bary[i][2]});
      io::write_npy(out.stream(), a.data(), {s.size(), 7});
    } else {
      io::CsvWriter csv(out.stream(), {"x", "y", "z", "triangle", "w0", "w1", "w2"});
      for (std::size_t i = 0; i < s.size(); ++i) {
        csv.field(s.points[i][0]).field(s.points[i][1]).field(s.points[i][2]);
        csv.field(static_cast<std::int64_t>(s.triangles[i]));
        csv.field(s.bary[i][0]).field(s.bary[i][1]).field(s.bary[i][2]);
        csv.end_row();
      }
      csv.flush();
    }
    out.commit();
    return 0;
  };
}

}  // namespace prox::cli
