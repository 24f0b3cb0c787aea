// bench/engine/workloads.cpp — WORKLOADS.md meshes and queries (see workloads.hpp).
#include "workloads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "mesh_source.hpp"

namespace prox::bench {
namespace {

double to_float(double x) { return static_cast<double>(static_cast<float>(x)); }

Vec3d to_float(const Vec3d& p) { return Vec3d{to_float(p[0]), to_float(p[1]), to_float(p[2])}; }

Vec3d normalized(const Vec3d& v) { return v / std::sqrt(squared_norm(v)); }

}  // namespace

double BenchMesh::diagonal() const { return std::sqrt(squared_norm(bounds.diagonal())); }

void BenchMesh::update_bounds() {
  bounds = Box3<double>::empty();
  for (const Vec3d& v : vertices) bounds.extend(v);
}

const std::vector<std::string>& mesh_names() {
  static const std::vector<std::string> names{"bunny", "armadillo", "bunny-1m", "soup-1m",
                                              "bunny-19m"};
  return names;
}

const std::vector<std::string>& workload_names() {
  static const std::vector<std::string> names{"cp-near", "cp-far", "ray-primary",
                                              "ray-random"};
  return names;
}

bool is_ray_workload(const std::string& workload) { return workload.rfind("ray-", 0) == 0; }

std::string resolve_data_dir(const std::string& given) {
  namespace fs = std::filesystem;
  if (!given.empty()) return given;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const fs::path cache = xdg && *xdg ? fs::path(xdg) : fs::path(home ? home : "/tmp") / ".cache";
  const fs::path root = cache / "prox" / "cgal-data";
  const fs::path meshes = root / "data" / "meshes";
  if (fs::exists(meshes / "bunny00.off") && fs::exists(meshes / "armadillo.off")) {
    return meshes.string();
  }
  const std::string archive = "/usr/share/doc/libcgal-dev/data.tar.gz";
  if (!fs::exists(archive)) {
    throw std::runtime_error("no --data given and " + archive +
                             " is missing (install libcgal-dev)");
  }
  fs::create_directories(root);
  // tar is the tool for a .tar.gz; a second copy of its logic here would only rot.
  const std::string cmd = "tar xzf '" + archive + "' -C '" + root.string() +
                          "' data/meshes/bunny00.off data/meshes/armadillo.off";
  if (std::system(cmd.c_str()) != 0) {
    throw std::runtime_error("could not extract meshes: " + cmd);
  }
  return meshes.string();
}

BenchMesh subdivide_midpoints(const BenchMesh& mesh) {
  BenchMesh out;
  out.name = mesh.name;
  out.vertices = mesh.vertices;
  out.triangles.reserve(mesh.triangles.size() * 4);
  std::unordered_map<std::uint64_t, std::uint32_t> midpoint_of;
  midpoint_of.reserve(mesh.triangles.size() * 2);
  auto midpoint = [&](std::uint32_t a, std::uint32_t b) {
    const std::uint64_t key = (std::uint64_t{std::min(a, b)} << 32) | std::max(a, b);
    const auto [it, inserted] =
        midpoint_of.try_emplace(key, static_cast<std::uint32_t>(out.vertices.size()));
    if (inserted) out.vertices.push_back(to_float((out.vertices[a] + out.vertices[b]) * 0.5));
    return it->second;
  };
  for (const auto& t : mesh.triangles) {
    const std::uint32_t m01 = midpoint(t[0], t[1]);
    const std::uint32_t m12 = midpoint(t[1], t[2]);
    const std::uint32_t m20 = midpoint(t[2], t[0]);
    out.triangles.push_back({t[0], m01, m20});
    out.triangles.push_back({m01, t[1], m12});
    out.triangles.push_back({m20, m12, t[2]});
    out.triangles.push_back({m01, m12, m20});
  }
  out.update_bounds();
  return out;
}

BenchMesh make_soup(std::size_t count) {
  BenchMesh out;
  out.name = "soup-1m";
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> offset(-0.01, 0.01);
  out.vertices.reserve(count * 3);
  out.triangles.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const Vec3d c{unit(rng), unit(rng), unit(rng)};
    for (int k = 0; k < 3; ++k) {
      Vec3d d;
      do {  // uniform in the ball of radius 0.01: "corners within 0.01 of the center"
        d = Vec3d{offset(rng), offset(rng), offset(rng)};
      } while (squared_norm(d) > 1e-4);
      out.vertices.push_back(to_float(c + d));
    }
    const auto base = static_cast<std::uint32_t>(3 * i);
    out.triangles.push_back({base, base + 1, base + 2});
  }
  out.update_bounds();
  return out;
}

BenchMesh make_mesh(const std::string& name, const std::string& data_dir) {
  namespace fs = std::filesystem;
  auto load = [&](const std::string& file) {
    fs::path path = fs::path(data_dir) / file;
    if (!fs::exists(path) && fs::exists(fs::path(data_dir) / "meshes" / file)) {
      path = fs::path(data_dir) / "meshes" / file;
    }
    BenchMesh m = load_mesh_file(path.string());
    for (Vec3d& v : m.vertices) v = to_float(v);
    m.update_bounds();
    return m;
  };
  BenchMesh m;
  if (name == "bunny") {
    m = load("bunny00.off");
  } else if (name == "armadillo") {
    m = load("armadillo.off");
  } else if (name == "bunny-1m") {
    m = subdivide_midpoints(subdivide_midpoints(load("bunny00.off")));
  } else if (name == "bunny-19m") {
    // The scale test (issue 9): split until at least 10M triangles (4 times: 19,304,448).
    m = load("bunny00.off");
    while (m.triangles.size() < 10'000'000) m = subdivide_midpoints(m);
  } else if (name == "soup-1m") {
    m = make_soup(1000000);
  } else {
    throw std::runtime_error("unknown mesh '" + name +
                             "' (known: bunny, armadillo, bunny-1m, soup-1m, bunny-19m)");
  }
  m.name = name;
  return m;
}

std::vector<Vec3d> make_point_queries(const BenchMesh& mesh, const std::string& workload,
                                      std::size_t count) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Vec3d> points;
  points.reserve(count);
  if (workload == "cp-near") {
    std::vector<double> cumulative(mesh.triangles.size());
    double total = 0;
    for (std::size_t i = 0; i < mesh.triangles.size(); ++i) {
      const auto& t = mesh.triangles[i];
      const Vec3d& a = mesh.vertices[t[0]];
      total += 0.5 * std::sqrt(squared_norm(cross(mesh.vertices[t[1]] - a,
                                                  mesh.vertices[t[2]] - a)));
      cumulative[i] = total;
    }
    std::normal_distribution<double> offset(0.0, 0.01 * mesh.diagonal());
    for (std::size_t i = 0; i < count; ++i) {
      const double pick = unit(rng) * total;
      const std::size_t tri = std::min<std::size_t>(
          std::upper_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin(),
          cumulative.size() - 1);
      double r1 = unit(rng), r2 = unit(rng);
      if (r1 + r2 > 1) {
        r1 = 1 - r1;
        r2 = 1 - r2;
      }
      const auto& t = mesh.triangles[tri];
      const Vec3d& a = mesh.vertices[t[0]];
      const Vec3d s = a + (mesh.vertices[t[1]] - a) * r1 + (mesh.vertices[t[2]] - a) * r2;
      const Vec3d d{offset(rng), offset(rng), offset(rng)};
      points.push_back(to_float(s + d));
    }
  } else if (workload == "cp-far") {
    const Vec3d c = mesh.bounds.center();
    const Vec3d e = mesh.bounds.diagonal();  // the box scaled 2x: c +- e
    for (std::size_t i = 0; i < count; ++i) {
      const double x = unit(rng), y = unit(rng), z = unit(rng);
      points.push_back(to_float(c + Vec3d{(2 * x - 1) * e[0], (2 * y - 1) * e[1],
                                          (2 * z - 1) * e[2]}));
    }
  } else {
    throw std::runtime_error("unknown point workload '" + workload + "'");
  }
  return points;
}

std::size_t primary_image_side(std::size_t count) {
  const double side = 1024.0 * std::sqrt(static_cast<double>(count) / 1e6);
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::lround(side)));
}

std::vector<Ray<double>> make_ray_queries(const BenchMesh& mesh, const std::string& workload,
                                          std::size_t count) {
  std::vector<Ray<double>> rays;
  if (workload == "ray-primary") {
    const std::size_t side = primary_image_side(count);
    const Vec3d eye = to_float(mesh.bounds.center() + Vec3d{0, 0, mesh.diagonal()});
    const double half = std::tan(std::numbers::pi / 6);  // 60 degree vertical field of view
    rays.reserve(side * side);
    for (std::size_t row = 0; row < side; ++row) {
      for (std::size_t col = 0; col < side; ++col) {
        const double x = (2 * (static_cast<double>(col) + 0.5) / static_cast<double>(side) - 1);
        const double y = (1 - 2 * (static_cast<double>(row) + 0.5) / static_cast<double>(side));
        const Vec3d dir = to_float(normalized(Vec3d{x * half, y * half, -1.0}));
        rays.push_back(Ray<double>{eye, dir});
      }
    }
  } else if (workload == "ray-random") {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const Vec3d lo = mesh.bounds.lo, ext = mesh.bounds.diagonal();
    rays.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      const double x = unit(rng), y = unit(rng), z = unit(rng);
      const Vec3d o = to_float(lo + Vec3d{x * ext[0], y * ext[1], z * ext[2]});
      const double cz = 2 * unit(rng) - 1;  // uniform on the sphere (Archimedes)
      const double phi = 2 * std::numbers::pi * unit(rng);
      const double r = std::sqrt(std::max(0.0, 1 - cz * cz));
      rays.push_back(Ray<double>{o, to_float(Vec3d{r * std::cos(phi), r * std::sin(phi), cz})});
    }
  } else {
    throw std::runtime_error("unknown ray workload '" + workload + "'");
  }
  return rays;
}

}  // namespace prox::bench
