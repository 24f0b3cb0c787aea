#include <gtest/gtest.h>

#include "prox/prox.hpp"

TEST(Smoke, FaceRegion) {
  const prox::Vec3d a{0, 0, 0}, b{1, 0, 0}, c{0, 1, 0};
  const auto r = prox::closest_point_triangle(prox::Vec3d{0.25, 0.25, 2.0}, a, b, c);
  EXPECT_EQ(r.sq_distance, 4.0);
  EXPECT_EQ(r.feature, prox::Feature::face);
}
