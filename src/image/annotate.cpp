// src/image/annotate.cpp — text, colour maps, colour bars and captions (see annotate.hpp).
#include "prox/image/annotate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace prox {
namespace {

constexpr std::uint8_t kFont[][kGlyphHeight] = {
#include "label_font.inc"
};
constexpr int kDegree = 95, kMiddleDot = 96;
constexpr int kQuestion = '?' - 32;

// The glyphs of a UTF-8 string: ASCII, and the two extra code points.
std::vector<int> glyphs(std::string_view s) {
  std::vector<int> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 32 && c < 127) {
      out.push_back(c - 32);
    } else if (c == 0xC2 && i + 1 < s.size()) {
      const auto d = static_cast<unsigned char>(s[++i]);
      out.push_back(d == 0xB0 ? kDegree : d == 0xB7 ? kMiddleDot : kQuestion);
    } else if (c >= 0x80) {
      // Skip the continuation bytes of any other code point; draw one '?'.
      while (i + 1 < s.size() && (static_cast<unsigned char>(s[i + 1]) & 0xC0) == 0x80) ++i;
      out.push_back(kQuestion);
    }
  }
  return out;
}

Rgb8 mix(Rgb8 a, Rgb8 b, double t) {
  auto m = [t](std::uint8_t x, std::uint8_t y) {
    return static_cast<std::uint8_t>(std::lround(x + (y - x) * t));
  };
  return Rgb8{m(a.r, b.r), m(a.g, b.g), m(a.b, b.b)};
}

template <std::size_t N>
Rgb8 ramp(const std::array<Rgb8, N>& stops, double t) {
  t = std::clamp(t, 0.0, 1.0) * (N - 1);
  const auto k = std::min<std::size_t>(static_cast<std::size_t>(t), N - 2);
  return mix(stops[k], stops[k + 1], t - static_cast<double>(k));
}

const Rgb8 kPanel{245, 245, 242};
const Rgb8 kInk{30, 30, 34};

}  // namespace

int text_width(std::string_view text, int scale) {
  return static_cast<int>(glyphs(text).size()) * kGlyphWidth * scale;
}

void fill_rect(Image& image, int x0, int y0, int x1, int y1, Rgb8 colour) {
  x0 = std::max(x0, 0);
  y0 = std::max(y0, 0);
  x1 = std::min(x1, image.width);
  y1 = std::min(y1, image.height);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) image.set(x, y, colour);
}

void draw_text(Image& image, int x, int y, std::string_view text, Rgb8 colour, int scale) {
  int cx = x;
  for (const int g : glyphs(text)) {
    for (int r = 0; r < kGlyphHeight; ++r) {
      const std::uint8_t bits = kFont[g][r];
      for (int c = 0; c < kGlyphWidth; ++c) {
        if (!(bits & (0x80 >> c))) continue;
        fill_rect(image, cx + c * scale, y + r * scale, cx + (c + 1) * scale, y + (r + 1) * scale,
                  colour);
      }
    }
    cx += kGlyphWidth * scale;
  }
}

Rgb8 viridis(double t) {
  if (std::isnan(t)) return Rgb8{128, 128, 128};
  static const std::array<Rgb8, 9> stops{{{68, 1, 84},
                                          {71, 44, 122},
                                          {59, 81, 139},
                                          {44, 113, 142},
                                          {33, 144, 141},
                                          {39, 173, 129},
                                          {92, 200, 99},
                                          {170, 220, 50},
                                          {253, 231, 37}}};
  return ramp(stops, t);
}

Rgb8 diverging(double t) {
  if (std::isnan(t)) return Rgb8{128, 128, 128};
  // ColorBrewer-like PuOr/RdBu hybrid: blue inside, orange outside.
  static const std::array<Rgb8, 7> stops{{{33, 64, 154},
                                          {67, 147, 195},
                                          {171, 210, 233},
                                          {247, 247, 247},
                                          {253, 204, 138},
                                          {241, 140, 50},
                                          {179, 72, 8}}};
  return ramp(stops, (t + 1) / 2);
}

std::string label_number(double v) {
  if (v == 0) return "0";
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  const double a = std::fabs(v);
  if (a >= 1e-3 && a < 1e5) std::snprintf(buf, sizeof buf, "%.4g", v);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

namespace {

constexpr int kMargin = 6, kBarWidth = 14, kLine = 16;

// Caption lines wrapped at spaces to fit `width` pixels (a word longer than a
// line is cut between characters).
std::vector<std::string> wrap(const std::vector<std::string>& lines, int width) {
  const int per_line = std::max(8, (width - 2 * kMargin) / kGlyphWidth);
  std::vector<std::string> out;
  for (const std::string& line : lines) {
    std::string rest = line;
    while (static_cast<int>(glyphs(rest).size()) > per_line) {
      // The byte offset of glyph per_line (UTF-8: the middle dot is 2 bytes).
      std::size_t cut = 0;
      for (int g = 0; g < per_line && cut < rest.size(); ++g)
        cut += static_cast<unsigned char>(rest[cut]) == 0xC2 ? 2 : 1;
      std::size_t space = rest.rfind(' ', cut);
      if (space == std::string::npos || space < cut / 2) space = cut;
      out.push_back(rest.substr(0, space));
      rest = rest.substr(space < rest.size() && rest[space] == ' ' ? space + 1 : space);
    }
    out.push_back(rest);
  }
  return out;
}

std::vector<std::string> caption_lines(const Image& picture, const std::vector<std::string>& caption,
                                       const ColourBar* bar, int width) {
  std::vector<std::string> lines = caption;
  // The bar's title goes in the caption strip, so the panel stays narrow.
  if (bar && !bar->title.empty()) lines.push_back("colour bar: " + bar->title);
  (void)picture;
  return wrap(lines, width);
}

std::vector<double> tick_values(const ColourBar& bar) {
  std::vector<double> v;
  const int n = std::max(bar.ticks, 2);
  for (int i = 0; i < n; ++i) v.push_back(bar.lo + (bar.hi - bar.lo) * i / (n - 1));
  return v;
}

int panel_width(const ColourBar& bar) {
  int w = 0;
  for (const double t : tick_values(bar)) w = std::max(w, text_width(label_number(t)));
  for (const double m : bar.marks) w = std::max(w, text_width(label_number(m)));
  return kMargin + kBarWidth + 4 + w + kMargin;
}

}  // namespace

AnnotateLayout annotate_layout(const Image& picture, const std::vector<std::string>& caption,
                               const ColourBar* bar) {
  AnnotateLayout l;
  l.width = picture.width + (bar ? panel_width(*bar) : 0);
  const std::size_t lines = caption_lines(picture, caption, bar, l.width).size();
  l.caption_y0 = picture.height;
  l.height = picture.height + (lines ? kMargin + static_cast<int>(lines) * kLine : 0);
  if (bar) {
    l.bar_x0 = picture.width + kMargin;
    l.bar_x1 = l.bar_x0 + kBarWidth;
    l.bar_y0 = kMargin + kGlyphHeight / 2;
    l.bar_y1 = std::max(l.bar_y0 + 2, picture.height - kMargin - kGlyphHeight / 2);
  }
  return l;
}

Image annotate(const Image& picture, const std::vector<std::string>& caption,
               const ColourBar* bar) {
  const AnnotateLayout l = annotate_layout(picture, caption, bar);
  Image out = make_image(l.width, l.height, kPanel);
  for (int y = 0; y < picture.height; ++y)
    for (int x = 0; x < picture.width; ++x) out.set(x, y, picture.at(x, y));
  const std::vector<std::string> lines = caption_lines(picture, caption, bar, l.width);
  if (bar) {
    const int h = l.bar_y1 - l.bar_y0;
    for (int y = l.bar_y0; y <= l.bar_y1; ++y) {
      const double t = h > 0 ? double(l.bar_y1 - y) / h : 0;
      fill_rect(out, l.bar_x0, y, l.bar_x1, y + 1, bar->colour(bar->lo + (bar->hi - bar->lo) * t));
    }
    auto y_of = [&](double v) {
      const double t = bar->hi == bar->lo ? 0 : (v - bar->lo) / (bar->hi - bar->lo);
      return l.bar_y1 - static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * h));
    };
    for (const double v : tick_values(*bar)) {
      const int y = y_of(v);
      fill_rect(out, l.bar_x1, y, l.bar_x1 + 3, y + 1, kInk);
      draw_text(out, l.bar_x1 + 4, y - kGlyphHeight / 2, label_number(v), kInk);
    }
    for (const double m : bar->marks) {
      const int y = y_of(m);
      fill_rect(out, l.bar_x0 - 2, y, l.bar_x1 + 3, y + 1, kInk);
    }
  }
  int y = l.caption_y0 + kMargin;
  for (const std::string& line : lines) {
    draw_text(out, kMargin, y + 1, line, kInk);
    y += kLine;
  }
  return out;
}

}  // namespace prox
