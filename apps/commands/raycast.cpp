// apps/commands/raycast.cpp — `prox raycast MESH RAYS`: what each ray hits.
//
// RAYS: 6 numbers per line (origin, direction) or 8 (and t_min, t_max); t is
// the ray parameter, in units of the direction as given (never normalised).
// Columns (apps/table.hpp writes them as CSV, .npz or .npy; --columns chooses):
//   default (first hit) and --all (one row per hit, sorted by t):
//     ray                  row of the ray in RAYS (0-based), int64
//     t                    ray parameter of the hit (inf on a miss)
//     triangle             triangle id, int64, -1 for a miss
//     u, v, w              weights of the triangle's corners 0, 1, 2 (NaN on a miss)
//     hit_x/y/z            origin + t * direction
//     normal_x/y/z         unit geometric normal (c1 - c0) x (c2 - c0) of the triangle
//     front_face           uint8: 1 when the ray meets the side the normal points to
//   --count: ray, count (int64: surface crossings); --any: ray, hit (uint8).
// --device gpu (first hit, --any and --count): through prox::gpu, in float
// (apps/gpu_device.hpp), MeshIndex<float>'s answers.
// Rays that cannot hit (t_min > t_max, NaN, a zero or non-finite direction)
// are answered as misses and counted in the summary line on stderr.
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "common.hpp"
#include "gpu_device.hpp"
#include "prox/io/read_table.hpp"
#include "prox/mesh/batch.hpp"
#include "table.hpp"

namespace prox::cli {
namespace {

struct RaycastOptions {
  std::string mesh, rays, precision = "double";
  TableOptions table;
  bool any = false, all = false, count = false;
  int threads = 0;
  std::string device = "cpu";
};

const char* const kColumnNames =
    "ray,t,triangle,u,v,w,hit_x,hit_y,hit_z,normal_x,normal_y,normal_z,front_face "
    "(--count: ray,count; --any: ray,hit)";

// The columns of a hit row, appended to by add().
template <class T>
struct HitColumns {
  Column *ray, *t, *tri, *w[3], *hit[3], *nrm[3], *front;
  explicit HitColumns(Table& tab) {
    ray = &tab.add("ray", ColumnType::i64, "row of the ray in RAYS");
    t = &tab.add("t", ColumnType::f64, "ray parameter of the hit");
    tri = &tab.add("triangle", ColumnType::i64, "triangle id, -1 for a miss");
    for (int k = 0; k < 3; ++k) w[k] = &tab.add(std::string(1, "uvw"[k]), ColumnType::f64, "weight");
    for (int k = 0; k < 3; ++k)
      hit[k] = &tab.add(std::string("hit_") + "xyz"[k], ColumnType::f64, "hit point");
    for (int k = 0; k < 3; ++k)
      nrm[k] = &tab.add(std::string("normal_") + "xyz"[k], ColumnType::f64, "geometric normal");
    front = &tab.add("front_face", ColumnType::u8, "1: the ray meets the front side");
  }
  void add(std::size_t i, const Ray<T>& r, const MeshRayHit<T>& h, const TriangleMesh<T>& mesh) {
    ray->integer.push_back(static_cast<std::int64_t>(i));
    t->real.push_back(static_cast<double>(h.t));
    tri->integer.push_back(h.triangle);
    const Vec3<T> b = h.bary();
    Vec3d n = Vec3d::splat(std::nan(""));
    if (h.found()) {
      const auto tri_id = static_cast<std::size_t>(h.triangle);
      Vec3d c[3];
      for (int k = 0; k < 3; ++k) {
        const Vec3<T> p = mesh.corner(tri_id, k);
        c[k] = Vec3d{double(p[0]), double(p[1]), double(p[2])};
      }
      const Vec3d g = cross(c[1] - c[0], c[2] - c[0]);
      const double len = std::sqrt(dot(g, g));
      if (len > 0 && std::isfinite(len)) n = g / len;
    }
    for (int k = 0; k < 3; ++k) {
      w[k]->real.push_back(static_cast<double>(b[k]));
      hit[k]->real.push_back(h.found() ? double(r.origin[k]) + double(h.t) * double(r.direction[k])
                                       : std::nan(""));
      nrm[k]->real.push_back(n[k]);
    }
    front->integer.push_back(h.front_face ? 1 : 0);
  }
};

template <class T>
int run_raycast(const RaycastOptions& o) {
  Timer timer;
  const io::LoadedIndex<T> m = load_mesh_as<T>(o.mesh, o.threads);
  const std::vector<Ray<double>> input = io::read_rays(o.rays);
  const std::size_t n = input.size();
  std::vector<Ray<T>> rays(n);
  std::size_t reversed = 0, unusable = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Ray<double>& r = input[i];
    Ray<T>& q = rays[i];
    for (int k = 0; k < 3; ++k) {
      q.origin[k] = T(r.origin[k]);
      q.direction[k] = T(r.direction[k]);
    }
    q.t_min = T(r.t_min);
    q.t_max = T(r.t_max);
    bool finite = true;
    for (int k = 0; k < 3; ++k)
      finite = finite && std::isfinite(q.origin[k]) && std::isfinite(q.direction[k]);
    const bool zero = q.direction[0] == 0 && q.direction[1] == 0 && q.direction[2] == 0;
    if (!finite || zero || std::isnan(q.t_min) || std::isnan(q.t_max)) ++unusable;
    else if (q.t_min > q.t_max) ++reversed;
  }
  BatchOptions batch;
  batch.threads = o.threads;
  using RaySpan = std::span<const Ray<T>>;
  Table tab;
  std::size_t hit_rows = 0;
  const bool gpu = o.device == "gpu";
  if (o.any || o.count) {
    std::vector<std::uint8_t> hit(o.any ? n : 0);
    std::vector<std::uint32_t> cnt(o.any ? 0 : n);
    if constexpr (std::is_same_v<T, double>) {
      if (gpu && o.any) gpu_any_hits(m.index->mesh(), rays, hit);
      if (gpu && !o.any) gpu_count_hits(m.index->mesh(), rays, cnt);
    }
    if (!gpu) in_blocks(n, "prox raycast", [&](std::size_t b, std::size_t e) {
      const RaySpan in = RaySpan(rays).subspan(b, e - b);
      if (o.any) any_hits(*m.index, in, std::span<std::uint8_t>(hit).subspan(b, e - b), batch);
      else count_hits(*m.index, in, std::span<std::uint32_t>(cnt).subspan(b, e - b), batch);
    });
    Column& ray = tab.add("ray", ColumnType::i64, "row of the ray in RAYS");
    Column& value = o.any ? tab.add("hit", ColumnType::u8, "1 if the ray hits anything")
                          : tab.add("count", ColumnType::i64, "surface crossings");
    for (std::size_t i = 0; i < n; ++i) {
      ray.integer.push_back(static_cast<std::int64_t>(i));
      value.integer.push_back(o.any ? hit[i] : cnt[i]);
      hit_rows += (o.any ? hit[i] : cnt[i]) ? 1 : 0;
    }
  } else if (o.all) {
    std::vector<BatchLists<MeshRayHit<T>>> hits;  // one per block (for progress)
    in_blocks(n, "prox raycast", [&](std::size_t b, std::size_t e) {
      hits.push_back(all_hits(*m.index, RaySpan(rays).subspan(b, e - b), batch));
    });
    HitColumns<T> cols(tab);
    std::size_t i = 0;
    for (const auto& block : hits)
      for (std::size_t j = 0; j < block.size(); ++j, ++i) {
        hit_rows += block[j].empty() ? 0 : 1;
        for (const MeshRayHit<T>& h : block[j]) cols.add(i, rays[i], h, m.index->mesh());
      }
  } else {
    std::vector<MeshRayHit<T>> first(n);
    if constexpr (std::is_same_v<T, double>) {
      if (gpu) gpu_first_hits(m.index->mesh(), rays, first);
    }
    if (!gpu) in_blocks(n, "prox raycast", [&](std::size_t b, std::size_t e) {
      first_hits(*m.index, RaySpan(rays).subspan(b, e - b),
                 std::span<MeshRayHit<T>>(first).subspan(b, e - b), batch);
    });
    HitColumns<T> cols(tab);
    for (std::size_t i = 0; i < n; ++i) {
      hit_rows += first[i].found() ? 1 : 0;
      cols.add(i, rays[i], first[i], m.index->mesh());
    }
  }
  write_table(tab, o.table);
  std::string invalid;
  if (reversed || unusable) {
    invalid = fmt::format("; {} rays cannot hit and were answered as misses ({} with t_min > t_max, "
                          "{} with NaN, infinite or zero values)",
                          with_commas(reversed + unusable), with_commas(reversed),
                          with_commas(unusable));
  }
  summary("prox raycast", fmt::format("{} rays, {} hit, {} triangles ({} index), {:.0f} ms{}",
                                      with_commas(n), with_commas(hit_rows),
                                      with_commas(m.triangles), gpu ? "float, gpu" : o.precision, timer.ms(), invalid));
  return 0;
}

}  // namespace

Runner setup_raycast(CLI::App& app) {
  auto o = std::make_shared<RaycastOptions>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  app.add_option("RAYS", o->rays,
                 "rays: 6 numbers per line (ox oy oz dx dy dz) or 8 (+ t_min t_max), "
                 "a .npy of shape (N, 6) or (N, 8), or - for standard input")
      ->required();
  add_table_options(app, o->table, kColumnNames);
  auto* any = app.add_flag("--any", o->any, "columns ray,hit: 1 if the ray hits anything");
  auto* all = app.add_flag("--all", o->all, "every hit, sorted by t: one row per hit");
  auto* count = app.add_flag("--count", o->count, "columns ray,count: surface crossings");
  any->excludes(all)->excludes(count);
  all->excludes(count);
  add_precision_option(app, o->precision);
  add_threads_option(app, o->threads);
  add_device_option(app, o->device);
  app.footer("Example: prox raycast bunny.off rays.txt --count -o counts.csv");
  return [o]() {
    check_table_output(o->table.out);
    if (o->device == "gpu" && o->all)
      throw UsageError("--device gpu answers the first hit, --any and --count, not --all");
    if (o->device == "gpu") return run_raycast<double>(*o);  // float inside prox::gpu
    return o->precision == "float" ? run_raycast<float>(*o) : run_raycast<double>(*o);
  };
}

}  // namespace prox::cli
