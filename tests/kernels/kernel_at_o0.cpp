// tests/kernels/kernel_at_o0.cpp — the closest-point kernel compiled at -O0
// (tests/kernels/CMakeLists.txt sets the flag on this file only), for
// test_kernel_determinism.cpp, which compares its bits with the optimised,
// inlined kernel's.
#include "kernel_at_o0.hpp"

namespace prox::test {

ClosestPointTriangleResult<double> closest_point_triangle_o0(const Vec3d& p, const Vec3d& a,
                                                             const Vec3d& b, const Vec3d& c) {
  return closest_point_triangle(p, a, b, c);
}

ClosestPointTriangleResult<float> closest_point_triangle_o0(const Vec3f& p, const Vec3f& a,
                                                            const Vec3f& b, const Vec3f& c) {
  return closest_point_triangle(p, a, b, c);
}

}  // namespace prox::test
