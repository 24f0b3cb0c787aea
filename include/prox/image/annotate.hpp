// prox/image/annotate.hpp — pictures that say what they show: text, colour
// maps, colour bars with values and units, captions (module prox::image).
//
// Text uses a built-in 6x13 pixel font (X11's public-domain Misc-Fixed,
// converted by scripts/gen-label-font.py): printable ASCII plus the degree
// sign and the middle dot (UTF-8 in the string), so labels need no font file
// or font library at run time — a PNG written on a headless server still
// reads the same. Colour maps: viridis (matplotlib's, perceptually uniform,
// for magnitudes) and a diverging blue-white-orange map (for signed values:
// inside blue, outside orange, white at zero).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "prox/image/image.hpp"

namespace prox {

inline constexpr int kGlyphWidth = 6;    ///< pixels per character, at scale 1
inline constexpr int kGlyphHeight = 13;  ///< pixels per line, at scale 1

/// Width in pixels of `text` at `scale` (characters the font lacks count as '?').
int text_width(std::string_view text, int scale = 1);
/// Draws `text` with its top-left corner at (x, y); pixels outside the image are skipped.
void draw_text(Image& image, int x, int y, std::string_view text, Rgb8 colour, int scale = 1);
/// Fills [x0, x1) x [y0, y1), clipped to the image.
void fill_rect(Image& image, int x0, int y0, int x1, int y1, Rgb8 colour);

/// Viridis at t in [0, 1] (clamped; NaN: mid grey).
Rgb8 viridis(double t);
/// Diverging map at t in [-1, 1]: -1 deep blue, 0 white, +1 deep orange (clamped; NaN: grey).
Rgb8 diverging(double t);

/// A vertical colour bar: `colour(value)` drawn from `lo` (bottom) to `hi`
/// (top), `ticks` labelled values (>= 2), and a title such as "distance (mesh
/// units)". Optional `marks`: values drawn as a line across the bar (a zero
/// contour, band spacing) with their label.
struct ColourBar {
  std::string title;
  double lo = 0, hi = 1;
  std::function<Rgb8(double)> colour;
  int ticks = 5;
  std::vector<double> marks;
};

/// The picture with a caption strip below it (one line per entry, in order)
/// and, when `bar` is given, a colour-bar panel to its right; the picture's own
/// pixels are copied unchanged at the top-left. Layout: bar panel 14 px bar +
/// labels; caption lines 16 px each, 6 px margins, on the panel colour.
Image annotate(const Image& picture, const std::vector<std::string>& caption,
               const ColourBar* bar = nullptr);

/// Where annotate() put things, for tests and callers that draw more.
struct AnnotateLayout {
  int bar_x0 = 0, bar_x1 = 0, bar_y0 = 0, bar_y1 = 0;  ///< the bar's gradient (y0 = hi end)
  int caption_y0 = 0;                                   ///< first caption row
  int width = 0, height = 0;                            ///< the annotated image's size
};
AnnotateLayout annotate_layout(const Image& picture, const std::vector<std::string>& caption,
                               const ColourBar* bar);

/// Compact number text for labels: "0", "0.0125", "1.5e-07", "-3.2" (4 significant digits).
std::string label_number(double v);

}  // namespace prox
