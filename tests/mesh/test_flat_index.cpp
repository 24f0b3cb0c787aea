// The flat layout as prox/mesh/flat_index.hpp documents it (what a GPU upload
// or a serializer relies on): every slot of a leaf holds its triangle's corners
// in the mesh's order and precision, padding slots are 0xffffffff and their
// lanes repeat the leaf's last triangle, leaves start on pack boundaries, and
// every triangle is in exactly one slot. Also: the winding number's far field
// is built on first use only, and answers do not change when it is built.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "mesh_support.hpp"

namespace {

using namespace prox;

template <class T>
void check_layout(const TriangleMesh<T>& mesh, const std::string& what) {
  SCOPED_TRACE(what);
  const MeshIndex<T> index(mesh);
  const FlatIndex<T> x = index.layout();
  ASSERT_EQ(x.prims.size() % 4, 0u);
  ASSERT_EQ(x.packs.size() * 4, x.prims.size());
  ASSERT_EQ(x.nodes.size(), index.bvh().nodes.size());
  std::vector<int> seen(mesh.num_triangles(), 0);
  std::size_t bad = 0, leaves = 0;
  for (const bvh::Node8& n : x.nodes) {
    for (int k = 0; k < bvh::kWidth; ++k) {
      if (n.count[k] == 0) continue;
      ++leaves;
      const std::uint32_t b = n.child[k], e = b + n.count[k];
      bad += b % 4 != 0;
      for (std::uint32_t s = b; s < (e + 3) / 4 * 4; ++s) {
        const LeafPack<T>& pk = x.pack_of(s);
        const unsigned lane = FlatIndex<T>::lane_of(s);
        // A real slot: its own triangle; a padding slot: the leaf's last one.
        const std::uint32_t id = s < e ? x.prims[s] : x.prims[e - 1];
        if (s >= e) bad += x.prims[s] != bvh::kInvalid;
        if (s < e) ++seen.at(id);
        for (int c = 0; c < 3; ++c)
          bad += std::memcmp(&pk.c[c][0][lane], &mesh.corner(id, c)[0], sizeof(T)) != 0 ||
                 std::memcmp(&pk.c[c][1][lane], &mesh.corner(id, c)[1], sizeof(T)) != 0 ||
                 std::memcmp(&pk.c[c][2][lane], &mesh.corner(id, c)[2], sizeof(T)) != 0;
      }
    }
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(leaves, index.build_stats().leaves);
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "triangle " << i;
}

TEST(FlatIndex, LayoutAsDocumented) {
  check_layout(test::icosphere(3), "icosphere double");
  check_layout(test::to_float(test::torus(1.0, 0.3, 40, 17)), "torus float");
  check_layout(test::random_soup(1001, 0.05, 3), "soup double");
  check_layout(test::to_float(test::cgal_mesh("elephant.off")), "elephant float");
}

TEST(FlatIndex, FarFieldOnFirstUse) {
  const auto mesh = test::icosphere(3);
  const MeshIndex<double> index(mesh);
  const std::size_t before = index.memory_bytes();
  const auto cp = index.closest_point(Vec3<double>{0.1, 0.2, 3.0});
  EXPECT_EQ(index.memory_bytes(), before);  // closest points and rays never build it
  const double w = index.winding_number(Vec3<double>{0.1, 0.2, 0.3});
  EXPECT_GT(index.memory_bytes(), before);  // the first winding number did
  // Inside: the exact winding number is 1; the far-field estimate is within a
  // few 1e-2 on this coarse sphere (this test is about when it is built).
  EXPECT_NEAR(w, index.exact_winding_number(Vec3<double>{0.1, 0.2, 0.3}), 0.05);
  EXPECT_NEAR(index.exact_winding_number(Vec3<double>{0.1, 0.2, 0.3}), 1.0, 1e-12);
  index.build_far_field();  // a no-op now
  EXPECT_EQ(index.winding_number(Vec3<double>{0.1, 0.2, 0.3}), w);
  const auto cp2 = index.closest_point(Vec3<double>{0.1, 0.2, 3.0});
  EXPECT_EQ(std::memcmp(&cp, &cp2, sizeof(cp)), 0);
  // A copy shares the built far field; a fresh index builds it on request.
  const MeshIndex<double> fresh(mesh);
  fresh.build_far_field();
  EXPECT_EQ(fresh.winding_number(Vec3<double>{0.1, 0.2, 0.3}), w);
}

}  // namespace
