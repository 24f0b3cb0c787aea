// prox/planar/field.hpp — distance-field pictures of a planar scene (module
// prox::planar), the seed 004 exercise done per pixel.
//
// Pixel (i, j) (column i, row j, row 0 at the top) samples the scene point
// origin + scale * (i, j); scene y grows downward, as in the seed's screen.
// Part::boundary: unsigned distance to the nearest outline; Part::solid:
// the scene's signed distance (negative inside a solid shape).
// Colour (field_color): outside, amber glow fading with distance on a dark
// background; inside (solid mode), blue glow; a thin light band wherever
// |d| is a multiple of band_spacing; the outline (|d| < 1.5 pixels) blends to
// pure white, which no other pixel reaches.
#pragma once

#include <vector>

#include "prox/image/image.hpp"
#include "prox/planar/scene.hpp"

namespace prox::planar {

/// How a distance field is sampled and coloured.
struct FieldOptions {
  int width = 0;               ///< picture width in pixels; 0 = the scene's canvas width
  int height = 0;              ///< picture height; 0 = the scene's canvas height
  Part part = Part::boundary;  ///< boundary: unsigned field; solid: signed field
  double band_spacing = 25;    ///< a band every this many scene units (<= 0: no bands)
  double band_width = 1.0;     ///< band half-width, in pixels
  double falloff = 120;        ///< glow falls to 1/e at this distance, in scene units
  Vec2d origin{0, 0};          ///< scene point sampled by pixel (0, 0)
  double scale = 1;            ///< scene units per pixel
};

/// The distance at every pixel, row-major (width * height values).
std::vector<double> distance_field(const Scene& scene, const FieldOptions& options);

/// The colour of a pixel at distance d (signed in solid mode).
Rgb8 field_color(double d, const FieldOptions& options);

/// The distance-field picture of the scene. Throws std::invalid_argument on bad options.
Image render_distance_field(const Scene& scene, const FieldOptions& options = {});

}  // namespace prox::planar
