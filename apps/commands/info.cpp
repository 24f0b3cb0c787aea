// apps/commands/info.cpp — `prox info MESH`: what is in a mesh file and what its index costs.
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "prox/io/mesh_topology.hpp"
#include "prox/io/read_mesh.hpp"
#include "prox/mesh/diagnostics.hpp"
#include "prox/mesh/isa.hpp"

namespace prox::cli {

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
    LoadedMesh m = load_mesh(o->mesh, o->threads, /*keep_data=*/true);
    const io::MeshTopology topo = io::analyze_topology(m.data);
    const Box3<double> box = m.index->mesh().bounds();
    const BuildStats stats = m.index->build_stats();
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(o->mesh, ec);
    std::string format = "?";
    if (auto f = io::format_from_extension(o->mesh)) format = io::to_string(*f);
    std::ostream& out = std::cout;
    out << fmt::format("mesh          {} ({}, {})\n", o->mesh, format, ec ? "?" : human_bytes(bytes));
    out << fmt::format("vertices      {}\n", with_commas(m.vertices));
    out << fmt::format("triangles     {}", with_commas(m.triangles));
    if (m.data.polygons || m.data.skipped_faces) {
      out << fmt::format(" ({} polygons fan-triangulated, {} faces of < 3 corners skipped)",
                         with_commas(m.data.polygons), with_commas(m.data.skipped_faces));
    }
    out << "\n";
    if (box.is_empty()) {
      out << "bounds        empty\n";
    } else {
      const Vec3d d = box.diagonal();
      out << fmt::format("bounds        min ({:.6g}, {:.6g}, {:.6g})  max ({:.6g}, {:.6g}, {:.6g})\n",
                         box.lo[0], box.lo[1], box.lo[2], box.hi[0], box.hi[1], box.hi[2]);
      out << fmt::format("size          {:.6g} x {:.6g} x {:.6g} (diagonal {:.6g})\n", d[0], d[1],
                         d[2], std::sqrt(squared_norm(d)));
    }
    const MeshDiagnostics diag = diagnose(m.index->mesh());
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
    out << fmt::format("components    {} (edge-connected)\n", with_commas(diag.components));
    out << fmt::format("duplicates    {} triangles (same three corners as another)\n",
                       with_commas(diag.duplicate_triangles));
    out << fmt::format("area          {:.9g}\n", diag.area);
    out << fmt::format("volume        {:.9g}{}\n", diag.volume,
                       diag.closed() ? "" : " (open mesh: depends on the origin)");
    out << fmt::format("sign          {}\n", diag.verdict());
    if (!diag.has_inside())
      std::cerr << "prox info: warning: " << o->mesh << ": " << diag.verdict() << "\n";
    out << fmt::format("read          {:.1f} ms\n", m.read_ms);
    out << fmt::format("index         {} ({:.1f} bytes per triangle), {} nodes, {} leaves, depth {}\n",
                       human_bytes(m.index->memory_bytes()),
                       m.triangles ? static_cast<double>(m.index->memory_bytes()) /
                                         static_cast<double>(m.triangles)
                                   : 0.0,
                       with_commas(stats.nodes), with_commas(stats.leaves), stats.depth);
    out << fmt::format("build         {:.1f} ms (BVH {:.1f} ms)\n", m.build_ms, stats.build_ms);
    out << fmt::format("engine        {} (ISA path; PROX_ISA=sse2|avx2|avx512 forces one)\n",
                       isa_description());
    return 0;
  };
}

}  // namespace prox::cli
