// fuzz/make_seeds.cpp — writes the seeds that are binary and version-bound
// (saved indexes, binary PLY/STL, .npy) into the folder given, so the corpus
// in the repository stays text. Run by scripts/fuzz.sh before fuzzing.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "prox/io/npy.hpp"
#include "prox/io/shapes.hpp"
#include "prox/io/write_mesh.hpp"
#include "prox/mesh.hpp"

namespace {

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

template <class T>
std::string saved_index(char tag) {
  const prox::io::MeshData d = prox::io::make_torus(1.0, 0.3, 6, 4);
  std::vector<prox::Vec3<T>> v;
  for (const auto& p : d.vertices) v.push_back(p.template cast<T>());
  const prox::MeshIndex<T> index(prox::TriangleMesh<T>(v, d.triangles));
  std::ostringstream out(std::ios::binary);
  index.save(out);
  return std::string(1, tag) + out.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  spit(dir + "/index_load/float.pidx", saved_index<float>('\0'));
  spit(dir + "/index_load/double.pidx", saved_index<double>('\1'));
  const prox::io::MeshData torus = prox::io::make_torus(1.0, 0.3, 4, 3);
  for (const char* sub : {"ply", "read_mesh"}) {
    std::ostringstream le(std::ios::binary), be(std::ios::binary);
    prox::io::write_ply(le, torus, prox::io::PlyEncoding::binary_little_endian);
    prox::io::write_ply(be, torus, prox::io::PlyEncoding::binary_big_endian);
    spit(dir + "/" + sub + "/torus_le.ply", le.str());
    spit(dir + "/" + sub + "/torus_be.ply", be.str());
  }
  for (const char* sub : {"stl", "read_mesh"}) {
    std::ostringstream bin(std::ios::binary);
    prox::io::write_stl(bin, torus, prox::io::StlEncoding::binary);
    spit(dir + "/" + sub + "/torus_bin.stl", bin.str());
  }
  const double pts[6] = {0, 0, 0, 1, 2, 3};
  const float rays[12] = {0, 0, 5, 0, 0, -1, 1, 1, 5, 0, 0, -1};
  for (const char* sub : {"points", "npy"}) {
    std::ostringstream a(std::ios::binary);
    prox::io::write_npy(a, pts, {2, 3});
    spit(dir + "/" + sub + "/points.npy", a.str());
  }
  for (const char* sub : {"rays", "npy"}) {
    std::ostringstream a(std::ios::binary);
    prox::io::write_npy(a, rays, {2, 6});
    spit(dir + "/" + sub + "/rays.npy", a.str());
  }
  return 0;
}
