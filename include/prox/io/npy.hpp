// prox/io/npy.hpp — NumPy .npy arrays (format version 1.0), write and read.
//
// Reference: numpy/lib/format.py ("A Simple File Format for NumPy Arrays").
// A magic "\x93NUMPY", version 1.0, a little-endian uint16 header length, an
// ASCII Python-dict header {'descr': '<f8', 'fortran_order': False,
// 'shape': (N, 3), } padded with spaces to a multiple of 64 bytes, then the
// C-order data. The reader accepts version 1.x-3.x, little- or big-endian
// float32/float64/int8/int32/int64/uint8/bool in C order, and checks that the data size the
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
void write_npy(std::ostream& out, const std::int64_t* data, const std::vector<std::size_t>& shape);
void write_npy(std::ostream& out, const std::int8_t* data, const std::vector<std::size_t>& shape);

/// A NumPy .npz archive (what numpy.savez writes and numpy.load reads): a ZIP
/// of uncompressed members "<name>.npy", one per add(), ZIP64 records where a
/// size or offset passes 4 GiB. finish() writes the central directory; an
/// archive not finished is not a valid file (write it through an AtomicFile).
/// Written by hand: a stored ZIP is ~100 lines, and a compression library
/// would add a dependency to prox::io for a format that stores no compression.
class NpzWriter {
 public:
  explicit NpzWriter(std::ostream& out) : out_(out) {}
  NpzWriter(const NpzWriter&) = delete;
  NpzWriter& operator=(const NpzWriter&) = delete;
  /// Adds array `name` (a Python identifier: letters, digits, '_'), C order.
  void add(const std::string& name, const double* data, const std::vector<std::size_t>& shape);
  void add(const std::string& name, const float* data, const std::vector<std::size_t>& shape);
  void add(const std::string& name, const std::int64_t* data, const std::vector<std::size_t>& shape);
  void add(const std::string& name, const std::int32_t* data, const std::vector<std::size_t>& shape);
  void add(const std::string& name, const std::int8_t* data, const std::vector<std::size_t>& shape);
  void add(const std::string& name, const std::uint8_t* data, const std::vector<std::size_t>& shape);
  /// Writes the central directory; no add() after it.
  void finish();

 private:
  struct Member {
    std::string name;
    std::uint32_t crc;
    std::uint64_t size, offset;
  };
  void add_member(const std::string& name, const std::string& header, const void* data,
                  std::uint64_t bytes);
  std::ostream& out_;
  std::vector<Member> members_;
  std::uint64_t offset_ = 0;
  bool finished_ = false;
};

/// CRC-32 (ISO 3309, as ZIP and PNG use) of `bytes`, continuing from `crc`.
std::uint32_t crc32(const void* bytes, std::size_t size, std::uint32_t crc = 0);

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
