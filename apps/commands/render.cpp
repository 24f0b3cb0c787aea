// apps/commands/render.cpp — `prox render MESH -o OUT.png`: a ray-cast picture.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "prox/image/png.hpp"
#include "render.hpp"

namespace prox::cli {

Runner setup_render(CLI::App& app) {
  struct Options {
    std::string mesh, out, size = "800x600", view = "+z", mode = "normal";
    int threads = 0;
  };
  auto o = std::make_shared<Options>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  app.add_option("-o,--output", o->out, "output .png")->required();
  app.add_option("--size", o->size, "picture size WIDTHxHEIGHT")->capture_default_str();
  app.add_option("--view", o->view,
                 "direction from the mesh centre to the eye: +x -x +y -y +z -z or DX,DY,DZ "
                 "(the eye is one bounding-box diagonal away, looking at the centre)")
      ->capture_default_str();
  app.add_option("--mode", o->mode,
                 "depth | normal | id (hashed triangle colours) | distance (unsigned distance "
                 "on the plane through the centre facing the eye, with bands)")
      ->capture_default_str();
  add_threads_option(app, o->threads);
  app.footer("Example: prox render bunny.off -o bunny.png --view -x --mode normal");
  return [o]() {
    if (lower_extension(o->out) != ".png") {
      throw UsageError("-o must name a .png file, not '" + o->out + "'");
    }
    const auto [w, h] = parse_size(o->size);
    const Vec3d view = parse_view(o->view);
    const RenderMode mode = parse_render_mode(o->mode);
    LoadedMesh m = load_mesh(o->mesh, o->threads);
    const Camera camera = make_camera(m.index->mesh().bounds(), view, w, h);
    RenderStats stats;
    const Image image = render_mesh(*m.index, camera, mode, o->threads, &stats);
    write_png(o->out, image);
    std::cerr << fmt::format("prox render: wrote {} ({}x{}, {} mode, {:.1f}% of pixels on the mesh, "
                             "{:.0f} ms)\n",
                             o->out, w, h, to_string(mode),
                             100.0 * static_cast<double>(stats.hits) / (static_cast<double>(w) * h),
                             stats.ms);
    return 0;
  };
}

}  // namespace prox::cli
