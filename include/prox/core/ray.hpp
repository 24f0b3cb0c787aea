// prox/core/ray.hpp — a ray origin + t * direction, restricted to t in
// [t_min, t_max]. `t` is the ray parameter: the direction is never normalised
// by prox, so t is in units of |direction|.
#pragma once

#include "prox/core/vec.hpp"

namespace prox {

template <class T>
struct Ray {
  Vec<T, 3> origin;
  Vec<T, 3> direction;
  T t_min = T(0);
  T t_max = ScalarTraits<T>::infinity();

  Vec<T, 3> at(const T& t) const { return origin + direction * t; }
};

using Rayf = Ray<float>;
using Rayd = Ray<double>;

}  // namespace prox
