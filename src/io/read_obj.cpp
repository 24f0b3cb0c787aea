// src/io/read_obj.cpp — Wavefront OBJ reader.
//
// Two passes. First prox's own line check (a few dozen lines): every "v" line
// has 3 to 7 numbers (x y z, optional w or r g b), every "f" index is a
// non-zero integer that resolves to an existing vertex (negative = relative to
// the vertices read so far, as the OBJ spec says). It exists because
// tinyobjloader reads a bad number as 0 and drops faces with bad indices with
// only a warning; here each is a ReadError naming the line. This pass also
// supplies the coordinates: tinyobjloader's number parser is not correctly
// rounded (it can be an ulp off), prox's (std::from_chars) is. Then tinyobjloader
// (Debian's libtinyobjloader-dev, double build) parses the file, without its own
// triangulation (which splits quads by the shorter diagonal and ear-clips other
// polygons): prox fan-triangulates each polygon, as for every other format.
// Normals, texture coordinates, groups, lines, points and materials are ignored
// (mtllib files are never opened).
#include <sstream>
#include <string>

#include <tiny_obj_loader.h>

#include "parse_util.hpp"
#include "prox/io/read_mesh.hpp"

namespace prox::io {
namespace {

using detail::quote;

// Returns the vertices (parsed exactly); throws ReadError on the first bad line.
std::vector<Vec3d> check_obj_lines(std::string_view bytes, const std::string& name,
                                   const ReadOptions& options, std::size_t& short_faces) {
  std::vector<Vec3d> vertices;
  detail::TextCursor c{bytes, name};
  std::size_t num_vertices = 0;
  std::int64_t max_index = 0;  // largest positive index, checked at the end
  std::size_t max_index_at = 0;
  while (!c.at_end()) {
    c.skip_blanks();
    const std::size_t at = c.pos;
    const std::string_view kw = c.token_on_line();
    if (kw == "v") {
      const std::string what = "vertex " + std::to_string(num_vertices);
      Vec3d p;
      p[0] = c.number_on_line(what + " x", options.allow_non_finite);
      p[1] = c.number_on_line(what + " y", options.allow_non_finite);
      p[2] = c.number_on_line(what + " z", options.allow_non_finite);
      vertices.push_back(p);
      for (int extra = 0; !c.at_eol(); ++extra) {
        if (extra == 4) c.fail_here(c.pos, "too many values on a 'v' line");
        c.number_on_line(what + " w/colour", true);
      }
      ++num_vertices;
    } else if (kw == "f") {
      int corners = 0;
      while (!c.at_eol()) {
        const std::size_t iat = c.pos;
        const std::string_view tok = c.token_on_line();
        const std::string_view v = tok.substr(0, tok.find('/'));
        std::int64_t idx = 0;
        if (!detail::parse_int(v, idx) || idx == 0) {
          c.fail_here(iat, "bad face index " + quote(tok) +
                               " (OBJ indices are non-zero integers, 1 = first vertex)");
        }
        if (idx < 0 && -idx > static_cast<std::int64_t>(num_vertices)) {
          c.fail_here(iat, "relative face index " + std::to_string(idx) + " points before the first "
                               "vertex (" + std::to_string(num_vertices) + " vertices so far)");
        }
        if (idx > max_index) {
          max_index = idx;
          max_index_at = iat;
        }
        ++corners;
      }
      if (corners == 0) c.fail_here(at, "'f' line without indices");
      // tinyobjloader drops these itself; counted here, as the other readers do.
      if (corners < 3) ++short_faces;
    }
    c.skip_line();
  }
  if (max_index > static_cast<std::int64_t>(num_vertices)) {
    c.fail_here(max_index_at, "face index " + std::to_string(max_index) + ", but the file has " +
                                  std::to_string(num_vertices) + " vertices");
  }
  if (num_vertices > 0xffffffffull) detail::fail(name, "too many vertices for 32-bit indices");
  return vertices;
}

}  // namespace

MeshData parse_obj(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  std::size_t short_faces = 0;
  std::vector<Vec3d> vertices = check_obj_lines(bytes, name, options, short_faces);
  const std::size_t num_vertices = vertices.size();
  tinyobj::attrib_t attrib;
  std::vector<tinyobj::shape_t> shapes;
  std::vector<tinyobj::material_t> materials;
  std::string warn, err;
  std::istringstream in{std::string(bytes)};
  const bool ok = tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &err, &in, nullptr,
                                   /*triangulate=*/false);
  if (!ok) detail::fail(name, "OBJ parse error: " + err);
  if (attrib.vertices.size() != 3 * num_vertices) {
    detail::fail(name, "tinyobjloader read " + std::to_string(attrib.vertices.size() / 3) +
                           " vertices where prox counted " + std::to_string(num_vertices));
  }
  MeshData mesh;
  mesh.vertices = std::move(vertices);
  mesh.skipped_faces = short_faces;
  for (const tinyobj::shape_t& shape : shapes) {
    const tinyobj::mesh_t& m = shape.mesh;
    std::size_t offset = 0;
    for (const unsigned int n : m.num_face_vertices) {
      if (offset + n > m.indices.size()) detail::fail(name, "OBJ face list is inconsistent");
      for (unsigned int k = 2; k < n; ++k) {
        const int a = m.indices[offset].vertex_index;
        const int b = m.indices[offset + k - 1].vertex_index;
        const int d = m.indices[offset + k].vertex_index;
        for (const int idx : {a, b, d}) {
          if (idx < 0 || static_cast<std::size_t>(idx) >= num_vertices) {
            detail::fail(name, "face index " + std::to_string(idx) + " out of range");
          }
        }
        mesh.triangles.push_back({static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b),
                                  static_cast<std::uint32_t>(d)});
      }
      if (n > 3) ++mesh.polygons;
      offset += n;
    }
  }
  return mesh;
}

}  // namespace prox::io
