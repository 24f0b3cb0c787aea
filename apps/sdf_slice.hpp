// apps/sdf_slice.hpp — `prox sdf --slice z=0.5`: a PNG of one grid plane.
//
// Diverging colours (inside blue, outside orange, white at zero, scaled by the
// largest |d| on the plane), the zero contour in black (where the bilinear
// field changes sign between neighbouring pixels), a colour bar with its values
// in mesh units, and the plane named in the picture ("z = 0.0123, plane k = 40
// of 81"). Text uses a built-in 5x7 pixel font.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "prox/image/image.hpp"
#include "prox/mesh/sdf_grid.hpp"

namespace prox::cli {

namespace slice_detail {

inline const std::uint8_t* glyph(char c) {
  struct G {
    char c;
    std::uint8_t rows[7];
  };
  static const G font[] = {
      {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}}, {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
      {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
      {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
      {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}}, {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
      {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
      {'-', {0, 0, 0, 0x1F, 0, 0, 0}},                   {'+', {0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0}},
      {'.', {0, 0, 0, 0, 0, 0x0C, 0x0C}},                {'=', {0, 0, 0x1F, 0, 0x1F, 0, 0}},
      {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}}, {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}},
      {',', {0, 0, 0, 0, 0x0C, 0x04, 0x08}},             {':', {0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0}},
      {'x', {0, 0, 0x11, 0x0A, 0x04, 0x0A, 0x11}},       {'y', {0, 0, 0x11, 0x11, 0x0F, 0x01, 0x0E}},
      {'z', {0, 0, 0x1F, 0x02, 0x04, 0x08, 0x1F}},       {'a', {0, 0, 0x0E, 0x01, 0x0F, 0x11, 0x0F}},
      {'b', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E}}, {'c', {0, 0, 0x0E, 0x10, 0x10, 0x11, 0x0E}},
      {'d', {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F}}, {'e', {0, 0, 0x0E, 0x11, 0x1F, 0x10, 0x0E}},
      {'f', {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08}}, {'g', {0, 0, 0x0F, 0x11, 0x0F, 0x01, 0x0E}},
      {'h', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}}, {'i', {0x04, 0, 0x0C, 0x04, 0x04, 0x04, 0x0E}},
      {'k', {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12}}, {'l', {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}},
      {'m', {0, 0, 0x1A, 0x15, 0x15, 0x11, 0x11}},       {'n', {0, 0, 0x16, 0x19, 0x11, 0x11, 0x11}},
      {'o', {0, 0, 0x0E, 0x11, 0x11, 0x11, 0x0E}},       {'p', {0, 0, 0x1E, 0x11, 0x1E, 0x10, 0x10}},
      {'r', {0, 0, 0x16, 0x19, 0x10, 0x10, 0x10}},       {'s', {0, 0, 0x0E, 0x10, 0x0E, 0x01, 0x1E}},
      {'t', {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}}, {'u', {0, 0, 0x11, 0x11, 0x11, 0x13, 0x0D}},
      {'w', {0, 0, 0x11, 0x11, 0x15, 0x15, 0x0A}},       {'e', {0, 0, 0x0E, 0x11, 0x1F, 0x10, 0x0E}},
  };
  for (const G& g : font)
    if (g.c == c) return g.rows;
  static const std::uint8_t blank[7] = {0, 0, 0, 0, 0, 0, 0};
  return blank;
}

constexpr int kScale = 2, kAdvance = 6 * kScale, kLine = 9 * kScale;

inline void text(Image& img, int x, int y, const std::string& s, Rgb8 c) {
  for (char ch : s) {
    const std::uint8_t* g = glyph(ch);
    for (int r = 0; r < 7; ++r)
      for (int col = 0; col < 5; ++col)
        if (g[r] & (0x10 >> col))
          for (int dy = 0; dy < kScale; ++dy)
            for (int dx = 0; dx < kScale; ++dx) {
              const int px = x + col * kScale + dx, py = y + r * kScale + dy;
              if (px >= 0 && py >= 0 && px < img.width && py < img.height) img.set(px, py, c);
            }
    x += kAdvance;
  }
}

inline Rgb8 diverging(double t) {  // t in [-1, 1]: -1 blue (inside), +1 orange (outside)
  const double a = std::min(1.0, std::abs(t));
  const double w[3] = {247, 247, 247};
  const double in[3] = {33, 102, 172}, out[3] = {230, 97, 1};
  const double* e = t < 0 ? in : out;
  auto mix = [&](int k) { return std::uint8_t(std::lround(w[k] + (e[k] - w[k]) * a)); };
  return Rgb8{mix(0), mix(1), mix(2)};
}

}  // namespace slice_detail

/// "z=0.5" -> axis 2, fraction 0.5; UsageError otherwise.
inline std::pair<int, double> parse_slice(const std::string& s) {
  if (s.size() < 3 || s[1] != '=' || (s[0] != 'x' && s[0] != 'y' && s[0] != 'z'))
    throw UsageError("--slice must be x=F, y=F or z=F with F in [0, 1] (e.g. z=0.5), not '" + s + "'");
  char* end = nullptr;
  const double f = std::strtod(s.c_str() + 2, &end);
  if (end == s.c_str() + 2 || *end != '\0' || !(f >= 0 && f <= 1))
    throw UsageError("--slice fraction must be a number in [0, 1], not '" + s.substr(2) + "'");
  return {s[0] - 'x', f};
}

/// The picture of plane `fraction` (0..1 of the grid's extent) across `axis`.
template <class T>
Image slice_image(const SdfGrid<T>& g, int axis, double fraction) {
  using namespace slice_detail;
  const GridSpec& s = g.grid;
  const int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;  // horizontal, vertical axes
  const std::size_t nu = s.dims[std::size_t(u)], nv = s.dims[std::size_t(v)];
  const std::size_t na = s.dims[std::size_t(axis)];
  const std::size_t plane = std::size_t(std::lround(fraction * double(na - 1)));
  auto at = [&](std::size_t a, std::size_t b) {
    std::size_t ijk[3];
    ijk[axis] = plane;
    ijk[u] = a;
    ijk[v] = b;
    return double(g.values[s.index(ijk[0], ijk[1], ijk[2])]);
  };
  double vmax = 0;
  for (std::size_t b = 0; b < nv; ++b)
    for (std::size_t a = 0; a < nu; ++a)
      if (std::isfinite(at(a, b))) vmax = std::max(vmax, std::abs(at(a, b)));
  if (vmax == 0) vmax = 1;
  // Panel size: the longer side 512 px, cells square on screen.
  const double wu = double(nu - 1) * s.spacing[std::size_t(u)], wv = double(nv - 1) * s.spacing[std::size_t(v)];
  const double big = std::max({wu, wv, 1e-300});
  const int pw = std::max(2, int(std::lround(512 * wu / big))), ph = std::max(2, int(std::lround(512 * wv / big)));
  const int margin = 12, top = margin + 2 * kLine + 8, bar_w = 24;
  const int width = margin + pw + 20 + bar_w + 8 + 8 * kAdvance + margin;
  const int height = top + std::max(ph, 200) + margin + kLine;
  Image img = make_image(width, height, Rgb8{255, 255, 255});
  std::vector<double> f(std::size_t(pw) * std::size_t(ph));
  for (int y = 0; y < ph; ++y)
    for (int x = 0; x < pw; ++x) {
      const double fa = nu > 1 ? double(x) / double(pw - 1) * double(nu - 1) : 0;
      const double fb = nv > 1 ? double(ph - 1 - y) / double(ph - 1) * double(nv - 1) : 0;  // up
      const std::size_t a0 = std::min(std::size_t(fa), nu > 1 ? nu - 2 : 0);
      const std::size_t b0 = std::min(std::size_t(fb), nv > 1 ? nv - 2 : 0);
      const std::size_t a1 = std::min(a0 + 1, nu - 1), b1 = std::min(b0 + 1, nv - 1);
      const double ta = fa - double(a0), tb = fb - double(b0);
      f[std::size_t(y) * std::size_t(pw) + std::size_t(x)] =
          (at(a0, b0) * (1 - ta) + at(a1, b0) * ta) * (1 - tb) +
          (at(a0, b1) * (1 - ta) + at(a1, b1) * ta) * tb;
    }
  for (int y = 0; y < ph; ++y)
    for (int x = 0; x < pw; ++x) {
      const double c = f[std::size_t(y) * std::size_t(pw) + std::size_t(x)];
      Rgb8 col = std::isfinite(c) ? diverging(c / vmax) : Rgb8{128, 128, 128};
      const bool neg = c < 0;
      const bool edge =
          (x + 1 < pw && (f[std::size_t(y) * std::size_t(pw) + std::size_t(x + 1)] < 0) != neg) ||
          (y + 1 < ph && (f[std::size_t(y + 1) * std::size_t(pw) + std::size_t(x)] < 0) != neg);
      if (edge) col = Rgb8{0, 0, 0};
      img.set(margin + x, top + y, col);
    }
  // Colour bar: +vmax at the top, -vmax at the bottom.
  const int bx = margin + pw + 20, bh = std::max(ph, 200);
  for (int y = 0; y < bh; ++y) {
    const double t = 1.0 - 2.0 * double(y) / double(bh - 1);
    const Rgb8 col = std::abs(t) < 1.0 / double(bh) ? Rgb8{0, 0, 0} : diverging(t);
    for (int x = 0; x < bar_w; ++x) img.set(bx + x, top + y, col);
  }
  const Rgb8 ink{20, 20, 20};
  const int lx = bx + bar_w + 8;
  text(img, lx, top, fmt::format("+{:.3g}", vmax), ink);
  text(img, lx, top + bh / 2 - kLine / 2, "0", ink);
  text(img, lx, top + bh - kLine, fmt::format("-{:.3g}", vmax), ink);
  const char names[3] = {'x', 'y', 'z'};
  const char idx[3] = {'i', 'j', 'k'};
  const double coord = s.origin[std::size_t(axis)] + double(plane) * s.spacing[std::size_t(axis)];
  text(img, margin, margin,
       fmt::format("{} = {:.4g}  (plane {} = {} of {})", names[axis], coord, idx[axis], plane, na),
       ink);
  text(img, margin, margin + kLine, "signed distance (mesh units), black: zero", ink);
  text(img, lx, top + kLine + 4, "outside", Rgb8{200, 80, 0});
  text(img, lx, top + bh - 2 * kLine - 4, "inside", Rgb8{33, 102, 172});
  text(img, margin, top + std::max(ph, 200) + 4,
       fmt::format("{} right, {} up", names[u], names[v]), ink);
  return img;
}

}  // namespace prox::cli
