// Ray kernels by hand: both sides, culling, the t range with either sign of
// the determinant (a back face is hit at the same t as a front face), the
// front_face convention shared by both kernels, and the slab test's corner
// cases (origin on a slab plane with a zero direction component, start inside,
// touching, pointing away, t range).
#include <gtest/gtest.h>

#include <limits>

#include "prox/prox.hpp"

namespace {

using prox::Culling;
using prox::Rayd;
using prox::Vec3d;

const Vec3d a{0, 0, 0}, b{2, 0, 0}, c{0, 2, 0};  // normal +z

TEST(RayTriangleHand, BothSidesSameT) {
  const Rayd down{{0.5, 0.5, 3}, {0, 0, -2}};  // front face, t = 1.5
  const Rayd up{{0.5, 0.5, -3}, {0, 0, 2}};    // back face, t = 1.5
  for (const Rayd& ray : {down, up}) {
    const bool front = ray.direction[2] < 0;
    const auto m = prox::ray_triangle_moller_trumbore(ray, a, b, c);
    const auto w = prox::ray_triangle_watertight(ray, a, b, c);
    for (const auto& h : {m, w}) {
      EXPECT_TRUE(h.hit);
      EXPECT_EQ(h.t, 1.5);
      EXPECT_EQ(h.u, 0.25);
      EXPECT_EQ(h.v, 0.25);
      EXPECT_EQ(h.front_face, front);  // dot(direction, n) < 0
    }
    EXPECT_EQ(prox::ray_triangle_moller_trumbore(ray, a, b, c, Culling::back_faces).hit, front);
    EXPECT_EQ(prox::ray_triangle_moller_trumbore(ray, a, b, c, Culling::front_faces).hit, !front);
  }
}

TEST(RayTriangleHand, FrontFaceAgreesForEveryAxisAndSign) {
  // A triangle facing each of the six axis directions, rays along each axis.
  for (int axis = 0; axis < 3; ++axis) {
    for (const double sign : {1.0, -1.0}) {
      Vec3d n{0, 0, 0};
      n[axis] = sign;
      // Corners around the axis, wound so that (b - a) x (c - a) is along n.
      const int i = (axis + 1) % 3, j = (axis + 2) % 3;
      Vec3d p0{0, 0, 0}, p1{0, 0, 0}, p2{0, 0, 0};
      p1[i] = 2;
      p2[j] = 2;
      if (sign < 0) std::swap(p1, p2);
      ASSERT_GT(dot(prox::triangle_normal(p0, p1, p2), n), 0);
      for (const double dir : {1.0, -1.0}) {
        Rayd ray{{0, 0, 0}, {0, 0, 0}};
        ray.origin[i] = 0.5;
        ray.origin[j] = 0.5;
        ray.origin[axis] = -3 * dir;
        ray.direction[axis] = dir;
        ray.direction[i] = 0.01;  // slightly oblique, so the dominant axis is clear
        const bool front = dir * sign < 0;
        const auto m = prox::ray_triangle_moller_trumbore(ray, p0, p1, p2);
        const auto w = prox::ray_triangle_watertight(ray, p0, p1, p2);
        ASSERT_TRUE(m.hit && w.hit);
        EXPECT_EQ(m.front_face, front) << "axis " << axis << " sign " << sign << " dir " << dir;
        EXPECT_EQ(w.front_face, front) << "axis " << axis << " sign " << sign << " dir " << dir;
        EXPECT_DOUBLE_EQ(m.t, 3.0);
        EXPECT_DOUBLE_EQ(w.t, 3.0);
      }
    }
  }
}

TEST(RayTriangleHand, TRange) {
  for (const double dz : {-1.0, 1.0}) {  // front and back face: both determinant signs
    Rayd ray{{0.5, 0.5, -2 * dz}, {0, 0, dz}};  // hit at t = 2
    for (const auto& [t_min, t_max, hit] :
         std::initializer_list<std::tuple<double, double, bool>>{
             {0, 2, true}, {2, 3, true}, {0, 1.999, false}, {2.001, 9, false},
             {-5, -1, false}, {2, 2, true}}) {
      ray.t_min = t_min;
      ray.t_max = t_max;
      EXPECT_EQ(prox::ray_triangle_moller_trumbore(ray, a, b, c).hit, hit)
          << dz << " [" << t_min << ", " << t_max << "]";
      EXPECT_EQ(prox::ray_triangle_watertight(ray, a, b, c).hit, hit)
          << dz << " [" << t_min << ", " << t_max << "]";
    }
  }
  // Behind the origin: a miss with the default range [0, inf).
  const Rayd away{{0.5, 0.5, 1}, {0, 0, 1}};
  EXPECT_FALSE(prox::ray_triangle_moller_trumbore(away, a, b, c).hit);
  EXPECT_FALSE(prox::ray_triangle_watertight(away, a, b, c).hit);
}

TEST(RayTriangleHand, ParallelAndEdges) {
  const Rayd in_plane{{-1, 0.5, 0}, {1, 0, 0}};
  EXPECT_FALSE(prox::ray_triangle_moller_trumbore(in_plane, a, b, c).hit);
  EXPECT_FALSE(prox::ray_triangle_watertight(in_plane, a, b, c).hit);
  // Through an edge and a vertex exactly: closed triangle, hit (exact inputs).
  for (const Vec3d& target : {Vec3d{1, 0, 0}, Vec3d{1, 1, 0}, Vec3d{0, 0, 0}, Vec3d{2, 0, 0}}) {
    const Rayd ray{{target[0], target[1], 1}, {0, 0, -1}};
    EXPECT_TRUE(prox::ray_triangle_moller_trumbore(ray, a, b, c).hit);
    EXPECT_TRUE(prox::ray_triangle_watertight(ray, a, b, c).hit);
  }
  // The direction's length is the unit of t: never normalised.
  const Rayd scaled{{0.5, 0.5, 4}, {0, 0, -8}};
  EXPECT_EQ(prox::ray_triangle_moller_trumbore(scaled, a, b, c).t, 0.5);
  EXPECT_EQ(prox::ray_triangle_watertight(scaled, a, b, c).t, 0.5);
}

TEST(RayBoxHand, Slabs) {
  const prox::Box<double, 3> box{{0, 0, 0}, {1, 2, 3}};
  auto h = prox::ray_box(Rayd{{-1, 1, 1}, {1, 0, 0}}, box);
  EXPECT_TRUE(h.hit);
  EXPECT_EQ(h.t_near, 1.0);
  EXPECT_EQ(h.t_far, 2.0);
  h = prox::ray_box(Rayd{{0.5, 1, 1}, {0, 0, -2}}, box);  // starts inside
  EXPECT_TRUE(h.hit);
  EXPECT_EQ(h.t_near, 0.0);
  EXPECT_EQ(h.t_far, 0.5);
  EXPECT_FALSE(prox::ray_box(Rayd{{-1, 1, 1}, {-1, 0, 0}}, box).hit);  // pointing away
  // Origin exactly on a slab plane, zero direction there: inside that slab, no NaN.
  h = prox::ray_box(Rayd{{0, 1, -1}, {0, 0, 1}}, box);
  EXPECT_TRUE(h.hit);
  EXPECT_EQ(h.t_near, 1.0);
  EXPECT_EQ(h.t_far, 4.0);
  EXPECT_FALSE(prox::ray_box(Rayd{{-1e-300, 1, -1}, {0, 0, 1}}, box).hit);  // just outside
  // Touching an edge: t_near == t_far.
  h = prox::ray_box(Rayd{{-1, 1, 1}, {1, -1, 0}}, box);
  EXPECT_TRUE(h.hit);
  EXPECT_EQ(h.t_near, 1.0);
  EXPECT_EQ(h.t_far, 1.0);
  // Tiny direction component: the inverse overflows and is kept finite.
  h = prox::ray_box(Rayd{{0, 1, 1}, {5e-324, 0, 0}}, box);
  EXPECT_TRUE(h.hit);
  EXPECT_EQ(h.t_near, 0.0);
  // The t range clips the interval.
  Rayd r{{-1, 1, 1}, {1, 0, 0}};
  r.t_max = 1.5;
  h = prox::ray_box(r, box);
  EXPECT_EQ(h.t_far, 1.5);
  r.t_max = 0.5;
  EXPECT_FALSE(prox::ray_box(r, box).hit);
  // Infinite bounds: a half-space box.
  const double inf = std::numeric_limits<double>::infinity();
  const prox::Box<double, 3> half{{-inf, -inf, 0}, {inf, inf, inf}};
  h = prox::ray_box(Rayd{{5, 5, -2}, {0, 0, 1}}, half);
  EXPECT_TRUE(h.hit);
  EXPECT_EQ(h.t_near, 2.0);
  EXPECT_EQ(h.t_far, inf);
}

}  // namespace
