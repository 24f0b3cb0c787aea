// tests/mesh/test_sdf_grid.cpp — signed distance grids (prox/mesh/sdf_grid.hpp).
//
// Oracle: SignedMesh::query at every node, independently (no coherence), bit
// for bit; thread counts 1 and 2 byte for byte; grid layouts by hand.
#include <gtest/gtest.h>

#include <cstring>

#include "../support/scale.hpp"
#include "mesh_support.hpp"
#include "prox/mesh/sdf_grid.hpp"

namespace prox {
namespace {

template <class Index>
void expect_grid_exact(const SignedMesh<Index>& s, const GridSpec& g, double band) {
  using T = typename Index::Scalar;
  SdfOptions o;
  o.band = band;
  o.batch.threads = 1;
  const SdfGrid<T> one = signed_distance_grid(s, g, o);
  o.batch.threads = 2;
  const SdfGrid<T> two = signed_distance_grid(s, g, o);
  ASSERT_EQ(one.values.size(), g.nodes());
  ASSERT_EQ(std::memcmp(one.values.data(), two.values.data(), one.values.size() * sizeof(T)), 0);
  EXPECT_EQ(one.unsure, two.unsure);
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

}  // namespace
}  // namespace prox
