// apps/commands/render.cpp — `prox render MESH -o OUT.png`: a ray-cast picture,
// and on request the numbers behind it (depth, triangle ids, normals as .npy)
// and the camera rays themselves (a .npy that `prox raycast` reads).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "prox/image/png.hpp"
#include "prox/io/npy.hpp"
#include "render.hpp"

namespace prox::cli {
namespace {

void check_npy(const std::string& path, const char* option) {
  if (!path.empty() && path != "-" && lower_extension(path) != ".npy")
    throw UsageError(std::string(option) + " must name a .npy file, not '" + path + "'");
}

}  // namespace

Runner setup_render(CLI::App& app) {
  struct Options {
    std::string mesh, out, size = "800x600", view = "+z", mode = "normal";
    std::string eye, target, up = "0,1,0";
    std::string out_depth, out_ids, out_normals, rays;
    double fov = 60;
    int threads = 0;
  };
  auto o = std::make_shared<Options>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  app.add_option("-o,--output", o->out, "output .png (- for standard output)");
  app.add_option("--size", o->size, "picture size WIDTHxHEIGHT")->capture_default_str();
  auto* view = app.add_option("--view", o->view,
                              "direction from the mesh centre to the eye: +x -x +y -y +z -z or "
                              "DX,DY,DZ (the eye is one bounding-box diagonal away, looking at "
                              "the centre)")
                   ->capture_default_str();
  auto* eye = app.add_option("--eye", o->eye, "camera position X,Y,Z (instead of --view)");
  app.add_option("--target", o->target, "point the camera looks at, X,Y,Z (default: the mesh centre)")
      ->needs(eye);
  app.add_option("--up", o->up, "up direction X,Y,Z with --eye")->capture_default_str()->needs(eye);
  eye->excludes(view);
  app.add_option("--fov", o->fov, "vertical field of view, degrees")->capture_default_str();
  app.add_option("--mode", o->mode,
                 "depth | normal | id (hashed triangle colours) | distance (unsigned distance "
                 "on the plane through the target facing the eye, with bands)")
      ->capture_default_str();
  app.add_option("--out-depth", o->out_depth,
                 "also write each pixel's hit t (depth along the view axis) as float64 (H, W) "
                 ".npy, inf for background");
  app.add_option("--out-ids", o->out_ids,
                 "also write each pixel's triangle id as int64 (H, W) .npy, -1 for background");
  app.add_option("--out-normals", o->out_normals,
                 "also write each pixel's unit geometric normal as float64 (H, W, 3) .npy, NaN "
                 "for background");
  app.add_option("--rays", o->rays,
                 "also write the camera rays as float64 (H*W, 6) .npy (origin, direction; row "
                 "y*W + x is pixel x, y), for `prox raycast`");
  add_threads_option(app, o->threads);
  app.footer("Example: prox render bunny.off -o bunny.png --view -x --mode normal\n"
             "         prox render bunny.off --eye 0,0.1,0.3 --out-depth depth.npy --rays rays.npy");
  return [o]() {
    const bool want_picture = !o->out.empty();
    if (want_picture && o->out != "-" && lower_extension(o->out) != ".png")
      throw UsageError("-o must name a .png file (or - for standard output), not '" + o->out + "'");
    check_npy(o->out_depth, "--out-depth");
    check_npy(o->out_ids, "--out-ids");
    check_npy(o->out_normals, "--out-normals");
    check_npy(o->rays, "--rays");
    const bool want_buffers = !o->out_depth.empty() || !o->out_ids.empty() || !o->out_normals.empty();
    if (!want_picture && !want_buffers && o->rays.empty())
      throw UsageError("nothing to write: give -o OUT.png, --out-depth, --out-ids, --out-normals "
                       "or --rays");
    const auto [w, h] = parse_size(o->size);
    const RenderMode mode = parse_render_mode(o->mode);
    if (!(o->fov > 0 && o->fov < 180))
      throw UsageError("--fov must be between 0 and 180 degrees (exclusive)");
    LoadedMesh m = load_mesh(o->mesh, o->threads);
    const Box3<double> bounds = m.index->mesh().bounds();
    Camera camera;
    if (!o->eye.empty()) {
      const Vec3d eye_at = parse_point(o->eye, "--eye");
      const Vec3d target = o->target.empty()
                               ? (bounds.is_empty() ? Vec3d::zero() : bounds.center())
                               : parse_point(o->target, "--target");
      camera = look_at_camera(eye_at, target, parse_point(o->up, "--up"), w, h, o->fov);
    } else {
      camera = make_camera(bounds, parse_view(o->view), w, h, o->fov);
    }
    const std::size_t W = static_cast<std::size_t>(w), H = static_cast<std::size_t>(h);
    if (!o->rays.empty()) {
      const std::vector<double> r = camera_rays(camera);
      Output out(o->rays);
      io::write_npy(out.stream(), r.data(), {W * H, 6});
      out.commit();
    }
    if (want_buffers) {
      const RenderBuffers b = cast_camera(*m.index, camera, o->threads);
      auto write = [&](const std::string& path, const auto* data, std::vector<std::size_t> shape) {
        if (path.empty()) return;
        Output out(path);
        io::write_npy(out.stream(), data, shape);
        out.commit();
      };
      write(o->out_depth, b.depth.data(), {H, W});
      write(o->out_ids, b.ids.data(), {H, W});
      write(o->out_normals, b.normals.data(), {H, W, 3});
    }
    if (!want_picture) {
      summary("prox render", fmt::format("wrote {}x{} buffers", w, h));
      return 0;
    }
    RenderStats stats;
    const Image image = render_mesh(*m.index, camera, mode, o->threads, &stats);
    const std::vector<std::uint8_t> png = encode_png(image);
    Output out(o->out);
    out.stream().write(reinterpret_cast<const char*>(png.data()),
                       static_cast<std::streamsize>(png.size()));
    out.commit();
    const std::string what =
        mode == RenderMode::distance
            ? fmt::format("distance on the plane {:.4g} from the eye, {:.4g} to {:.4g}",
                          camera.focus, stats.min_distance, stats.max_distance)
            : fmt::format("{:.1f}% of pixels on the mesh",
                          100.0 * static_cast<double>(stats.hits) / (static_cast<double>(w) * h));
    summary("prox render", fmt::format("wrote {} ({}x{}, {} mode, {}, {:.0f} ms)",
                                       o->out == "-" ? "standard output" : o->out, w, h,
                                       to_string(mode), what, stats.ms));
    return 0;
  };
}

}  // namespace prox::cli
