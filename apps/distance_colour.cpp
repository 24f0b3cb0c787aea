// apps/distance_colour.cpp — viridis colouring, quality PLY and the distance picture.
#include "distance_colour.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "prox/io/atomic_file.hpp"
#include "prox/mesh/batch.hpp"

namespace prox::cli {
namespace {

constexpr std::uint8_t kViridis[9][3] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},
                                         {44, 113, 142}, {33, 144, 141}, {39, 173, 129},
                                         {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};

// 3x5 pixel glyphs (rows top to bottom, 3 bits each, high bit left) for labels.
struct Glyph {
  char c;
  std::uint8_t rows[5];
};
constexpr Glyph kFont[] = {
    {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}},
    {'3', {7, 1, 7, 1, 7}}, {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}},
    {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 1, 1}}, {'8', {7, 5, 7, 5, 7}},
    {'9', {7, 5, 7, 1, 7}}, {'.', {0, 0, 0, 0, 2}}, {'-', {0, 0, 7, 0, 0}},
    {'+', {0, 2, 7, 2, 0}}, {'e', {0, 7, 7, 4, 7}}, {' ', {0, 0, 0, 0, 0}}};

/// Draws text with its top-left corner at (x, y), each font pixel `scale` wide.
void draw_text(Image& image, int x, int y, const std::string& text, int scale, Rgb8 colour) {
  for (char ch : text) {
    const Glyph* g = nullptr;
    for (const Glyph& f : kFont)
      if (f.c == ch) g = &f;
    if (g)
      for (int r = 0; r < 5; ++r)
        for (int c = 0; c < 3; ++c)
          if (g->rows[r] & (4 >> c))
            for (int dy = 0; dy < scale; ++dy)
              for (int dx = 0; dx < scale; ++dx) {
                const int px = x + c * scale + dx, py = y + r * scale + dy;
                if (px >= 0 && py >= 0 && px < image.width && py < image.height)
                  image.set(px, py, colour);
              }
    x += 4 * scale;
  }
}

template <class V>
void put(std::ostream& out, V v) {
  char b[sizeof(V)];
  std::memcpy(b, &v, sizeof(V));  // little-endian host (x86-64, arm64)
  out.write(b, sizeof(V));
}

}  // namespace

Rgb8 viridis(double t) {
  if (std::isnan(t)) return Rgb8{128, 128, 128};
  t = std::clamp(t, 0.0, 1.0) * 8.0;
  const int i = std::min(static_cast<int>(t), 7);
  const double f = t - i;
  auto mix = [&](int k) {
    return static_cast<std::uint8_t>(std::lround(kViridis[i][k] * (1 - f) + kViridis[i + 1][k] * f));
  };
  return Rgb8{mix(0), mix(1), mix(2)};
}

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
                              int threads) {
  const int w = camera.width, h = camera.height;
  const int bar = std::max(90, w / 6);  // colour bar panel on the right
  Image image = make_image(w + bar, h, Rgb8{255, 255, 255});
  BatchOptions batch;
  batch.threads = threads;
  batch.grain = 512;
  const TriangleMesh<double>& m = mesh.mesh();
  std::vector<Rgb8> px(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), Rgb8{255, 255, 255});
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
  // Colour bar: max at the top, 0 at the bottom, labels beside it.
  const int top = h / 10, bottom = h - h / 10, x0 = w + 6, x1 = w + 6 + bar / 4;
  for (int y = top; y <= bottom; ++y) {
    const Rgb8 c = viridis(double(bottom - y) / double(bottom - top));
    for (int x = x0; x <= x1; ++x) image.set(x, y, c);
  }
  const int scale = std::max(1, h / 300);
  const Rgb8 ink{0, 0, 0};
  for (int k = 0; k <= 2; ++k) {
    const int y = bottom - (bottom - top) * k / 2;
    for (int x = x1 + 1; x <= x1 + 4; ++x) image.set(x, y, ink);
    draw_text(image, x1 + 6, y - 2 * scale, fmt::format("{:.2e}", max * k / 2), scale, ink);
  }
  return image;
}

}  // namespace prox::cli
