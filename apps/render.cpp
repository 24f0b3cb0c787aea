// apps/render.cpp — mesh pictures by ray casting (see render.hpp).
#include "render.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <cmath>
#include <numbers>
#include <vector>

#include "command.hpp"
#include "common.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/sign.hpp"
#include "prox/primitives/closest_point_triangle.hpp"
#include "prox/planar/field.hpp"

#include <fmt/format.h>

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

// "X,Y,Z" -> the vector; UsageError `shape_error` unless there are exactly
// three comma-separated parts, "OPTION: bad number ..." for a part that is not one.
Vec3d parse_triple(const std::string& text, const std::string& option,
                   const std::string& shape_error) {
  Vec3d v{0, 0, 0};
  std::size_t pos = 0;
  for (int a = 0; a < 3; ++a) {
    const std::size_t comma = text.find(',', pos);
    if ((a < 2) != (comma != std::string::npos)) throw UsageError(shape_error);
    const std::string part = text.substr(pos, a < 2 ? comma - pos : std::string::npos);
    try {
      std::size_t used = 0;
      v[a] = std::stod(part, &used);
      if (used != part.size()) throw std::invalid_argument("junk");
    } catch (const std::exception&) {
      throw UsageError(option + ": bad number '" + part + "' in '" + text + "'");
    }
    pos = comma + 1;
  }
  return v;
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
  const Vec3d v = parse_triple(
      text, "--view", "--view must be +x, -x, +y, -y, +z, -z or DX,DY,DZ, not '" + text + "'");
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

namespace {

// The one camera builder: eye, unit forward, focus, and an up hint not parallel
// to forward; right and up scaled by tan(vfov / 2) (right also by the aspect).
Camera frame(const Vec3d& eye, const Vec3d& forward, double focus, const Vec3d& right_unit,
             int width, int height, double vfov_degrees) {
  Camera c;
  c.width = width;
  c.height = height;
  c.eye = eye;
  c.focus = focus;
  c.forward = forward;
  const Vec3d up = cross(right_unit, forward);
  const double tan_half = std::tan(vfov_degrees * std::numbers::pi / 360.0);
  const double aspect = static_cast<double>(width) / height;
  c.right = right_unit * (tan_half * aspect);
  c.up = up * tan_half;
  return c;
}

}  // namespace

Camera look_at(const Vec3d& target, const Vec3d& view, double distance, int width, int height,
               double vfov_degrees) {
  const Vec3d dir = unit(view);
  const Vec3d forward = -dir;
  Vec3d up_hint{0, 1, 0};
  if (std::abs(dir[1]) > 0.999 * std::sqrt(squared_norm(dir))) up_hint = Vec3d{0, 0, dir[1] > 0 ? -1.0 : 1.0};
  return frame(target + dir * distance, forward, distance, unit(cross(forward, up_hint)), width,
               height, vfov_degrees);
}

Vec3d parse_point(const std::string& text, const std::string& option) {
  const Vec3d v =
      parse_triple(text, option, option + " must be three numbers X,Y,Z, not '" + text + "'");
  if (!all_finite(v)) throw UsageError(option + " must be finite, not '" + text + "'");
  return v;
}

Camera look_at_camera(const Vec3d& eye, const Vec3d& target, const Vec3d& up_hint, int width,
                      int height, double vfov_degrees) {
  if (!(vfov_degrees > 0 && vfov_degrees < 180))
    throw UsageError("--fov must be between 0 and 180 degrees (exclusive)");
  const Vec3d view = target - eye;
  const double dist = std::sqrt(squared_norm(view));
  if (!(dist > 0) || !std::isfinite(dist)) throw UsageError("--eye and --target must differ");
  const Vec3d forward = view / dist;
  const Vec3d r = cross(forward, up_hint);
  const double rl = std::sqrt(squared_norm(r));
  if (!(rl > 1e-12 * std::sqrt(squared_norm(up_hint))) || !(rl > 0))
    throw UsageError("--up must not be parallel to the view direction (or zero)");
  return frame(eye, forward, dist, r / rl, width, height, vfov_degrees);
}

RenderBuffers cast_camera(const MeshIndex<double>& index, const Camera& camera, int threads) {
  RenderBuffers b;
  b.width = camera.width;
  b.height = camera.height;
  const std::size_t n = static_cast<std::size_t>(camera.width) * static_cast<std::size_t>(camera.height);
  std::vector<Ray<double>> rays(n);
  for (int y = 0; y < camera.height; ++y)
    for (int x = 0; x < camera.width; ++x)
      rays[static_cast<std::size_t>(y) * static_cast<std::size_t>(camera.width) +
           static_cast<std::size_t>(x)] = camera.ray(x, y);
  std::vector<MeshRayHit<double>> hits(n);
  BatchOptions batch;
  batch.threads = threads;
  first_hits(index, std::span<const Ray<double>>(rays), std::span<MeshRayHit<double>>(hits), batch);
  b.depth.resize(n);
  b.ids.resize(n);
  b.normals.assign(3 * n, std::nan(""));
  const TriangleMesh<double>& mesh = index.mesh();
  for (std::size_t i = 0; i < n; ++i) {
    b.depth[i] = hits[i].t;
    b.ids[i] = hits[i].triangle;
    if (!hits[i].found()) continue;
    const auto tri = static_cast<std::size_t>(hits[i].triangle);
    const Vec3d a = mesh.corner(tri, 0);
    const Vec3d g = cross(mesh.corner(tri, 1) - a, mesh.corner(tri, 2) - a);
    const double len = std::sqrt(squared_norm(g));
    if (len > 0 && std::isfinite(len))
      for (int k = 0; k < 3; ++k) b.normals[3 * i + std::size_t(k)] = g[k] / len;
  }
  return b;
}

std::vector<double> camera_rays(const Camera& camera) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(camera.width) * static_cast<std::size_t>(camera.height) * 6);
  for (int y = 0; y < camera.height; ++y)
    for (int x = 0; x < camera.width; ++x) {
      const Ray<double> r = camera.ray(x, y);
      out.insert(out.end(), {r.origin[0], r.origin[1], r.origin[2], r.direction[0],
                             r.direction[1], r.direction[2]});
    }
  return out;
}

Image render_mesh(const MeshIndex<double>& index, const Camera& camera, RenderMode mode,
                  int threads, RenderStats* stats) {
  RenderOptions o;
  o.mode = mode;
  o.threads = threads;
  o.silhouette = false;
  return render_mesh(index, camera, o, stats, nullptr);
}

namespace {

// The slice's values, row-major, in blocks of kRows rows run in parallel.
// Inside a block every pixel starts from a neighbour's answer (its left
// neighbour; a row's first pixel, the one above): |d(p) - d(q)| <= |p - q|, so
// the neighbour's distance plus their separation bounds the search, and so does
// the distance from p to the neighbour's closest triangle, which is usually far
// tighter (the bounds of prox/mesh/sdf_grid.hpp, widened by 1e-12 relative).
// A bound is never below the true distance, and a search that misses is run
// again unbounded, so every pixel is the unbounded query's answer, bit for bit.
// The sign (optional) is SignedMesh::sign of that closest point.
// (signed_distance_grid itself does not fit: its grids are axis-aligned and
// signed, parallel by z-planes; the slice faces any camera, unsigned by default.)
std::vector<double> slice_values(const MeshIndex<double>& index,
                                 const SignedMesh<MeshIndex<double>>* sm,
                                 const std::vector<Vec3d>& points, int width, int height,
                                 const BatchOptions& batch, const std::string& label) {
  constexpr std::size_t kRows = 8;
  constexpr double kWiden = 1.0 + 1e-12;
  const auto w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
  std::vector<double> out(points.size(), ScalarTraits<double>::quiet_nan());
  const TriangleMesh<double>& mesh = index.mesh();
  const std::size_t blocks = (h + kRows - 1) / kRows;
  Progress progress(label, points.size());
  std::atomic<std::size_t> done{0};
  std::mutex progress_lock;
  BatchOptions per_block = batch;
  per_block.grain = 1;
  batch_for_each(blocks, per_block, [&](std::size_t block) {
    std::vector<double> dist(w, ScalarTraits<double>::infinity());
    std::vector<std::int32_t> tri(w, -1);
    const std::size_t y0 = block * kRows, y1 = std::min(h, y0 + kRows);
    for (std::size_t y = y0; y < y1; ++y) {
      for (std::size_t x = 0; x < w; ++x) {
        const std::size_t i = y * w + x;
        const Vec3d& p = points[i];
        // The neighbour: left, or (first pixel of a row) the one above.
        const bool left = x > 0, above = x == 0 && y > y0;
        double r = ScalarTraits<double>::infinity();
        if (left || above) {
          const std::size_t q = left ? i - 1 : i - w;
          const std::size_t slot = left ? x - 1 : 0;
          if (tri[slot] >= 0) {
            const double step = std::sqrt(squared_norm(p - points[q])) * kWiden;
            r = (dist[slot] + step) * kWiden + 1e-300;
            const auto t = std::size_t(tri[slot]);
            const double sq =
                closest_point_triangle(p, mesh.corner(t, 0), mesh.corner(t, 1), mesh.corner(t, 2))
                    .sq_distance;
            r = std::min(r, std::sqrt(sq) * kWiden + 1e-300);
          }
        }
        MeshClosestPoint<double> cp = index.closest_point(p, r);
        if (!cp.found() && std::isfinite(r)) cp = index.closest_point(p);  // never trust a miss
        dist[x] = cp.found() ? std::sqrt(cp.sq_distance) : ScalarTraits<double>::infinity();
        tri[x] = cp.triangle;
        if (!cp.found()) continue;
        out[i] = sm ? sm->sign(p, cp).signed_distance : dist[x];
      }
      const std::size_t now = done.fetch_add(w) + w;
      if (progress_lock.try_lock()) {  // Progress is one thread's at a time
        progress.update(now);
        progress_lock.unlock();
      }
    }
  });
  return out;
}

Rgb8 blend(Rgb8 a, Rgb8 b, double t) {
  auto m = [t](std::uint8_t x, std::uint8_t y) {
    return static_cast<std::uint8_t>(std::lround(x + (y - x) * t));
  };
  return Rgb8{m(a.r, b.r), m(a.g, b.g), m(a.b, b.b)};
}

}  // namespace

Image render_mesh(const MeshIndex<double>& index, const Camera& camera, const RenderOptions& options,
                  RenderStats* stats, RenderLegend* legend) {
  const RenderMode mode = options.mode;
  const int threads = options.threads;
  Timer timer;
  const std::size_t n = static_cast<std::size_t>(camera.width) * static_cast<std::size_t>(camera.height);
  Image image = make_image(camera.width, camera.height, background);
  BatchOptions batch;
  batch.threads = threads;
  std::size_t hits = 0;
  const std::string label = std::string("render ") + to_string(mode);
  if (mode == RenderMode::distance) {
    // Sample the plane facing the camera: t = focus - offset on every ray
    // (|forward| = 1, so that is the plane at that depth along the view axis).
    const double depth = camera.focus - options.offset;
    std::vector<Vec3d> points(n);
    for (int y = 0; y < camera.height; ++y)
      for (int x = 0; x < camera.width; ++x)
        points[static_cast<std::size_t>(y) * static_cast<std::size_t>(camera.width) + static_cast<std::size_t>(x)] =
            camera.ray(x, y).at(depth);
    std::unique_ptr<SignedMesh<MeshIndex<double>>> sm;
    if (options.signed_distance) {
      sm = std::make_unique<SignedMesh<MeshIndex<double>>>(index);
      if (sm->method() == SignMethod::none)
        throw std::runtime_error("the mesh has no inside (" + sm->diagnostics().verdict() +
                                 "): --signed is undefined; drop it for the unsigned slice");
    }
    std::vector<double> values =
        slice_values(index, sm.get(), points, camera.width, camera.height, batch, label);
    planar::FieldOptions field;
    field.part = options.signed_distance ? planar::Part::solid : planar::Part::boundary;
    const double pixel = 2.0 * std::sqrt(squared_norm(camera.up)) * depth / camera.height;
    field.scale = pixel;
    field.band_spacing = camera.focus / 16;
    field.falloff = camera.focus / 4;
    field.band_width = 1.0;
    double lo = ScalarTraits<double>::infinity(), hi = -ScalarTraits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
      const double d = values[i];
      const int x = static_cast<int>(i % static_cast<std::size_t>(camera.width));
      const int y = static_cast<int>(i / static_cast<std::size_t>(camera.width));
      if (std::isfinite(d)) {
        lo = std::min(lo, d);
        hi = std::max(hi, d);
        image.set(x, y, planar::field_color(d, field));
        ++hits;
      }
    }
    if (!(lo <= hi)) lo = hi = 0;
    if (options.silhouette) {
      // The mesh's outline as seen from the eye, faint, for orientation.
      const RenderBuffers b = cast_camera(index, camera, threads);
      const int w = camera.width;
      for (int y = 0; y < camera.height; ++y)
        for (int x = 0; x < w; ++x) {
          const bool in = b.ids[std::size_t(y) * std::size_t(w) + std::size_t(x)] >= 0;
          const bool edge =
              (x + 1 < w && (b.ids[std::size_t(y) * std::size_t(w) + std::size_t(x + 1)] >= 0) != in) ||
              (y + 1 < camera.height &&
               (b.ids[std::size_t(y + 1) * std::size_t(w) + std::size_t(x)] >= 0) != in);
          if (edge) image.set(x, y, blend(image.at(x, y), Rgb8{255, 255, 255}, 0.45));
        }
    }
    if (stats) {
      stats->min_distance = hits ? lo : 0;
      stats->max_distance = hits ? hi : 0;
      if (sm) stats->sign_method = to_string(sm->method());
      stats->distances = std::move(values);
    }
    if (legend) {
      legend->what = fmt::format("{} distance on the plane {} from the eye{} · bands every {}",
                                 options.signed_distance
                                     ? fmt::format("signed (negative inside, {} sign)",
                                                   to_string(sm->method()))
                                     : std::string("unsigned"),
                                 label_number(depth),
                                 options.silhouette ? " · outline: the mesh" : "",
                                 label_number(field.band_spacing));
      legend->has_bar = true;
      legend->bar.title = fmt::format("{} distance, mesh units ({} to {} in the picture)",
                                      options.signed_distance ? "signed" : "unsigned",
                                      label_number(lo), label_number(hi));
      const double top = std::max(std::fabs(lo), std::fabs(hi));
      legend->bar.lo = options.signed_distance ? -top : 0;
      legend->bar.hi = top > 0 ? top : 1;
      legend->bar.colour = [field](double v) { return planar::field_color(v, field); };
      if (options.signed_distance) legend->bar.marks = {0.0};
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
    double dmin = ScalarTraits<double>::infinity(), dmax = -ScalarTraits<double>::infinity();
    for (const MeshRayHit<double>& h : out)
      if (h.found()) {
        dmin = std::min(dmin, h.t);
        dmax = std::max(dmax, h.t);
      }
    if (!(dmin <= dmax)) dmin = dmax = 0;
    // Depth: grey linear in t between the nearest and farthest hit (a true
    // depth scale, read off the colour bar): near white, far dark.
    const double span = dmax > dmin ? dmax - dmin : 1;
    auto depth_grey = [dmin, span](double t) {
      const std::uint8_t v = to_byte(1.0 - 0.85 * std::clamp((t - dmin) / span, 0.0, 1.0));
      return Rgb8{v, v, v};
    };
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
        image.set(x, y, depth_grey(h.t));
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
    if (stats) {
      stats->min_depth = dmin;
      stats->max_depth = dmax;
    }
    if (legend) {
      const double pct = 100.0 * static_cast<double>(hits) / static_cast<double>(n ? n : 1);
      switch (mode) {
        case RenderMode::depth:
          legend->what = fmt::format("depth along the view axis · {:.1f}% of pixels hit", pct);
          legend->has_bar = true;
          legend->bar.title = "depth t along the view axis, mesh units (near white, far dark)";
          legend->bar.lo = dmin;
          legend->bar.hi = dmax > dmin ? dmax : dmin + 1;
          legend->bar.colour = depth_grey;
          break;
        case RenderMode::id:
          legend->what = fmt::format("triangle ids (hashed colours) · {:.1f}% of pixels hit", pct);
          break;
        default:
          legend->what =
              fmt::format("face normals (x, y, z as red, green, blue; lit from the eye) · {:.1f}% of "
                          "pixels hit",
                          pct);
      }
    }
  }
  if (stats) {
    stats->ms = timer.ms();
    stats->hits = hits;
  }
  return image;
}

Image annotate_field(const Image& picture, const std::string& scene_name, std::size_t shapes,
                     const std::vector<double>& field, const planar::FieldOptions& options) {
  double lo = ScalarTraits<double>::infinity(), hi = -ScalarTraits<double>::infinity();
  for (const double d : field)
    if (std::isfinite(d)) {
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
  if (!(lo <= hi)) lo = hi = 0;
  const bool solid = options.part == planar::Part::solid;
  ColourBar bar;
  bar.title = fmt::format("{} distance, scene units ({} to {} in the picture)",
                          solid ? "signed" : "unsigned", label_number(lo), label_number(hi));
  const double top = std::max(std::fabs(lo), std::fabs(hi));
  bar.lo = solid ? std::min(lo, 0.0) : 0;
  bar.hi = top > 0 ? hi : 1;
  bar.colour = [options](double v) { return planar::field_color(v, options); };
  if (solid) bar.marks = {0.0};
  std::vector<std::string> caption{fmt::format(
      "{} · {} shapes · {}{} · {} scene units per pixel", scene_name, shapes,
      solid ? "signed distance to the solids (negative inside, blue)"
            : "unsigned distance to the outlines",
      options.band_spacing > 0 ? " · bands every " + label_number(options.band_spacing) : "",
      label_number(options.scale))};
  return annotate(picture, caption, &bar);
}

Image annotate_render(const Image& picture, const std::string& mesh_name, const Camera& camera,
                      const RenderLegend& legend) {
  const Vec3d f = camera.forward;
  std::vector<std::string> caption{
      mesh_name + " · " + legend.what,
      fmt::format("eye ({}, {}, {}) looking along ({}, {}, {})", label_number(camera.eye[0]),
                  label_number(camera.eye[1]), label_number(camera.eye[2]), label_number(f[0]),
                  label_number(f[1]), label_number(f[2]))};
  return annotate(picture, caption, legend.has_bar ? &legend.bar : nullptr);
}

}  // namespace prox::cli
