// A separate project that found prox::io: a mesh file written, read and indexed.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <prox/io/read_mesh.hpp>

int main() {
  const std::filesystem::path path = "consumer-io.off";  // in the working directory
  {
    std::ofstream out(path);
    // The unit square as one quad, which the reader splits into two triangles.
    out << "OFF\n4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n";
  }
  const prox::io::MeshData data = prox::io::read_mesh(path);
  std::filesystem::remove(path);
  std::printf("vertices=%zu triangles=%zu polygons=%zu\n", data.vertices.size(),
              data.triangles.size(), data.polygons);
  return data.vertices.size() == 4 && data.triangles.size() == 2 && data.polygons == 1 ? 0 : 1;
}
