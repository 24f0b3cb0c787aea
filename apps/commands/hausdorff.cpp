// apps/commands/hausdorff.cpp — `prox hausdorff A B`: how far apart two meshes are.
//
// Report (stdout), in the shape Metro users know: each mesh's counts, area and
// bounding-box diagonal; per direction (A -> B: points of A to the surface of
// B) the certified max [lower, upper], and the mean and RMS over area-weighted
// samples, each also relative to the diagonal of A and B's joint box; the
// symmetric Hausdorff distance with its interval; Chamfer on the samples; the
// worst point of each side; a histogram; times. Interval ends are printed to
// 9 digits rounded outward (lower down, upper up), so the printed bracket
// still holds the true value.
// --tolerance T: the wanted width of the certified interval; a number is
// absolute (mesh units), a number followed by d (1e-4d) is relative to the
// diagonal. -o FILE.ply: A coloured by the distance of each vertex to B (see
// apps/distance_colour.hpp); -o FILE.npy|.npz|.csv: A's samples as a prox
// table (apps/table.hpp), columns x, y, z, triangle, w0, w1, w2, distance to B
// (.npy: float64 (N, 8)), chosen with --columns. --picture FILE.png: A
// rendered with that colouring and a colour bar.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "distance_colour.hpp"
#include "prox/image/png.hpp"
#include "prox/io/npy.hpp"
#include "prox/mesh/hausdorff.hpp"
#include "prox/mesh/sample_surface.hpp"
#include "render.hpp"
#include "table.hpp"

namespace prox::cli {

namespace {

/// "1e-4" -> absolute 1e-4; "1e-4d" -> 1e-4 of the diagonal. UsageError otherwise.
void parse_tolerance(const std::string& text, HausdorffOptions& o) {
  std::string num = text;
  const bool relative = !num.empty() && (num.back() == 'd' || num.back() == 'D');
  if (relative) num.pop_back();
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(num, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (num.empty() || used != num.size() || !(v > 0) || !std::isfinite(v) || (relative && v >= 1))
    throw UsageError("--tolerance must be a positive number (absolute) or a fraction of the "
                     "diagonal below 1 followed by d (e.g. 1e-4d), not '" + text + "'");
  o.tolerance = relative ? 0.0 : v;
  o.relative_tolerance = relative ? v : 0.0;
}

double mesh_area(const TriangleMesh<double>& m) {
  double a = 0;
  for (std::size_t t = 0; t < m.num_triangles(); ++t)
    a += 0.5 * std::sqrt(squared_norm(cross(m.corner(t, 1) - m.corner(t, 0),
                                            m.corner(t, 2) - m.corner(t, 0))));
  return a;
}

/// x to 9 significant digits, rounded down (up = false) or up, so that a
/// printed certified interval still contains the true value.
std::string outward(double x, bool up) {
  std::string s = fmt::format("{:.9g}", x);
  for (int i = 0; i < 4 && x != 0 && std::isfinite(x); ++i) {
    const double y = std::stod(s);
    if (up ? y >= x : y <= x) break;
    const double step = std::pow(10.0, std::floor(std::log10(std::fabs(x))) - 8);
    s = fmt::format("{:.9g}", up ? y + step : y - step);
  }
  return s;
}

std::string bracket(double lo, double hi) { return "[" + outward(lo, false) + ", " + outward(hi, true) + "]"; }

std::string rel(double v, double diag) { return fmt::format("{:.6g} ({:.3e} d)", v, v / diag); }

std::string point(const Vec3d& p) { return fmt::format("({:.6g}, {:.6g}, {:.6g})", p[0], p[1], p[2]); }

}  // namespace

Runner setup_hausdorff(CLI::App& app) {
  struct Options {
    std::string a, b, out, picture, tolerance = "1e-4d", size = "800x600", view = "+z",
                                    method = "stratified", columns;
    bool float32 = false;
    std::size_t samples = 100000;
    std::uint64_t seed = 1;
    int threads = 0, bins = 10;
    bool tight = false;
  };
  auto o = std::make_shared<Options>();
  app.add_option("A", o->a, "first mesh (.obj .ply .stl .off)")->required();
  app.add_option("B", o->b, "second mesh")->required();
  app.add_option("--tolerance", o->tolerance,
                 "width of the certified Hausdorff interval: absolute (0.001) or relative to "
                 "the diagonal of both meshes' bounding box with a d (1e-4d)")
      ->capture_default_str();
  app.add_flag("--tight", o->tight,
               "search each sub-triangle's bound to its minimum instead of stopping at the first "
               "within tolerance (narrower upper bound, more BVH searches; see docs/hausdorff.md)");
  app.add_option("--samples", o->samples,
                 "area-weighted samples per mesh for mean, RMS, Chamfer and the histogram "
                 "(0: none)")
      ->capture_default_str()
      ->check(count_check(0, std::uint64_t(1) << 31));
  app.add_option("--sampling", o->method, "uniform | stratified | poisson (Poisson-disk)")->capture_default_str();
  app.add_option("--seed", o->seed, "seed of the samples")->capture_default_str();
  app.add_option("--bins", o->bins, "histogram bins")->check(CLI::Range(1, 1000))->capture_default_str();
  app.add_option("-o,--output", o->out,
                 ".ply: A with per-vertex quality = distance to B and viridis colour; "
                 ".npy, .npz or .csv: A's samples (.npy: float64 (N, 8)): x, y, z, triangle, "
                 "w0, w1, w2, distance");
  app.add_option("--columns", o->columns,
                 "with -o .npy/.npz/.csv: comma-separated sample columns to write, in order, from: " +
                     std::string(kSampleColumns) + ",distance");
  app.add_flag("--float32", o->float32, "with -o .npy/.npz/.csv: store the samples as float32");
  app.add_option("--picture", o->picture, ".png: A rendered coloured by distance to B, with a colour bar");
  app.add_option("--size", o->size, "picture size WIDTHxHEIGHT")->capture_default_str();
  app.add_option("--view", o->view, "picture view direction (as prox render)")->capture_default_str();
  add_threads_option(app, o->threads);
  app.footer("Example: prox hausdorff bunny.off bunny_simplified.off --tolerance 1e-4d "
             "-o distance.ply --picture distance.png");
  return [o]() {
    HausdorffOptions ho;
    parse_tolerance(o->tolerance, ho);
    ho.threads = o->threads;
    ho.tight = o->tight;
    const std::string ext = lower_extension(o->out);
    const bool table_out = ext == ".npy" || ext == ".npz" || ext == ".csv";
    if (!o->out.empty() && ext != ".ply" && !table_out)
      throw UsageError("-o must name a .ply, .npy, .npz or .csv file, not '" + o->out + "'");
    if (!o->picture.empty() && lower_extension(o->picture) != ".png")
      throw UsageError("--picture must name a .png file, not '" + o->picture + "'");
    const SampleMethod method = parse_sample_method(o->method, "--sampling");
    if (table_out && o->samples == 0) throw UsageError("-o " + ext + " needs --samples > 0");
    if ((!o->columns.empty() || o->float32) && !table_out)
      throw UsageError("--columns and --float32 are for -o .npy, .npz or .csv (the samples)");
    const std::vector<double> no_distances;
    samples_table({}, &no_distances).select(o->columns);  // an unknown column: before the work
    const auto size = parse_size(o->size);
    const Vec3d view = parse_view(o->view);

    check_outputs({o->out, o->picture});

    LoadedMesh ma = load_mesh(o->a, o->threads), mb = load_mesh(o->b, o->threads);
    const TriangleMesh<double>& a = ma.index->mesh();
    const TriangleMesh<double>& b = mb.index->mesh();
    if (a.empty()) throw std::runtime_error("'" + o->a + "' has no triangles");
    if (b.empty()) throw std::runtime_error("'" + o->b + "' has no triangles");

    Timer th;
    const HausdorffResult h = hausdorff(*ma.index, *mb.index, ho);
    const double hausdorff_ms = th.ms();
    const double d = h.diagonal > 0 ? h.diagonal : 1.0;

    Timer ts;
    SurfaceSamples<double> sa, sb;
    std::vector<double> da, db;
    if (o->samples > 0) {
      // Each sample holds a point, weights, a triangle and a distance (60
      // bytes), for each mesh: a count the machine cannot hold is said as such.
      const double need = double(o->samples) * 2 * 60;
      const double have = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
      if (have > 0 && need > have)
        throw std::runtime_error(fmt::format(
            "--samples {} needs about {} for the samples alone, more than this machine's {}",
            with_commas(o->samples), human_bytes(std::size_t(need)),
            human_bytes(std::size_t(have))));
      // A mesh without area has nothing to sample; its Hausdorff distance is
      // still defined (--samples 0 gives it alone): say which file and that.
      auto sample = [&](const TriangleMesh<double>& mesh, const std::string& file,
                        std::uint64_t seed) {
        try {
          return sample_surface(mesh, o->samples, seed, method, o->threads);
        } catch (const std::invalid_argument& e) {
          throw std::runtime_error("'" + file + "': " + e.what() +
                                   " (--samples 0 gives the Hausdorff distance alone)");
        }
      };
      sa = sample(a, o->a, o->seed);
      sb = sample(b, o->b, o->seed + 1);
      da = sample_distances(std::span<const Vec3d>(sa.points), *mb.index, o->threads);
      db = sample_distances(std::span<const Vec3d>(sb.points), *ma.index, o->threads);
    }
    const double sample_ms = ts.ms();

    std::ostream& out = std::cout;
    out << fmt::format("mesh A  {}: {} vertices, {} triangles, area {:.6g}, diagonal {:.6g}\n", o->a,
                       with_commas(a.num_vertices()), with_commas(a.num_triangles()), mesh_area(a),
                       std::sqrt(squared_norm(a.bounds().diagonal())));
    out << fmt::format("mesh B  {}: {} vertices, {} triangles, area {:.6g}, diagonal {:.6g}\n", o->b,
                       with_commas(b.num_vertices()), with_commas(b.num_triangles()), mesh_area(b),
                       std::sqrt(squared_norm(b.bounds().diagonal())));
    out << fmt::format("d = diagonal of A and B together: {:.6g}; tolerance {:.6g} ({:.3e} d)\n", d,
                       h.tolerance, h.tolerance / d);
    if (o->samples > 0)
      out << fmt::format("samples: {} per mesh ({}, seed {} and {})\n", with_commas(o->samples),
                         o->method, o->seed, o->seed + 1);
    if (sa.min_distance > 0)
      out << fmt::format("poisson: every two samples at least {:.4g} apart on A, {:.4g} on B\n",
                         sa.min_distance, sb.min_distance);
    out << "\n";
    auto side = [&](const char* name, const HausdorffSide& s, const std::vector<double>& dist) {
      out << fmt::format("{}  max  {}  ({:.4e} .. {:.4e} d){}\n", name, bracket(s.lower, s.upper),
                         s.lower / d, s.upper / d, s.converged ? "" : "  NOT CONVERGED (cap reached)");
      if (!dist.empty()) {
        const DistanceStats st = distance_stats(dist, 1);
        out << fmt::format("        mean {}\n        RMS  {}\n        sampled max {}\n",
                           rel(st.mean, d), rel(st.rms, d), rel(st.max, d));
      }
      out << fmt::format("        worst point {} on triangle {}, nearest {} on triangle {}\n",
                         point(s.worst_point), s.worst_triangle, point(s.worst_closest),
                         s.worst_closest_triangle);
      out << fmt::format("        {} sub-triangles bounded ({} by BVH search), {} point queries, "
                         "{} subdivision levels\n",
                         with_commas(s.subtriangles), with_commas(s.searches),
                         with_commas(s.point_queries), s.rounds);
    };
    side("A -> B", h.forward, da);
    side("B -> A", h.backward, db);
    out << fmt::format("\nHausdorff (symmetric)  {}  ({:.4e} .. {:.4e} d), width {:.3g}\n",
                       bracket(h.lower, h.upper), h.lower / d, h.upper / d, h.upper - h.lower);
    if (o->samples > 0) {
      const ChamferDistance c = chamfer(da, db);
      out << "Chamfer (two-sided, point-to-surface: each side's samples against the other mesh, "
             "not against its samples; means, not sums)\n";
      out << fmt::format("Chamfer L2 = mean d(a,B)^2 + mean d(b,A)^2 = {:.6g} ({:.3e} d^2)\n",
                         c.chamfer_l2, c.chamfer_l2 / (d * d));
      out << fmt::format("Chamfer L1 = mean d(a,B) + mean d(b,A) = {:.6g} ({:.3e} d)\n", c.chamfer_l1,
                         c.chamfer_l1 / d);
      const DistanceStats st = distance_stats(da, o->bins);
      out << fmt::format("\nhistogram of A -> B sample distances ({} bins of {:.4g}):\n", o->bins,
                         st.bin_width);
      for (int k = 0; k < o->bins; ++k) {
        const double frac = double(st.histogram[std::size_t(k)]) / double(st.count);
        out << fmt::format("  [{:10.4g}, {:10.4g})  {:6.2f}%  {}\n", st.bin_width * k,
                           st.bin_width * (k + 1), 100 * frac,
                           std::string(static_cast<std::size_t>(std::lround(frac * 50)), '#'));
      }
    }
    out << fmt::format("\ntime: read+index {:.0f} ms, Hausdorff {:.1f} ms, sampling {:.1f} ms\n",
                       ma.read_ms + ma.build_ms + mb.read_ms + mb.build_ms, hausdorff_ms, sample_ms);
    out.flush();

    if (ext == ".ply") {
      std::vector<Vec3d> verts = a.vertices();
      const std::vector<double> vd = sample_distances(std::span<const Vec3d>(verts), *mb.index, o->threads);
      write_quality_ply(o->out, a, vd, h.forward.upper);
    } else if (table_out) {
      Table t = samples_table(sa, &da);
      TableOptions to;
      to.out = o->out;
      to.columns = o->columns;
      to.float32 = o->float32;
      write_table(t, to);
    }
    if (!o->picture.empty()) {
      const Camera camera = make_camera(a.bounds(), view, size.first, size.second);
      const MeshIndex<double>& ib = *mb.index;
      const std::vector<std::string> caption{
          fmt::format("{} coloured by the distance of each visible point to {} · A -> B max <= {}",
                      std::filesystem::path(o->a).filename().string(),
                      std::filesystem::path(o->b).filename().string(),
                      label_number(h.forward.upper)),
          fmt::format("Hausdorff (symmetric) {} · view {}", bracket(h.lower, h.upper), o->view)};
      const Image img = render_distance_picture(
          *ma.index, camera, [&](const Vec3d& p) { return std::sqrt(ib.closest_point(p).sq_distance); },
          h.forward.upper, o->threads, caption, "distance to B, mesh units (A -> B upper bound at the top)");
      write_png(o->picture, img);
    }
    return 0;
  };
}

}  // namespace prox::cli
