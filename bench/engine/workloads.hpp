// bench/engine/workloads.hpp — the meshes and queries of WORKLOADS.md (v2).
//
// Every coordinate is rounded to float once, when it is made, and then kept as
// a double: float peers (Embree, prox<float>) and double peers (CGAL,
// prox<double>, the brute-force oracle) see exactly the same numbers, so any
// disagreement comes from their arithmetic, not from their inputs.
//
// Random streams: a fresh std::mt19937_64 seeded with 1 for each mesh and each
// workload, so a workload's queries do not depend on which others were chosen.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "prox/core/box.hpp"
#include "prox/core/ray.hpp"
#include "prox/core/vec.hpp"

namespace prox::bench {

/// A triangle mesh as vertex and index arrays (what every peer builds from).
struct BenchMesh {
  std::string name;
  std::vector<Vec3d> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  Box3<double> bounds = Box3<double>::empty();

  /// Length of the bounding-box diagonal.
  double diagonal() const;
  /// Recomputes `bounds` from the vertices.
  void update_bounds();
};

/// Names known to make_mesh and make_*_queries, in WORKLOADS.md order.
const std::vector<std::string>& mesh_names();
const std::vector<std::string>& workload_names();
bool is_ray_workload(const std::string& workload);

/// Loads or generates a mesh by WORKLOADS.md name; `data_dir` holds bunny00.off
/// and armadillo.off (directly or under meshes/). Throws std::runtime_error.
BenchMesh make_mesh(const std::string& name, const std::string& data_dir);

/// Splits every triangle into 4 at its edge midpoints (shared, so a closed mesh stays closed).
BenchMesh subdivide_midpoints(const BenchMesh& mesh);

/// 1,000,000-triangle soup of WORKLOADS.md (count adjustable for tests).
BenchMesh make_soup(std::size_t count);

/// cp-near / cp-far query points; `count` replaces WORKLOADS.md's 1,000,000.
std::vector<Vec3d> make_point_queries(const BenchMesh& mesh, const std::string& workload,
                                      std::size_t count);

/// ray-primary (a square image of about `count` pixels; 1024 x 1024 for 1,000,000) or
/// ray-random rays. Directions have unit length up to float rounding.
std::vector<Ray<double>> make_ray_queries(const BenchMesh& mesh, const std::string& workload,
                                          std::size_t count);

/// Side of the ray-primary image for a query budget (1024 for 1,000,000).
std::size_t primary_image_side(std::size_t count);

/// The directory holding bunny00.off: `given` if not empty, else the CGAL data archive
/// extracted into a cache directory ($XDG_CACHE_HOME or ~/.cache)/prox/cgal-data.
std::string resolve_data_dir(const std::string& given);

}  // namespace prox::bench
