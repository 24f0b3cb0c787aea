// src/io/read_ply.cpp — PLY reader: ascii, binary_little_endian, binary_big_endian.
//
// Reference: Greg Turk, "The PLY Polygon File Format" (1994). The header lists
// elements (name, count) and their properties (scalar or list, typed); the body
// holds the elements in header order. prox reads element "vertex" (properties
// x, y, z of any numeric type) and element "face" (list property
// "vertex_indices" or "vertex_index" of an integer type); every other element
// and property is read past and dropped. Polygons are fan-triangulated; faces
// of fewer than three corners are skipped and counted.
// Safety: each element's count is checked against the bytes left (at least one
// byte per value in binary, at least one character per value in ascii) before
// anything is reserved; every read is bounds-checked; indices are checked
// against the vertex count (after the body, if faces come before vertices).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "parse_util.hpp"
#include "prox/io/read_mesh.hpp"

namespace prox::io {
namespace {

using detail::fail;
using detail::fail_at_byte;
using detail::quote;

enum class PlyType : std::uint8_t { i8, u8, i16, u16, i32, u32, f32, f64 };

struct PlyProperty {
  std::string name;
  bool is_list = false;
  PlyType type = PlyType::f32;        // the value type (item type for lists)
  PlyType count_type = PlyType::u8;   // lists only
};

struct PlyElement {
  std::string name;
  std::uint64_t count = 0;
  std::vector<PlyProperty> props;
};

enum class PlyFormat { ascii, binary_le, binary_be };

struct PlyHeader {
  PlyFormat format = PlyFormat::ascii;
  std::vector<PlyElement> elements;
  std::size_t body = 0;  // byte offset of the first body byte
};

std::size_t type_size(PlyType t) {
  switch (t) {
    case PlyType::i8: case PlyType::u8: return 1;
    case PlyType::i16: case PlyType::u16: return 2;
    case PlyType::i32: case PlyType::u32: case PlyType::f32: return 4;
    case PlyType::f64: return 8;
  }
  return 1;
}

bool is_integer(PlyType t) { return t != PlyType::f32 && t != PlyType::f64; }

bool parse_type(std::string_view s, PlyType& t) {
  struct Name { const char* name; PlyType type; };
  static const Name names[] = {
      {"char", PlyType::i8},     {"int8", PlyType::i8},     {"uchar", PlyType::u8},
      {"uint8", PlyType::u8},    {"short", PlyType::i16},   {"int16", PlyType::i16},
      {"ushort", PlyType::u16},  {"uint16", PlyType::u16},  {"int", PlyType::i32},
      {"int32", PlyType::i32},   {"uint", PlyType::u32},    {"uint32", PlyType::u32},
      {"float", PlyType::f32},   {"float32", PlyType::f32}, {"double", PlyType::f64},
      {"float64", PlyType::f64}};
  for (const Name& n : names) {
    if (s == n.name) {
      t = n.type;
      return true;
    }
  }
  return false;
}

PlyHeader parse_header(std::string_view bytes, const std::string& name) {
  detail::TextCursor c{bytes, name};
  if (bytes.substr(0, 3) != "ply" ||
      (bytes.size() > 3 && bytes[3] != '\n' && bytes[3] != '\r')) {
    fail(name, "not a PLY file (it does not start with the line 'ply')");
  }
  c.skip_line();
  PlyHeader h;
  bool have_format = false;
  for (;;) {
    if (c.at_end()) c.fail_here(c.pos, "truncated header: no 'end_header' line");
    const std::size_t line_start = c.pos;
    const std::string_view kw = c.token_on_line();
    if (kw == "end_header") {
      c.skip_line();
      h.body = c.pos;
      break;
    }
    if (kw.empty() || kw == "comment" || kw == "obj_info") {
      c.skip_line();
      continue;
    }
    if (kw == "format") {
      const std::string_view f = c.token_on_line();
      if (f == "ascii") h.format = PlyFormat::ascii;
      else if (f == "binary_little_endian") h.format = PlyFormat::binary_le;
      else if (f == "binary_big_endian") h.format = PlyFormat::binary_be;
      else c.fail_here(line_start, "unknown PLY format " + quote(f));
      const std::string_view version = c.token_on_line();
      if (version != "1.0") c.fail_here(line_start, "unsupported PLY version " + quote(version));
      have_format = true;
    } else if (kw == "element") {
      PlyElement e;
      e.name = std::string(c.token_on_line());
      const std::string_view n = c.token_on_line();
      std::int64_t count = 0;
      if (e.name.empty() || !detail::parse_int(n, count) || count < 0) {
        c.fail_here(line_start, "bad element line: expected 'element <name> <count>', count " +
                                    quote(n));
      }
      e.count = static_cast<std::uint64_t>(count);
      h.elements.push_back(std::move(e));
    } else if (kw == "property") {
      if (h.elements.empty()) c.fail_here(line_start, "property before any element");
      PlyProperty p;
      std::string_view t = c.token_on_line();
      if (t == "list") {
        p.is_list = true;
        const std::string_view ct = c.token_on_line();
        if (!parse_type(ct, p.count_type) || !is_integer(p.count_type)) {
          c.fail_here(line_start, "bad list count type " + quote(ct));
        }
        t = c.token_on_line();
      }
      if (!parse_type(t, p.type)) c.fail_here(line_start, "unknown property type " + quote(t));
      p.name = std::string(c.token_on_line());
      if (p.name.empty()) c.fail_here(line_start, "property without a name");
      h.elements.back().props.push_back(std::move(p));
    } else {
      if (c.at_end())  // the file ends inside this line
        c.fail_here(line_start, "truncated header: the file ends at " + quote(kw) +
                                    ", before an 'end_header' line");
      c.fail_here(line_start, "unknown header keyword " + quote(kw));
    }
    if (!c.at_eol()) c.fail_here(line_start, "unexpected text at the end of the header line");
    c.skip_line();
  }
  if (!have_format) fail(name, "PLY header has no 'format' line");
  for (const PlyElement& e : h.elements) {
    if (e.props.empty() && e.count > 0) {
      fail(name, "element '" + e.name + "' has records but no properties");
    }
  }
  return h;
}

// What the reader does with each property of the vertex and face elements.
enum class Role : std::uint8_t { skip, x, y, z, indices };

std::vector<Role> roles_of(const PlyElement& e, bool is_vertex, bool is_face,
                           const std::string& name) {
  std::vector<Role> roles(e.props.size(), Role::skip);
  bool have[4] = {false, false, false, false};
  for (std::size_t i = 0; i < e.props.size(); ++i) {
    const PlyProperty& p = e.props[i];
    if (is_vertex && !p.is_list && (p.name == "x" || p.name == "y" || p.name == "z")) {
      const int k = p.name[0] - 'x';
      roles[i] = static_cast<Role>(1 + k);
      have[k] = true;
    }
    if (is_face && p.is_list && (p.name == "vertex_indices" || p.name == "vertex_index") &&
        !have[3]) {
      if (!is_integer(p.type)) {
        fail(name, "face property '" + p.name + "' must be a list of integers");
      }
      roles[i] = Role::indices;
      have[3] = true;
    }
  }
  if (is_vertex && (!have[0] || !have[1] || !have[2])) {
    fail(name, "element 'vertex' lacks one of the properties x, y, z");
  }
  if (is_face && !have[3] && e.count > 0) {
    fail(name, "element 'face' has no list property 'vertex_indices'");
  }
  return roles;
}

// Collects faces into triangles, checking indices as it goes.
struct FaceSink {
  MeshData& mesh;
  const std::string& name;
  std::uint64_t num_vertices = 0;  // known when vertices came first
  bool vertices_known = false;
  std::int64_t max_index = -1;     // for the deferred check
  std::uint64_t max_index_face = 0;
  std::size_t max_index_offset = 0;

  std::uint32_t corners[3] = {0, 0, 0};

  void check(std::int64_t idx, std::uint64_t face, std::size_t offset, bool binary,
             std::string_view text) {
    if (idx < 0 || (vertices_known && static_cast<std::uint64_t>(idx) >= num_vertices)) {
      report(idx, face, offset, binary, text);
    }
    if (idx > max_index) {
      max_index = idx;
      max_index_face = face;
      max_index_offset = offset;
    }
  }
  [[noreturn]] void report(std::int64_t idx, std::uint64_t face, std::size_t offset, bool binary,
                           std::string_view text) const {
    const std::string what =
        idx < 0 ? "face " + std::to_string(face) + " has negative vertex index " +
                      std::to_string(idx)
                : "face " + std::to_string(face) + " has vertex index " + std::to_string(idx) +
                      ", but the file has " + std::to_string(num_vertices) + " vertices";
    if (binary) fail_at_byte(name, offset, what);
    detail::fail_at_line(name, text, offset, what);
  }
  // Corner k of the current face (k = 0, 1, 2, ...): fan triangulation on the fly.
  void corner(std::uint64_t k, std::uint32_t idx) {
    if (k == 0) corners[0] = idx;
    else if (k == 1) corners[1] = idx;
    else {
      mesh.triangles.push_back({corners[0], corners[1], idx});
      corners[1] = idx;
    }
  }
  void end_face(std::uint64_t n) {
    if (n < 3) ++mesh.skipped_faces;
    if (n > 3) ++mesh.polygons;
  }
};

// Reads one element's records from the body, binary or ascii.
struct ElementReader {
  std::string_view bytes;
  const std::string& name;
  const PlyElement& e;
  const std::vector<Role>& roles;
  const ReadOptions& options;
  bool swap;
  std::size_t pos;

  double value_at(std::size_t at, PlyType t) const {
    const char* p = bytes.data() + at;
    switch (t) {
      case PlyType::i8: return detail::load<std::int8_t>(p, swap);
      case PlyType::u8: return detail::load<std::uint8_t>(p, swap);
      case PlyType::i16: return detail::load<std::int16_t>(p, swap);
      case PlyType::u16: return detail::load<std::uint16_t>(p, swap);
      case PlyType::i32: return detail::load<std::int32_t>(p, swap);
      case PlyType::u32: return detail::load<std::uint32_t>(p, swap);
      case PlyType::f32: return detail::load<float>(p, swap);
      case PlyType::f64: return detail::load<double>(p, swap);
    }
    return 0;
  }
  std::int64_t integer_at(std::size_t at, PlyType t) const {
    const char* p = bytes.data() + at;
    switch (t) {
      case PlyType::i8: return detail::load<std::int8_t>(p, swap);
      case PlyType::u8: return detail::load<std::uint8_t>(p, swap);
      case PlyType::i16: return detail::load<std::int16_t>(p, swap);
      case PlyType::u16: return detail::load<std::uint16_t>(p, swap);
      case PlyType::i32: return detail::load<std::int32_t>(p, swap);
      case PlyType::u32: return detail::load<std::uint32_t>(p, swap);
      default: return 0;  // float types are rejected for counts and indices
    }
  }
  void need(std::size_t n, std::uint64_t record) const {
    if (bytes.size() - pos < n) {
      fail_at_byte(name, pos, "truncated: element '" + e.name + "' record " +
                                  std::to_string(record) + " needs " + std::to_string(n) +
                                  " more bytes, " + std::to_string(bytes.size() - pos) +
                                  " are left");
    }
  }
  void check_coordinate(double v, std::uint64_t i, std::size_t at, bool binary) const {
    if (options.allow_non_finite || std::isfinite(v)) return;
    const std::string what = "vertex " + std::to_string(i) + " has a non-finite coordinate";
    if (binary) fail_at_byte(name, at, what);
    detail::fail_at_line(name, bytes, at, what);
  }

  void read_binary(MeshData& mesh, FaceSink& sink, bool is_vertex, bool is_face) {
    std::size_t min_record = 0;
    bool fixed = true;
    for (const PlyProperty& p : e.props) {
      min_record += type_size(p.is_list ? p.count_type : p.type);
      fixed &= !p.is_list;
    }
    const std::size_t left = bytes.size() - pos;
    if (e.count > 0 && e.count > left / min_record) {
      fail_at_byte(name, pos, "element '" + e.name + "' declares " + std::to_string(e.count) +
                                  " records of at least " + std::to_string(min_record) +
                                  " bytes, but only " + std::to_string(left) +
                                  " bytes are left (truncated or wrong count)");
    }
    if (is_vertex) mesh.vertices.reserve(e.count);
    if (is_face) mesh.triangles.reserve(e.count);
    if (fixed && !is_vertex) {  // an element prox does not use: step over it
      pos += e.count * min_record;
      return;
    }
    if (fixed) {  // the vertex element: constant stride
      std::size_t off[3] = {0, 0, 0};
      PlyType type[3] = {PlyType::f32, PlyType::f32, PlyType::f32};
      std::size_t o = 0;
      for (std::size_t k = 0; k < e.props.size(); ++k) {
        if (roles[k] != Role::skip) {
          const int axis = static_cast<int>(roles[k]) - 1;
          off[axis] = o;
          type[axis] = e.props[k].type;
        }
        o += type_size(e.props[k].type);
      }
      for (std::uint64_t i = 0; i < e.count; ++i) {
        const std::size_t rec = pos + i * min_record;
        Vec3d v;
        for (int a = 0; a < 3; ++a) {
          v[a] = value_at(rec + off[a], type[a]);
          check_coordinate(v[a], i, rec + off[a], true);
        }
        mesh.vertices.push_back(v);
      }
      pos += e.count * min_record;
      return;
    }
    for (std::uint64_t i = 0; i < e.count; ++i) read_binary_record(mesh, sink, is_vertex, i);
  }

  void read_binary_record(MeshData& mesh, FaceSink& sink, bool is_vertex, std::uint64_t i) {
    Vec3d v = Vec3d::zero();
    for (std::size_t k = 0; k < e.props.size(); ++k) {
      const PlyProperty& p = e.props[k];
      if (!p.is_list) {
        const std::size_t s = type_size(p.type);
        need(s, i);
        if (roles[k] != Role::skip) {
          const int axis = static_cast<int>(roles[k]) - 1;
          v[axis] = value_at(pos, p.type);
          check_coordinate(v[axis], i, pos, true);
        }
        pos += s;
        continue;
      }
      const std::size_t cs = type_size(p.count_type);
      need(cs, i);
      const std::int64_t n = integer_at(pos, p.count_type);
      if (n < 0) {
        fail_at_byte(name, pos, "element '" + e.name + "' record " + std::to_string(i) +
                                    " has a negative list length " + std::to_string(n));
      }
      pos += cs;
      const std::size_t s = type_size(p.type);
      if (static_cast<std::uint64_t>(n) > (bytes.size() - pos) / s) need(n * s, i);
      if (roles[k] == Role::indices) {
        for (std::int64_t j = 0; j < n; ++j) {
          const std::int64_t idx = integer_at(pos, p.type);
          sink.check(idx, i, pos, true, bytes);
          sink.corner(static_cast<std::uint64_t>(j), static_cast<std::uint32_t>(idx));
          pos += s;
        }
        sink.end_face(static_cast<std::uint64_t>(n));
      } else {
        pos += static_cast<std::size_t>(n) * s;
      }
    }
    if (is_vertex) mesh.vertices.push_back(v);
  }

  // ascii: one record per line, values separated by blanks.
  void read_ascii(MeshData& mesh, FaceSink& sink, bool is_vertex, bool is_face) {
    detail::TextCursor c{bytes, name, pos};
    const std::size_t left = c.left();
    // N values take at least 2N - 1 characters.
    const std::uint64_t per_record = e.props.size();
    if (e.count > 0 && e.count > (left + 1) / 2 / per_record) {
      c.fail_here(pos, "element '" + e.name + "' declares " + std::to_string(e.count) +
                           " records, but only " + std::to_string(left) +
                           " bytes are left (truncated or wrong count)");
    }
    if (is_vertex) mesh.vertices.reserve(e.count);
    if (is_face) mesh.triangles.reserve(e.count);
    const std::string rec_name = e.name == "vertex" ? "vertex " : e.name + " ";
    for (std::uint64_t i = 0; i < e.count; ++i) {
      c.skip_space(0);
      if (c.at_end()) {
        c.fail_here(c.pos, "truncated: element '" + e.name + "' has " + std::to_string(i) +
                               " of " + std::to_string(e.count) + " records");
      }
      Vec3d v = Vec3d::zero();
      for (std::size_t k = 0; k < e.props.size(); ++k) {
        const PlyProperty& p = e.props[k];
        const std::string what = rec_name + std::to_string(i) + " " + p.name;
        if (!p.is_list) {
          c.skip_blanks();
          const std::size_t at = c.pos;
          const double x = c.number_on_line(what, true);
          if (roles[k] != Role::skip) {
            v[static_cast<int>(roles[k]) - 1] = x;
            check_coordinate(x, i, at, false);
          }
          continue;
        }
        c.skip_blanks();
        const std::size_t at = c.pos;
        const std::string_view tok = c.token_on_line();
        std::int64_t n = 0;
        if (tok.empty()) c.fail_here(at, "missing list length for " + what);
        if (!detail::parse_int(tok, n) || n < 0 || static_cast<std::uint64_t>(n) > c.left()) {
          c.fail_here(at, "bad list length " + quote(tok) + " for " + what);
        }
        for (std::int64_t j = 0; j < n; ++j) {
          c.skip_blanks();
          const std::size_t vat = c.pos;
          const std::string_view vt = c.token_on_line();
          if (roles[k] == Role::indices) {
            std::int64_t idx = 0;
            if (vt.empty()) c.fail_here(vat, "missing index for " + what + " (truncated?)");
            if (!detail::parse_int(vt, idx) || idx > 0xffffffffll) {
              c.fail_here(vat, "bad vertex index " + quote(vt) + " in " + what);
            }
            sink.check(idx, i, vat, false, bytes);
            sink.corner(static_cast<std::uint64_t>(j), static_cast<std::uint32_t>(idx));
          } else {
            double ignored = 0;
            if (!detail::parse_double(vt, ignored)) {
              c.fail_here(vat, "bad number " + quote(vt) + " in " + what);
            }
          }
        }
        if (roles[k] == Role::indices) sink.end_face(static_cast<std::uint64_t>(n));
      }
      if (!c.at_eol()) {
        c.fail_here(c.pos, "extra values after " + rec_name + std::to_string(i) +
                               " (the header declares " + std::to_string(e.props.size()) +
                               " properties)");
      }
      if (is_vertex) mesh.vertices.push_back(v);
    }
    pos = c.pos;
  }
};

}  // namespace

MeshData parse_ply(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  const PlyHeader h = parse_header(bytes, name);
  MeshData mesh;
  FaceSink sink{mesh, name};
  std::size_t pos = h.body;
  const bool binary = h.format != PlyFormat::ascii;
  const bool swap = binary && ((h.format == PlyFormat::binary_le) != detail::host_is_little_endian());
  bool seen_vertex = false, seen_face = false;
  for (const PlyElement& e : h.elements) {
    const bool is_vertex = e.name == "vertex" && !seen_vertex;
    const bool is_face = e.name == "face" && !seen_face;
    seen_vertex |= is_vertex;
    seen_face |= is_face;
    const std::vector<Role> roles = roles_of(e, is_vertex, is_face, name);
    ElementReader r{bytes, name, e, roles, options, swap, pos};
    if (binary) r.read_binary(mesh, sink, is_vertex, is_face);
    else r.read_ascii(mesh, sink, is_vertex, is_face);
    if (is_vertex && e.count > 0xffffffffull) {
      fail(name, "element 'vertex' has " + std::to_string(e.count) +
                     " records; prox indexes vertices with 32 bits");
    }
    pos = r.pos;
    if (is_vertex) {
      sink.num_vertices = e.count;
      sink.vertices_known = true;
    }
  }
  if (!seen_vertex) fail(name, "PLY file has no element 'vertex'");
  // Bytes after the last element of a binary file: the counts or types do not
  // describe the file (an ascii file may end in blank lines or comments).
  if (binary && bytes.find_first_not_of(" \t\r\n", pos) != std::string_view::npos)
    fail_at_byte(name, pos, std::to_string(bytes.size() - pos) +
                                " bytes follow the last element (wrong counts or types?)");
  if (sink.max_index >= 0 && static_cast<std::uint64_t>(sink.max_index) >= sink.num_vertices) {
    sink.report(sink.max_index, sink.max_index_face, sink.max_index_offset, binary, bytes);
  }
  return mesh;
}

}  // namespace prox::io
