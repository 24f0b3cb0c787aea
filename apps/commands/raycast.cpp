// apps/commands/raycast.cpp — `prox raycast MESH RAYS`: what each ray hits.
//
// RAYS: 6 numbers per line (origin, direction) or 8 (and t_min, t_max); t is
// the ray parameter, in units of the direction as given (never normalised).
// Columns: default (first hit) t,triangle,u,v,w (u, v, w weight corners 0, 1, 2;
// a miss: inf,-1,nan,nan,nan); --all: ray,t,triangle,u,v,w, one row per hit;
// --count: count; --any: hit (0 or 1). .npy: float64 (N, 5) / (H, 6); int32
// (N,) for --count; uint8 (N,) for --any. --device gpu: first hit and --any
// through prox::gpu, in float (apps/gpu_device.hpp).
#include <memory>
#include <vector>

#include "command.hpp"
#include "common.hpp"
#include "gpu_device.hpp"
#include "prox/io/csv.hpp"
#include "prox/io/npy.hpp"
#include "prox/io/read_table.hpp"
#include "prox/mesh/batch.hpp"

namespace prox::cli {
namespace {

// u, v, w of the table are MeshRayHit::bary(), the weights of corners 0, 1, 2 (NaN on a miss).
void hit_fields(io::CsvWriter& csv, const MeshRayHit<double>& h) {
  const Vec3d b = h.bary();
  csv.field(h.t).field(h.triangle).field(b[0]).field(b[1]).field(b[2]);
}

void hit_values(std::vector<double>& a, const MeshRayHit<double>& h) {
  const Vec3d b = h.bary();
  a.insert(a.end(), {h.t, static_cast<double>(h.triangle), b[0], b[1], b[2]});
}

struct RaycastOptions {
  std::string mesh, rays, out;
  bool any = false, all = false, count = false;
  int threads = 0;
  std::string device = "cpu";
};

using RaySpan = std::span<const Ray<double>>;

// --any or --count: one value per ray.
void write_any_or_count(Output& out, bool npy, const MeshIndex<double>& index,
                        const std::vector<Ray<double>>& rays, bool any, const BatchOptions& batch,
                        bool gpu) {
  const std::size_t n = rays.size();
  std::vector<std::uint8_t> hit(any ? n : 0);
  std::vector<std::uint32_t> cnt(any ? 0 : n);
  if (gpu) gpu_any_hits(index.mesh(), rays, hit);
  else in_blocks(n, "prox raycast", [&](std::size_t b, std::size_t e) {
    const RaySpan in = RaySpan(rays).subspan(b, e - b);
    if (any) any_hits(index, in, std::span<std::uint8_t>(hit).subspan(b, e - b), batch);
    else count_hits(index, in, std::span<std::uint32_t>(cnt).subspan(b, e - b), batch);
  });
  if (npy && any) {
    io::write_npy(out.stream(), hit.data(), {n});
  } else if (npy) {
    const std::vector<std::int32_t> c(cnt.begin(), cnt.end());
    io::write_npy(out.stream(), c.data(), {n});
  } else {
    io::CsvWriter csv(out.stream(), {any ? "hit" : "count"});
    for (std::size_t i = 0; i < n; ++i) {
      if (any) csv.field(static_cast<int>(hit[i]));
      else csv.field(cnt[i]);
      csv.end_row();
    }
    csv.flush();
  }
}

// --all: one row per hit, with the ray's index.
void write_all_hits(Output& out, bool npy, const MeshIndex<double>& index,
                    const std::vector<Ray<double>>& rays, const BatchOptions& batch) {
  const std::size_t n = rays.size();
  // One batch per block (for progress); hits[k] holds rays [k * block, ...).
  std::vector<BatchLists<MeshRayHit<double>>> hits;
  in_blocks(n, "prox raycast", [&](std::size_t b, std::size_t e) {
    hits.push_back(all_hits(index, RaySpan(rays).subspan(b, e - b), batch));
  });
  auto each_hit = [&](const auto& fn) {
    std::size_t ray = 0;
    for (const auto& block : hits)
      for (std::size_t i = 0; i < block.size(); ++i, ++ray)
        for (const MeshRayHit<double>& h : block[i]) fn(ray, h);
  };
  if (npy) {
    std::vector<double> a;
    std::size_t rows = 0;
    each_hit([&](std::size_t ray, const MeshRayHit<double>& h) {
      a.push_back(static_cast<double>(ray));
      hit_values(a, h);
      ++rows;
    });
    io::write_npy(out.stream(), a.data(), {rows, 6});
    return;
  }
  io::CsvWriter csv(out.stream(), {"ray", "t", "triangle", "u", "v", "w"});
  each_hit([&](std::size_t ray, const MeshRayHit<double>& h) {
    csv.field(ray);
    hit_fields(csv, h);
    csv.end_row();
  });
  csv.flush();
}

// Default: the first hit of each ray.
void write_first_hits(Output& out, bool npy, const MeshIndex<double>& index,
                      const std::vector<Ray<double>>& rays, const BatchOptions& batch, bool gpu) {
  const std::size_t n = rays.size();
  std::vector<MeshRayHit<double>> first(n);
  if (gpu) gpu_first_hits(index.mesh(), rays, first);
  else in_blocks(n, "prox raycast", [&](std::size_t b, std::size_t e) {
    first_hits(index, RaySpan(rays).subspan(b, e - b),
               std::span<MeshRayHit<double>>(first).subspan(b, e - b), batch);
  });
  if (npy) {
    std::vector<double> a;
    a.reserve(n * 5);
    for (const MeshRayHit<double>& h : first) hit_values(a, h);
    io::write_npy(out.stream(), a.data(), {n, 5});
    return;
  }
  io::CsvWriter csv(out.stream(), {"t", "triangle", "u", "v", "w"});
  for (const MeshRayHit<double>& h : first) {
    hit_fields(csv, h);
    csv.end_row();
  }
  csv.flush();
}

}  // namespace

Runner setup_raycast(CLI::App& app) {
  auto o = std::make_shared<RaycastOptions>();
  app.add_option("MESH", o->mesh, "mesh file (.obj .ply .stl .off)")->required();
  app.add_option("RAYS", o->rays,
                 "rays: 6 numbers per line (ox oy oz dx dy dz) or 8 (+ t_min t_max), "
                 "a .npy of shape (N, 6) or (N, 8), or - for standard input")
      ->required();
  app.add_option("-o,--output", o->out, "output .csv (default: standard output) or .npy");
  auto* any = app.add_flag("--any", o->any, "one 'hit' column: 1 if the ray hits anything");
  auto* all = app.add_flag("--all", o->all, "every hit, sorted by t: one row per hit with a 'ray' column");
  auto* count = app.add_flag("--count", o->count, "one 'count' column: surface crossings");
  any->excludes(all)->excludes(count);
  all->excludes(count);
  add_threads_option(app, o->threads);
  add_device_option(app, o->device);
  app.footer("Example: prox raycast bunny.off rays.txt --count -o counts.csv");
  return [o]() {
    const std::string ext = lower_extension(o->out);
    const bool npy = ext == ".npy";
    if (!o->out.empty() && o->out != "-" && !npy && ext != ".csv") {
      throw UsageError("-o must name a .csv or .npy file, not '" + o->out + "'");
    }
    const bool gpu = o->device == "gpu";
    if (gpu && (o->all || o->count))
      throw UsageError("--device gpu answers the first hit and --any, not --all or --count");
    const LoadedMesh m = load_mesh(o->mesh, o->threads);
    const std::vector<Ray<double>> rays = io::read_rays(o->rays);
    BatchOptions batch;
    batch.threads = o->threads;
    Output out(o->out);
    if (o->any || o->count) write_any_or_count(out, npy, *m.index, rays, o->any, batch, gpu);
    else if (o->all) write_all_hits(out, npy, *m.index, rays, batch);
    else write_first_hits(out, npy, *m.index, rays, batch, gpu);
    out.commit();
    return 0;
  };
}

}  // namespace prox::cli
