// prox/image/png.hpp — PNG files for prox::Image (module prox::image, libpng).
//
// write_png encodes with libpng's simplified API (png_image_write_to_memory,
// libpng >= 1.6.24, no setjmp/longjmp across C++ frames) and writes the bytes
// through prox::io::AtomicFile, so the file appears whole or not at all.
// read_png decodes any PNG libpng reads into RGB8 (used by tests to check what
// was written, and by tools that compare pictures).
// Errors throw std::runtime_error naming the file and libpng's message; an
// image whose buffer does not match its size throws std::invalid_argument.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "prox/image/image.hpp"

namespace prox {

/// The PNG bytes of an RGB8 image (8-bit RGB, no alpha).
std::vector<std::uint8_t> encode_png(const Image& image);

/// Writes the image as a PNG file, atomically (a temporary beside it, then a rename).
void write_png(const std::filesystem::path& path, const Image& image);

/// Reads a PNG file as RGB8 (alpha dropped, palettes and grey expanded).
Image read_png(const std::filesystem::path& path);

}  // namespace prox
