// bench/engine/hausdorff_cgal.cpp — CGAL 5.5's bounded_error_Hausdorff_distance
// (Polygon_mesh_processing/distance.h) on Surface_mesh<Epick::Point_3>.
// Its own translation unit: CGAL's headers take long to compile.
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/distance.h>
#include <CGAL/Surface_mesh.h>
#include <CGAL/version_macros.h>

#include <chrono>
#include <stdexcept>
#include <vector>

#include "hausdorff_peer.hpp"

namespace prox::bench {
namespace {

using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
using Mesh = CGAL::Surface_mesh<Kernel::Point_3>;

Mesh to_surface_mesh(const BenchMesh& m) {
  Mesh s;
  std::vector<Mesh::Vertex_index> v;
  v.reserve(m.vertices.size());
  for (const Vec3d& p : m.vertices) v.push_back(s.add_vertex(Kernel::Point_3(p[0], p[1], p[2])));
  for (const auto& t : m.triangles)
    if (s.add_face(v[t[0]], v[t[1]], v[t[2]]) == Mesh::null_face())
      throw std::runtime_error(m.name + ": CGAL's Surface_mesh refused a face (not manifold)");
  return s;
}

}  // namespace

bool cgal_hausdorff_available() { return true; }
std::string cgal_hausdorff_version() { return CGAL_STR(CGAL_VERSION); }

double cgal_hausdorff(const BenchMesh& a, const BenchMesh& b, double error_bound, bool symmetric,
                      double* call_ms) {
  namespace PMP = CGAL::Polygon_mesh_processing;
  const Mesh ma = to_surface_mesh(a), mb = to_surface_mesh(b);
  const auto start = std::chrono::steady_clock::now();
  const double d =
      symmetric ? PMP::bounded_error_symmetric_Hausdorff_distance<CGAL::Sequential_tag>(ma, mb, error_bound)
                : PMP::bounded_error_Hausdorff_distance<CGAL::Sequential_tag>(ma, mb, error_bound);
  if (call_ms)
    *call_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return d;
}

}  // namespace prox::bench
