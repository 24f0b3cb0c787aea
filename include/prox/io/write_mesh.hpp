// prox/io/write_mesh.hpp — write MeshData as OBJ, PLY (ascii, binary LE/BE),
// STL (ascii, binary) or OFF: conversions, and fixtures for the reader tests.
// Text coordinates are printed shortest round-trip (exact); binary PLY stores
// float64; STL stores float32 (the format has no other), so a double mesh
// written as STL reads back rounded to float.
#pragma once

#include <filesystem>
#include <ostream>

#include "prox/io/mesh_data.hpp"

namespace prox::io {

enum class PlyEncoding { ascii, binary_little_endian, binary_big_endian };
enum class StlEncoding { ascii, binary };

void write_obj(std::ostream& out, const MeshData& mesh);
void write_off(std::ostream& out, const MeshData& mesh);
void write_ply(std::ostream& out, const MeshData& mesh, PlyEncoding encoding);
void write_stl(std::ostream& out, const MeshData& mesh, StlEncoding encoding);

/// Writes by extension (.obj, .off, .ply = binary little endian, .stl = binary),
/// atomically (the file appears whole or not at all).
void write_mesh(const std::filesystem::path& path, const MeshData& mesh);

}  // namespace prox::io
