// src/io/read_stl.cpp — STL reader, binary and ascii.
//
// Binary STL: an 80-byte header, a little-endian uint32 triangle count, then
// 50 bytes per triangle (normal, three corners as float32, a uint16 attribute).
// The file is binary when its size is exactly 84 + 50 * count — some binary
// files start with "solid" too — and ascii when it starts with "solid"
// otherwise; any other size is a ReadError (truncated, or trailing bytes).
// Ascii STL: "solid name", then facets "facet normal n n n / outer loop /
// vertex x y z (3 or more) / endloop / endfacet", then "endsolid"; several
// solids may follow one another. Loops of more than three vertices are
// fan-triangulated. The stored normals are ignored: prox derives orientation
// from the corner order.
// STL repeats each shared corner per triangle; exactly equal corners (-0 and
// +0 equal) are merged, so the mesh is connected and "closed" means something.
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "parse_util.hpp"
#include "prox/io/read_mesh.hpp"

namespace prox::io {
namespace {

using detail::fail;
using detail::fail_at_byte;
using detail::quote;

struct CornerKey {
  double x, y, z;
  bool operator==(const CornerKey& o) const { return x == o.x && y == o.y && z == o.z; }
};
struct CornerHash {
  std::size_t operator()(const CornerKey& k) const {
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    for (double d : {k.x, k.y, k.z}) {
      const double v = d + 0.0;  // -0 -> +0, so equal keys hash equal
      std::uint64_t b;
      std::memcpy(&b, &v, 8);
      h ^= b + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// Merges exactly equal corners; NaN corners (when allowed) each get their own vertex.
class Welder {
 public:
  Welder(MeshData& mesh, std::size_t expected_corners) : mesh_(mesh) {
    map_.reserve(expected_corners / 2);
    mesh_.vertices.reserve(expected_corners / 4);
  }
  std::uint32_t add(const Vec3d& p) {
    if (!all_finite(p) && (std::isnan(p[0]) || std::isnan(p[1]) || std::isnan(p[2]))) {
      return push(p);
    }
    const auto [it, inserted] = map_.try_emplace(CornerKey{p[0], p[1], p[2]}, 0u);
    if (inserted) it->second = push(p);
    return it->second;
  }

 private:
  std::uint32_t push(const Vec3d& p) {
    mesh_.vertices.push_back(p);
    return static_cast<std::uint32_t>(mesh_.vertices.size() - 1);
  }
  MeshData& mesh_;
  std::unordered_map<CornerKey, std::uint32_t, CornerHash> map_;
};

MeshData parse_binary(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  const std::uint64_t count = detail::load<std::uint32_t>(bytes.data() + 80,
                                                          !detail::host_is_little_endian());
  const std::uint64_t need = 84 + 50 * count;
  if (bytes.size() != need) {
    fail(name, "binary STL declares " + std::to_string(count) + " triangles (" +
                   std::to_string(need) + " bytes), but the file has " +
                   std::to_string(bytes.size()) + " bytes" +
                   (bytes.size() < need ? " (truncated)" : " (wrong count or trailing bytes)"));
  }
  MeshData mesh;
  if (count > 0xffffffffull / 3) fail(name, "too many triangles for 32-bit indices");
  mesh.triangles.reserve(count);
  Welder welder(mesh, count * 3);
  const bool swap = !detail::host_is_little_endian();
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::size_t rec = 84 + 50 * i;
    std::array<std::uint32_t, 3> tri;
    for (int k = 0; k < 3; ++k) {
      const std::size_t at = rec + 12 + 12 * static_cast<std::size_t>(k);
      Vec3d p;
      for (int a = 0; a < 3; ++a) {
        p[a] = detail::load<float>(bytes.data() + at + 4 * static_cast<std::size_t>(a), swap);
      }
      if (!options.allow_non_finite && !all_finite(p)) {
        fail_at_byte(name, at, "triangle " + std::to_string(i) + " corner " + std::to_string(k) +
                                   " is not finite");
      }
      tri[static_cast<std::size_t>(k)] = welder.add(p);
    }
    mesh.triangles.push_back(tri);
  }
  return mesh;
}

bool keyword_is(std::string_view tok, const char* kw) {
  const std::size_t n = std::strlen(kw);
  if (tok.size() != n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = tok[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != kw[i]) return false;
  }
  return true;
}

MeshData parse_ascii(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  MeshData mesh;
  Welder welder(mesh, bytes.size() / 40);  // a vertex line is ~40 bytes
  detail::TextCursor c{bytes, name};
  enum class State { outside, solid, facet, loop } state = State::outside;
  std::vector<std::uint32_t> loop;
  std::size_t facet = 0;
  std::size_t last_keyword = 0;
  for (;;) {
    c.skip_space(0);
    if (c.at_end()) break;
    const std::size_t at = c.pos;
    last_keyword = at;
    const std::string_view kw = c.token_on_line();
    const auto expect = [&](State s, const char* context) {
      if (state != s) c.fail_here(at, "unexpected " + quote(kw) + " " + context);
    };
    if (keyword_is(kw, "solid")) {
      expect(State::outside, "(a solid inside a solid)");
      state = State::solid;
      c.skip_line();  // the name
      continue;
    } else if (keyword_is(kw, "endsolid")) {
      expect(State::solid, "(outside a solid, or inside a facet)");
      state = State::outside;
      c.skip_line();
      continue;
    } else if (keyword_is(kw, "facet")) {
      expect(State::solid, "(a facet outside a solid or inside a facet)");
      state = State::facet;
      c.skip_line();  // "normal nx ny nz": prox derives orientation from corner order
      continue;
    } else if (keyword_is(kw, "outer")) {
      expect(State::facet, "(a loop outside a facet)");
      if (!keyword_is(c.token_on_line(), "loop")) c.fail_here(at, "expected 'outer loop'");
      state = State::loop;
      loop.clear();
    } else if (keyword_is(kw, "vertex")) {
      expect(State::loop, "(a vertex outside 'outer loop')");
      Vec3d p;
      const std::string what = "facet " + std::to_string(facet) + " vertex " +
                               std::to_string(loop.size());
      p[0] = c.number_on_line(what + " x", options.allow_non_finite);
      p[1] = c.number_on_line(what + " y", options.allow_non_finite);
      p[2] = c.number_on_line(what + " z", options.allow_non_finite);
      if (loop.size() >= bytes.size()) c.fail_here(at, "loop too long");
      loop.push_back(welder.add(p));
    } else if (keyword_is(kw, "endloop")) {
      expect(State::loop, "(no 'outer loop' open)");
      state = State::facet;
      for (std::size_t k = 2; k < loop.size(); ++k) {
        mesh.triangles.push_back({loop[0], loop[k - 1], loop[k]});
      }
      if (loop.size() < 3) ++mesh.skipped_faces;
      if (loop.size() > 3) ++mesh.polygons;
    } else if (keyword_is(kw, "endfacet")) {
      expect(State::facet, "(no facet open, or its loop is not closed)");
      state = State::solid;
      ++facet;
    } else {
      c.fail_here(at, "unexpected " + quote(kw) + " in ascii STL");
    }
    if (!c.at_eol()) c.fail_here(c.pos, "unexpected text after " + quote(kw));
  }
  if (state != State::outside) {
    c.fail_here(last_keyword, "truncated: the file ends inside a " +
                                  std::string(state == State::solid ? "solid (no 'endsolid')"
                                              : state == State::facet ? "facet"
                                                                      : "loop"));
  }
  if (facet == 0 && mesh.triangles.empty() && bytes.find("solid") == std::string_view::npos) {
    fail(name, "not an STL file");
  }
  return mesh;
}

bool starts_with_solid(std::string_view bytes) {
  std::size_t i = 0;
  while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' ||
                              bytes[i] == '\n')) {
    ++i;
  }
  return keyword_is(bytes.substr(i, 5), "solid") &&
         (bytes.size() == i + 5 || std::isspace(static_cast<unsigned char>(bytes[i + 5])));
}

}  // namespace

MeshData parse_stl(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  if (bytes.empty()) fail(name, "empty file");
  if (bytes.size() >= 84) {
    const std::uint64_t count =
        detail::load<std::uint32_t>(bytes.data() + 80, !detail::host_is_little_endian());
    if (bytes.size() == 84 + 50 * count) return parse_binary(bytes, name, options);
  }
  if (starts_with_solid(bytes)) return parse_ascii(bytes, name, options);
  if (bytes.size() < 84) {
    fail(name, "truncated: " + std::to_string(bytes.size()) +
                   " bytes is shorter than a binary STL header (84 bytes), and the file does "
                   "not start with 'solid'");
  }
  return parse_binary(bytes, name, options);  // reports the size mismatch
}

}  // namespace prox::io
