// src/io/read_off.cpp — OFF (Object File Format, Geomview) reader.
//
// Layout: the keyword OFF (optionally prefixed ST, C, N — texture, colour and
// normal variants, whose extra per-vertex values are skipped), then
// "nv nf [ne]", then nv vertex records "x y z [extra...]", then nf face records
// "n i0 ... i(n-1) [colour...]". '#' starts a comment to the end of the line.
// Each record ends at its line's end: values past the ones prox needs (vertex
// colours, face colours) are skipped with the rest of the line. Faces are
// fan-triangulated; faces with fewer than three corners are skipped. The 4OFF,
// nOFF and "OFF BINARY" variants are reported as unsupported.
// Safety: nv and nf are checked against the bytes left (a vertex record takes
// at least 6 bytes, a face record at least 2) before anything is reserved.
#include <string>

#include "parse_util.hpp"
#include "prox/io/read_mesh.hpp"

namespace prox::io {
namespace {
using detail::fail;
using detail::quote;
}  // namespace

MeshData parse_off(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  detail::TextCursor c{bytes, name};
  c.skip_space('#');
  if (c.at_end()) fail(name, "empty file");
  const std::size_t kw_at = c.pos;
  std::string_view kw = c.token_on_line();
  std::string_view rest = kw;
  if (rest.substr(0, 2) == "ST") rest.remove_prefix(2);
  if (rest.substr(0, 1) == "C") rest.remove_prefix(1);
  if (rest.substr(0, 1) == "N") rest.remove_prefix(1);
  if (rest.substr(0, 1) == "4" || rest.substr(0, 1) == "n") {
    c.fail_here(kw_at, "unsupported OFF variant " + quote(kw) + " (only 3D OFF is read)");
  }
  std::string_view counts_inline;
  if (rest.substr(0, 3) != "OFF") c.fail_here(kw_at, "not an OFF file: expected 'OFF', found " + quote(kw));
  if (rest.size() > 3) counts_inline = rest.substr(3);  // "OFF8 6 0" is not valid either
  if (!counts_inline.empty()) c.fail_here(kw_at, "not an OFF file: found " + quote(kw));
  {
    detail::TextCursor peek = c;
    if (peek.token_on_line() == "BINARY") c.fail_here(kw_at, "binary OFF is not supported");
  }
  const std::int64_t nv = c.integer_any("vertex count", '#');
  const std::int64_t nf = c.integer_any("face count", '#');
  if (!c.at_eol()) c.integer_any("edge count", '#');  // present in most files; unused
  if (!c.at_eol()) c.fail_here(c.pos, "unexpected text after the counts line");
  c.skip_line();
  if (nv < 0 || nf < 0) c.fail_here(kw_at, "negative vertex or face count");
  const std::size_t left = c.left();
  if (static_cast<std::uint64_t>(nv) > left / 6 + 1 ||
      static_cast<std::uint64_t>(nf) > left / 2 + 1 ||
      static_cast<std::uint64_t>(nv) * 5 + static_cast<std::uint64_t>(nf) > left + 1) {
    c.fail_here(kw_at, "the header declares " + std::to_string(nv) + " vertices and " +
                           std::to_string(nf) + " faces, but only " + std::to_string(left) +
                           " bytes follow (truncated or wrong counts)");
  }
  if (nv > 0xffffffffll) c.fail_here(kw_at, "too many vertices for 32-bit indices");
  const std::string counts_hint = " (do the header's counts, " + std::to_string(nv) +
                                  " vertices and " + std::to_string(nf) + " faces, match the file?)";
  MeshData mesh;
  mesh.vertices.resize(static_cast<std::size_t>(nv));
  mesh.triangles.reserve(static_cast<std::size_t>(nf));
  for (std::int64_t i = 0; i < nv; ++i) {
    c.skip_space('#');
    if (c.at_end()) {
      c.fail_here(c.pos, "truncated: " + std::to_string(i) + " of " + std::to_string(nv) +
                             " vertices");
    }
    const std::string what = "vertex " + std::to_string(i);
    Vec3d& v = mesh.vertices[static_cast<std::size_t>(i)];
    v[0] = c.number_on_line(what + " x", options.allow_non_finite);
    v[1] = c.number_on_line(what + " y", options.allow_non_finite);
    v[2] = c.number_on_line(what + " z", options.allow_non_finite);
    c.skip_line();  // normals, colours, texture coordinates
  }
  for (std::int64_t f = 0; f < nf; ++f) {
    c.skip_space('#');
    if (c.at_end()) {
      c.fail_here(c.pos, "truncated: " + std::to_string(f) + " of " + std::to_string(nf) +
                             " faces");
    }
    const std::size_t at = c.pos;
    const std::string_view tok = c.token_on_line();
    std::int64_t n = 0;
    if (!detail::parse_int(tok, n) || n < 0 || static_cast<std::uint64_t>(n) > c.left()) {
      double x = 0;
      c.fail_here(at, "bad corner count " + quote(tok) + " for face " + std::to_string(f) +
                          (detail::parse_double(tok, x) ? counts_hint : std::string()));
    }
    std::uint32_t first = 0, prev = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      c.skip_blanks();
      const std::size_t iat = c.pos;
      const std::string_view it = c.token_on_line();
      std::int64_t idx = 0;
      if (it.empty()) {
        c.fail_here(iat, "face " + std::to_string(f) + " has " + std::to_string(k) + " of " +
                             std::to_string(n) + " vertex indices on its line");
      }
      if (!detail::parse_int(it, idx)) {
        c.fail_here(iat, "bad vertex index " + quote(it) + " in face " + std::to_string(f));
      }
      if (idx < 0 || idx >= nv) {
        c.fail_here(iat, "face " + std::to_string(f) + " has vertex index " +
                             std::to_string(idx) + ", but the file has " + std::to_string(nv) +
                             " vertices");
      }
      const std::uint32_t u = static_cast<std::uint32_t>(idx);
      if (k == 0) first = u;
      else if (k >= 2) mesh.triangles.push_back({first, prev, u});
      prev = u;
    }
    // What may follow the indices is a face colour: a colour-map index or
    // r g b (a): 1, 3 or 4 values. Anything else is a line of another kind
    // read as a face (a vertex line "0 0 1": the header's counts are off).
    const std::size_t extra_at = c.pos;
    int extra = 0;
    while (!c.at_eol() && extra < 5) {
      c.token_on_line();
      ++extra;
    }
    if (extra == 2 || extra > 4)
      c.fail_here(extra_at, "face " + std::to_string(f) + " has " +
                                (extra > 4 ? std::string("5 or more") : std::to_string(extra)) +
                                " values after its " + std::to_string(n) +
                                " vertex indices (a face colour has 1, 3 or 4)" + counts_hint);
    if (n < 3) ++mesh.skipped_faces;
    if (n > 3) ++mesh.polygons;
    c.skip_line();  // face colour
  }
  c.skip_space('#');
  // Trailing text is tolerated (some writers append edges). More face lines
  // ("n i1 .. in", n >= 3, every index a vertex) mean the header declares
  // fewer faces than the file has: read as the header says (as other readers
  // do; CGAL's data has such a file, prim.off), and said in a warning.
  std::size_t more = 0, first_at = 0;
  while (!c.at_end()) {
    detail::TextCursor peek = c;
    const std::size_t at = peek.pos;
    std::int64_t n = 0, idx = 0;
    bool face = detail::parse_int(peek.token_on_line(), n) && n >= 3;
    for (std::int64_t k = 0; face && k < n; ++k)
      face = detail::parse_int(peek.token_on_line(), idx) && idx >= 0 && idx < nv;
    if (!face) break;
    if (more++ == 0) first_at = at;
    c.skip_line();
    c.skip_space('#');
  }
  if (more > 0)
    mesh.warnings.push_back(name + ": line " + std::to_string(detail::line_of(bytes, first_at)) +
                            ": " + std::to_string(more) + " more face line" +
                            (more == 1 ? "" : "s") + " after the header's " + std::to_string(nf) +
                            " faces, ignored (fix the counts line to read them)");
  return mesh;
}

}  // namespace prox::io
