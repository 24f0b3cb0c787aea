// apps/sdf_slice.hpp — `prox sdf --slice z=0.5`: a PNG of one grid plane.
//
// Diverging colours (inside blue, outside orange, white at zero, scaled by the
// largest |d| on the plane), the zero contour in black (where the bilinear
// field changes sign between neighbouring pixels), a colour bar with its values
// in mesh units, and the plane named in the picture ("z = 0.0123, plane k = 40
// of 81"), drawn with prox::image's annotate (prox/image/annotate.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "prox/image/annotate.hpp"
#include "prox/image/image.hpp"
#include "prox/mesh/sdf_grid.hpp"

namespace prox::cli {

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

/// The picture of plane `fraction` (0..1 of the grid's extent) across `axis`,
/// captioned with `mesh_name`, the plane and the sign method.
template <class T>
Image slice_image(const SdfGrid<T>& g, int axis, double fraction, const std::string& mesh_name) {
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
  // The longer side 512 px, cells square on screen.
  const double wu = double(nu - 1) * s.spacing[std::size_t(u)], wv = double(nv - 1) * s.spacing[std::size_t(v)];
  const double big = std::max({wu, wv, 1e-300});
  const int pw = std::max(2, int(std::lround(512 * wu / big))), ph = std::max(2, int(std::lround(512 * wv / big)));
  Image img = make_image(pw, ph, Rgb8{255, 255, 255});
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
  // Diverging colours (prox::diverging: inside blue, outside orange), the zero contour black.
  for (int y = 0; y < ph; ++y)
    for (int x = 0; x < pw; ++x) {
      const double c = f[std::size_t(y) * std::size_t(pw) + std::size_t(x)];
      Rgb8 col = std::isfinite(c) ? diverging(c / vmax) : Rgb8{128, 128, 128};
      const bool neg = c < 0;
      const bool edge =
          (x + 1 < pw && (f[std::size_t(y) * std::size_t(pw) + std::size_t(x + 1)] < 0) != neg) ||
          (y + 1 < ph && (f[std::size_t(y + 1) * std::size_t(pw) + std::size_t(x)] < 0) != neg);
      if (edge) col = Rgb8{0, 0, 0};
      img.set(x, y, col);
    }
  const char names[3] = {'x', 'y', 'z'};
  const char idx[3] = {'i', 'j', 'k'};
  const double coord = s.origin[std::size_t(axis)] + double(plane) * s.spacing[std::size_t(axis)];
  ColourBar bar;
  bar.title = "signed distance, mesh units (negative inside, blue)";
  bar.lo = -vmax;
  bar.hi = vmax;
  bar.colour = [vmax](double d) { return diverging(d / vmax); };
  bar.marks = {0.0};
  const std::vector<std::string> caption{
      fmt::format("{} · signed distance on the plane {} = {} (plane {} = {} of {}) · black: zero",
                  mesh_name, names[axis], label_number(coord), idx[axis], plane, na),
      fmt::format("{} right, {} up · grid {} x {} x {}, spacing {} · sign {}", names[u], names[v],
                  s.dims[0], s.dims[1], s.dims[2], label_number(s.spacing[0]), to_string(g.method))};
  return annotate(img, caption, &bar);
}

}  // namespace prox::cli
