// apps/commands/render.cpp — `prox render MESH -o OUT.png`: a ray-cast picture,
// and on request the numbers behind it (depth, triangle ids, normals as .npy)
// and the camera rays themselves (a .npy that `prox raycast` reads).
#include <cmath>
#include <cstdlib>
#include <filesystem>
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
    std::string out_depth, out_ids, out_normals, out_distance, rays, plane;
    double fov = 60, offset = 0;
    bool signed_distance = false, plain = false;
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
  auto* plane = app.add_option("--plane", o->plane,
                               "distance mode: slice the axis plane x=V, y=V or z=V, seen from its "
                               "+ side (instead of --view / --eye)");
  plane->excludes(view)->excludes(eye);
  app.add_option("--offset", o->offset,
                 "distance mode: move the slice this far toward the eye (mesh units)");
  app.add_flag("--signed", o->signed_distance,
               "distance mode: signed distance (negative inside; the sign as `prox closest "
               "--signed` gives it, method auto), inside and outside coloured apart");
  app.add_flag("--plain", o->plain,
               "the picture alone, exactly --size (no caption or colour bar)");
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
  app.add_option("--out-distance", o->out_distance,
                 "distance mode: also write each pixel's (signed) distance on the slice as "
                 "float64 (H, W) .npy, NaN where there is none");
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
    check_npy(o->out_distance, "--out-distance");
    const bool want_buffers = !o->out_depth.empty() || !o->out_ids.empty() || !o->out_normals.empty();
    if (!want_picture && !want_buffers && o->rays.empty() && o->out_distance.empty())
      throw UsageError("nothing to write: give -o OUT.png, --out-depth, --out-ids, --out-normals, "
                       "--out-distance or --rays");
    check_outputs({o->out, o->out_depth, o->out_ids, o->out_normals, o->rays, o->out_distance});
    const auto [w, h] = parse_size(o->size);
    const RenderMode mode = parse_render_mode(o->mode);
    if (!(o->fov > 0 && o->fov < 180))
      throw UsageError("--fov must be between 0 and 180 degrees (exclusive)");
    if ((o->signed_distance || !o->plane.empty() || o->offset != 0 || !o->out_distance.empty()) &&
        mode != RenderMode::distance)
      throw UsageError("--signed, --plane, --offset and --out-distance are for --mode distance");
    LoadedMesh m = load_mesh(o->mesh, o->threads);
    const Box3<double> bounds = m.index->mesh().bounds();
    const Vec3d centre = bounds.is_empty() ? Vec3d::zero() : bounds.center();
    Camera camera;
    if (!o->plane.empty()) {
      const std::string& p = o->plane;
      int axis = -1;
      if (p.size() > 2 && p[1] == '=') axis = p[0] == 'x' ? 0 : p[0] == 'y' ? 1 : p[0] == 'z' ? 2 : -1;
      char* end = nullptr;
      const double v = axis >= 0 ? std::strtod(p.c_str() + 2, &end) : 0;
      if (axis < 0 || end == p.c_str() + 2 || *end != '\0' || !std::isfinite(v))
        throw UsageError("--plane must be x=V, y=V or z=V, not '" + p + "'");
      Vec3d dir{0, 0, 0};
      dir[axis] = 1;
      camera = make_camera(bounds, dir, w, h, o->fov);
      // Same framing, the target moved onto the plane.
      Vec3d target = centre;
      target[axis] = v;
      const Vec3d shift = target - centre;
      camera.eye = camera.eye + shift;
    } else if (!o->eye.empty()) {
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
    if (!want_picture && o->out_distance.empty()) {
      summary("prox render", fmt::format("wrote {}x{} buffers", w, h));
      return 0;
    }
    RenderStats stats;
    RenderOptions ro;
    ro.mode = mode;
    ro.threads = o->threads;
    ro.signed_distance = o->signed_distance;
    ro.offset = o->offset;
    ro.silhouette = !o->plain && want_picture;
    RenderLegend legend;
    Image image = render_mesh(*m.index, camera, ro, &stats, &legend);
    if (!o->out_distance.empty()) {
      Output out(o->out_distance);
      io::write_npy(out.stream(), stats.distances.data(), {H, W});
      out.commit();
    }
    if (!want_picture) {
      summary("prox render", fmt::format("wrote {}x{} distances ({} to {}, {:.0f} ms)", w, h,
                                         stats.min_distance, stats.max_distance, stats.ms));
      return 0;
    }
    if (!o->plain) {
      if (!o->plane.empty()) legend.what += " (plane " + o->plane + ")";
      image = annotate_render(image, std::filesystem::path(o->mesh).filename().string(), camera,
                              legend);
    }
    const std::vector<std::uint8_t> png = encode_png(image);
    Output out(o->out);
    out.stream().write(reinterpret_cast<const char*>(png.data()),
                       static_cast<std::streamsize>(png.size()));
    out.commit();
    const std::string what =
        mode == RenderMode::distance
            ? fmt::format("{} distance on the plane {:.4g} from the eye, {:.4g} to {:.4g}",
                          o->signed_distance ? "signed" : "unsigned", camera.focus - o->offset,
                          stats.min_distance, stats.max_distance)
            : fmt::format("{:.1f}% of pixels on the mesh",
                          100.0 * static_cast<double>(stats.hits) / (static_cast<double>(w) * h));
    summary("prox render", fmt::format("wrote {} ({}x{}, {} mode, {}, {:.0f} ms)",
                                       o->out == "-" ? "standard output" : o->out, image.width,
                                       image.height,
                                       to_string(mode), what, stats.ms));
    return 0;
  };
}

}  // namespace prox::cli
