// apps/commands/sphere.cpp — `prox sphere MESH CENTERS --radius R`: which triangles each sphere touches.
//
// CENTERS: 3 numbers per line (cx cy cz, with --radius) or 4 (cx cy cz r: a
// radius per sphere; --radius then fills rows that have only 3). A sphere is
// solid and closed: a triangle touching it counts (seed 003's sphere against
// a mesh, through the index's sphere_overlaps / sphere_triangles).
// Columns (CSV, .npz, .npy as apps/table.hpp writes them; --columns chooses):
//   sphere      row of the sphere (0-based), int64
//   overlaps    uint8: 1 if the sphere meets the mesh
//   count       int64: how many triangles it meets
//   triangles   CSV only: their ids, sorted, separated by spaces; in .npz the
//               ids of all spheres are one int64 array `triangle_ids` with
//               `triangle_offsets` (sphere i's ids are
//               triangle_ids[offsets[i]:offsets[i+1]], the CSR layout)
// A sphere with a NaN centre or radius, or a negative radius, overlaps nothing.
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "prox/io/csv.hpp"
#include "prox/io/npy.hpp"
#include "prox/io/read_table.hpp"
#include "prox/mesh/batch.hpp"
#include "table.hpp"

namespace prox::cli {

Runner setup_sphere(CLI::App& app) {
  struct Options {
    std::string mesh, centers;
    TableOptions table;
    double radius = std::numeric_limits<double>::quiet_NaN();
    int threads = 0;
  };
  auto o = std::make_shared<Options>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  app.add_option("CENTERS", o->centers,
                 "sphere centres: 3 numbers per line (or 4: with a radius), a .npy of shape "
                 "(N, 3) or (N, 4), or - for standard input")
      ->required();
  CLI::Option* radius =
      app.add_option("--radius", o->radius, "radius of every sphere (rows of 4 numbers give their own)");
  add_table_options(app, o->table, "sphere,overlaps,count,triangles");
  add_threads_option(app, o->threads);
  app.footer("Example: prox sphere bunny.off centers.txt --radius 0.01 -o touched.csv");
  return [o, radius]() {
    check_table_output(o->table.out);
    // (NaN stands for "not given" below; a given NaN is refused here.)
    if (radius->count() > 0 && !(o->radius >= 0 && std::isfinite(o->radius)))
      throw UsageError(fmt::format("--radius must be a finite number >= 0, not {}", o->radius));
    Timer timer;
    const io::Table in = io::read_table(o->centers, {3, 4}, {0, 0, 0, o->radius});
    const std::size_t n = in.rows;
    std::vector<Vec3d> centers(n);
    std::vector<double> radii(n);
    if (in.columns == 3 && std::isnan(o->radius))
      throw UsageError("CENTERS has 3 numbers per row: give --radius R (or a 4th column)");
    for (std::size_t i = 0; i < n; ++i) {
      const double* row = &in.values[i * in.columns];
      centers[i] = Vec3d{row[0], row[1], row[2]};
      radii[i] = in.columns == 4 ? row[3] : o->radius;
      // A row of 3 in a 4-column file was padded with --radius: NaN if not given.
      if (std::isnan(radii[i]) && std::isnan(o->radius) && in.columns == 4 &&
          !std::isnan(row[0] + row[1] + row[2]))
        throw std::runtime_error(fmt::format(
            "{}: sphere {} has no radius (give --radius for rows of 3 numbers)", o->centers, i));
    }
    const LoadedMesh m = load_mesh(o->mesh, o->threads);
    BatchOptions batch;
    batch.threads = o->threads;
    const BatchLists<std::uint32_t> touched = sphere_triangles(
        *m.index, std::span<const Vec3d>(centers), std::span<const double>(radii), batch);
    Table t;
    Column& id = t.add("sphere", ColumnType::i64, "row of the sphere");
    Column& over = t.add("overlaps", ColumnType::u8, "1 if the sphere meets the mesh");
    Column& count = t.add("count", ColumnType::i64, "triangles met");
    std::size_t overlapping = 0;
    for (std::size_t i = 0; i < n; ++i) {
      id.integer.push_back(static_cast<std::int64_t>(i));
      over.integer.push_back(touched[i].empty() ? 0 : 1);
      count.integer.push_back(static_cast<std::int64_t>(touched[i].size()));
      overlapping += touched[i].empty() ? 0 : 1;
    }
    Column& tris = t.add("triangles", ColumnType::text, "ids, space-separated (CSV only)");
    for (std::size_t i = 0; i < n; ++i) {
      std::string s;
      for (const std::uint32_t tri : touched[i]) s += (s.empty() ? "" : " ") + std::to_string(tri);
      tris.text.push_back(std::move(s));
    }
    write_table(t, o->table, [&](io::NpzWriter& npz) {
      std::vector<std::int64_t> offsets{0}, ids;
      for (std::size_t i = 0; i < n; ++i) {
        for (const std::uint32_t tri : touched[i]) ids.push_back(tri);
        offsets.push_back(static_cast<std::int64_t>(ids.size()));
      }
      npz.add("triangle_offsets", offsets.data(), {offsets.size()});
      npz.add("triangle_ids", ids.data(), {ids.size()});
    });
    summary("prox sphere", fmt::format("{} spheres, {} overlapping the mesh, {:.0f} ms", with_commas(n),
                                       with_commas(overlapping), timer.ms()));
    return 0;
  };
}

}  // namespace prox::cli
