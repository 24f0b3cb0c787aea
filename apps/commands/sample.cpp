// apps/commands/sample.cpp — `prox sample MESH -n N -o points.npy`: area-weighted surface samples.
//
// Columns x, y, z, triangle, w0, w1, w2 (the triangle's id and the weights of
// its corners 0, 1, 2: point = w0 c0 + w1 c1 + w2 c2), written as a prox table
// (apps/table.hpp): .npy float64 (N, 7), .npz one array per column (triangle
// int64), .csv or - (standard output) with a header row; --columns, --float32.
// Samples are prox::sample_surface's: seeded, the same for any thread count.
#include <memory>
#include <vector>

#include "command.hpp"
#include "common.hpp"
#include "prox/mesh/sample_surface.hpp"
#include "table.hpp"

namespace prox::cli {

Runner setup_sample(CLI::App& app) {
  struct Options {
    std::string mesh, method = "uniform";
    TableOptions table;
    std::size_t n = 0;
    std::uint64_t seed = 1;
    int threads = 0;
  };
  auto o = std::make_shared<Options>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  app.add_option("-n,--count", o->n, "number of samples (at least 1)")
      ->required()
      ->check(count_check(1, std::uint64_t(1) << 31));
  add_table_options(app, o->table, kSampleColumns);
  app.get_option("-o")->required()->description(
      "output .csv (- for standard output), .npz (one array per column) or .npy (one column: "
      "its array; several: float64 rows)");
  app.add_option("--method", o->method,
                 "uniform (independent samples) | stratified (one per 1/N of the area) | poisson "
                 "(Poisson-disk: every two samples at least r apart, r printed on standard error)")
      ->capture_default_str();
  app.add_option("--seed", o->seed, "random seed")->capture_default_str();
  add_threads_option(app, o->threads);
  app.footer("Example: prox sample bunny.off -n 100000 -o samples.npy");
  return [o]() {
    check_table_output(o->table.out);
    samples_table({}).select(o->table.columns);  // an unknown column: before the work
    const SampleMethod method = parse_sample_method(o->method, "--method");
    if (o->n == 0) throw UsageError("-n must be at least 1");
    if (o->n > (std::size_t(1) << 31))
      throw UsageError("-n " + std::to_string(o->n) + " is more than 2^31 samples");
    LoadedMesh m = load_mesh(o->mesh, o->threads);
    const SurfaceSamples<double> s = sample_surface(m.index->mesh(), o->n, o->seed, method, o->threads);
    if (s.min_distance > 0)
      std::cerr << "poisson: " << s.size() << " samples, every two at least " << s.min_distance
                << " apart\n";
    Table t = samples_table(s);
    write_table(t, o->table);
    return 0;
  };
}

}  // namespace prox::cli
