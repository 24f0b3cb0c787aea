// The README's mesh example, compiled and run by the tests so that it stays true.
// Usage: prox-mesh-example [MESH]  (default: a built-in sphere of radius 1)
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include <prox/io/read_mesh.hpp>
#include <prox/io/shapes.hpp>
#include <prox/mesh.hpp>

int main(int argc, char** argv) try {
  prox::io::MeshData data = argc > 1 ? prox::io::read_mesh(argv[1]) : prox::io::make_sphere(1.0);
  prox::MeshIndex<double> index(prox::TriangleMesh<double>(data.vertices, data.triangles));

  const prox::Vec3d p{0.1, 0.2, 0.3};
  const auto cp = index.closest_point(p);  // point, sq_distance, triangle, bary, feature
  const prox::Ray<double> ray{{0, 0, 5}, {0, 0, -1}};
  const auto hit = index.first_hit(ray);           // t, triangle, u, v, front_face
  const std::size_t crossings = index.count_hits(ray);  // watertight: shared edges count once
  const auto sd = index.signed_distance(p);         // negative inside, with the winding number
  const auto near = index.sphere_triangles(p, 0.8);  // every triangle within 0.8 of p

  std::vector<prox::Vec3d> points{p, {2, 0, 0}, {0, 0, 0}};
  std::vector<prox::MeshClosestPoint<double>> results(points.size());
  prox::closest_points(index, std::span<const prox::Vec3d>(points),
                       std::span<prox::MeshClosestPoint<double>>(results),
                       prox::ScalarTraits<double>::infinity(), {.threads = 0});

  std::printf("closest point (%g, %g, %g) on triangle %d (%s), distance %g\n", cp.point[0],
              cp.point[1], cp.point[2], cp.triangle, prox::to_string(cp.feature),
              std::sqrt(cp.sq_distance));
  std::printf("ray hits triangle %d at t = %g (%s face), %zu crossings\n", hit.triangle, hit.t,
              hit.front_face ? "front" : "back", crossings);
  std::printf("signed distance %g, winding number %g, %zu triangles within 0.8\n",
              sd.signed_distance, sd.winding_number, near.size());
  std::printf("batch: %zu closest points, the second at distance %g\n", results.size(),
              std::sqrt(results[1].sq_distance));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "prox-mesh-example: %s\n", e.what());
  return 1;
}
