// src/planar/field.cpp — distance-field pictures: the distance at every pixel
// (scene_distance, per pixel, no coarse squares) and its colour.
#include "prox/planar/field.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace prox::planar {
namespace {

struct Rgb {
  double r, g, b;
};

Rgb mix(const Rgb& a, const Rgb& b, double t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

std::uint8_t to_byte(double v) {
  return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
}

struct Size {
  int width;
  int height;
};

Size checked_size(const Scene& scene, const FieldOptions& o) {
  const Size s{o.width != 0 ? o.width : scene.width, o.height != 0 ? o.height : scene.height};
  if (s.width <= 0 || s.height <= 0 || s.width > (1 << 15) || s.height > (1 << 15)) {
    throw std::invalid_argument(detail::join({"prox::planar: field size ", std::to_string(s.width), "x",
                                              std::to_string(s.height), " is out of range (1 to 32768)"}));
  }
  if (!(o.scale > 0) || !std::isfinite(o.scale) || !all_finite(o.origin)) {
    throw std::invalid_argument("prox::planar: field scale must be > 0 and origin finite");
  }
  if (!std::isfinite(o.band_spacing) || !(o.band_width > 0) || !(o.falloff > 0)) {
    throw std::invalid_argument("prox::planar: field band_spacing must be finite, band_width and falloff > 0");
  }
  return s;
}

}  // namespace

std::vector<double> distance_field(const Scene& scene, const FieldOptions& options) {
  const Size size = checked_size(scene, options);
  std::vector<double> out(static_cast<std::size_t>(size.width) * static_cast<std::size_t>(size.height));
  std::size_t k = 0;
  for (int j = 0; j < size.height; ++j) {
    const double y = options.origin[1] + options.scale * j;
    for (int i = 0; i < size.width; ++i) {
      const Vec2d p{options.origin[0] + options.scale * i, y};
      out[k++] = scene_distance(p, scene, options.part);
    }
  }
  return out;
}

Rgb8 field_color(double d, const FieldOptions& o) {
  static constexpr Rgb background{12, 16, 28};
  static constexpr Rgb outside{232, 120, 40};  // amber glow
  static constexpr Rgb inside{60, 130, 240};   // blue glow (solid mode, d < 0)
  static constexpr Rgb band{235, 225, 205};
  static constexpr Rgb white{255, 255, 255};
  if (std::isnan(d)) return Rgb8{255, 0, 255};  // a visible "no answer"
  const double a = std::abs(d);
  const double pixels = a / o.scale;
  const double glow = std::exp(-a / o.falloff);
  Rgb c = mix(background, d < 0 ? inside : outside, 0.85 * glow);
  if (o.band_spacing > 0 && std::isfinite(a)) {
    const double m = std::fmod(a, o.band_spacing);
    const double off = std::min(m, o.band_spacing - m) / o.scale;  // pixels from the band
    const double strength = std::clamp(1.0 - off / o.band_width, 0.0, 1.0);
    c = mix(c, band, 0.55 * strength * (0.35 + 0.65 * glow));
  }
  const double edge = std::clamp(1.0 - pixels / 1.5, 0.0, 1.0);
  c = mix(c, white, edge);
  return Rgb8{to_byte(c.r), to_byte(c.g), to_byte(c.b)};
}

Image render_distance_field(const Scene& scene, const FieldOptions& options) {
  const Size size = checked_size(scene, options);
  Image img = make_image(size.width, size.height);
  for (int j = 0; j < size.height; ++j) {
    const double y = options.origin[1] + options.scale * j;
    for (int i = 0; i < size.width; ++i) {
      const Vec2d p{options.origin[0] + options.scale * i, y};
      img.set(i, j, field_color(scene_distance(p, scene, options.part), options));
    }
  }
  return img;
}

}  // namespace prox::planar
