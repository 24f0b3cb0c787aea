// prox/io/npy.hpp — NumPy .npy arrays (format version 1.0), write and read.
//
// Reference: numpy/lib/format.py ("A Simple File Format for NumPy Arrays").
// A magic "\x93NUMPY", version 1.0, a little-endian uint16 header length, an
// ASCII Python-dict header {'descr': '<f8', 'fortran_order': False,
// 'shape': (N, 3), } padded with spaces to a multiple of 64 bytes, then the
// C-order data. The reader accepts version 1.x-3.x, little- or big-endian
// float32/float64/int32/int64 in C order, and checks that the data size the
// shape implies is exactly the bytes present before allocating.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace prox::io {

/// Writes a C-order array of doubles with the given shape.
void write_npy(std::ostream& out, const double* data, const std::vector<std::size_t>& shape);
void write_npy(std::ostream& out, const float* data, const std::vector<std::size_t>& shape);
void write_npy(std::ostream& out, const std::int32_t* data, const std::vector<std::size_t>& shape);
void write_npy(std::ostream& out, const std::uint8_t* data, const std::vector<std::size_t>& shape);

/// An array read from .npy, converted to double.
struct NpyArray {
  std::vector<std::size_t> shape;
  std::vector<double> data;  // C order
  std::string descr;         // as stored, e.g. "<f4"
};

/// Parses .npy bytes; `name` is used in error messages. Throws ReadError.
NpyArray parse_npy(std::string_view bytes, const std::string& name);
/// True when bytes start with the .npy magic.
bool is_npy(std::string_view bytes);

}  // namespace prox::io
