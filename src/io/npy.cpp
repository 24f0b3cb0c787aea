// src/io/npy.cpp — .npy writer and reader (format version 1.0 written; 1-3 read).
#include "prox/io/npy.hpp"

#include <cstring>

#include "parse_util.hpp"

namespace prox::io {
namespace {

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    s += std::to_string(shape[i]);
    if (shape.size() == 1 || i + 1 < shape.size()) s += ",";
    if (i + 1 < shape.size()) s += " ";
  }
  s += ')';
  return s;
}

template <class T>
void write_any(std::ostream& out, const T* data, const std::vector<std::size_t>& shape,
               const char* descr) {
  std::string header = "{'descr': '" + std::string(descr) +
                       "', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  // magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const std::uint16_t len = static_cast<std::uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  const char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(len_bytes, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  std::size_t n = 1;
  for (const std::size_t d : shape) n *= d;
  // Little-endian data: the host order on every platform prox builds for.
  if (!detail::host_is_little_endian()) throw std::runtime_error("big-endian host: npy unsupported");
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n * sizeof(T)));
}

}  // namespace

void write_npy(std::ostream& out, const double* data, const std::vector<std::size_t>& shape) {
  write_any(out, data, shape, "<f8");
}
void write_npy(std::ostream& out, const float* data, const std::vector<std::size_t>& shape) {
  write_any(out, data, shape, "<f4");
}
void write_npy(std::ostream& out, const std::int32_t* data, const std::vector<std::size_t>& shape) {
  write_any(out, data, shape, "<i4");
}
void write_npy(std::ostream& out, const std::uint8_t* data, const std::vector<std::size_t>& shape) {
  write_any(out, data, shape, "|u1");
}

bool is_npy(std::string_view bytes) { return bytes.substr(0, 6) == "\x93NUMPY"; }

namespace {

// The value of key 'key' in the header dict, as raw text up to the next top-level comma.
std::string_view dict_value(std::string_view header, std::string_view key) {
  std::string quoted;
  quoted.reserve(key.size() + 2);
  quoted += '\'';
  quoted += key;
  quoted += '\'';
  const std::size_t k = header.find(quoted);
  if (k == std::string_view::npos) return {};
  std::size_t p = header.find(':', k + quoted.size());
  if (p == std::string_view::npos) return {};
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  std::size_t e = p;
  int depth = 0;
  while (e < header.size()) {
    const char c = header[e];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if ((c == ',' && depth == 0) || c == '}') break;
    ++e;
  }
  return header.substr(p, e - p);
}

}  // namespace

NpyArray parse_npy(std::string_view bytes, const std::string& name) {
  if (!is_npy(bytes)) detail::fail(name, "not a .npy file");
  if (bytes.size() < 10) detail::fail(name, "truncated .npy header");
  const int major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = detail::load<std::uint16_t>(bytes.data() + 8, !detail::host_is_little_endian());
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) detail::fail(name, "truncated .npy header");
    header_len = detail::load<std::uint32_t>(bytes.data() + 8, !detail::host_is_little_endian());
    start = 12;
  } else {
    detail::fail(name, "unsupported .npy version " + std::to_string(major));
  }
  if (header_len > bytes.size() - start) detail::fail(name, "truncated .npy header");
  const std::string_view header = bytes.substr(start, header_len);
  NpyArray a;
  std::string_view descr = dict_value(header, "descr");
  if (descr.size() < 2) detail::fail(name, ".npy header has no 'descr'");
  descr = descr.substr(1, descr.size() - 2);  // strip quotes
  a.descr = std::string(descr);
  if (dict_value(header, "fortran_order") != "False") {
    detail::fail(name, ".npy array is in Fortran order; save it with C order");
  }
  std::string_view shape = dict_value(header, "shape");
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') {
    detail::fail(name, ".npy header has no valid 'shape'");
  }
  shape = shape.substr(1, shape.size() - 2);
  std::uint64_t count = 1;
  while (!shape.empty()) {
    std::size_t comma = shape.find(',');
    std::string_view d = shape.substr(0, comma);
    while (!d.empty() && d.front() == ' ') d.remove_prefix(1);
    while (!d.empty() && d.back() == ' ') d.remove_suffix(1);
    if (!d.empty()) {
      std::int64_t v = 0;
      if (!detail::parse_int(d, v) || v < 0) detail::fail(name, ".npy shape is not valid");
      a.shape.push_back(static_cast<std::size_t>(v));
      if (v != 0 && count > (std::uint64_t(1) << 62) / static_cast<std::uint64_t>(v)) {
        detail::fail(name, ".npy shape is too large");
      }
      count *= static_cast<std::uint64_t>(v);
    }
    if (comma == std::string_view::npos) break;
    shape.remove_prefix(comma + 1);
  }
  if (descr.size() != 3) detail::fail(name, "unsupported .npy dtype '" + a.descr + "'");
  const char order = descr[0];
  const std::string_view kind = descr.substr(1);
  const bool swap = (order == '>') == detail::host_is_little_endian() && order != '|';
  std::size_t size = 0;
  if (kind == "f8" || kind == "i8") size = 8;
  else if (kind == "f4" || kind == "i4") size = 4;
  else detail::fail(name, "unsupported .npy dtype '" + a.descr + "' (use float32/64, int32/64)");
  const std::size_t data_at = start + header_len;
  const std::size_t left = bytes.size() - data_at;
  if (count > left / size || count * size != left) {
    detail::fail(name, ".npy shape " + shape_text(a.shape) + " needs " +
                           std::to_string(count * size) + " data bytes, the file has " +
                           std::to_string(left));
  }
  a.data.resize(count);
  const char* p = bytes.data() + data_at;
  for (std::size_t i = 0; i < count; ++i, p += size) {
    if (kind == "f8") a.data[i] = detail::load<double>(p, swap);
    else if (kind == "f4") a.data[i] = detail::load<float>(p, swap);
    else if (kind == "i8") a.data[i] = static_cast<double>(detail::load<std::int64_t>(p, swap));
    else a.data[i] = detail::load<std::int32_t>(p, swap);
  }
  return a;
}

}  // namespace prox::io
