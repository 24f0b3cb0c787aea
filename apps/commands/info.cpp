// apps/commands/info.cpp — `prox info MESH`: what is in a mesh file and what its index costs.
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "prox/io/load_index.hpp"
#include "prox/io/mesh_topology.hpp"
#include "prox/io/read_mesh.hpp"
#include "prox/mesh/diagnostics.hpp"
#include "prox/mesh/isa.hpp"

namespace prox::cli {

namespace {

void print_bounds(std::ostream& out, const Box3<double>& box) {
  if (box.is_empty()) {
    out << "bounds        empty\n";
    return;
  }
  const Vec3d d = box.diagonal();
  out << fmt::format("bounds        min ({:.6g}, {:.6g}, {:.6g})  max ({:.6g}, {:.6g}, {:.6g})\n",
                     box.lo[0], box.lo[1], box.lo[2], box.hi[0], box.hi[1], box.hi[2]);
  out << fmt::format("size          {:.6g} x {:.6g} x {:.6g} (diagonal {:.6g})\n", d[0], d[1], d[2],
                     std::sqrt(squared_norm(d)));
}

/// Boundary edges left once corners closer than `tolerance` are merged (union-find over
/// cells of side `tolerance`; each corner checks the 27 cells around it).
std::size_t boundary_edges_after_weld(const io::MeshData& data, double tolerance) {
  const std::size_t n = data.vertices.size();
  std::vector<std::uint32_t> parent(n);
  for (std::size_t i = 0; i < n; ++i) parent[i] = std::uint32_t(i);
  auto find = [&](std::uint32_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  };
  using Cell = std::array<std::int64_t, 3>;
  std::map<Cell, std::vector<std::uint32_t>> cells;
  auto cell_of = [&](const Vec3d& v) {
    return Cell{std::int64_t(std::floor(v[0] / tolerance)), std::int64_t(std::floor(v[1] / tolerance)),
                std::int64_t(std::floor(v[2] / tolerance))};
  };
  for (std::size_t i = 0; i < n; ++i) cells[cell_of(data.vertices[i])].push_back(std::uint32_t(i));
  const double tol2 = tolerance * tolerance;
  for (std::size_t i = 0; i < n; ++i) {
    const Cell c = cell_of(data.vertices[i]);
    for (std::int64_t dx = -1; dx <= 1; ++dx)
      for (std::int64_t dy = -1; dy <= 1; ++dy)
        for (std::int64_t dz = -1; dz <= 1; ++dz) {
          const auto it = cells.find(Cell{c[0] + dx, c[1] + dy, c[2] + dz});
          if (it == cells.end()) continue;
          for (const std::uint32_t j : it->second)
            if (j < i && squared_norm(data.vertices[i] - data.vertices[j]) <= tol2)
              parent[find(std::uint32_t(i))] = find(j);
        }
  }
  io::MeshData welded;
  welded.vertices = data.vertices;
  welded.triangles.reserve(data.triangles.size());
  for (const auto& t : data.triangles)
    welded.triangles.push_back({find(t[0]), find(t[1]), find(t[2])});
  return io::analyze_topology(welded).boundary_edges;
}

}  // namespace

Runner setup_info(CLI::App& app) {
  struct Options {
    std::string mesh;
    int threads = 0;
  };
  auto o = std::make_shared<Options>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  add_threads_option(app, o->threads);
  app.footer("Example: prox info bunny.off");
  return [o]() {
    // Read first: a file of points (vertices, no triangles) is described, not refused.
    Timer read_timer;
    io::MeshData data = io::read_mesh(o->mesh);
    const double read_ms = read_timer.ms();
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(o->mesh, ec);
    const std::optional<io::MeshFormat> file_format = io::format_from_extension(o->mesh);
    const std::string format = file_format ? io::to_string(*file_format) : "?";
    // The report is printed whole at the end: a mesh that fails to index prints nothing.
    std::ostringstream out;
    out << fmt::format("mesh          {} ({}, {})\n", o->mesh, format, ec ? "?" : human_bytes(bytes));
    out << fmt::format("vertices      {}\n", with_commas(data.vertices.size()));
    out << fmt::format("triangles     {}", with_commas(data.triangles.size()));
    if (data.polygons || data.skipped_faces) {
      out << fmt::format(" ({} polygons fan-triangulated, {} faces of < 3 corners skipped)",
                         with_commas(data.polygons), with_commas(data.skipped_faces));
    }
    out << "\n";
    for (const std::string& w : data.warnings) out << fmt::format("warning       {}\n", w);
    if (data.triangles.empty()) {
      Box3<double> box = Box3<double>::empty();
      for (const Vec3d& v : data.vertices) box.extend(v);
      print_bounds(out, box);
      const std::string what = fmt::format(
          "0 triangles, {} points: prox answers nothing on it (a point cloud; closest, raycast, "
          "sphere, render, sdf and hausdorff need triangles)",
          with_commas(data.vertices.size()));
      out << "holds         " << what << "\n";
      out << fmt::format("read          {:.1f} ms\n", read_ms);
      std::cout << out.str();
      summary("prox info", o->mesh + ": " + what);
      return 0;
    }
    Timer build_timer;
    const std::unique_ptr<MeshIndex<double>> index = build_index(data, o->mesh, o->threads);
    const double build_ms = build_timer.ms();
    const io::MeshTopology topo = io::analyze_topology(data);
    const Box3<double> box = index->mesh().bounds();
    const BuildStats stats = index->build_stats();
    print_bounds(out, box);
    const MeshDiagnostics diag = diagnose(*index);
    out << fmt::format("closed        {}{}\n",
                       topo.closed() ? "yes (every edge is shared by exactly two triangles)"
                                     : "no",
                       topo.closed() == diag.closed() ? ""
                       : diag.closed() ? " (yes once vertices are welded by position)"
                                       : " (no once vertices are welded by position)");
    out << fmt::format("edges         {} ({} boundary, {} non-manifold)\n", with_commas(topo.edges),
                       with_commas(topo.boundary_edges), with_commas(topo.non_manifold_edges));
    out << fmt::format("degenerate    {} triangles (repeated corner or zero area)\n",
                       with_commas(topo.degenerate_triangles));
    out << fmt::format("unused        {} vertices (in no triangle)\n",
                       with_commas(topo.unused_vertices));
    // The sign's view (prox/mesh/diagnostics.hpp): vertices welded by position.
    out << fmt::format("manifold      {}\n", diag.manifold() ? "yes" : fmt::format(
                           "no ({} edges shared by 3 or more triangles)", diag.non_manifold_edges));
    out << fmt::format("oriented      {}\n",
                       diag.consistently_oriented()
                           ? "yes (neighbouring triangles agree)"
                           : fmt::format("no ({} edges join triangles of opposite orientation)",
                                         diag.inconsistent_edges));
    out << fmt::format("outward       {}\n", diag.outward() ? "yes (signed volume > 0)"
                                                            : "no (signed volume <= 0)");
    out << fmt::format("components    {} (edge-connected)", with_commas(diag.components));
    if (diag.closed() && diag.components > 1)
      out << fmt::format("; {} facing inward, {} crossing or touching another, {} oriented "
                         "against how they nest",
                         with_commas(diag.inward_components),
                         with_commas(diag.crossing_components),
                         with_commas(diag.misnested_components));
    if (diag.closed())
      out << fmt::format("; {} passing through itself",
                         with_commas(diag.self_intersecting_components));
    out << "\n";
    out << fmt::format("duplicates    {} triangles (same three corners as another)\n",
                       with_commas(diag.duplicate_triangles));
    out << fmt::format("area          {:.9g}\n", diag.area);
    out << fmt::format("volume        {:.9g}{}\n", diag.volume,
                       diag.closed() ? "" : " (open mesh: depends on the origin)");
    out << fmt::format("sign          {}\n", diag.verdict());
    if (!diag.has_inside())
      std::cerr << "prox info: warning: " << o->mesh << ": " << diag.verdict() << "\n";
    if (file_format == io::MeshFormat::stl && topo.boundary_edges > 0) {
      // STL repeats every corner; the reader merges exactly equal ones, so an edge
      // left on the boundary is a crack: corners that differ (often by rounding), or a hole.
      const double diagonal = std::sqrt(squared_norm(box.diagonal()));
      const double tolerance = 1e-5 * (diagonal > 0 ? diagonal : 1.0);
      const std::size_t left = boundary_edges_after_weld(data, tolerance);
      const std::string what = fmt::format(
          "{} boundary edges after merging exactly equal corners; {} left once corners within "
          "{:.3g} (1e-5 of the diagonal) are merged",
          with_commas(topo.boundary_edges), with_commas(left), tolerance);
      const std::string weld =
          "weld the vertices within a tolerance (e.g. MeshLab's Merge Close Vertices)";
      const std::string hint =
          left == 0 ? "the triangles do not meet exactly (corners that differ by rounding): " +
                          weld + " before signing or measuring volume"
          : left < topo.boundary_edges
              ? "some corners differ by rounding (" + weld + ") and the rest are holes to repair"
              : "the surface has holes: repair or close it before signing or measuring volume";
      out << "cracks        " << what << "\n";
      std::cerr << "prox info: warning: " << o->mesh << ": STL cracks: " << what << "; " << hint
                << "\n";
    }
    out << fmt::format("read          {:.1f} ms\n", read_ms);
    // Both precisions' memory, measured on the built indexes (MeshIndex::memory_bytes).
    const double tris = static_cast<double>(data.triangles.size());
    const std::size_t double_bytes = index->memory_bytes();
    out << fmt::format("index         {} ({:.1f} bytes per triangle), {} nodes, {} leaves, depth {}\n",
                       human_bytes(double_bytes), static_cast<double>(double_bytes) / tris,
                       with_commas(stats.nodes), with_commas(stats.leaves), stats.depth);
    out << fmt::format("build         {:.1f} ms (BVH {:.1f} ms)\n", build_ms, stats.build_ms);
    io::LoadOptions float_options;
    float_options.build.threads = o->threads;
    try {
      const std::unique_ptr<MeshIndex<float>> findex =
          io::build_index<float>(data, o->mesh, float_options);
      const std::size_t float_bytes = findex->memory_bytes();
      out << fmt::format("memory        double index {} ({:.1f} bytes per triangle), float index "
                         "{} ({:.1f} bytes per triangle, --precision float)\n",
                         human_bytes(double_bytes), static_cast<double>(double_bytes) / tris,
                         human_bytes(float_bytes), static_cast<double>(float_bytes) / tris);
    } catch (const io::ReadError& e) {
      out << fmt::format("memory        double index {} ({:.1f} bytes per triangle), float index "
                         "none ({})\n",
                         human_bytes(double_bytes), static_cast<double>(double_bytes) / tris, e.what());
    }
    out << fmt::format("engine        {} (ISA path; PROX_ISA=sse2|avx2|avx512 forces one)\n",
                       isa_description());
    std::cout << out.str();
    return 0;
  };
}

}  // namespace prox::cli
