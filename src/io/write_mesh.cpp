// src/io/write_mesh.cpp — OBJ, OFF, PLY (ascii, binary LE/BE), STL (ascii, binary) writers.
#include "prox/io/write_mesh.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "parse_util.hpp"
#include "prox/io/atomic_file.hpp"
#include "prox/io/number_format.hpp"
#include "prox/io/read_mesh.hpp"

namespace prox::io {
namespace {

void flush_if_big(std::ostream& out, std::string& s) {
  if (s.size() > (1u << 20)) {
    out.write(s.data(), static_cast<std::streamsize>(s.size()));
    s.clear();
  }
}
void flush(std::ostream& out, std::string& s) {
  out.write(s.data(), static_cast<std::streamsize>(s.size()));
  s.clear();
}
void append_xyz(std::string& s, const Vec3d& v) {
  for (int a = 0; a < 3; ++a) {
    append_number(s, v[a]);
    s += a < 2 ? ' ' : '\n';
  }
}
template <class U>
void put(std::string& s, U value, bool swap) {
  char b[sizeof(U)];
  std::memcpy(b, &value, sizeof(U));
  if (swap) {
    for (std::size_t i = 0; i < sizeof(U) / 2; ++i) std::swap(b[i], b[sizeof(U) - 1 - i]);
  }
  s.append(b, sizeof(U));
}

}  // namespace

void write_obj(std::ostream& out, const MeshData& mesh) {
  std::string s = "# written by prox\n";
  for (const Vec3d& v : mesh.vertices) {
    s += "v ";
    append_xyz(s, v);
    flush_if_big(out, s);
  }
  for (const auto& t : mesh.triangles) {
    s += "f " + std::to_string(t[0] + 1) + ' ' + std::to_string(t[1] + 1) + ' ' +
         std::to_string(t[2] + 1) + '\n';
    flush_if_big(out, s);
  }
  flush(out, s);
}

void write_off(std::ostream& out, const MeshData& mesh) {
  std::string s = "OFF\n" + std::to_string(mesh.vertices.size()) + ' ' +
                  std::to_string(mesh.triangles.size()) + " 0\n";
  for (const Vec3d& v : mesh.vertices) {
    append_xyz(s, v);
    flush_if_big(out, s);
  }
  for (const auto& t : mesh.triangles) {
    s += "3 " + std::to_string(t[0]) + ' ' + std::to_string(t[1]) + ' ' + std::to_string(t[2]) +
         '\n';
    flush_if_big(out, s);
  }
  flush(out, s);
}

void write_ply(std::ostream& out, const MeshData& mesh, PlyEncoding encoding) {
  const char* format = encoding == PlyEncoding::ascii ? "ascii"
                       : encoding == PlyEncoding::binary_little_endian ? "binary_little_endian"
                                                                       : "binary_big_endian";
  std::string s = std::string("ply\nformat ") + format + " 1.0\ncomment written by prox\n" +
                  "element vertex " + std::to_string(mesh.vertices.size()) + "\n" +
                  "property double x\nproperty double y\nproperty double z\n" +
                  "element face " + std::to_string(mesh.triangles.size()) + "\n" +
                  "property list uchar uint vertex_indices\nend_header\n";
  if (encoding == PlyEncoding::ascii) {
    for (const Vec3d& v : mesh.vertices) {
      append_xyz(s, v);
      flush_if_big(out, s);
    }
    for (const auto& t : mesh.triangles) {
      s += "3 " + std::to_string(t[0]) + ' ' + std::to_string(t[1]) + ' ' +
           std::to_string(t[2]) + '\n';
      flush_if_big(out, s);
    }
  } else {
    const bool swap =
        (encoding == PlyEncoding::binary_little_endian) != detail::host_is_little_endian();
    for (const Vec3d& v : mesh.vertices) {
      for (int a = 0; a < 3; ++a) put<double>(s, v[a], swap);
      flush_if_big(out, s);
    }
    for (const auto& t : mesh.triangles) {
      s += static_cast<char>(3);
      for (int k = 0; k < 3; ++k) put<std::uint32_t>(s, t[static_cast<std::size_t>(k)], swap);
      flush_if_big(out, s);
    }
  }
  flush(out, s);
}

void write_stl(std::ostream& out, const MeshData& mesh, StlEncoding encoding) {
  std::string s;
  const auto normal = [&](const std::array<std::uint32_t, 3>& t) {
    const Vec3d& a = mesh.vertices[t[0]];
    const Vec3d n = cross(mesh.vertices[t[1]] - a, mesh.vertices[t[2]] - a);
    const double len = std::sqrt(squared_norm(n));
    return len > 0 ? n / len : Vec3d::zero();
  };
  if (encoding == StlEncoding::ascii) {
    s = "solid prox\n";
    for (const auto& t : mesh.triangles) {
      const Vec3d n = normal(t);
      s += "  facet normal ";
      append_xyz(s, n);
      s += "    outer loop\n";
      for (int k = 0; k < 3; ++k) {
        s += "      vertex ";
        append_xyz(s, mesh.vertices[t[static_cast<std::size_t>(k)]]);
      }
      s += "    endloop\n  endfacet\n";
      flush_if_big(out, s);
    }
    s += "endsolid prox\n";
  } else {
    const bool swap = !detail::host_is_little_endian();
    s.assign(80, ' ');
    s.replace(0, 22, "binary STL from prox  ");
    put<std::uint32_t>(s, static_cast<std::uint32_t>(mesh.triangles.size()), swap);
    for (const auto& t : mesh.triangles) {
      const Vec3d n = normal(t);
      for (int a = 0; a < 3; ++a) put<float>(s, static_cast<float>(n[a]), swap);
      for (int k = 0; k < 3; ++k) {
        for (int a = 0; a < 3; ++a) {
          put<float>(s, static_cast<float>(mesh.vertices[t[static_cast<std::size_t>(k)]][a]), swap);
        }
      }
      put<std::uint16_t>(s, 0, swap);
      flush_if_big(out, s);
    }
  }
  flush(out, s);
}

void write_mesh(const std::filesystem::path& path, const MeshData& mesh) {
  const auto format = format_from_extension(path);
  if (!format) {
    throw std::invalid_argument("cannot write '" + path.string() +
                                "': unknown mesh extension (use .obj, .off, .ply, .stl)");
  }
  AtomicFile file(path);
  switch (*format) {
    case MeshFormat::obj: write_obj(file.stream(), mesh); break;
    case MeshFormat::off: write_off(file.stream(), mesh); break;
    case MeshFormat::ply: write_ply(file.stream(), mesh, PlyEncoding::binary_little_endian); break;
    case MeshFormat::stl: write_stl(file.stream(), mesh, StlEncoding::binary); break;
  }
  file.commit();
}

}  // namespace prox::io
