// A separate project that found prox with find_package(prox): uses a kernel.
#include <cstdio>

#include <prox/prox.hpp>

int main() {
  const prox::Vec3d a{0, 0, 0}, b{1, 0, 0}, c{0, 1, 0};
  const auto r = prox::closest_point_triangle(prox::Vec3d{0.25, 0.25, 2.0}, a, b, c);
  std::printf("sq_distance=%g feature=%s\n", r.sq_distance, prox::to_string(r.feature));
  return r.sq_distance == 4.0 && r.feature == prox::Feature::face ? 0 : 1;
}
