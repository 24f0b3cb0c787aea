// src/io/load_index.cpp — read + index in one call (see prox/io/load_index.hpp).
#include "prox/io/load_index.hpp"

#include <chrono>
#include <type_traits>
#include <utility>
#include <vector>

#include "prox/io/read_mesh.hpp"

namespace prox::io {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

void require_triangles(const MeshData& data, const std::string& name) {
  if (data.triangles.empty())
    throw ReadError(name + ": holds no triangles (" + std::to_string(data.vertices.size()) +
                    " vertices, " + std::to_string(data.skipped_faces) +
                    " faces of fewer than 3 corners): nothing to query");
}

template <class T>
std::unique_ptr<MeshIndex<T>> index_arrays(std::vector<Vec3<T>>&& vertices,
                                           std::vector<std::array<std::uint32_t, 3>>&& triangles,
                                           const std::string& name, const LoadOptions& options) {
  try {
    TriangleMesh<T> mesh(std::move(vertices), std::move(triangles), options.non_finite);
    if (mesh.empty())
      throw ReadError(name + ": no triangles left after dropping those with non-finite "
                             "vertices: nothing to query");
    return std::make_unique<MeshIndex<T>>(std::move(mesh), options.build);
  } catch (const MeshError& e) {
    throw ReadError(name + ": " + e.what());
  }
}

template <class T>
std::vector<Vec3<T>> vertices_as(const MeshData& data) {
  std::vector<Vec3<T>> vertices;
  vertices.reserve(data.vertices.size());
  for (const Vec3d& v : data.vertices) vertices.push_back(v.template cast<T>());
  return vertices;
}

// The file's arrays handed to the mesh without a second copy: the vertices moved
// (double) or converted and then freed (float), the triangles moved. Peak memory
// while indexing is then the index's own, not the index's plus two copies of the
// file's arrays (measured in the README's Reliability section).
template <class T>
std::unique_ptr<MeshIndex<T>> index_consuming(MeshData& data, const std::string& name,
                                              const LoadOptions& options) {
  require_triangles(data, name);
  std::vector<Vec3<T>> vertices;
  if constexpr (std::is_same_v<T, double>) {
    vertices = std::move(data.vertices);
  } else {
    vertices = vertices_as<T>(data);
    std::vector<Vec3d>().swap(data.vertices);
  }
  return index_arrays<T>(std::move(vertices), std::move(data.triangles), name, options);
}

}  // namespace

template <class T>
std::unique_ptr<MeshIndex<T>> build_index(const MeshData& data, const std::string& name,
                                          const LoadOptions& options) {
  require_triangles(data, name);
  std::vector<std::array<std::uint32_t, 3>> triangles = data.triangles;
  return index_arrays<T>(vertices_as<T>(data), std::move(triangles), name, options);
}

template <class T>
LoadedIndex<T> load_index(const std::filesystem::path& path, const LoadOptions& options) {
  LoadedIndex<T> loaded;
  const auto read_start = std::chrono::steady_clock::now();
  MeshData data = read_mesh(path, options.read);
  loaded.read_ms = ms_since(read_start);
  loaded.vertices = data.vertices.size();
  loaded.triangles = data.triangles.size();
  loaded.warnings = data.warnings;
  const auto build_start = std::chrono::steady_clock::now();
  if (options.keep_data) {
    loaded.index = build_index<T>(data, path.string(), options);
    loaded.data = std::move(data);
  } else {
    loaded.index = index_consuming<T>(data, path.string(), options);
  }
  loaded.build_ms = ms_since(build_start);
  return loaded;
}

template LoadedIndex<float> load_index<float>(const std::filesystem::path&, const LoadOptions&);
template LoadedIndex<double> load_index<double>(const std::filesystem::path&, const LoadOptions&);
template std::unique_ptr<MeshIndex<float>> build_index<float>(const MeshData&, const std::string&,
                                                              const LoadOptions&);
template std::unique_ptr<MeshIndex<double>> build_index<double>(const MeshData&,
                                                                const std::string&,
                                                                const LoadOptions&);

}  // namespace prox::io
