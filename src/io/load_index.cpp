// src/io/load_index.cpp — read + index in one call (see prox/io/load_index.hpp).
#include "prox/io/load_index.hpp"

#include <chrono>
#include <utility>
#include <vector>

#include "prox/io/read_mesh.hpp"

namespace prox::io {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

template <class T>
std::unique_ptr<MeshIndex<T>> build_index(const MeshData& data, const std::string& name,
                                          const LoadOptions& options) {
  if (data.triangles.empty())
    throw ReadError(name + ": holds no triangles (" + std::to_string(data.vertices.size()) +
                    " vertices, " + std::to_string(data.skipped_faces) +
                    " faces of fewer than 3 corners): nothing to query");
  std::vector<Vec3<T>> vertices;
  vertices.reserve(data.vertices.size());
  for (const Vec3d& v : data.vertices) vertices.push_back(v.template cast<T>());
  std::vector<std::array<std::uint32_t, 3>> triangles = data.triangles;
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
LoadedIndex<T> load_index(const std::filesystem::path& path, const LoadOptions& options) {
  LoadedIndex<T> loaded;
  const auto read_start = std::chrono::steady_clock::now();
  MeshData data = read_mesh(path, options.read);
  loaded.read_ms = ms_since(read_start);
  loaded.vertices = data.vertices.size();
  loaded.triangles = data.triangles.size();
  const auto build_start = std::chrono::steady_clock::now();
  loaded.index = build_index<T>(data, path.string(), options);
  loaded.build_ms = ms_since(build_start);
  if (options.keep_data) loaded.data = std::move(data);
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
