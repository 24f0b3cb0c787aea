// apps/render.cpp — mesh pictures by ray casting (see render.hpp).
#include "render.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "command.hpp"
#include "common.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/planar/field.hpp"

namespace prox::cli {
namespace {

Vec3d unit(const Vec3d& v) { return v / std::sqrt(squared_norm(v)); }

std::uint8_t to_byte(double x) {
  return static_cast<std::uint8_t>(std::lround(std::clamp(x, 0.0, 1.0) * 255.0));
}

const Rgb8 background{22, 24, 31};

Rgb8 hashed_colour(std::uint32_t id) {
  std::uint64_t z = id + 0x9e3779b97f4a7c15ull;  // splitmix64
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  // Keep colours away from the background: each channel in [64, 255].
  return Rgb8{static_cast<std::uint8_t>(64 + (z & 0xff) * 191 / 255),
              static_cast<std::uint8_t>(64 + ((z >> 8) & 0xff) * 191 / 255),
              static_cast<std::uint8_t>(64 + ((z >> 16) & 0xff) * 191 / 255)};
}

}  // namespace

RenderMode parse_render_mode(const std::string& text) {
  if (text == "depth") return RenderMode::depth;
  if (text == "normal") return RenderMode::normal;
  if (text == "distance") return RenderMode::distance;
  if (text == "id") return RenderMode::id;
  throw UsageError("--mode must be depth, normal, distance or id, not '" + text + "'");
}

const char* to_string(RenderMode mode) {
  switch (mode) {
    case RenderMode::depth: return "depth";
    case RenderMode::normal: return "normal";
    case RenderMode::distance: return "distance";
    case RenderMode::id: return "id";
  }
  return "?";
}

Vec3d parse_view(const std::string& text) {
  std::string t = text;
  double sign = 1;
  if (!t.empty() && (t[0] == '+' || t[0] == '-') && t.size() == 2) {
    sign = t[0] == '-' ? -1 : 1;
    t = t.substr(1);
  }
  if (t == "x") return Vec3d{sign, 0, 0};
  if (t == "y") return Vec3d{0, sign, 0};
  if (t == "z") return Vec3d{0, 0, sign};
  Vec3d v{0, 0, 0};
  std::size_t pos = 0;
  for (int a = 0; a < 3; ++a) {
    const std::size_t comma = text.find(',', pos);
    if ((a < 2) != (comma != std::string::npos)) {
      throw UsageError("--view must be +x, -x, +y, -y, +z, -z or DX,DY,DZ, not '" + text + "'");
    }
    const std::string part = text.substr(pos, a < 2 ? comma - pos : std::string::npos);
    try {
      std::size_t used = 0;
      v[a] = std::stod(part, &used);
      if (used != part.size()) throw std::invalid_argument("junk");
    } catch (const std::exception&) {
      throw UsageError("--view: bad number '" + part + "' in '" + text + "'");
    }
    pos = comma + 1;
  }
  if (!all_finite(v) || squared_norm(v) == 0) {
    throw UsageError("--view must be a non-zero direction, not '" + text + "'");
  }
  return v;
}

Ray<double> Camera::ray(int x, int y) const {
  const double sx = 2.0 * (x + 0.5) / width - 1.0;
  const double sy = 1.0 - 2.0 * (y + 0.5) / height;
  return Ray<double>{eye, forward + right * sx + up * sy};
}

Camera make_camera(const Box3<double>& bounds, const Vec3d& view, int width, int height,
                   double vfov_degrees) {
  const bool empty = bounds.is_empty();
  const Vec3d center = empty ? Vec3d::zero() : bounds.center();
  double diag = empty ? 1.0 : std::sqrt(squared_norm(bounds.diagonal()));
  if (!(diag > 0)) diag = 1.0;
  return look_at(center, view, diag, width, height, vfov_degrees);
}

Camera look_at(const Vec3d& target, const Vec3d& view, double distance, int width, int height,
               double vfov_degrees) {
  Camera c;
  c.width = width;
  c.height = height;
  const Vec3d dir = unit(view);
  c.focus = distance;
  c.eye = target + dir * distance;
  c.forward = -dir;
  Vec3d up_hint{0, 1, 0};
  if (std::abs(dir[1]) > 0.999 * std::sqrt(squared_norm(dir))) up_hint = Vec3d{0, 0, dir[1] > 0 ? -1.0 : 1.0};
  const Vec3d right = unit(cross(c.forward, up_hint));
  const Vec3d up = cross(right, c.forward);
  const double tan_half = std::tan(vfov_degrees * std::numbers::pi / 360.0);
  const double aspect = static_cast<double>(width) / height;
  c.right = right * (tan_half * aspect);
  c.up = up * tan_half;
  return c;
}

Image render_mesh(const MeshIndex<double>& index, const Camera& camera, RenderMode mode,
                  int threads, RenderStats* stats) {
  Timer timer;
  const std::size_t n = static_cast<std::size_t>(camera.width) * static_cast<std::size_t>(camera.height);
  Image image = make_image(camera.width, camera.height, background);
  BatchOptions batch;
  batch.threads = threads;
  std::size_t hits = 0;
  const std::string label = std::string("render ") + to_string(mode);
  if (mode == RenderMode::distance) {
    // Sample the plane through the centre facing the camera: t = focus on every ray.
    std::vector<Vec3d> points(n);
    for (int y = 0; y < camera.height; ++y)
      for (int x = 0; x < camera.width; ++x)
        points[static_cast<std::size_t>(y) * static_cast<std::size_t>(camera.width) + static_cast<std::size_t>(x)] =
            camera.ray(x, y).at(camera.focus);
    std::vector<MeshClosestPoint<double>> out(n);
    in_blocks(n, label, [&](std::size_t b, std::size_t e) {
      closest_points(index, std::span<const Vec3d>(points).subspan(b, e - b),
                     std::span<MeshClosestPoint<double>>(out).subspan(b, e - b),
                     ScalarTraits<double>::infinity(), batch);
    });
    planar::FieldOptions field;
    field.part = planar::Part::boundary;
    const double pixel = 2.0 * std::sqrt(squared_norm(camera.up)) * camera.focus / camera.height;
    field.scale = pixel;
    field.band_spacing = camera.focus / 16;
    field.falloff = camera.focus / 4;
    field.band_width = 1.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double d = std::sqrt(out[i].sq_distance);
      const int x = static_cast<int>(i % static_cast<std::size_t>(camera.width));
      const int y = static_cast<int>(i / static_cast<std::size_t>(camera.width));
      if (out[i].found()) {
        image.set(x, y, planar::field_color(d, field));
        ++hits;
      }
    }
  } else {
    std::vector<Ray<double>> rays(n);
    for (int y = 0; y < camera.height; ++y)
      for (int x = 0; x < camera.width; ++x)
        rays[static_cast<std::size_t>(y) * static_cast<std::size_t>(camera.width) + static_cast<std::size_t>(x)] = camera.ray(x, y);
    std::vector<MeshRayHit<double>> out(n);
    in_blocks(n, label, [&](std::size_t b, std::size_t e) {
      first_hits(index, std::span<const Ray<double>>(rays).subspan(b, e - b),
                 std::span<MeshRayHit<double>>(out).subspan(b, e - b), batch);
    });
    // Depth grey is the hit's rank among all hit depths (histogram
    // equalisation), so near-flat parts keep their relief.
    std::vector<double> depths;
    for (const MeshRayHit<double>& h : out)
      if (h.found()) depths.push_back(h.t);
    std::sort(depths.begin(), depths.end());
    const TriangleMesh<double>& mesh = index.mesh();
    for (std::size_t i = 0; i < n; ++i) {
      const MeshRayHit<double>& h = out[i];
      if (!h.found()) continue;
      ++hits;
      const int x = static_cast<int>(i % static_cast<std::size_t>(camera.width));
      const int y = static_cast<int>(i / static_cast<std::size_t>(camera.width));
      const std::size_t tri = static_cast<std::size_t>(h.triangle);
      if (mode == RenderMode::id) {
        image.set(x, y, hashed_colour(static_cast<std::uint32_t>(tri)));
        continue;
      }
      if (mode == RenderMode::depth) {
        const auto rank = std::lower_bound(depths.begin(), depths.end(), h.t) - depths.begin();
        const double g = 1.0 - static_cast<double>(rank) / static_cast<double>(depths.size());
        const std::uint8_t v = to_byte(0.12 + 0.88 * g);
        image.set(x, y, Rgb8{v, v, v});
        continue;
      }
      const Vec3d a = mesh.corner(tri, 0);
      Vec3d nrm = cross(mesh.corner(tri, 1) - a, mesh.corner(tri, 2) - a);
      const double len = std::sqrt(squared_norm(nrm));
      nrm = len > 0 ? nrm / len : Vec3d{0, 0, 1};
      const Vec3d d = unit(rays[i].direction);
      const double lambert = std::abs(dot(nrm, d));
      const double light = 0.25 + 0.75 * lambert;
      image.set(x, y, Rgb8{to_byte((0.5 + 0.5 * nrm[0]) * light), to_byte((0.5 + 0.5 * nrm[1]) * light),
                           to_byte((0.5 + 0.5 * nrm[2]) * light)});
    }
  }
  if (stats) {
    stats->ms = timer.ms();
    stats->hits = hits;
  }
  return image;
}

}  // namespace prox::cli
