// apps/commands/demo.cpp — `prox demo [-o DIR]`: the main job on built-in meshes.
//
// Builds an index over a sphere, a torus and a trefoil knot (generated, so the
// demo needs no files), runs every query kind with timings, checks answers
// against the brute-force twin and inside/outside against ray parity, and
// writes pictures: the knot in each render mode, the other shapes shaded, the
// unsigned distance on a slice through the knot (PNG and VTK .vti), and the 2D
// distance field of the built-in planar scene. Each file is named in the report.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "prox/image/png.hpp"
#include "prox/io/mesh_topology.hpp"
#include "prox/io/shapes.hpp"
#include "prox/io/vti.hpp"
#include "prox/io/write_mesh.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/brute_force.hpp"
#include "prox/mesh/fast_winding.hpp"
#include "prox/planar/field.hpp"
#include "prox/planar/scene.hpp"
#include "render.hpp"

namespace prox::cli {
namespace {

struct DemoMesh {
  std::string name;
  io::MeshData data;
};

struct Picture {
  std::string file, what;
};

// Uniform points in the bounding box grown 1.5x about its centre.
std::vector<Vec3d> random_points(const Box3<double>& box, std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-0.75, 0.75);
  const Vec3d c = box.center(), d = box.diagonal();
  std::vector<Vec3d> p(n);
  for (Vec3d& q : p) q = c + Vec3d{u(rng) * d[0], u(rng) * d[1], u(rng) * d[2]};
  return p;
}

std::vector<Ray<double>> random_rays(const Box3<double>& box, std::size_t n, std::mt19937_64& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  const std::vector<Vec3d> origins = random_points(box, n, rng);
  std::vector<Ray<double>> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = Ray<double>{origins[i], Vec3d{g(rng), g(rng), g(rng)}};
  return r;
}

struct DemoOptions {
  std::string dir = "prox-demo";
  std::string write_meshes;
  std::string size = "640x480";
  std::size_t queries = 200000;
  int threads = 0;
};

// Runs every query kind on one mesh, checks a sample, prints one table row.
void query_row(std::ostream& out, const DemoMesh& dm, const MeshIndex<double>& index,
               double build_ms, const DemoOptions& o, std::mt19937_64& rng) {
  const std::size_t nq = o.queries;
  BatchOptions batch;
  batch.threads = o.threads;
  const Box3<double> box = index.mesh().bounds();
  const std::vector<Vec3d> points = random_points(box, nq, rng);
  const std::vector<Ray<double>> rays = random_rays(box, nq, rng);
  std::vector<MeshClosestPoint<double>> cp(nq);
  std::vector<MeshRayHit<double>> fh(nq);
  std::vector<std::uint8_t> ah(nq);
  std::vector<std::uint32_t> ch(nq);
  const auto ray_span = std::span<const Ray<double>>(rays);
  Timer t1;
  closest_points(index, std::span<const Vec3d>(points), std::span<MeshClosestPoint<double>>(cp),
                 ScalarTraits<double>::infinity(), batch);
  const double cp_ms = t1.ms();
  Timer t2;
  first_hits(index, ray_span, std::span<MeshRayHit<double>>(fh), batch);
  const double fh_ms = t2.ms();
  Timer t3;
  any_hits(index, ray_span, std::span<std::uint8_t>(ah), batch);
  const double ah_ms = t3.ms();
  Timer t4;
  count_hits(index, ray_span, std::span<std::uint32_t>(ch), batch);
  const double ch_ms = t4.ms();
  // Checks: the BVH against the brute-force twin (exact equality), and
  // inside/outside by ray parity against the certified winding number's sign.
  const BruteForce<double> brute(index.mesh());
  const std::size_t index_bytes = index.memory_bytes();  // before the sign's data is built
  const auto fast = index.fast_winding();
  const std::size_t nb = std::min<std::size_t>(nq, 300);
  std::size_t agree = 0, parity_agree = 0;
  for (std::size_t i = 0; i < nb; ++i) {
    const MeshClosestPoint<double> b = brute.closest_point(points[i]);
    const MeshRayHit<double> r = brute.first_hit(rays[i]);
    agree += b.sq_distance == cp[i].sq_distance && b.triangle == cp[i].triangle &&
             r.triangle == fh[i].triangle && r.t == fh[i].t;
    const bool inside_parity = ch[i] % 2 == 1;
    const bool inside_winding = std::abs(fast->decide_sign(rays[i].origin).winding_number) >= 0.5;
    parity_agree += inside_parity == inside_winding;
  }
  out << fmt::format("{:<8}{:>11}{:>8}{:>7.1f} ms{:>11}{:>14}{:>13}{:>12}{:>12}  {}/{} = brute force, "
                     "{}/{} parity = winding\n",
                     dm.name, with_commas(dm.data.triangles.size()),
                     io::analyze_topology(dm.data).closed() ? "yes" : "no", build_ms,
                     human_bytes(index_bytes), rate(nq, cp_ms), rate(nq, fh_ms),
                     rate(nq, ah_ms), rate(nq, ch_ms), agree, nb, parity_agree, nb);
  out.flush();
}

// The unsigned distance on the plane z = centre, as a VTK ImageData grid.
void write_slice_vti(const std::filesystem::path& path, const MeshIndex<double>& index, int threads) {
  const Box3<double> box = index.mesh().bounds();
  io::VtiGrid grid;
  const int gx = 160, gy = 120;
  grid.dims = {gx, gy, 1};
  const Vec3d c = box.center(), d = box.diagonal();
  grid.origin = {c[0] - 0.6 * d[0], c[1] - 0.6 * d[1], c[2]};
  grid.spacing = {1.2 * d[0] / (gx - 1), 1.2 * d[1] / (gy - 1), 1};
  std::vector<Vec3d> points;
  for (int j = 0; j < gy; ++j)
    for (int i = 0; i < gx; ++i)
      points.push_back(Vec3d{grid.origin[0] + i * grid.spacing[0], grid.origin[1] + j * grid.spacing[1], c[2]});
  std::vector<MeshClosestPoint<double>> res(points.size());
  BatchOptions batch;
  batch.threads = threads;
  closest_points(index, std::span<const Vec3d>(points), std::span<MeshClosestPoint<double>>(res),
                 ScalarTraits<double>::infinity(), batch);
  std::vector<double> dist(res.size());
  for (std::size_t i = 0; i < res.size(); ++i) dist[i] = std::sqrt(res[i].sq_distance);
  io::AtomicFile vti(path, false);
  io::write_vti(vti.stream(), grid, dist.data());
  vti.commit();
}

// Pictures of one mesh: the knot in every mode (and its slice as numbers), the others shaded.
void mesh_pictures(const DemoMesh& dm, const MeshIndex<double>& index, const DemoOptions& o,
                   int w, int h, std::vector<Picture>& pictures) {
  const auto save = [&](const std::string& file, const Image& img, const std::string& what) {
    write_png(std::filesystem::path(o.dir) / file, img);
    pictures.push_back({file, what});
  };
  const Vec3d view = dm.name == "torus" ? Vec3d{0, -1, 1.2} : Vec3d{0, 0, 1};
  const Camera cam = make_camera(index.mesh().bounds(), view, w, h);
  const auto picture = [&](RenderMode mode) {
    RenderOptions ro;
    ro.mode = mode;
    ro.threads = o.threads;
    RenderLegend legend;
    const Image img = render_mesh(index, cam, ro, nullptr, &legend);
    return annotate_render(img, dm.name, cam, legend);
  };
  if (dm.name != "knot") {
    save(dm.name + "-normal.png", picture(RenderMode::normal), dm.name + ", shaded normals");
    return;
  }
  const std::pair<RenderMode, const char*> modes[] = {
      {RenderMode::normal, "shaded normals"},
      {RenderMode::depth, "depth (near = bright, with its scale)"},
      {RenderMode::id, "triangle ids (hashed colours)"},
      {RenderMode::distance, "unsigned distance on the plane z = 0 (bands every 1/16 diagonal)"}};
  for (const auto& [mode, what] : modes) {
    save(dm.name + "-" + to_string(mode) + ".png", picture(mode), dm.name + ", " + what);
  }
  write_slice_vti(std::filesystem::path(o.dir) / "knot-slice.vti", index, o.threads);
  pictures.push_back({"knot-slice.vti", "knot, unsigned distance on z = 0, 160x120 grid (ParaView)"});
}

// The 2D scene's distance fields, unsigned and signed.
void field_pictures(const DemoOptions& o, std::vector<Picture>& pictures) {
  planar::FieldOptions field;
  for (const planar::Part part : {planar::Part::boundary, planar::Part::solid}) {
    field.part = part;
    const bool solid = part == planar::Part::solid;
    const planar::Scene scene = planar::default_scene();
    Image img = planar::render_distance_field(scene, field);
    planar::FieldOptions sized = field;
    sized.width = img.width;
    sized.height = img.height;
    img = annotate_field(img, "seed scene", scene.shapes.size(), planar::distance_field(scene, sized),
                         sized);
    const std::string file = solid ? "field2d-signed.png" : "field2d.png";
    write_png(std::filesystem::path(o.dir) / file, img);
    pictures.push_back({file, fmt::format("2D scene, {} distance field, {}x{}",
                                          solid ? "signed (blue inside)" : "unsigned",
                                          img.width, img.height)});
  }
}

}  // namespace

Runner setup_demo(CLI::App& app) {
  auto o = std::make_shared<DemoOptions>();
  app.add_option("-o,--output", o->dir, "folder for the pictures")->capture_default_str();
  app.add_option("--size", o->size, "picture size WIDTHxHEIGHT")->capture_default_str();
  app.add_option("--queries", o->queries, "points and rays per mesh")
      ->check(CLI::Range(std::size_t(1), std::size_t(100000000)))
      ->capture_default_str();
  app.add_option("--write-meshes", o->write_meshes,
                 "write the demo's meshes (sphere.ply, torus.ply, knot.obj) and the 2D scene "
                 "(scene.txt) into this folder, and stop: sample data for the other commands");
  add_threads_option(app, o->threads);
  app.footer("Example: prox demo -o prox-demo\n         prox demo --write-meshes samples");
  return [o]() {
    if (!o->write_meshes.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(o->write_meshes, ec);
      if (ec || !std::filesystem::is_directory(o->write_meshes))
        throw std::runtime_error("cannot create the folder '" + o->write_meshes + "'");
      const std::filesystem::path d(o->write_meshes);
      const struct {
        const char* file;
        io::MeshData mesh;
      } files[] = {{"sphere.ply", io::make_sphere(1.0, 96, 192)},
                   {"torus.ply", io::make_torus(1.0, 0.35, 256, 64)},
                   {"knot.obj", io::make_knot(0.45, 768, 48)}};
      for (const auto& f : files) {
        io::write_mesh(d / f.file, f.mesh);
        std::cout << fmt::format("{}  {} triangles\n", (d / f.file).string(),
                                 with_commas(f.mesh.triangles.size()));
      }
      io::AtomicFile scene(d / "scene.txt", false);
      scene.stream() << planar::format_scene(planar::default_scene());
      scene.commit();
      std::cout << (d / "scene.txt").string() << "  the 2D scene (prox field2d)\n";
      return 0;
    }
    const auto [w, h] = parse_size(o->size);
    std::error_code ec;
    std::filesystem::create_directories(o->dir, ec);
    if (ec || !std::filesystem::is_directory(o->dir)) {
      throw std::runtime_error("cannot create the folder '" + o->dir + "': " + ec.message());
    }
    std::ostream& out = std::cout;
    out << fmt::format("prox demo: closest points, ray hits and inside/outside on built-in meshes\n"
                       "({} points and {} rays per mesh, threads: {})\n\n",
                       with_commas(o->queries), with_commas(o->queries),
                       o->threads ? std::to_string(o->threads) : "all cores");
    const DemoMesh meshes[] = {{"sphere", io::make_sphere(1.0, 96, 192)},
                               {"torus", io::make_torus(1.0, 0.35, 256, 64)},
                               {"knot", io::make_knot(0.45, 768, 48)}};
    out << fmt::format("{:<8}{:>11}{:>8}{:>10}{:>11}{:>14}{:>13}{:>12}{:>12}  {}\n", "mesh",
                       "triangles", "closed", "build", "memory", "closest pt", "first hit",
                       "any hit", "count", "checks");
    std::vector<Picture> pictures;
    std::mt19937_64 rng(1);
    for (const DemoMesh& dm : meshes) {
      Timer tb;
      const auto index = build_index(dm.data, dm.name, o->threads);
      const double build_ms = tb.ms();
      query_row(out, dm, *index, build_ms, *o, rng);
      mesh_pictures(dm, *index, *o, w, h, pictures);
    }
    field_pictures(*o, pictures);
    out << "\nrates are queries per second; points uniform in 1.5x the bounding box, rays from "
           "such points in uniform random directions.\n";
    out << fmt::format("\nfiles in {}/:\n", o->dir);
    for (const Picture& p : pictures) out << fmt::format("  {:<20} {}\n", p.file, p.what);
    return 0;
  };
}

}  // namespace prox::cli
