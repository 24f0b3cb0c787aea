// fuzz/fuzz_common.hpp — what every prox fuzz target checks besides memory
// safety (ASan + UBSan): a parser either returns data or throws its one
// documented exception type; anything else (another exception, a crash, a
// hang) is a finding. Mesh readers' results are also built into a
// TriangleMesh and a MeshIndex and queried once, so index building is fuzzed
// on whatever the readers accept.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "prox/io/mesh_data.hpp"
#include "prox/mesh.hpp"

namespace prox::fuzz {

inline std::string_view bytes_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Builds and queries what a reader returned (small meshes only: the fuzzer
/// should spend its time in the parsers).
inline void exercise(const io::MeshData& m) {
  if (m.vertices.empty()) std::abort();  // read_mesh promises at least one vertex
  if (m.triangles.size() > 4096) return;
  try {
    TriangleMesh<double> mesh(m.vertices, m.triangles, NonFinitePolicy::drop_triangles);
    const MeshIndex<double> index(mesh);
    const BruteForce<double> brute(mesh);
    const Vec3d p{0.25, -0.5, 0.75};
    const auto a = index.closest_point(p), b = brute.closest_point(p);
    if (a.triangle != b.triangle) std::abort();  // the twin disagrees: a finding
    if (a.found() && !(a.sq_distance == b.sq_distance)) std::abort();
    const Ray<double> ray{{0.1, 0.2, 10.0}, {0.01, -0.02, -1.0}};
    if (index.count_hits(ray) != brute.count_hits(ray)) std::abort();
  } catch (const MeshError&) {
    // out of range, bad index: a defined error
  }
}

}  // namespace prox::fuzz
