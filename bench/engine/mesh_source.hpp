// bench/engine/mesh_source.hpp — reading a mesh file into a BenchMesh.
#pragma once

#include <string>

#include "workloads.hpp"

namespace prox::bench {

/// Vertex and triangle arrays of a mesh file; throws std::runtime_error naming the file.
BenchMesh load_mesh_file(const std::string& path);

}  // namespace prox::bench
