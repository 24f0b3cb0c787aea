// tests/kernels/kernel_at_o0.hpp — closest_point_triangle built at -O0
// (kernel_at_o0.cpp), out of line.
#pragma once

#include "prox/primitives/closest_point_triangle.hpp"

namespace prox::test {

ClosestPointTriangleResult<double> closest_point_triangle_o0(const Vec3d& p, const Vec3d& a,
                                                             const Vec3d& b, const Vec3d& c);
ClosestPointTriangleResult<float> closest_point_triangle_o0(const Vec3f& p, const Vec3f& a,
                                                            const Vec3f& b, const Vec3f& c);

}  // namespace prox::test
