// Every kernel template instantiated for float, double and mpq_class (exact
// rationals), checked on one small case whose answer is exact in all three.
// Square-root kernels (triangle_area, the general signed_distance_plane) are
// float/double only.
#include <gmpxx.h>
#include <gtest/gtest.h>

#include "prox/prox.hpp"

namespace {

using prox::Feature;

template <class T>
class AllScalars : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, mpq_class>;
TYPED_TEST_SUITE(AllScalars, Scalars);

template <class T>
prox::Vec3<T> v3(int x, int y, int z) {
  return prox::Vec3<T>{T(x), T(y), T(z)};
}

TYPED_TEST(AllScalars, ClosestPointTriangleThreeMethods) {
  using T = TypeParam;
  const auto a = v3<T>(0, 0, 0), b = v3<T>(4, 0, 0), c = v3<T>(0, 4, 0);
  const auto p = v3<T>(1, 1, 3);
  const auto check = [&](const prox::ClosestPointTriangleResult<T>& r) {
    EXPECT_TRUE(r.point == v3<T>(1, 1, 0));
    EXPECT_TRUE(r.sq_distance == T(9));
    EXPECT_TRUE(r.bary[0] == T(1) / T(2) && r.bary[1] == T(1) / T(4) &&
                r.bary[2] == T(1) / T(4));
    EXPECT_EQ(r.feature, Feature::face);
  };
  check(prox::closest_point_triangle(p, a, b, c));
  check(prox::closest_point_triangle_eberly(p, a, b, c));
  check(prox::closest_point_triangle_projection(p, a, b, c));
}

TYPED_TEST(AllScalars, SegmentBoxPlaneRectangle) {
  using T = TypeParam;
  const auto s = prox::closest_point_segment(v3<T>(1, 5, 0), v3<T>(0, 0, 0), v3<T>(4, 0, 0));
  EXPECT_TRUE(s.point == v3<T>(1, 0, 0) && s.sq_distance == T(25) && s.t == T(1) / T(4));
  const prox::Vec2<T> p2{T(-3), T(2)}, a2{T(0), T(0)}, b2{T(2), T(2)};
  const auto s2 = prox::closest_point_segment(p2, a2, b2);
  EXPECT_TRUE(s2.point == a2 && s2.t == T(0) && s2.sq_distance == T(13));

  const prox::Box<T, 3> box{v3<T>(0, 0, 0), v3<T>(1, 2, 3)};
  const auto bx = prox::closest_point_box(v3<T>(2, 1, -1), box);
  EXPECT_TRUE(bx.point == v3<T>(1, 1, 0) && bx.sq_distance == T(2) && !bx.inside);
  const prox::Box<T, 2> box2{prox::Vec2<T>{T(0), T(0)}, prox::Vec2<T>{T(1), T(1)}};
  EXPECT_TRUE(prox::closest_point_box(prox::Vec2<T>{T(1) / T(2), T(1)}, box2).inside);

  const auto pl = prox::closest_point_plane(v3<T>(1, 2, 3), v3<T>(0, 0, 1), v3<T>(0, 0, 2));
  EXPECT_TRUE(pl.point == v3<T>(1, 2, 1) && pl.sq_distance == T(4) && pl.side == T(4));
  EXPECT_TRUE(prox::signed_distance_plane(v3<T>(1, 2, 3), v3<T>(0, 0, 1), T(-1)) == T(2));

  const auto rc = prox::closest_point_rectangle(v3<T>(3, 1, 1), v3<T>(0, 0, 0),
                                                v3<T>(2, 0, 0), v3<T>(0, 4, 0));
  EXPECT_TRUE(rc.point == v3<T>(2, 1, 0) && rc.sq_distance == T(2) && rc.s == T(1) &&
              rc.t == T(1) / T(4));
}

TYPED_TEST(AllScalars, TriangleNormalInsideSphere) {
  using T = TypeParam;
  const auto a = v3<T>(0, 0, 0), b = v3<T>(2, 0, 0), c = v3<T>(0, 2, 0);
  EXPECT_TRUE(prox::triangle_normal(a, b, c) == v3<T>(0, 0, 4));
  EXPECT_TRUE(prox::triangle_area_squared(a, b, c) == T(4));
  EXPECT_TRUE(prox::point_in_triangle(v3<T>(1, 1, 7), a, b, c));  // on edge bc, off-plane
  EXPECT_FALSE(prox::point_in_triangle(v3<T>(2, 1, 0), a, b, c));
  EXPECT_TRUE(prox::sphere_triangle_overlap(v3<T>(1, 1, 2), T(2), a, b, c));  // touches
  EXPECT_FALSE(prox::sphere_triangle_overlap(v3<T>(3, 3, 0), T(2), a, b, c));  // 2 < |(1,1)|*2
}

TYPED_TEST(AllScalars, RayKernels) {
  using T = TypeParam;
  const auto a = v3<T>(0, 0, 0), b = v3<T>(4, 0, 0), c = v3<T>(0, 4, 0);
  const prox::Ray<T> down{v3<T>(1, 1, 2), v3<T>(0, 0, -1)};
  const prox::Ray<T> up{v3<T>(1, 1, -2), v3<T>(0, 0, 1)};
  for (const prox::Ray<T>& ray : {down, up}) {
    const bool front = ray.direction[2] < T(0);
    const auto m = prox::ray_triangle_moller_trumbore(ray, a, b, c);
    const auto w = prox::ray_triangle_watertight(ray, a, b, c);
    const auto ww = prox::ray_triangle_watertight(prox::WatertightRay<T>(ray), a, b, c);
    for (const auto& h : {m, w, ww}) {
      EXPECT_TRUE(h.hit);
      EXPECT_TRUE(h.t == T(2) && h.u == T(1) / T(4) && h.v == T(1) / T(4));
      EXPECT_EQ(h.front_face, front);
    }
    const auto cull = prox::ray_triangle_moller_trumbore(ray, a, b, c, prox::Culling::back_faces);
    EXPECT_EQ(cull.hit, front);
  }
  const prox::Box<T, 3> box{v3<T>(0, 0, 0), v3<T>(1, 1, 1)};
  const auto rb = prox::ray_box(prox::Ray<T>{v3<T>(-1, 0, 0), v3<T>(2, 1, 1)}, box);
  EXPECT_TRUE(rb.hit && rb.t_near == T(1) / T(2) && rb.t_far == T(1));
}

template <class T>
class Ieee : public ::testing::Test {};
using IeeeScalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Ieee, IeeeScalars);

TYPED_TEST(Ieee, SquareRootKernels) {
  using T = TypeParam;
  const auto a = v3<T>(0, 0, 0), b = v3<T>(3, 0, 0), c = v3<T>(0, 4, 0);
  EXPECT_EQ(prox::triangle_area(a, b, c), T(6));
  EXPECT_EQ(prox::signed_distance_plane(v3<T>(5, 5, -6), v3<T>(0, 0, 1), v3<T>(0, 0, 7)),
            T(-7));
}

}  // namespace
