// prox/io/mesh_data.hpp — what the mesh readers return, and how they fail.
//
// MeshData is a plain vertex + triangle-index soup in double precision, the
// neutral form every reader produces (polygons already fan-triangulated) and
// from which a prox::TriangleMesh<T> is built. ReadError is the one exception
// the readers throw: its message names the file, the line (text formats) or
// byte offset (binary formats) and what is wrong.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "prox/core/vec.hpp"

namespace prox::io {

/// A triangle soup: vertex positions and corner indices into them.
struct MeshData {
  std::vector<Vec3d> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  /// Faces with fewer than three corners, skipped (they have no area and no triangle).
  std::size_t skipped_faces = 0;
  /// Polygons with more than three corners, fan-triangulated from their first corner.
  std::size_t polygons = 0;
  /// What the reader noticed and let through, one line each, naming the file
  /// and where (e.g. an OFF file with more face lines than its header
  /// declares: read as the header says, the rest ignored). Commands print
  /// them on stderr; `prox info` lists them.
  std::vector<std::string> warnings;
};

/// Malformed or unreadable input; the message names the file and where in it.
class ReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Mesh file formats prox reads (and writes, for tests and conversions).
enum class MeshFormat { obj, ply, stl, off };

/// How a reader treats vertex coordinates that are NaN or infinite.
struct ReadOptions {
  /// false (default): a non-finite coordinate is a ReadError naming the line/offset.
  /// true: kept, so that TriangleMesh's NonFinitePolicy::drop_triangles can decide.
  bool allow_non_finite = false;
};

}  // namespace prox::io
