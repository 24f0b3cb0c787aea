// apps/commands/sdf.cpp — `prox sdf MESH -o grid.npy|grid.npz|grid.vti`: the
// signed distance on every node of a regular grid over the mesh's padded box
// (prox/mesh/sdf_grid.hpp: exact distance at every node, sign by the method).
//
// Layout: value of node (i, j, k) at origin + (i sx, j sy, k sz) is element
// [k][j][i] of the (nz, ny, nx) array: x fastest. .npy comes with a JSON
// sidecar (same name, .json) giving dims, origin, spacing; .npz holds arrays
// sdf (nz, ny, nx), origin (3), spacing (3), dims (3: nx, ny, nz); .vti
// (ParaView) carries origin and spacing itself. Negative inside; with --band W
// values beyond W are clamped to +-W. --surface writes the zero level set as a
// closed, outward mesh (prox/mesh/sdf_surface.hpp).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "prox/io/atomic_file.hpp"
#include "prox/io/npy.hpp"
#include "prox/image/png.hpp"
#include "prox/io/vti.hpp"
#include "prox/io/write_mesh.hpp"
#include "prox/mesh/sdf_grid.hpp"
#include "prox/mesh/sdf_surface.hpp"
#include "sdf_slice.hpp"
#include "signing.hpp"

namespace prox::cli {

namespace {

std::array<std::size_t, 3> parse_res(const std::string& text, bool& cubic) {
  std::array<std::size_t, 3> r{0, 0, 0};
  std::vector<std::string> parts;
  std::string cur;
  for (char c : text) {
    if (c == 'x' || c == 'X') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  if (parts.size() != 1 && parts.size() != 3)
    throw UsageError("--res must be N or NXxNYxNZ (e.g. 128 or 128x96x64), not '" + text + "'");
  for (std::size_t a = 0; a < parts.size(); ++a) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(parts[a], &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != parts[a].size() || v < 1 || v > 100000 ||
        (parts.size() == 1 && v < 2))
      throw UsageError("--res must be N or NXxNYxNZ with whole numbers (N >= 2, each <= 100000), "
                       "not '" + text + "'");
    r[a] = std::size_t(v);
  }
  cubic = parts.size() == 1;
  return r;
}

std::string json_array(const std::array<double, 3>& a) {
  return fmt::format("[{:.17g}, {:.17g}, {:.17g}]", a[0], a[1], a[2]);
}

}  // namespace

Runner setup_sdf(CLI::App& app) {
  struct Options {
    std::string mesh, out, res, slice, slice_out, surface;
    double dx = 0, padding = 0.1, band = ScalarTraits<double>::infinity();
    bool float32 = false;
    int threads = 0;
    SignChoice sign;
  };
  auto o = std::make_shared<Options>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  app.add_option("-o,--output", o->out,
                 "grid file: .npy (+ .json sidecar), .npz (sdf, origin, spacing, dims) or .vti")
      ->required();
  auto* res = app.add_option("--res", o->res,
                             "nodes along the longest axis (cubic cells), or NXxNYxNZ "
                             "(default 64)");
  auto* dx = app.add_option("--dx", o->dx, "cell size (cubic cells)")->check(number_check(false, false));
  res->excludes(dx);
  app.add_option("--padding", o->padding,
                 "added on every side, as a fraction of the box's longest side (default 0.1)")
      ->check(number_check(true, false));
  app.add_option("--band", o->band, "clamp |distance| beyond this to +-band")
      ->check(number_check(false, true));
  add_sign_options(app, o->sign);
  app.add_flag("--float32", o->float32, "store float32 values (default float64)");
  app.add_option("--slice", o->slice,
                 "also draw one plane as a PNG: x=F, y=F or z=F, F in [0, 1] of the grid's extent");
  app.add_option("--slice-out", o->slice_out,
                 "the slice picture (default: the output's name with .slice-AXIS.png)");
  app.add_option("--surface", o->surface,
                 "also write the zero level set as a closed, outward mesh (.ply .obj .off .stl; "
                 "marching tetrahedra)");
  add_threads_option(app, o->threads);
  app.footer("Example: prox sdf bunny.off -o bunny.npz --res 128 --surface bunny-closed.ply");
  return [o]() {
    const std::string ext = lower_extension(o->out);
    if (ext != ".npy" && ext != ".npz" && ext != ".vti")
      throw UsageError("-o must name a .npy, .npz or .vti file, not '" + o->out + "'");
    std::pair<int, double> slice{-1, 0.0};
    if (!o->slice.empty()) slice = parse_slice(o->slice);
    std::string slice_path = o->slice_out;
    if (slice.first >= 0 && slice_path.empty()) {
      std::filesystem::path p(o->out);
      p.replace_extension(std::string(".slice-") + char('x' + slice.first) + ".png");
      slice_path = p.string();
    }
    if (!slice_path.empty() && lower_extension(slice_path) != ".png")
      throw UsageError("--slice-out must name a .png file, not '" + slice_path + "'");
    if (!o->slice_out.empty() && slice.first < 0) throw UsageError("--slice-out needs --slice");
    if (!o->surface.empty()) {
      const std::string se = lower_extension(o->surface);
      if (se != ".ply" && se != ".obj" && se != ".off" && se != ".stl")
        throw UsageError("--surface must name a .ply, .obj, .off or .stl file, not '" +
                         o->surface + "'");
    }
    std::string sidecar;
    if (ext == ".npy") sidecar = std::filesystem::path(o->out).replace_extension(".json").string();
    // Every output checked before the work: a failure leaves no file behind.
    check_outputs({o->out, sidecar, slice_path, o->surface});
    bool cubic = true;
    const std::array<std::size_t, 3> r = parse_res(o->res.empty() ? "64" : o->res, cubic);
    LoadedMesh m = load_mesh(o->mesh, o->threads);
    if (m.index->mesh().empty())
      throw std::runtime_error(o->mesh + " has no triangles (a point cloud?): no distance grid");
    Signer signer = make_signer(m, o->sign, o->mesh, "sdf", o->threads);
    const Box3<double> box = signer.mesh->index().mesh().bounds();
    GridSpec grid;
    try {
      grid = o->dx > 0 ? grid_over_box_spacing(box, o->padding, o->dx)
             : cubic   ? grid_over_box(box, o->padding, r[0])
                       : grid_over_box(box, o->padding, r);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    SdfOptions so;
    so.band = o->band;
    so.batch.threads = o->threads;
    Timer timer;
    const SdfGrid<double> g = signed_distance_grid(*signer.mesh, grid, so);
    const double ms = timer.ms();
    const std::size_t n = grid.nodes();
    std::vector<float> f32;
    if (o->float32) f32.assign(g.values.begin(), g.values.end());
    const std::vector<std::size_t> shape{grid.dims[2], grid.dims[1], grid.dims[0]};
    auto npy_bytes = [&]() {
      std::ostringstream s;
      if (o->float32) io::write_npy(s, f32.data(), shape);
      else io::write_npy(s, g.values.data(), shape);
      return std::move(s).str();
    };
    const std::string json = fmt::format(
        "{{\n  \"layout\": \"value[k][j][i] is node origin + (i, j, k) * spacing; x fastest\",\n"
        "  \"shape\": [{}, {}, {}],\n  \"dims_xyz\": [{}, {}, {}],\n  \"origin\": {},\n"
        "  \"spacing\": {},\n  \"dtype\": \"{}\",\n  \"sign\": \"negative inside\",\n"
        "  \"sign_method\": \"{}\",\n  \"unsure_nodes\": {},\n  \"band\": {},\n"
        "  \"mesh\": \"{}\"\n}}\n",
        shape[0], shape[1], shape[2], grid.dims[0], grid.dims[1], grid.dims[2],
        json_array(grid.origin), json_array(grid.spacing), o->float32 ? "float32" : "float64",
        to_string(g.method), g.unsure,
        std::isfinite(o->band) ? fmt::format("{:.17g}", o->band) : std::string("null"),
        o->mesh);
    if (ext == ".npy") {
      io::AtomicFile data(o->out), meta(sidecar, false);
      const std::string bytes = npy_bytes();
      data.stream().write(bytes.data(), std::streamsize(bytes.size()));
      meta.stream() << json;
      data.commit();
      meta.commit();
    } else if (ext == ".npz") {
      const std::int32_t d[3] = {std::int32_t(grid.dims[0]), std::int32_t(grid.dims[1]),
                                 std::int32_t(grid.dims[2])};
      io::AtomicFile data(o->out);
      io::NpzWriter npz(data.stream());
      if (o->float32) npz.add("sdf", f32.data(), shape);
      else npz.add("sdf", g.values.data(), shape);
      npz.add("origin", grid.origin.data(), {3});
      npz.add("spacing", grid.spacing.data(), {3});
      npz.add("dims", d, {3});
      npz.finish();
      data.commit();
    } else {
      io::VtiGrid v;
      for (int a = 0; a < 3; ++a) {
        v.dims[std::size_t(a)] = int(grid.dims[std::size_t(a)]);
        v.origin[std::size_t(a)] = grid.origin[std::size_t(a)];
        v.spacing[std::size_t(a)] = grid.spacing[std::size_t(a)];
      }
      v.name = "signed_distance";
      io::AtomicFile data(o->out, false);
      if (o->float32) io::write_vti(data.stream(), v, f32.data());
      else io::write_vti(data.stream(), v, g.values.data());
      data.commit();
    }
    if (slice.first >= 0) write_png(slice_path, slice_image(g, slice.first, slice.second,
                                                             std::filesystem::path(o->mesh).filename().string()));
    std::string surface_note;
    if (!o->surface.empty()) {
      // From the float64 values whatever --float32 says: the vertices are more exact.
      const LevelSetMesh ls = extract_zero_level_set(grid, std::span<const double>(g.values));
      if (ls.triangles.empty())
        std::cerr << "prox sdf: warning: no node is inside: the surface " << o->surface
                  << " is empty\n";
      io::MeshData md;
      md.vertices = ls.vertices;
      md.triangles = ls.triangles;
      io::write_mesh(o->surface, md);
      surface_note = fmt::format(", surface {} triangles -> {}", with_commas(ls.triangles.size()),
                                 o->surface);
    }
    std::cout << fmt::format(
        "{} nodes ({} x {} x {}), spacing {:.6g}, sign {} ({} signed, the rest copied), "
        "{} unsure, {:.3f} s -> {}{}\n",
        with_commas(n), grid.dims[0], grid.dims[1], grid.dims[2], grid.spacing[0],
        to_string(g.method), with_commas(g.sign_evaluations), with_commas(g.unsure), ms / 1000,
        o->out, surface_note);
    return 0;
  };
}

}  // namespace prox::cli
