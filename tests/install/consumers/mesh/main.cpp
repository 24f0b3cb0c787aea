// A separate project that found prox::mesh: indexes a tetrahedron and queries it.
#include <cstdio>

#include <prox/mesh.hpp>

int main() {
  // The unit tetrahedron, outward-facing triangles.
  prox::TriangleMesh<double> mesh({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
                                  {{{0, 2, 1}}, {{0, 1, 3}}, {{0, 3, 2}}, {{1, 2, 3}}});
  const prox::MeshIndex<double> index(std::move(mesh));
  // Below the bottom face (z = 0, triangle 0): nearest point straight up, 2 away.
  const auto cp = index.closest_point({0.25, 0.25, -2.0});
  // A ray down the z axis through the inside crosses the surface twice.
  const std::size_t crossings = index.count_hits(prox::Ray<double>{{0.2, 0.2, 5}, {0, 0, -1}});
  std::printf("triangle=%d sq_distance=%g crossings=%zu\n", cp.triangle, cp.sq_distance,
              crossings);
  return cp.triangle == 0 && cp.sq_distance == 4.0 && crossings == 2 ? 0 : 1;
}
