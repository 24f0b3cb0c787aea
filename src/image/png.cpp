// src/image/png.cpp — PNG encode/decode for prox::Image with libpng's
// simplified API (png_image_*), which reports errors through a return code
// and a message buffer rather than longjmp, so no C++ frame is skipped.
#include "prox/image/png.hpp"

#include <png.h>

#include <cstring>
#include <stdexcept>
#include <initializer_list>
#include <string>
#include <string_view>

#include "prox/io/atomic_file.hpp"

namespace prox {
namespace {

/// Concatenation by appending (GCC 12 at -O3 raises a false -Wrestrict on
/// "literal" + std::string temporaries).
std::string join(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) s.append(p);
  return s;
}

void check_image(const Image& image) {
  if (!image.consistent()) {
    throw std::invalid_argument(join({"prox::write_png: image is ", std::to_string(image.width), "x",
                                      std::to_string(image.height), " but holds ",
                                      std::to_string(image.pixels.size()), " bytes (want w*h*3)"}));
  }
  if (image.width == 0 || image.height == 0) {
    throw std::invalid_argument(join({"prox::write_png: a PNG needs at least one pixel (image is ",
                                      std::to_string(image.width), "x", std::to_string(image.height), ")"}));
  }
}

png_image describe(const Image& image) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGB;
  return png;
}

}  // namespace

std::vector<std::uint8_t> encode_png(const Image& image) {
  check_image(image);
  png_image png = describe(image);
  const png_int_32 stride = static_cast<png_int_32>(image.width) * 3;
  png_alloc_size_t size = 0;
  // First call measures, second call writes.
  if (!png_image_write_to_memory(&png, nullptr, &size, 0, image.pixels.data(), stride, nullptr)) {
    const std::string msg = png.message;
    png_image_free(&png);
    throw std::runtime_error(join({"prox::encode_png: ", msg}));
  }
  std::vector<std::uint8_t> bytes(size);
  png = describe(image);
  if (!png_image_write_to_memory(&png, bytes.data(), &size, 0, image.pixels.data(), stride,
                                 nullptr)) {
    const std::string msg = png.message;
    png_image_free(&png);
    throw std::runtime_error(join({"prox::encode_png: ", msg}));
  }
  bytes.resize(size);
  return bytes;
}

void write_png(const std::filesystem::path& path, const Image& image) {
  const std::vector<std::uint8_t> bytes = encode_png(image);
  io::AtomicFile file(path);
  file.stream().write(reinterpret_cast<const char*>(bytes.data()),
                      static_cast<std::streamsize>(bytes.size()));
  file.commit();
}

Image read_png(const std::filesystem::path& path) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  const std::string name = path.string();
  if (!png_image_begin_read_from_file(&png, name.c_str())) {
    const std::string msg = png.message;
    png_image_free(&png);
    throw std::runtime_error(join({"cannot read PNG '", name, "': ", msg}));
  }
  png.format = PNG_FORMAT_RGB;
  // A header can claim any size; refuse more than 2^28 pixels before allocating.
  if (png.width == 0 || png.height == 0 ||
      static_cast<std::uint64_t>(png.width) * png.height > (std::uint64_t{1} << 28)) {
    png_image_free(&png);
    throw std::runtime_error(join({"cannot read PNG '", name, "': size ", std::to_string(png.width), "x",
                                   std::to_string(png.height), " is out of range"}));
  }
  Image image = make_image(static_cast<int>(png.width), static_cast<int>(png.height));
  if (!png_image_finish_read(&png, nullptr, image.pixels.data(),
                             static_cast<png_int_32>(png.width) * 3, nullptr)) {
    const std::string msg = png.message;
    png_image_free(&png);
    throw std::runtime_error(join({"cannot read PNG '", name, "': ", msg}));
  }
  return image;
}

}  // namespace prox
