// Coherent rays in packets (src/mesh/queries_packet.hpp): MeshIndex::first_hits
// and the batch prox::first_hits give, byte for byte, what first_hit gives for
// each ray alone, and what the brute-force twin gives, on every ISA path; and
// the packet path really runs on camera rays (it is not silently skipped).
// Cases: pinhole cameras at several resolutions and distances, an orthographic
// (parallel, shifted origins) camera, axis-aligned rays with +0 and -0
// direction components, rays aimed exactly at vertices and edge midpoints,
// finite t ranges that end before / start after the surface, and invalid rays
// (NaN, zero direction, t_min > t_max) inside otherwise coherent runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

#include "mesh_support.hpp"
#include "prox/mesh/engine_hooks.hpp"
#include "prox/mesh/isa.hpp"
#include "support/scale.hpp"

namespace {

using namespace prox;

Vec3f normalize(const Vec3f& v) { return v / std::sqrt(squared_norm(v)); }

/// Rays of a w x h pinhole camera at `eye` looking at `target` (row major).
std::vector<Ray<float>> camera(const Vec3f& eye, const Vec3f& target, int w, int h, float fov) {
  const Vec3f fwd = normalize(target - eye);
  Vec3f up{0, 1, 0};
  if (std::fabs(dot(up, fwd)) > 0.9f) up = Vec3f{1, 0, 0};
  const Vec3f right = normalize(cross(fwd, up));
  const Vec3f v = cross(right, fwd);
  const float s = std::tan(fov * 0.5f);
  std::vector<Ray<float>> rays;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const float px = (2.0f * (float(x) + 0.5f) / float(w) - 1.0f) * s * float(w) / float(h);
      const float py = (1.0f - 2.0f * (float(y) + 0.5f) / float(h)) * s;
      Ray<float> r;
      r.origin = eye;
      r.direction = normalize(fwd + right * px + v * py);
      rays.push_back(r);
    }
  }
  return rays;
}

/// Parallel rays along `dir` from a grid of origins in front of the box.
std::vector<Ray<float>> orthographic(const Box3<float>& b, const Vec3f& dir, int w, int h) {
  std::vector<Ray<float>> rays;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      Ray<float> r;
      r.origin = Vec3f{b.lo[0] + (b.hi[0] - b.lo[0]) * (float(x) + 0.5f) / float(w),
                       b.lo[1] + (b.hi[1] - b.lo[1]) * (float(y) + 0.5f) / float(h),
                       b.hi[2] + (b.hi[2] - b.lo[2])};
      r.direction = dir;
      rays.push_back(r);
    }
  }
  return rays;
}

void expect_same_bytes(const std::vector<MeshRayHit<float>>& got,
                       const std::vector<MeshRayHit<float>>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof got[i]) != 0) {
      if (bad++ == 0) first = i;
    }
  }
  EXPECT_EQ(bad, 0u) << what << ": first difference at ray " << first << ": t "
                     << (bad ? got[first].t : 0) << " vs " << (bad ? want[first].t : 0)
                     << ", triangle " << (bad ? got[first].triangle : 0) << " vs "
                     << (bad ? want[first].triangle : 0);
}

/// Zeroed answers (padding bytes included), so memcmp compares values only.
std::vector<MeshRayHit<float>> zeroed(std::size_t n) {
  std::vector<MeshRayHit<float>> v(n);
  if (n > 0) std::memset(static_cast<void*>(v.data()), 0, n * sizeof(v[0]));
  return v;
}

/// Checks every way of tracing `rays` against first_hit and the brute force;
/// returns the share of rays traced in packets by MeshIndex::first_hits.
double check_rays(const MeshIndex<float>& index, const BruteForce<float>& brute,
                  const std::vector<Ray<float>>& rays, const std::string& what) {
  SCOPED_TRACE(what);
  std::vector<MeshRayHit<float>> single = zeroed(rays.size());
  for (std::size_t i = 0; i < rays.size(); ++i) single[i] = index.first_hit(rays[i]);
  // The brute force costs a pass over every triangle per ray: a subsample of
  // about 300 rays (every ray on small cases), spread over the whole set.
  const std::size_t step =
      std::max<std::size_t>(1, rays.size() / std::size_t(test::scaled_count(300, 40)));
  std::vector<MeshRayHit<float>> some = zeroed(0), oracle = zeroed(0);
  for (std::size_t i = 0; i < rays.size(); i += step) {
    some.push_back(single[i]);
    oracle.push_back(brute.first_hit(rays[i]));
  }
  expect_same_bytes(some, oracle, "first_hit vs brute force (every " + std::to_string(step) +
                                      "th ray)");
  std::vector<MeshRayHit<float>> block = zeroed(rays.size());
  const std::size_t before = packet_rays_this_thread();
  index.first_hits(std::span<const Ray<float>>(rays), std::span<MeshRayHit<float>>(block));
  const std::size_t packed = packet_rays_this_thread() - before;
  expect_same_bytes(block, single, "first_hits (packets) vs first_hit");
  // The batch form, chunks starting anywhere (grain 13) on 2 threads.
  std::vector<MeshRayHit<float>> batch = zeroed(rays.size());
  first_hits(index, std::span<const Ray<float>>(rays), std::span<MeshRayHit<float>>(batch),
             BatchOptions{.threads = 2, .grain = 13});
  expect_same_bytes(batch, single, "batch first_hits vs first_hit");
  return rays.empty() ? 0.0 : double(packed) / double(rays.size());
}

struct Meshes {
  std::string name;
  TriangleMesh<float> mesh;
};

std::vector<Meshes> meshes() {
  std::vector<Meshes> m;
  m.push_back({"icosphere", test::to_float(test::icosphere(4))});
  m.push_back({"torus", test::to_float(test::torus(1.0, 0.35, 48, 24))});
  m.push_back({"bunny", test::to_float(test::cgal_mesh("bunny00.off"))});
  return m;
}

TEST(Packets, CameraRaysAreTracedInPacketsWithTheSingleRayAnswers) {
  // At least 96 pixels a side whatever PROX_TEST_SCALE says: coherence (and so
  // the packed share checked below) depends on the pixel pitch.
  const int side = int(test::scaled_count(128, 96));
  for (const Meshes& m : meshes()) {
    const MeshIndex<float> index(m.mesh);
    const BruteForce<float> brute(m.mesh);
    const Box3<float> b = m.mesh.bounds();
    const Vec3f c = (b.lo + b.hi) * 0.5f;
    const float diag = std::sqrt(squared_norm(b.hi - b.lo));
    for (const float dist : {0.9f, 2.0f, 6.0f}) {
      for (const Vec3f& dir : {Vec3f{0.3f, 0.2f, 1.0f}, Vec3f{-1.0f, 0.1f, -0.2f},
                               Vec3f{0.0f, -1.0f, 0.05f}}) {
        const Vec3f eye = c + normalize(dir) * (dist * diag);
        const double share = check_rays(index, brute, camera(eye, c, side, side, 0.5f),
                                        m.name + " camera at " + std::to_string(dist) + " diag");
        // Rows of eight neighbouring pixels are coherent (here 8 pixels span at most
        // about 0.04 rad; a packet takes up to about 0.06): nearly all are packed
        // (a run fails only where it straddles a change of dominant axis or sign).
        EXPECT_GT(share, 0.9) << m.name << " at " << dist;
      }
    }
    // Orthographic: equal directions, origins spread over the box (wider
    // than the packet's origin bound on coarse grids: then rays go alone).
    for (const int res : {side, 4 * side}) {
      check_rays(index, brute, orthographic(b, normalize(Vec3f{0.1f, -0.05f, -1.0f}), res, 8),
                 m.name + " orthographic " + std::to_string(res));
    }
  }
}

TEST(Packets, AxisAlignedRaysWithSignedZeros) {
  const TriangleMesh<float> mesh = test::to_float(test::icosphere(3));
  const MeshIndex<float> index(mesh);
  const BruteForce<float> brute(mesh);
  std::vector<Ray<float>> rays = orthographic(mesh.bounds(), Vec3f{0.0f, 0.0f, -1.0f}, 64, 16);
  // Flip the sign of zero components in some runs: +0 and -0 are different
  // octants for the box test, so such runs must not be packed together.
  for (std::size_t i = 0; i < rays.size(); i += 3) rays[i].direction[0] = -0.0f;
  for (std::size_t i = 0; i < rays.size(); i += 5) rays[i].direction[1] = -0.0f;
  check_rays(index, brute, rays, "axis aligned, mixed signed zeros");
}

TEST(Packets, RaysExactlyThroughVerticesAndEdges) {
  // Every ray of a run aims at a vertex or an edge midpoint of nearby
  // triangles, from one eye: coherent, and each ray needs the watertight
  // tie rule (lowest id at equal t) exactly as a single ray gets it.
  for (const Meshes& m : meshes()) {
    const MeshIndex<float> index(m.mesh);
    const BruteForce<float> brute(m.mesh);
    const Box3<float> b = m.mesh.bounds();
    const Vec3f eye = b.hi + (b.hi - b.lo) * 1.5f;
    std::vector<Ray<float>> rays;
    const std::size_t n = std::min<std::size_t>(m.mesh.num_triangles(),
                                                std::size_t(test::scaled_count(4000, 200)));
    for (std::size_t t = 0; t < n; ++t) {
      for (int k = 0; k < 3; ++k) {
        Ray<float> r;
        r.origin = eye;
        r.direction = (k == 2 ? (m.mesh.corner(t, 0) + m.mesh.corner(t, 1)) * 0.5f
                              : m.mesh.corner(t, k)) - eye;
        rays.push_back(r);
      }
    }
    check_rays(index, brute, rays, m.name + " vertices and edges");
  }
}

/// The fine grid of the next tests: 96 x 96 cells of 1/64 (test::bumpy_grid),
/// whose leaf boxes are a few cells wide.
constexpr int kGridCells = 96;
constexpr float kGridCell = 1.0f / 64.0f;
TriangleMesh<float> fine_grid() { return test::bumpy_grid(kGridCells, kGridCell); }

// Rays whose direction has zero components, with origins exactly on vertex
// coordinates: they run exactly in the planes of leaf and node boxes, through
// vertices and along edges. The slab test must not cull a box the ray runs
// along (bvh::slab_inverse: it once clamped 1 / 0 to FLT_MAX, so 0 * FLT_MAX
// = 0 became the ray's exit from a box whose far plane it ran in, and the
// triangles on that side were lost: 230 of 1,920 checked rays here returned a
// triangle of higher id at the same t, or a farther one). Origins 1/8 of a
// cell apart form packets (a packet's lanes are then culled leaf by leaf);
// 1 and 3 cells apart, single rays. any_hit, all_hits and count_hits, and the
// double index, on a subsample.
TEST(Packets, AxisAlignedRaysAlongBoxPlanesOfAFineGrid) {
  const int cells = kGridCells;
  const float h = kGridCell;
  const TriangleMesh<float> mesh = fine_grid();
  const MeshIndex<float> index(mesh);
  const BruteForce<float> brute(mesh);
  std::vector<Vec3<double>> vd;
  for (const Vec3f& p : mesh.vertices()) vd.push_back(Vec3<double>{p[0], p[1], p[2]});
  const TriangleMesh<double> mesh_d(vd, mesh.triangles());
  const MeshIndex<double> index_d(mesh_d);
  const BruteForce<double> brute_d(mesh_d);
  const Vec3f dirs[] = {{0.0f, 0.0f, -1.0f},      {-0.0f, 0.0f, -1.0f},
                        {0.0f, -0.0f, -1.0f},     {-0.0f, -0.0f, -1.0f},
                        {0x1p-20f, 0.0f, -1.0f},  {0.0f, -0x1p-20f, -1.0f},
                        {0x1p-140f, 0.0f, -1.0f}, {0.0f, 0x1p-149f, -1.0f}};
  for (const Vec3f& d : dirs) {
    for (const int eighths : {1, 8, 24}) {
      std::vector<Ray<float>> rays;
      // Rows half a cell apart over a third of the grid (two rows in three
      // fall on vertex rows or between them; the x range is the whole grid
      // for the wider spacings, a quarter of it for 1/8).
      for (int row = 0; row <= 2 * cells / 3; ++row) {
        for (int i = 0; i * eighths <= (eighths == 1 ? 2 : 8) * cells; ++i) {
          Ray<float> r;
          r.origin = Vec3f{float(i * eighths) * (h / 8.0f), float(row) * 0.5f * h, 2.0f};
          r.direction = d;
          rays.push_back(r);
        }
      }
      const double share = check_rays(
          index, brute, rays,
          "grid, direction (" + std::to_string(d[0]) + ", " + std::to_string(d[1]) +
              "), origins " + std::to_string(eighths) + "/8 cell apart");
      // Tiny nonzero components whose inverse overflows float trace alone.
      const bool packable = std::fabs(d[0]) + std::fabs(d[1]) >= 0x1p-20f ||
                            (d[0] == 0.0f && d[1] == 0.0f);
      if (eighths == 1 && packable) {
        EXPECT_GT(share, 0.9);
      }
      // The other ray queries share the slab test: any hit, every crossing
      // (the exactly-once rule on edges and vertices), in float and in double
      // (the CLI's index), against the brute force.
      std::size_t bad = 0;
      const std::size_t step = rays.size() / 60 + 1;  // about 60 rays: the brute force is slow
      for (std::size_t k = 0; k < rays.size(); k += step) {
        const Ray<float>& r = rays[k];
        Ray<double> rd;
        rd.origin = Vec3<double>{r.origin[0], r.origin[1], r.origin[2]};
        rd.direction = Vec3<double>{r.direction[0], r.direction[1], r.direction[2]};
        const auto hits = index.all_hits(r), want = brute.all_hits(r);
        bool same = index.any_hit(r) == brute.any_hit(r) &&
                    index.count_hits(r) == brute.count_hits(r) && hits.size() == want.size() &&
                    index_d.count_hits(rd) == brute_d.count_hits(rd) &&
                    index_d.first_hit(rd).triangle == brute_d.first_hit(rd).triangle;
        for (std::size_t q = 0; same && q < hits.size(); ++q)
          same = hits[q].triangle == want[q].triangle && hits[q].t == want[q].t;
        if (!same && bad++ < 3)
          ADD_FAILURE() << "ray " << k << " from (" << r.origin[0] << ", " << r.origin[1]
                        << "): crossings " << hits.size() << " vs " << want.size();
      }
      EXPECT_EQ(bad, 0u);
    }
  }
}

// A packet enters a leaf only for the lanes whose own ray may enter the box of
// the leaf's corners, and traces a leaf ray by ray when few lanes remain
// (queries_packet.hpp: packet_lanes_in_box). A camera above the fine grid
// aims every ray exactly at a vertex (eight neighbouring rays span eight
// cells, more than a leaf, so most lanes are culled at most leaves) and, in a
// second pass, at edge midpoints; every ray's answer must be first_hit's and
// the brute force's.
TEST(Packets, LanesCulledAtTheLeavesOfAFineGrid) {
  const int cells = kGridCells;
  const TriangleMesh<float> mesh = fine_grid();
  const MeshIndex<float> index(mesh);
  const BruteForce<float> brute(mesh);
  for (const Vec3f& eye : {Vec3f{0.75f, 0.75f, 4.0f}, Vec3f{0.1f, 1.3f, 3.0f}}) {
    for (const bool midpoints : {false, true}) {
      std::vector<Ray<float>> rays;
      for (int j = 0; j <= cells; ++j)
        for (int i = 0; i < cells; ++i) {
          const Vec3f a = mesh.vertices()[std::size_t(j * (cells + 1) + i)];
          const Vec3f b = mesh.vertices()[std::size_t(j * (cells + 1) + i + 1)];
          Ray<float> r;
          r.origin = eye;
          r.direction = (midpoints ? (a + b) * 0.5f : a) - eye;
          rays.push_back(r);
        }
      const double share = check_rays(index, brute, rays,
                                       std::string(midpoints ? "edge midpoints" : "vertices") +
                                           " from (" + std::to_string(eye[0]) + ", " +
                                           std::to_string(eye[1]) + ")");
      EXPECT_GT(share, 0.8);
    }
  }
}

TEST(Packets, TRangesAndInvalidRaysInsideCoherentRuns) {
  const TriangleMesh<float> mesh = test::to_float(test::cgal_mesh("bunny00.off"));
  const MeshIndex<float> index(mesh);
  const BruteForce<float> brute(mesh);
  const Box3<float> b = mesh.bounds();
  const Vec3f c = (b.lo + b.hi) * 0.5f;
  const float diag = std::sqrt(squared_norm(b.hi - b.lo));
  const Vec3f eye = c + Vec3f{0.2f, 0.3f, 1.0f} * (1.5f * diag);
  std::vector<Ray<float>> rays = camera(eye, c, 384, 192, 0.8f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float surface = 1.5f * diag;  // about where the surface is along the view
  for (std::size_t i = 0; i < rays.size(); ++i) {
    Ray<float>& r = rays[i];
    switch (i % 11) {
      case 1: r.t_max = surface * 0.9f; break;             // ends before some hits
      case 2: r.t_min = surface; break;                    // starts among the hits
      case 3: r.t_min = surface * 0.95f; r.t_max = surface * 1.05f; break;
      case 4: if (i % 7 == 0) r.direction[1] = nan; break;  // invalid: a miss
      case 5: if (i % 13 == 0) r.direction = Vec3f::zero(); break;
      case 6: if (i % 17 == 0) { r.t_min = 2.0f; r.t_max = 1.0f; } break;
      case 7: if (i % 19 == 0) r.origin[2] = inf; break;
      case 8: r.t_max = 0.0f; break;                       // an empty range
      default: break;
    }
  }
  const double share = check_rays(index, brute, rays, "t ranges and invalid rays");
  EXPECT_GT(share, 0.3);  // runs with an invalid ray go alone; the rest are packed
}

TEST(Packets, SameBytesOnEveryIsaPath) {
  const TriangleMesh<float> mesh = test::to_float(test::cgal_mesh("bunny00.off"));
  const MeshIndex<float> index(mesh);
  const Box3<float> b = mesh.bounds();
  const Vec3f c = (b.lo + b.hi) * 0.5f;
  const std::vector<Ray<float>> rays =
      camera(c + Vec3f{-0.4f, 0.2f, 1.0f} * 0.3f, c, 120, 90, 1.0f);
  const Isa saved = active_isa();
  std::vector<MeshRayHit<float>> first;
  for (const Isa isa : available_isas()) {
    set_isa(isa);
    std::vector<MeshRayHit<float>> out = zeroed(rays.size());
    index.first_hits(std::span<const Ray<float>>(rays), std::span<MeshRayHit<float>>(out));
    if (first.empty()) {
      first = out;
    } else {
      expect_same_bytes(out, first, std::string("ISA path ") + isa_name(isa));
    }
  }
  set_isa(saved);
}

// The eight-lane packet set-up (make_packet8, src/mesh/queries_packet.hpp)
// against the scalar one, field by field, on every ISA path that has it:
// camera runs at many scales, directions and t ranges, then each with one
// field of one ray replaced by an awkward value (signed zeros, subnormals,
// huge and tiny magnitudes, infinities, NaN, values at the coordinate range's
// edge), so that both the runs they accept and the ones they decline agree.
TEST(Packets, SimdSetUpEqualsScalar) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float odd[] = {0.0f, -0.0f, 1e-45f, -1e-45f, 1e-38f, 0x1p-126f, 0x1p-127f, 1e-30f,
                       1e-20f, 0.5f, -0.5f, 1.0f, 0x1p62f, -0x1p62f, 0x1.000002p62f, 0x1p125f,
                       0x1p126f, -0x1p126f, 0x1p127f, 3.4e38f, -3.4e38f, inf, -inf, nan};
  // Direction scales: the exponent range the lanes take, and both ends the
  // lanes hand to the scalar set-up.
  const float scales[] = {1.0f, 0x1p-100f, 0x1p-125f, 0x1p-130f, 0x1p100f, 0x1p125f, 0x1p126f,
                          0x1p127f, 3.0f, 1e-3f};
  const Isa saved = active_isa();
  std::size_t paths = 0;
  for (const Isa isa : available_isas()) {
    set_isa(isa);
    std::size_t cases = 0, built = 0, bad = 0;
    for (int run = 0; run < test::scaled_count(3000, 300); ++run) {
      // A coherent run: an origin patch and directions within a few degrees
      // of a random axis-ish direction.
      const Vec3f base{unit(rng), unit(rng), unit(rng)};
      const Vec3f o0{unit(rng) * 10.0f, unit(rng) * 10.0f, unit(rng) * 10.0f};
      const float ds = scales[run % std::size(scales)];
      Ray<float> rays[8];
      for (int i = 0; i < 8; ++i) {
        rays[i].origin = o0 + Vec3f{unit(rng), unit(rng), unit(rng)} * 0.01f;
        const Vec3f dir = base + Vec3f{unit(rng), unit(rng), unit(rng)} * 0.01f;
        rays[i].direction = dir * ds;
        rays[i].t_min = run % 5 == 0 ? -0.0f : run % 5 == 1 ? 0.25f : 0.0f;
        rays[i].t_max = run % 3 == 0 ? inf : run % 3 == 1 ? 3e38f : 5.0f;
      }
      // Axis-aligned directions with signed zeros every few runs.
      if (run % 7 == 0)
        for (int i = 0; i < 8; ++i)
          rays[i].direction = Vec3f{run % 2 ? -0.0f : 0.0f, 0.0f, -ds};
      const float scale = run % 11 == 0 ? 1e-6f : 50.0f;
      auto check = [&](const char* what) {
        const int r = packet_set_up_check(rays, scale);
        if (r < 0) return;
        ++cases;
        built += r == 2;  // both made a packet (not only both declined)
        if (r == 0 && bad++ < 5)
          ADD_FAILURE() << isa_name(isa) << ": set-ups differ, run " << run << ", " << what;
      };
      check("as made");
      // One field of one ray replaced.
      const int lane = int(rng() % 8), field = int(rng() % 8);
      const float v = odd[rng() % std::size(odd)];
      float* f = reinterpret_cast<float*>(&rays[lane]);
      f[field] = v;
      check("one field replaced");
    }
    if (cases > 0) {
      ++paths;
      EXPECT_EQ(bad, 0u) << isa_name(isa);
      EXPECT_GT(built, cases / 8) << isa_name(isa) << ": too few packets built to compare";
    }
  }
  set_isa(saved);
  if (paths == 0) GTEST_SKIP() << "no ISA path with the eight-lane set-up on this CPU";
}

TEST(Packets, SizesMustMatch) {
  const MeshIndex<float> index(test::to_float(test::icosphere(1)));
  std::vector<Ray<float>> rays(3);
  std::vector<MeshRayHit<float>> out(2);
  EXPECT_THROW(index.first_hits(std::span<const Ray<float>>(rays),
                                std::span<MeshRayHit<float>>(out)),
               std::invalid_argument);
}

}  // namespace
