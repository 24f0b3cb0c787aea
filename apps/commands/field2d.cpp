// apps/commands/field2d.cpp — `prox field2d [SCENE] -o OUT.png`: a 2D distance-field picture.
#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "render.hpp"
#include "prox/image/png.hpp"
#include "prox/planar/field.hpp"
#include "prox/planar/scene.hpp"

namespace prox::cli {

Runner setup_field2d(CLI::App& app) {
  struct Options {
    std::string scene, out, size;
    bool signed_field = false;
    double band = 25;
    bool plain = false;
    int threads = 0;
  };
  auto o = std::make_shared<Options>();
  app.add_option("SCENE", o->scene,
                 "scene file (one shape per line: segment, circle, box, obox, capsule, "
                 "convex, polygon, polyline); default: the built-in scene");
  app.add_option("-o,--output", o->out, "output .png")->required();
  app.add_flag("--signed", o->signed_field,
               "signed distance to the solid shapes (negative inside) instead of the "
               "unsigned distance to their outlines");
  app.add_option("--size", o->size, "picture size WIDTHxHEIGHT (default: the scene's canvas)");
  app.add_option("--band", o->band, "a band every N scene units (0: no bands)")
      ->check(number_check(true, false))
      ->capture_default_str();
  app.add_flag("--plain", o->plain, "the picture alone (no caption or colour bar)");
  add_threads_option(app, o->threads);
  app.footer("Example: prox field2d -o field.png --signed");
  return [o]() {
    if (lower_extension(o->out) != ".png") {
      throw UsageError("-o must name a .png file, not '" + o->out + "'");
    }
    const planar::Scene scene = o->scene.empty() ? planar::default_scene()
                                                 : planar::load_scene(o->scene);
    planar::FieldOptions field;
    field.part = o->signed_field ? planar::Part::solid : planar::Part::boundary;
    field.band_spacing = o->band;
    if (!o->size.empty()) {
      const auto [w, h] = parse_size(o->size);
      field.width = w;
      field.height = h;
      // Fit the canvas: scene units per pixel, the same along both axes.
      field.scale = std::max(static_cast<double>(scene.width) / w,
                             static_cast<double>(scene.height) / h);
    }
    Timer timer;
    Image image = planar::render_distance_field(scene, field);
    if (!o->plain) {
      planar::FieldOptions sized = field;
      sized.width = image.width;
      sized.height = image.height;
      image = annotate_field(image, o->scene.empty() ? "seed scene" : o->scene,
                             scene.shapes.size(), planar::distance_field(scene, sized), sized);
    }
    write_png(o->out, image);
    std::cerr << fmt::format("prox field2d: wrote {} ({}x{}, {} shapes, {} field, {:.0f} ms)\n",
                             o->out, image.width, image.height, scene.shapes.size(),
                             o->signed_field ? "signed" : "unsigned", timer.ms());
    return 0;
  };
}

}  // namespace prox::cli
