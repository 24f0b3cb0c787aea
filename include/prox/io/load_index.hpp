// prox/io/load_index.hpp — read a mesh file and build its MeshIndex in one call
// (module prox::io, which links prox::mesh; prox::mesh knows nothing of files).
//
// What every front end (the prox command, the benchmark, Python) does before
// its first query: read_mesh (any format prox reads, see read_mesh.hpp), make
// a TriangleMesh<T> (validated: bad indices, non-finite vertices) and build its
// BVH, timing both. Every failure is one io::ReadError whose message starts
// with the file's name: reader errors as read_mesh raises them, mesh errors
// (MeshError) as "NAME: what". Float meshes are rounded from the file's double
// coordinates; one that overflows float is a non-finite vertex, so rejected
// (or its triangles dropped, per `non_finite`). Nothing is printed.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <vector>
#include <string>

#include "prox/bvh/build_options.hpp"
#include "prox/io/mesh_data.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/triangle_mesh.hpp"

namespace prox::io {

/// How load_index reads and indexes a mesh file.
struct LoadOptions {
  ReadOptions read;                                      ///< reader options (non-finite input)
  NonFinitePolicy non_finite = NonFinitePolicy::reject;  ///< what the mesh does with such vertices
  BuildOptions build;                                    ///< BVH build (threads, leaf size)
  bool keep_data = false;                                ///< also return the file's MeshData
};

/// A mesh file read and indexed, with the figures a report prints.
template <class T>
struct LoadedIndex {
  std::unique_ptr<MeshIndex<T>> index;  ///< never null on return
  MeshData data;                        ///< the file's triangle soup, only with keep_data
  std::size_t vertices = 0;             ///< vertices in the file
  std::size_t triangles = 0;            ///< triangles in the file (after fan triangulation)
  double read_ms = 0;                   ///< wall time of reading and parsing
  double build_ms = 0;                  ///< wall time of validating the mesh and building the BVH
  std::vector<std::string> warnings;    ///< the reader's (MeshData::warnings)
};

/// Reads `path` and builds its index; throws ReadError naming the file.
template <class T>
LoadedIndex<T> load_index(const std::filesystem::path& path, const LoadOptions& options = {});

/// Builds the index of mesh data already read; errors are ReadErrors naming `name`.
template <class T>
std::unique_ptr<MeshIndex<T>> build_index(const MeshData& data, const std::string& name,
                                          const LoadOptions& options = {});

extern template LoadedIndex<float> load_index<float>(const std::filesystem::path&,
                                                     const LoadOptions&);
extern template LoadedIndex<double> load_index<double>(const std::filesystem::path&,
                                                       const LoadOptions&);
extern template std::unique_ptr<MeshIndex<float>> build_index<float>(const MeshData&,
                                                                     const std::string&,
                                                                     const LoadOptions&);
extern template std::unique_ptr<MeshIndex<double>> build_index<double>(const MeshData&,
                                                                       const std::string&,
                                                                       const LoadOptions&);

}  // namespace prox::io
