// prox/primitives/triangle_normal.hpp — a triangle's (unnormalised) normal.
//
// n = (b - a) x (c - a) (seed 003). Its length is twice the area; it points
// towards the viewer who sees a, b, c counter-clockwise (right-handed axes).
// It is not normalised, so it is exact for exact scalar types and never
// divides by zero. Degenerate triangles (collinear or coincident corners) give
// the zero vector; non-finite corners give non-finite components.
#pragma once

#include "prox/core/vec.hpp"

namespace prox {

/// (b - a) x (c - a): the normal with length twice the triangle's area.
template <class T>
Vec3<T> triangle_normal(const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
  return cross(b - a, c - a);
}

}  // namespace prox
