// apps/npz.hpp — NumPy .npz: a ZIP archive (stored, no compression) of .npy
// members, as numpy.savez writes it. Reference: PKWARE APPNOTE.TXT 6.3 (local
// file header, central directory, end of central directory record); CRC-32
// from zlib. Members over 4 GiB (ZIP64) are refused.
#pragma once

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <zlib.h>

namespace prox::cli {

/// Writes members (name without ".npy", .npy bytes) as an .npz archive.
inline void write_npz(std::ostream& out,
                      const std::vector<std::pair<std::string, std::string>>& members) {
  auto u16 = [&](std::uint32_t v) {
    const char b[2] = {char(v & 0xff), char((v >> 8) & 0xff)};
    out.write(b, 2);
  };
  auto u32 = [&](std::uint32_t v) {
    const char b[4] = {char(v & 0xff), char((v >> 8) & 0xff), char((v >> 16) & 0xff),
                       char((v >> 24) & 0xff)};
    out.write(b, 4);
  };
  struct Entry {
    std::string name;
    std::uint32_t crc, size, offset;
  };
  std::vector<Entry> entries;
  std::uint64_t offset = 0;
  for (const auto& [stem, bytes] : members) {
    if (bytes.size() >= 0xffffffffu || offset >= 0xffffffffu)
      throw std::runtime_error(".npz member '" + stem + "' is over 4 GiB (write .npy instead)");
    Entry e{stem + ".npy", 0, std::uint32_t(bytes.size()), std::uint32_t(offset)};
    uLong crc = crc32(0L, Z_NULL, 0);
    for (std::size_t at = 0; at < bytes.size(); at += (1u << 30)) {
      const std::size_t n = std::min<std::size_t>(bytes.size() - at, 1u << 30);
      crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), uInt(n));
    }
    e.crc = std::uint32_t(crc);
    u32(0x04034b50);  // local file header
    u16(20);          // version needed
    u16(0);           // flags
    u16(0);           // stored
    u16(0);           // time
    u16(0x21);        // date: 1980-01-01
    u32(e.crc);
    u32(e.size);
    u32(e.size);
    u16(std::uint32_t(e.name.size()));
    u16(0);
    out.write(e.name.data(), std::streamsize(e.name.size()));
    out.write(bytes.data(), std::streamsize(bytes.size()));
    offset += 30 + e.name.size() + bytes.size();
    entries.push_back(e);
  }
  const std::uint64_t dir = offset;
  std::uint64_t dir_size = 0;
  for (const Entry& e : entries) {
    u32(0x02014b50);  // central directory header
    u16(20);
    u16(20);
    u16(0);
    u16(0);
    u16(0);
    u16(0x21);
    u32(e.crc);
    u32(e.size);
    u32(e.size);
    u16(std::uint32_t(e.name.size()));
    u16(0);
    u16(0);
    u16(0);
    u16(0);
    u32(0);
    u32(e.offset);
    out.write(e.name.data(), std::streamsize(e.name.size()));
    dir_size += 46 + e.name.size();
  }
  if (dir >= 0xffffffffu) throw std::runtime_error(".npz archive is over 4 GiB (write .npy instead)");
  u32(0x06054b50);  // end of central directory
  u16(0);
  u16(0);
  u16(std::uint32_t(entries.size()));
  u16(std::uint32_t(entries.size()));
  u32(std::uint32_t(dir_size));
  u32(std::uint32_t(dir));
  u16(0);
}

}  // namespace prox::cli
