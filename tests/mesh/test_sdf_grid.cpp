// tests/mesh/test_sdf_grid.cpp — signed distance grids (prox/mesh/sdf_grid.hpp).
//
// Oracle: SignedMesh::query at every node, independently (no coherence), bit
// for bit; thread counts 1 and 2 byte for byte; grid layouts by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "../support/scale.hpp"
#include "mesh_support.hpp"
#include "prox/mesh/isa.hpp"
#include "prox/mesh/sdf_grid.hpp"
#include "prox/mesh/sdf_grid_bounds.hpp"
#include "prox/mesh/sdf_grid_lune_impl.hpp"

namespace prox {
namespace {

template <class Index>
void expect_grid_exact(const SignedMesh<Index>& s, const GridSpec& g, double band) {
  using T = typename Index::Scalar;
  SdfOptions o;
  o.band = band;
  o.batch.threads = 1;
  const SdfGrid<T> one = signed_distance_grid(s, g, o);
  ASSERT_EQ(one.values.size(), g.nodes());
  // 2 and 7 threads (other slabs, so other neighbours prune), and the plain
  // bounded engine query per node: the same bytes.
  // And the search without its float bound table (the double bound with its
  // terms computed at every visit, as past the table's size cap): the same bytes.
  for (const int threads : {2, 7, 0, -1}) {
    SdfOptions t = o;
    t.batch.threads = threads <= 0 ? 1 : threads;
    t.lune = threads != 0;
    t.terms_table = threads != -1;
    const SdfGrid<T> two = signed_distance_grid(s, g, t);
    ASSERT_EQ(std::memcmp(one.values.data(), two.values.data(), one.values.size() * sizeof(T)), 0)
        << threads << " threads, lune " << t.lune << ", terms table " << t.terms_table;
    EXPECT_EQ(one.unsure, two.unsure);
  }
  std::size_t unsure = 0;
  for (std::size_t k = 0; k < g.dims[2]; ++k)
    for (std::size_t j = 0; j < g.dims[1]; ++j)
      for (std::size_t i = 0; i < g.dims[0]; ++i) {
        const Vec3d pd = g.node(i, j, k);
        const SignedClosestPoint<T> q = s.query(Vec3<T>{T(pd[0]), T(pd[1]), T(pd[2])});
        T want = q.signed_distance;
        if (std::abs(double(want)) > band) want = want < 0 ? -T(band) : T(band);
        const T got = one.values[g.index(i, j, k)];
        ASSERT_EQ(std::memcmp(&got, &want, sizeof(T)), 0)
            << i << " " << j << " " << k << ": " << got << " vs " << want;
        unsure += q.confidence != SignConfidence::sure;
      }
  if (s.sign_is_exact()) {
    EXPECT_EQ(one.unsure, unsure);
    // Signs are copied between neighbours only where a cell is small against
    // the distance: on the coarse grids of a scaled-down run (PROX_TEST_SCALE
    // < 1, 12 nodes a side) nearly every node is signed on its own.
    if (g.dims[0] >= 24) {
      EXPECT_LT(one.sign_evaluations, g.nodes() / 2);
    }
  }
}

TEST(SdfGrid, Layout) {
  const Box3<double> box{{0, 0, 0}, {2, 1, 0.5}};
  const GridSpec g = grid_over_box(box, 0.1, 21);
  EXPECT_EQ(g.dims[0], 21u);
  EXPECT_DOUBLE_EQ(g.spacing[0], 2.4 / 20);
  EXPECT_DOUBLE_EQ(g.origin[0], -0.2);
  EXPECT_EQ(g.dims[1], 13u);  // 1.4 / 0.12 = 11.67 cells -> 12 cells
  EXPECT_EQ(g.index(1, 2, 3), 1 + 21 * (2 + 13 * 3));
  const GridSpec h = grid_over_box(box, 0.0, std::array<std::size_t, 3>{5, 3, 2});
  EXPECT_DOUBLE_EQ(h.spacing[0], 0.5);
  EXPECT_DOUBLE_EQ(h.spacing[2], 0.5);
  EXPECT_DOUBLE_EQ(h.node(4, 2, 1)[0], 2.0);
  const GridSpec d = grid_over_box_spacing(box, 0.0, 0.25);
  EXPECT_EQ(d.dims[0], 9u);
  EXPECT_EQ(d.dims[2], 3u);
  EXPECT_THROW(grid_over_box(box, -1, 10), std::invalid_argument);
  EXPECT_THROW(grid_over_box(box, 0.1, 1), std::invalid_argument);
  EXPECT_THROW(grid_over_box_spacing(box, 0.1, 0), std::invalid_argument);
  EXPECT_THROW(grid_over_box(Box3<double>::empty(), 0.1, 10), std::invalid_argument);
}

// The node order's edge cases (sdf_grid.cpp: rows even then odd in bands of
// 8 rows, planes k + 2 before k + 1): one and two rows, a band and a row
// more or less, one and two planes, odd plane counts; every node against the
// independent query, at 1, 2 and 7 threads (expect_grid_exact).
TEST(SdfGrid, EveryNodeOrderEdgeIsExact) {
  const auto m = test::cgal_mesh("elephant.off");
  const MeshIndex<double> index(m);
  const SignedMesh<MeshIndex<double>> s(index);
  for (const std::array<std::size_t, 3> dims :
       {std::array<std::size_t, 3>{9, 1, 5}, {6, 2, 3}, {5, 7, 2}, {5, 8, 1}, {4, 9, 4},
        {3, 15, 3}, {3, 16, 2}, {3, 17, 5}, {2, 25, 3}}) {
    const GridSpec g = grid_over_box(m.bounds(), 0.1, dims);
    SCOPED_TRACE(std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" +
                 std::to_string(dims[2]));
    expect_grid_exact(s, g, ScalarTraits<double>::infinity());
  }
}

TEST(SdfGrid, EveryNodeIsTheIndependentQuery) {
  const std::size_t res = test::test_scale() >= 1 ? 24 : 12;
  for (const char* name : {"elephant.off", "elephant-with-holes.off", "cube.off"}) {
    const auto m = test::cgal_mesh(name);
    const MeshIndex<double> index(m);
    const GridSpec g = grid_over_box(m.bounds(), 0.1, res);
    for (SignMethod sm : {SignMethod::automatic, SignMethod::winding, SignMethod::parity}) {
      const SignedMesh<MeshIndex<double>> s(index, {sm});
      SCOPED_TRACE(std::string(name) + " " + std::string(to_string(s.method())));
      expect_grid_exact(s, g, ScalarTraits<double>::infinity());
      expect_grid_exact(s, g, 0.05 * test::diagonal_length(m));
    }
  }
  // The twin gives the same grid for the deterministic methods.
  const auto m = test::icosphere(2);
  const MeshIndex<double> index(m);
  const BruteForce<double> bf(m);
  const GridSpec g = grid_over_box(m.bounds(), 0.2, 12);
  const auto a = signed_distance_grid(SignedMesh<MeshIndex<double>>(index), g);
  const auto b = signed_distance_grid(SignedMesh<BruteForce<double>>(bf), g);
  EXPECT_EQ(a.method, SignMethod::pseudonormal);
  EXPECT_EQ(a.values, b.values);
  const auto f = test::to_float(m);
  const MeshIndex<float> fi(f);
  expect_grid_exact(SignedMesh<MeshIndex<float>>(fi), g, ScalarTraits<double>::infinity());
}

// The pruned search alone, against the brute-force twin bit for bit: random
// points, random neighbours (at random distances, with their computed
// distances as empty balls), and a hint triangle that is a neighbour's closest
// (as in the grid) or any triangle. Meshes: a torus, the same 1e5 away from
// the origin (rounding margins), and a soup with degenerate triangles
// (collinear, coincident corners, slivers), in double and float.
template <class T>
void expect_lune_exact(const TriangleMesh<T>& m, std::uint64_t seed) {
  const MeshIndex<T> index(m);
  const BruteForce<T> bf(m);
  const auto box = m.bounds();
  double scale = 0, diag = 0;
  for (int a = 0; a < 3; ++a) {
    scale = std::max({scale, std::fabs(double(box.lo[a])), std::fabs(double(box.hi[a]))});
    diag += (double(box.hi[a]) - double(box.lo[a])) * (double(box.hi[a]) - double(box.lo[a]));
  }
  diag = std::sqrt(diag);
  scale += diag;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 1.5), off(-1, 1), lg(-3.5, -0.5);
  std::uniform_int_distribution<std::size_t> tri(0, m.num_triangles() - 1);
  std::vector<sdf_detail::EmptyBall> balls;
  sdf_detail::LuneStats stats;
  const std::int64_t n = test::scaled_count(1500, 100);
  std::size_t cut_any = 0, listed_any = 0;
  const std::vector<Isa> isas = available_isas();
  const Isa active = active_isa();
  for (std::int64_t c = 0; c < n; ++c) {
    Vec3<T> p;
    for (int a = 0; a < 3; ++a)
      p[a] = T(double(box.lo[a]) + u(rng) * (double(box.hi[a]) - double(box.lo[a])));
    const double h = std::pow(10.0, lg(rng)) * diag;
    balls.clear();
    std::int32_t hint = -1;
    const int nb = int(rng() % 9);
    for (int b = 0; b < nb; ++b) {
      Vec3<T> q;
      for (int a = 0; a < 3; ++a) q[a] = T(double(p[a]) + h * off(rng));
      const MeshClosestPoint<T> cq = index.closest_point(q);
      ASSERT_TRUE(cq.found());
      balls.push_back({Vec3d{double(q[0]), double(q[1]), double(q[2])}, double(cq.sq_distance)});
      if (hint < 0) hint = cq.triangle;
    }
    if (hint < 0 || rng() % 4 == 0) hint = std::int32_t(tri(rng));
    const auto t = std::size_t(hint);
    const std::size_t before = stats.triangles_tested;
    const MeshClosestPoint<T> got = sdf_detail::lune_closest_point(
        index.layout(), p, std::uint32_t(hint), m.corner(t, 0), m.corner(t, 1), m.corner(t, 2),
        balls, scale, &stats);
    const MeshClosestPoint<T> want = bf.closest_point(p);
    ASSERT_EQ(got.triangle, want.triangle) << c;
    ASSERT_EQ(std::memcmp(&got.sq_distance, &want.sq_distance, sizeof(T)), 0) << c;
    ASSERT_EQ(std::memcmp(&got.point, &want.point, sizeof(got.point)), 0) << c;
    ASSERT_EQ(got.feature, want.feature) << c;
    cut_any += stats.triangles_tested - before < m.num_triangles();
    // The triangles the search lists beside its answer (what the grid's
    // sign certificate reads): reach 0, the certificate's (1024 eps S),
    // and far larger, alternately.
    const double reaches[3] = {0.0, 1024.0 * double(std::numeric_limits<T>::epsilon()) * scale,
                               1e-3 * diag};
    const double reach = reaches[c % 3];
    // The same search compiled per ISA path (what the grid calls): every
    // path the CPU runs, the same bits; with the list on every other path.
    for (const Isa isa : isas) {
      set_isa(isa);
      const bool list = (c + int(isa)) % 2 == 0;
      NearTriangles<T> near;
      const MeshClosestPoint<T> g2 = sdf_detail::lune_closest_point_isa(
          index.layout(), p, std::uint32_t(hint), m.corner(t, 0), m.corner(t, 1), m.corner(t, 2),
          balls, scale, nullptr, nullptr, nullptr, list ? &near : nullptr, reach);
      // An overflowing list (more than its capacity within reach, e.g. float
      // 1e5 from the origin at the certificate's reach: the caller then asks
      // sphere_triangles) is flagged, not checked.
      if (list && !near.overflow) {
        std::size_t listed = 0;
        ASSERT_EQ(test::near_list_mismatch(index, p, near, want, reach, &listed), "")
            << c << " " << isa_name(isa) << " reach " << reach;
        listed_any += listed > 0;
      }
      ASSERT_EQ(g2.triangle, want.triangle) << c << " " << isa_name(isa);
      ASSERT_EQ(std::memcmp(&g2.sq_distance, &want.sq_distance, sizeof(T)), 0) << c;
      ASSERT_EQ(std::memcmp(&g2.point, &want.point, sizeof(g2.point)), 0) << c;
      ASSERT_EQ(std::memcmp(&g2.bary, &want.bary, sizeof(g2.bary)), 0) << c;
      ASSERT_EQ(g2.feature, want.feature) << c;
    }
    set_isa(active);
  }
  // The pruning prunes (not a test that cannot fail the other way), where the
  // rounding margin is small against the mesh (not for float 1e5 away).
  if (sdf_detail::kernel_error_bound<T>(scale) < 1e-3 * diag) {
    EXPECT_GT(cut_any, std::size_t(n) / 2);
  }
  // Lists are not all empty (the answer's neighbours at a vertex or an edge).
  EXPECT_GT(listed_any, std::size_t(0));
}

TEST(SdfGrid, LunePruningIsExact) {
  const auto torus = test::torus(1.0, 0.35, 48, 24);
  auto far = torus;
  {
    std::vector<Vec3d> v;
    std::vector<std::array<std::uint32_t, 3>> f;
    for (std::size_t t = 0; t < far.num_triangles(); ++t) {
      for (int k = 0; k < 3; ++k) v.push_back(far.corner(t, k) + Vec3d{1e5, -2e5, 3e5});
      const auto b = std::uint32_t(3 * t);
      f.push_back({b, b + 1, b + 2});
    }
    far = TriangleMesh<double>(std::move(v), std::move(f));
  }
  auto soup = test::random_soup(300, 0.1, 7);
  {
    std::vector<Vec3d> v;
    std::vector<std::array<std::uint32_t, 3>> f;
    for (std::size_t t = 0; t < soup.num_triangles(); ++t) {
      Vec3d a = soup.corner(t, 0), b = soup.corner(t, 1), c = soup.corner(t, 2);
      if (t % 5 == 1) c = a + (b - a) * 0.375;           // collinear
      if (t % 5 == 2) b = a;                               // two corners coincide
      if (t % 5 == 3) a = b = c;                           // a point
      if (t % 5 == 4) c = a + (b - a) * 0.5 + Vec3d{1e-9, 0, 0};  // sliver
      for (const Vec3d& x : {a, b, c}) v.push_back(x);
      const auto i = std::uint32_t(3 * t);
      f.push_back({i, i + 1, i + 2});
    }
    soup = TriangleMesh<double>(std::move(v), std::move(f));
  }
  for (const TriangleMesh<double>* m : {&torus, static_cast<const TriangleMesh<double>*>(&far),
                                        static_cast<const TriangleMesh<double>*>(&soup)}) {
    SCOPED_TRACE(m == &torus ? "torus" : m == &far ? "torus far from the origin" : "soup");
    expect_lune_exact(*m, 11);
    expect_lune_exact(test::to_float(*m), 12);
  }
}

// A grid whose nodes lie exactly on the faces of a cube (distance 0), with
// degenerate triangles added (on the surface and off it): the grid is the
// independent queries, with and without pruning, at 1, 2 and 7 threads.
// The grid's pruned search runs on the engine's ISA path
// (src/mesh/sdf_grid_isa.cpp): every path the CPU runs gives the same bytes,
// in double and float, as the plain per-node engine query.
TEST(SdfGrid, EveryIsaPathGivesTheSameGrid) {
  const std::size_t res = test::test_scale() >= 1 ? 28 : 10;
  const auto m = test::cgal_mesh("elephant.off");
  const auto f = test::to_float(m);
  const MeshIndex<double> index(m);
  const MeshIndex<float> fi(f);
  const SignedMesh<MeshIndex<double>> s(index);
  const SignedMesh<MeshIndex<float>> sf(fi);
  const GridSpec g = grid_over_box(m.bounds(), 0.1, res);
  SdfOptions plain;
  plain.lune = false;
  const SdfGrid<double> want = signed_distance_grid(s, g, plain);
  const SdfGrid<float> wantf = signed_distance_grid(sf, g, plain);
  const Isa active = active_isa();
  for (const Isa isa : available_isas()) {
    SCOPED_TRACE(isa_name(isa));
    set_isa(isa);
    std::vector<SdfGrid<double>> got;
    std::vector<SdfGrid<float>> gotf;
    for (const bool table : {true, false}) {
      SdfOptions o;
      o.terms_table = table;
      got.push_back(signed_distance_grid(s, g, o));
      gotf.push_back(signed_distance_grid(sf, g, o));
    }
    set_isa(active);
    for (int t = 0; t < 2; ++t) {
      SCOPED_TRACE(t == 0 ? "terms table" : "terms per visit");
      ASSERT_EQ(got[t].values.size(), want.values.size());
      EXPECT_EQ(std::memcmp(got[t].values.data(), want.values.data(), want.values.size() * 8), 0);
      ASSERT_EQ(gotf[t].values.size(), wantf.values.size());
      EXPECT_EQ(std::memcmp(gotf[t].values.data(), wantf.values.data(), wantf.values.size() * 4), 0);
    }
  }
}

TEST(SdfGrid, NodesOnTheSurfaceAndDegenerateTriangles) {
  std::vector<Vec3d> v;
  std::vector<std::array<std::uint32_t, 3>> f;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) v.push_back(Vec3d{double(x), double(y), double(z)});
  const std::uint32_t cube[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6},
                                     {0, 1, 4}, {1, 5, 4}, {2, 6, 3}, {3, 6, 7},
                                     {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  for (const auto& t : cube) f.push_back({t[0], t[1], t[2]});
  const auto base = std::uint32_t(v.size());
  for (const Vec3d& x : {Vec3d{0.25, 0.25, 0}, Vec3d{0.75, 0.75, 0}, Vec3d{0.5, 0.5, 0},
                         Vec3d{0.5, 0.5, 0.5}, Vec3d{0.5, 0.5, 0.5}, Vec3d{0.3, 0.6, 0.5}})
    v.push_back(x);
  f.push_back({base, base + 1, base + 2});      // collinear, on the bottom face
  f.push_back({base + 3, base + 4, base + 5});  // coincident corners, inside
  const TriangleMesh<double> m(std::move(v), std::move(f));
  const MeshIndex<double> index(m);
  const std::size_t n = test::test_scale() >= 1 ? 13 : 7;
  const GridSpec g = grid_over_box(m.bounds(), 0.25, n);
  ASSERT_EQ(g.spacing[0], 1.5 / double(n - 1));  // nodes at k/8 or k/4: exactly on the faces
  ASSERT_EQ(g.origin[0], -0.25);
  for (SignMethod sm : {SignMethod::winding, SignMethod::parity}) {
    const SignedMesh<MeshIndex<double>> s(index, {sm});
    SCOPED_TRACE(std::string(to_string(s.method())));
    expect_grid_exact(s, g, ScalarTraits<double>::infinity());
    expect_grid_exact(s, g, 0.3);
  }
  const auto mf = test::to_float(m);
  const MeshIndex<float> fi(mf);
  expect_grid_exact(SignedMesh<MeshIndex<float>>(fi, {SignMethod::winding}), g,
                    ScalarTraits<double>::infinity());
}

// Slabs of z-planes (SdfOptions::z_begin/z_end), computed apart and joined, are
// the whole grid byte for byte, with the same counts; out-of-grid ranges throw.
TEST(SdfGrid, SlabsJoinIntoTheWholeGrid) {
  const auto m = test::cgal_mesh("elephant.off");
  const MeshIndex<double> index(m);
  const GridSpec g = grid_over_box(m.bounds(), 0.1, test::test_scale() >= 1 ? 24 : 12);
  for (SignMethod sm : {SignMethod::automatic, SignMethod::winding}) {
    const SignedMesh<MeshIndex<double>> s(index, {sm});
    for (double band : {ScalarTraits<double>::infinity(), 0.05 * test::diagonal_length(m)}) {
      SdfOptions o;
      o.band = band;
      const SdfGrid<double> whole = signed_distance_grid(s, g, o);
      std::vector<double> joined;
      std::size_t unsure = 0, evaluations = 0;
      const std::size_t nz = g.dims[2], cuts[] = {0, 1, 2, nz / 2, nz - 1, nz};
      for (std::size_t c = 0; c + 1 < std::size(cuts); ++c) {
        o.z_begin = cuts[c];
        o.z_end = cuts[c + 1];
        const SdfGrid<double> slab = signed_distance_grid(s, g, o);
        ASSERT_EQ(slab.z_begin, cuts[c]);
        ASSERT_EQ(slab.values.size(), g.dims[0] * g.dims[1] * (cuts[c + 1] - cuts[c]));
        joined.insert(joined.end(), slab.values.begin(), slab.values.end());
        unsure += slab.unsure;
        evaluations += slab.sign_evaluations;
      }
      ASSERT_EQ(joined.size(), whole.values.size());
      EXPECT_EQ(std::memcmp(joined.data(), whole.values.data(), joined.size() * sizeof(double)),
                0);
      EXPECT_EQ(unsure, whole.unsure);
      EXPECT_EQ(evaluations, whole.sign_evaluations);
    }
    SdfOptions o;
    o.z_begin = g.dims[2] + 1;
    EXPECT_THROW(signed_distance_grid(s, g, o), std::invalid_argument);
    o.z_begin = 3;
    o.z_end = 2;
    EXPECT_THROW(signed_distance_grid(s, g, o), std::invalid_argument);
    o.z_end = 1000000;  // clipped to the grid
    EXPECT_EQ(signed_distance_grid(s, g, o).values.size(),
              g.dims[0] * g.dims[1] * (g.dims[2] - 3));
  }
}

TEST(SdfGrid, Refusals) {
  const TriangleMesh<double> sheet({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}}, {{0, 1, 2}});
  const MeshIndex<double> index(sheet);
  const SignedMesh<MeshIndex<double>> s(index);
  EXPECT_THROW(signed_distance_grid(s, grid_over_box(sheet.bounds(), 0.1, 8)),
               std::invalid_argument);
  const auto m = test::icosphere(1);
  const MeshIndex<double> ok(m);
  SdfOptions o;
  o.band = 0;
  EXPECT_THROW(signed_distance_grid(SignedMesh<MeshIndex<double>>(ok),
                                    grid_over_box(m.bounds(), 0.1, 8), o),
               std::invalid_argument);
}

// The grid's float bound table (prox/mesh/sdf_grid_bounds.hpp): every slot of
// every leaf has a lane in the chunk its leaf maps it to, holding its corners
// less the table's origin, the unit normal, the unit outward edge normals and
// edge directions and the edge lengths, each the double value rounded to
// float (checked here from the definitions, not by calling set_float_lane);
// lanes past a leaf are zero and not ok; past its size cap the table is empty
// (the search then computes the double bound at each visit).
template <class T>
void expect_float_table(const MeshIndex<T>& index) {
  const FlatIndex<T> x = index.layout();
  const sdf_detail::FloatBoundTable table =
      sdf_detail::float_bound_table(x, std::size_t(1) << 30, 2);
  ASSERT_FALSE(table.empty());
  const auto b = index.mesh().bounds();
  double reach = 0;
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(table.origin[a], 0.5 * double(b.lo[a]) + 0.5 * double(b.hi[a]));
    reach = std::max(reach, 0.5 * (double(b.hi[a]) - double(b.lo[a])));
  }
  EXPECT_NEAR(table.reach, reach, 1e-12 * reach);
  // got is want rounded to float (to within a float rounding).
  auto near = [](double got, double want) { return std::abs(got - want) <= 0x1p-23 * std::abs(want); };
  auto unit = [](const Vec3d& v) { return v * (1.0 / std::sqrt(dot(v, v))); };
  std::size_t slots = 0, ok = 0, chunks_seen = 0;
  for (const bvh::Node8& node : x.nodes)
    for (int c = 0; c < bvh::kWidth; ++c) {
      const std::uint32_t n = node.count[c], first = node.child[c];
      if (n == 0) continue;
      for (std::uint32_t s0 = first; s0 < first + n; s0 += 8) {
        ++chunks_seen;
        ASSERT_NE(table.chunk_of[s0 / bvh::kLeafAlign], bvh::kInvalid) << "slot " << s0;
        const sdf_detail::FloatTerms8& t = table.chunk(s0);
        for (unsigned lane = 0; lane < 8; ++lane) {
          const bool live = s0 + lane < first + n;
          if (!live) {
            EXPECT_EQ((t.ok >> lane) & 1u, 0u);
            for (int a = 0; a < 3; ++a) EXPECT_EQ(t.n[a][lane], 0.0f);
            continue;
          }
          ++slots;
          double cr[3][3], ed[3][3];
          for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a) cr[k][a] = double(x.corner(s0 + lane, k)[a]);
          for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a) ed[k][a] = cr[(k + 1) % 3][a] - cr[k][a];
          if (!((t.ok >> lane) & 1u)) continue;  // a sliver: the double bound runs there
          ++ok;
          const Vec3d e0{ed[0][0], ed[0][1], ed[0][2]}, e2{ed[2][0], ed[2][1], ed[2][2]};
          const Vec3d nn = unit(cross(e2, e0));
          for (int a = 0; a < 3; ++a) ASSERT_TRUE(near(t.n[a][lane], nn[a])) << s0 + lane;
          for (int k = 0; k < 3; ++k) {
            const Vec3d ek{ed[k][0], ed[k][1], ed[k][2]};
            const Vec3d u = unit(ek);
            const Vec3d m = unit(cross(ek, nn));
            // m points away from the opposite corner.
            const Vec3d opp{cr[(k + 2) % 3][0] - cr[k][0], cr[(k + 2) % 3][1] - cr[k][1],
                            cr[(k + 2) % 3][2] - cr[k][2]};
            ASSERT_LT(dot(m, opp), 0.0) << s0 + lane;
            ASSERT_TRUE(near(t.len[k][lane], std::sqrt(dot(ek, ek)))) << s0 + lane;
            for (int a = 0; a < 3; ++a) {
              ASSERT_TRUE(near(t.c[k][a][lane], cr[k][a] - table.origin[a])) << s0 + lane;
              ASSERT_NEAR(t.u[k][a][lane], u[a], 0x1p-23) << s0 + lane;
              ASSERT_NEAR(t.m[k][a][lane], m[a], 0x1p-23) << s0 + lane;
            }
          }
        }
      }
    }
  EXPECT_EQ(table.chunks.size(), chunks_seen);
  EXPECT_GT(ok, slots * 99 / 100);
  EXPECT_TRUE(sdf_detail::float_bound_table(x, sizeof(sdf_detail::FloatTerms8) * chunks_seen / 2, 1)
                  .empty());
}

TEST(SdfGrid, FloatBoundTableHoldsEachTrianglesTerms) {
  const auto m = test::cgal_mesh("elephant.off");
  expect_float_table(MeshIndex<double>(m));
  expect_float_table(MeshIndex<float>(test::to_float(m)));
}

}  // namespace
}  // namespace prox
