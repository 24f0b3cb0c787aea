// src/mesh/sdf_grid_isa.hpp — the table of one ISA path's pruned grid search
// (sdf_grid_isa.cpp), picked by sdf_grid_dispatch.cpp.
#pragma once

#include "prox/mesh/sdf_grid_lune_impl.hpp"

namespace prox::sdf_detail {

template <class T>
using LuneFn = MeshClosestPoint<T> (*)(const FlatIndex<T>&, const Vec3<T>&, std::uint32_t,
                                       const Vec3<T>&, const Vec3<T>&, const Vec3<T>&,
                                       std::span<const EmptyBall>, double, LuneStats*,
                                       const FloatBoundTable*, std::uint32_t*,
                                       NearTriangles<T>*, double);
struct LuneTable {
  LuneFn<float> f;
  LuneFn<double> d;
  FloatBoundLanes (*bound)(const FloatTerms8&, const FloatBoundSetup&, float);
};

}  // namespace prox::sdf_detail
