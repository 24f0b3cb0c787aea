// A separate project that found prox::io: a mesh file written, read and indexed.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <prox/io/load_index.hpp>
#include <prox/io/read_mesh.hpp>

int main() {
  const std::filesystem::path path = "consumer-io.off";  // in the working directory
  {
    std::ofstream out(path);
    // The unit square as one quad, which the reader splits into two triangles.
    out << "OFF\n4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n";
  }
  const prox::io::MeshData data = prox::io::read_mesh(path);
  // load_index: the same file read and indexed (prox::io links prox::mesh).
  const auto loaded = prox::io::load_index<double>(path);
  std::filesystem::remove(path);
  const auto cp = loaded.index->closest_point({0.5, 0.25, 3.0});
  std::printf("vertices=%zu triangles=%zu polygons=%zu sq_distance=%g\n", data.vertices.size(),
              data.triangles.size(), data.polygons, cp.sq_distance);
  return data.vertices.size() == 4 && data.triangles.size() == 2 && data.polygons == 1 &&
                 loaded.triangles == 2 && cp.found() && cp.sq_distance == 9.0
             ? 0
             : 1;
}
