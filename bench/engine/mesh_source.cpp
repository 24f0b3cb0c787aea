// bench/engine/mesh_source.cpp — reading a mesh file into a BenchMesh, with
// prox's own reader (prox::io::read_mesh: OFF, OBJ, PLY, STL).
#include "mesh_source.hpp"

#include "prox/io/read_mesh.hpp"

namespace prox::bench {

BenchMesh load_mesh_file(const std::string& path) {
  io::MeshData data = io::read_mesh(path);
  BenchMesh m;
  m.vertices = std::move(data.vertices);
  m.triangles = std::move(data.triangles);
  m.update_bounds();
  return m;
}

}  // namespace prox::bench
