// apps/distance_colour.cpp — the quality PLY and the distance picture (prox::image's viridis and bar).
#include "distance_colour.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "prox/image/annotate.hpp"

#include "prox/io/atomic_file.hpp"
#include "prox/mesh/batch.hpp"

namespace prox::cli {
namespace {

template <class V>
void put(std::ostream& out, V v) {
  char b[sizeof(V)];
  std::memcpy(b, &v, sizeof(V));  // little-endian host (x86-64, arm64)
  out.write(b, sizeof(V));
}

}  // namespace

void write_quality_ply(const std::string& path, const TriangleMesh<double>& mesh,
                       const std::vector<double>& distance, double max) {
  io::AtomicFile file(path);
  std::ostream& out = file.stream();
  out << "ply\nformat binary_little_endian 1.0\n"
      << fmt::format("comment prox hausdorff: quality = distance to the other mesh; colour = "
                     "viridis, 0 to {:.9g} (linear)\n",
                     max)
      << "element vertex " << mesh.num_vertices()
      << "\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\n"
         "property uchar green\nproperty uchar blue\nproperty float quality\n"
      << "element face " << mesh.num_triangles()
      << "\nproperty list uchar int vertex_indices\nend_header\n";
  for (std::size_t v = 0; v < mesh.num_vertices(); ++v) {
    const Vec3d& p = mesh.vertices()[v];
    for (int k = 0; k < 3; ++k) put(out, static_cast<float>(p[k]));
    const Rgb8 c = viridis(max > 0 ? distance[v] / max : 0.0);
    put(out, c.r);
    put(out, c.g);
    put(out, c.b);
    put(out, static_cast<float>(distance[v]));
  }
  for (const auto& t : mesh.triangles()) {
    put(out, std::uint8_t{3});
    for (int k = 0; k < 3; ++k) put(out, static_cast<std::int32_t>(t[k]));
  }
  file.commit();
}

Image render_distance_picture(const MeshIndex<double>& mesh, const Camera& camera,
                              const std::function<double(const Vec3d&)>& distance, double max,
                              int threads, const std::vector<std::string>& caption,
                              const std::string& bar_title) {
  const int w = camera.width, h = camera.height;
  const Rgb8 background{255, 255, 255};
  Image image = make_image(w, h, background);
  BatchOptions batch;
  batch.threads = threads;
  batch.grain = 512;
  const TriangleMesh<double>& m = mesh.mesh();
  std::vector<Rgb8> px(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), background);
  batch_for_each(px.size(), batch, [&](std::size_t i) {
    const int x = static_cast<int>(i % static_cast<std::size_t>(w));
    const int y = static_cast<int>(i / static_cast<std::size_t>(w));
    const Ray<double> ray = camera.ray(x, y);
    const MeshRayHit<double> hit = mesh.first_hit(ray);
    if (!hit.found()) return;
    const std::size_t tri = static_cast<std::size_t>(hit.triangle);
    const Vec3d a = m.corner(tri, 0);
    const Vec3d n = cross(m.corner(tri, 1) - a, m.corner(tri, 2) - a);
    const double nl = std::sqrt(squared_norm(n)), dl = std::sqrt(squared_norm(ray.direction));
    const double lambert = nl > 0 ? std::abs(dot(n, ray.direction)) / (nl * dl) : 1.0;
    const double light = 0.35 + 0.65 * lambert;
    const Rgb8 c = viridis(max > 0 ? distance(ray.at(hit.t)) / max : 0.0);
    px[i] = Rgb8{static_cast<std::uint8_t>(c.r * light), static_cast<std::uint8_t>(c.g * light),
                 static_cast<std::uint8_t>(c.b * light)};
  });
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) image.set(x, y, px[static_cast<std::size_t>(y) * w + x]);
  // prox::image's colour bar (0 at the bottom, max at the top) and caption.
  ColourBar bar;
  bar.title = bar_title;
  bar.lo = 0;
  bar.hi = max > 0 ? max : 1;
  const double top = bar.hi;
  bar.colour = [top](double v) { return viridis(v / top); };
  return annotate(image, caption, &bar);
}

}  // namespace prox::cli
