// src/io/npy.cpp — .npy writer and reader (format version 1.0 written; 1-3 read).
#include "prox/io/npy.hpp"

#include <array>
#include <cstring>
#include <stdexcept>

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

// The .npy preamble: magic, version 1.0, header length, header dict padded
// so that the data starts on a multiple of 64 bytes.
std::string npy_preamble(const std::vector<std::size_t>& shape, const char* descr) {
  std::string header = "{'descr': '" + std::string(descr) +
                       "', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  // magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const std::uint16_t len = static_cast<std::uint16_t>(header.size());
  std::string s("\x93NUMPY\x01\x00", 8);
  s += static_cast<char>(len & 0xff);
  s += static_cast<char>(len >> 8);
  return s + header;
}

std::uint64_t element_count(const std::vector<std::size_t>& shape) {
  std::uint64_t n = 1;
  for (const std::size_t d : shape) n *= d;
  return n;
}

template <class T>
void write_any(std::ostream& out, const T* data, const std::vector<std::size_t>& shape,
               const char* descr) {
  const std::string pre = npy_preamble(shape, descr);
  out.write(pre.data(), static_cast<std::streamsize>(pre.size()));
  // Little-endian data: the host order on every platform prox builds for.
  if (!detail::host_is_little_endian()) throw std::runtime_error("big-endian host: npy unsupported");
  out.write(reinterpret_cast<const char*>(data),
            static_cast<std::streamsize>(element_count(shape) * sizeof(T)));
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
void write_npy(std::ostream& out, const std::int64_t* data, const std::vector<std::size_t>& shape) {
  write_any(out, data, shape, "<i8");
}
void write_npy(std::ostream& out, const std::int8_t* data, const std::vector<std::size_t>& shape) {
  write_any(out, data, shape, "|i1");
}

std::uint32_t crc32(const void* bytes, std::size_t size, std::uint32_t crc) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  const auto* p = static_cast<const unsigned char*>(bytes);
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

namespace {

// Little-endian fields of ZIP records.
void put16(std::string& s, std::uint32_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string& s, std::uint32_t v) {
  put16(s, v & 0xffff);
  put16(s, v >> 16);
}
void put64(std::string& s, std::uint64_t v) {
  put32(s, static_cast<std::uint32_t>(v & 0xffffffffu));
  put32(s, static_cast<std::uint32_t>(v >> 32));
}
constexpr std::uint64_t kZip32Max = 0xffffffffu;
constexpr std::uint32_t kDosDate = (0u << 9) | (1u << 5) | 1u;  // 1980-01-01: reproducible bytes

}  // namespace

void NpzWriter::add_member(const std::string& name, const std::string& header, const void* data,
                           std::uint64_t bytes) {
  if (finished_) throw std::logic_error("NpzWriter: add() after finish()");
  if (name.empty() || name.size() > 200) throw std::invalid_argument("npz: bad array name");
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_';
    if (!ok) throw std::invalid_argument("npz: array name '" + name + "' is not an identifier");
  }
  const std::string file = name + ".npy";
  const std::uint64_t size = header.size() + bytes;
  std::uint32_t crc = crc32(header.data(), header.size());
  crc = crc32(data, static_cast<std::size_t>(bytes), crc);
  const bool zip64 = size >= kZip32Max;
  std::string h;
  put32(h, 0x04034b50u);
  put16(h, zip64 ? 45 : 20);  // version needed
  put16(h, 0);                // flags
  put16(h, 0);                // stored
  put16(h, 0);                // time
  put16(h, kDosDate);
  put32(h, crc);
  put32(h, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(size));
  put32(h, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(size));
  put16(h, static_cast<std::uint32_t>(file.size()));
  put16(h, zip64 ? 20 : 0);
  h += file;
  if (zip64) {
    put16(h, 0x0001);
    put16(h, 16);
    put64(h, size);
    put64(h, size);
  }
  out_.write(h.data(), static_cast<std::streamsize>(h.size()));
  out_.write(header.data(), static_cast<std::streamsize>(header.size()));
  out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  members_.push_back({name, crc, size, offset_});
  offset_ += h.size() + size;
}

void NpzWriter::finish() {
  if (finished_) return;
  finished_ = true;
  const std::uint64_t cd_offset = offset_;
  std::string cd;
  for (const Member& m : members_) {
    const std::string file = m.name + ".npy";
    const bool big = m.size >= kZip32Max, far = m.offset >= kZip32Max;
    std::string extra;
    if (big || far) {
      std::string f;
      if (big) {
        put64(f, m.size);
        put64(f, m.size);
      }
      if (far) put64(f, m.offset);
      put16(extra, 0x0001);
      put16(extra, static_cast<std::uint32_t>(f.size()));
      extra += f;
    }
    put32(cd, 0x02014b50u);
    put16(cd, 45);  // made by
    put16(cd, big || far ? 45 : 20);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, kDosDate);
    put32(cd, m.crc);
    put32(cd, big ? 0xffffffffu : static_cast<std::uint32_t>(m.size));
    put32(cd, big ? 0xffffffffu : static_cast<std::uint32_t>(m.size));
    put16(cd, static_cast<std::uint32_t>(file.size()));
    put16(cd, static_cast<std::uint32_t>(extra.size()));
    put16(cd, 0);  // comment
    put16(cd, 0);  // disk
    put16(cd, 0);  // internal attributes
    put32(cd, 0);  // external attributes
    put32(cd, far ? 0xffffffffu : static_cast<std::uint32_t>(m.offset));
    cd += file;
    cd += extra;
  }
  const std::uint64_t cd_size = cd.size();
  const std::uint64_t n = members_.size();
  const bool zip64 = cd_offset >= kZip32Max || cd_size >= kZip32Max || n >= 0xffff;
  if (zip64) {
    const std::uint64_t eocd64 = cd_offset + cd_size;
    put32(cd, 0x06064b50u);
    put64(cd, 44);
    put16(cd, 45);
    put16(cd, 45);
    put32(cd, 0);
    put32(cd, 0);
    put64(cd, n);
    put64(cd, n);
    put64(cd, cd_size);
    put64(cd, cd_offset);
    put32(cd, 0x07064b50u);  // locator
    put32(cd, 0);
    put64(cd, eocd64);
    put32(cd, 1);
  }
  put32(cd, 0x06054b50u);
  put16(cd, 0);
  put16(cd, 0);
  put16(cd, zip64 ? 0xffffu : static_cast<std::uint32_t>(n));
  put16(cd, zip64 ? 0xffffu : static_cast<std::uint32_t>(n));
  put32(cd, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(cd_size));
  put32(cd, zip64 ? 0xffffffffu : static_cast<std::uint32_t>(cd_offset));
  put16(cd, 0);
  out_.write(cd.data(), static_cast<std::streamsize>(cd.size()));
}

#define PROX_NPZ_ADD(T, descr)                                                               \
  void NpzWriter::add(const std::string& name, const T* data,                               \
                      const std::vector<std::size_t>& shape) {                              \
    if (!detail::host_is_little_endian()) throw std::runtime_error("big-endian host: npz"); \
    add_member(name, npy_preamble(shape, descr), data, element_count(shape) * sizeof(T));   \
  }
PROX_NPZ_ADD(double, "<f8")
PROX_NPZ_ADD(float, "<f4")
PROX_NPZ_ADD(std::int64_t, "<i8")
PROX_NPZ_ADD(std::int32_t, "<i4")
PROX_NPZ_ADD(std::int8_t, "|i1")
PROX_NPZ_ADD(std::uint8_t, "|u1")
#undef PROX_NPZ_ADD

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
  else if (kind == "i1" || kind == "u1" || kind == "b1") size = 1;
  else
    detail::fail(name, "unsupported .npy dtype '" + a.descr +
                           "' (use float32/64, int8/32/64, uint8 or bool)");
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
    else if (kind == "i4") a.data[i] = detail::load<std::int32_t>(p, swap);
    else if (kind == "i1") a.data[i] = static_cast<signed char>(*p);
    else a.data[i] = static_cast<unsigned char>(*p);
  }
  return a;
}

}  // namespace prox::io
