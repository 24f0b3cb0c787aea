// prox/io/read_mesh.hpp — read OBJ, PLY (ascii, binary little/big endian),
// STL (ascii, binary) and OFF meshes into MeshData.
//
// read_mesh(path) picks the format from the extension (.obj .ply .stl .off,
// any case) and, when the extension is unknown, from the first bytes. Every
// reader works on the whole file in memory and checks every count against the
// bytes left before allocating, so a hostile header cannot cause a giant
// allocation; each malformed input raises one ReadError naming the file and
// the line (text) or byte offset (binary). Polygons are fan-triangulated from
// their first corner; faces with fewer than three corners are skipped and
// counted; unknown PLY elements/properties, OBJ normals, texture coordinates,
// groups and materials are ignored. STL stores each triangle's corners
// separately: exactly equal corners are merged so the mesh is connected.
// Text lines may end in \n or \r\n, and (OBJ, OFF) in a lone \r.
// OBJ is parsed by tinyobjloader (Debian's libtinyobjloader-dev), after a
// line-checking pass of prox's own, because tinyobjloader silently reads a bad
// number as 0; PLY, STL and OFF have no Debian library and are prox's own.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "prox/io/mesh_data.hpp"

namespace prox::io {

/// Format from a file name's extension, or nullopt when it is not one of ours.
std::optional<MeshFormat> format_from_extension(const std::filesystem::path& path);
/// Format guessed from the first bytes of a file ("ply", "OFF", "solid", "v "...).
std::optional<MeshFormat> format_from_content(std::string_view bytes);
/// "obj", "ply", "stl", "off".
const char* to_string(MeshFormat format);

/// Reads a mesh file, format from extension, else from content.
MeshData read_mesh(const std::filesystem::path& path, const ReadOptions& options = {});
/// Reads a mesh file in the given format.
MeshData read_mesh(const std::filesystem::path& path, MeshFormat format,
                   const ReadOptions& options = {});

/// Parses a mesh held in memory; `name` is used in error messages only.
MeshData parse_mesh(std::string_view bytes, MeshFormat format, const std::string& name,
                    const ReadOptions& options = {});
MeshData parse_obj(std::string_view bytes, const std::string& name, const ReadOptions& options = {});
MeshData parse_ply(std::string_view bytes, const std::string& name, const ReadOptions& options = {});
MeshData parse_stl(std::string_view bytes, const std::string& name, const ReadOptions& options = {});
MeshData parse_off(std::string_view bytes, const std::string& name, const ReadOptions& options = {});

/// The whole file's bytes; ReadError if it cannot be opened or read.
std::string read_file_bytes(const std::filesystem::path& path);

}  // namespace prox::io
