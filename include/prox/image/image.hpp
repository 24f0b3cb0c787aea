// prox/image/image.hpp — an 8-bit RGB picture in memory.
//
// Row-major, top row first, 3 bytes per pixel (r, g, b): pixels[(y * width + x) * 3 + c].
// An aggregate (`prox::Image{w, h, pixels}`), so callers fill it however they like;
// make_image() allocates one of a given size and colour.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace prox {

/// One RGB8 pixel.
struct Rgb8 {
  std::uint8_t r = 0;
  std::uint8_t g = 0;
  std::uint8_t b = 0;
  friend bool operator==(const Rgb8&, const Rgb8&) = default;
};

/// An RGB8 image, row-major, top row first.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  ///< width * height * 3 bytes

  /// The pixel at column x, row y (0, 0 is top-left); no bounds check.
  Rgb8 at(int x, int y) const {
    const std::size_t i = index(x, y);
    return Rgb8{pixels[i], pixels[i + 1], pixels[i + 2]};
  }
  /// Sets the pixel at column x, row y; no bounds check.
  void set(int x, int y, Rgb8 c) {
    const std::size_t i = index(x, y);
    pixels[i] = c.r;
    pixels[i + 1] = c.g;
    pixels[i + 2] = c.b;
  }
  /// Whether the pixel buffer holds exactly width * height * 3 bytes.
  bool consistent() const {
    return width >= 0 && height >= 0 &&
           pixels.size() == static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3;
  }

 private:
  std::size_t index(int x, int y) const {
    return (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
            static_cast<std::size_t>(x)) * 3;
  }
};

/// A width x height image filled with `fill`; throws std::invalid_argument on a negative size.
inline Image make_image(int width, int height, Rgb8 fill = {}) {
  if (width < 0 || height < 0) {
    std::string msg = "prox::make_image: negative size ";
    msg += std::to_string(width);
    msg += 'x';
    msg += std::to_string(height);
    throw std::invalid_argument(msg);
  }
  Image img{width, height, {}};
  img.pixels.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
  for (std::size_t i = 0; i < img.pixels.size(); i += 3) {
    img.pixels[i] = fill.r;
    img.pixels[i + 1] = fill.g;
    img.pixels[i + 2] = fill.b;
  }
  return img;
}

}  // namespace prox
