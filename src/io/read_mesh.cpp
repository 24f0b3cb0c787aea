// src/io/read_mesh.cpp — format dispatch and whole-file reading.
#include "prox/io/read_mesh.hpp"

#include <cstdio>
#include <memory>

#include "parse_util.hpp"

namespace prox::io {

const char* to_string(MeshFormat format) {
  switch (format) {
    case MeshFormat::obj: return "obj";
    case MeshFormat::ply: return "ply";
    case MeshFormat::stl: return "stl";
    case MeshFormat::off: return "off";
  }
  return "?";
}

std::optional<MeshFormat> format_from_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  for (char& ch : ext) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  if (ext == ".obj") return MeshFormat::obj;
  if (ext == ".ply") return MeshFormat::ply;
  if (ext == ".stl") return MeshFormat::stl;
  if (ext == ".off") return MeshFormat::off;
  return std::nullopt;
}

std::optional<MeshFormat> format_from_content(std::string_view bytes) {
  if (bytes.substr(0, 4) == "ply\n" || bytes.substr(0, 5) == "ply\r\n") return MeshFormat::ply;
  std::size_t i = 0;
  while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' ||
                              bytes[i] == '\n')) {
    ++i;
  }
  const std::string_view head = bytes.substr(i, 16);
  if (head.substr(0, 5) == "solid") return MeshFormat::stl;
  for (const char* off : {"OFF", "COFF", "NOFF", "CNOFF", "STOFF"}) {
    const std::string_view k(off);
    if (head.substr(0, k.size()) == k &&
        (head.size() == k.size() || std::isspace(static_cast<unsigned char>(head[k.size()])))) {
      return MeshFormat::off;
    }
  }
  if (bytes.size() >= 84) {
    const std::uint64_t count =
        detail::load<std::uint32_t>(bytes.data() + 80, !detail::host_is_little_endian());
    if (bytes.size() == 84 + 50 * count) return MeshFormat::stl;
  }
  // OBJ has no magic; accept text whose first statement is an OBJ keyword.
  for (const char* kw : {"v ", "vn ", "vt ", "f ", "o ", "g ", "#", "mtllib ", "usemtl ", "s "}) {
    const std::string_view k(kw);
    if (head.substr(0, k.size()) == k) return MeshFormat::obj;
  }
  return std::nullopt;
}

std::string read_file_bytes(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) detail::fail(name, "is a folder, not a file");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(name.c_str(), "rb"), &std::fclose);
  if (!f) detail::fail(name, "cannot open the file (missing, or not readable)");
  std::string bytes;
  // Regular files: read in one go. Pipes and devices: grow as data arrives.
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > 0) bytes.reserve(static_cast<std::size_t>(size));
  char buffer[1 << 16];
  for (;;) {
    const std::size_t n = std::fread(buffer, 1, sizeof buffer, f.get());
    bytes.append(buffer, n);
    if (n < sizeof buffer) break;
  }
  if (std::ferror(f.get())) detail::fail(name, "read error");
  return bytes;
}

namespace {

std::string no_vertices_message(MeshFormat format) {
  switch (format) {
    case MeshFormat::obj: return "holds no mesh: no vertex ('v x y z' line) in this OBJ file";
    case MeshFormat::ply: return "holds no mesh: the PLY file has no vertices";
    case MeshFormat::stl: return "holds no mesh: the STL file has no triangles";
    case MeshFormat::off: return "holds no mesh: the OFF file has no vertices";
  }
  return "holds no mesh";
}

}  // namespace

MeshData parse_mesh(std::string_view bytes, MeshFormat format, const std::string& name,
                    const ReadOptions& options) {
  // Classic Mac OS text ends lines with a lone '\r'; the text readers count
  // '\n' lines, so give OBJ and OFF files without any '\n' the usual ending.
  if ((format == MeshFormat::obj || format == MeshFormat::off) &&
      bytes.find('\n') == std::string_view::npos && bytes.find('\r') != std::string_view::npos) {
    std::string unix_text(bytes);
    for (char& c : unix_text)
      if (c == '\r') c = '\n';
    return parse_mesh(unix_text, format, name, options);
  }
  MeshData data;
  switch (format) {
    case MeshFormat::obj: data = parse_obj(bytes, name, options); break;
    case MeshFormat::ply: data = parse_ply(bytes, name, options); break;
    case MeshFormat::stl: data = parse_stl(bytes, name, options); break;
    case MeshFormat::off: data = parse_off(bytes, name, options); break;
    default: detail::fail(name, "unknown mesh format");
  }
  // A file that parses but holds no vertex is not a mesh (random bytes or
  // prose named .obj parse as an OBJ of unknown statements): an error, never
  // an empty mesh that answers every query with a miss.
  if (data.vertices.empty()) detail::fail(name, no_vertices_message(format));
  return data;
}

MeshData read_mesh(const std::filesystem::path& path, MeshFormat format,
                   const ReadOptions& options) {
  const std::string bytes = read_file_bytes(path);
  if (bytes.empty()) detail::fail(path.string(), "empty file");
  return parse_mesh(bytes, format, path.string(), options);
}

MeshData read_mesh(const std::filesystem::path& path, const ReadOptions& options) {
  const std::string name = path.string();
  std::optional<MeshFormat> format = format_from_extension(path);
  const std::string bytes = read_file_bytes(path);
  if (bytes.empty()) detail::fail(name, "empty file");
  if (!format) format = format_from_content(bytes);
  if (!format) {
    detail::fail(name, "unknown mesh format: use a .obj, .ply, .stl or .off file");
  }
  return parse_mesh(bytes, *format, name, options);
}

}  // namespace prox::io
