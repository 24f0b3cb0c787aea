// prox/mesh/sdf_grid_lune.hpp — what the SDF grid's pruned closest-point
// search takes and gives (the search itself: prox/mesh/sdf_grid_lune_impl.hpp,
// compiled once per ISA path in src/mesh/sdf_grid_isa.cpp). Light on purpose:
// prox/mesh.hpp includes it, so the search's body stays out of every user's TU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "prox/core/vec.hpp"
#include "prox/mesh/flat_index.hpp"
#include "prox/mesh/results.hpp"

namespace prox::sdf_detail {


struct FloatBoundTable;  // prox/mesh/sdf_grid_bounds.hpp
struct FloatTerms8;      // prox/mesh/sdf_grid_bounds.hpp

/// An empty ball of a computed neighbour: node q, its computed squared distance.
struct EmptyBall {
  Vec3d q;
  double sq_distance;
};

/// Statistics (for measurements and tests).
struct LuneStats {
  std::size_t queries = 0, nodes_visited = 0, triangles_tested = 0;
};

template <class T>
inline double kernel_error_bound(double scale) {
  return 16384.0 * double(std::numeric_limits<T>::epsilon()) * scale;
}

/// lune_closest_point compiled for the engine's active ISA path
/// (prox/mesh/isa.hpp; src/mesh/sdf_grid_isa.cpp, one object per path): the
/// same answer bit for bit on every path. signed_distance_grid calls these.
/// near, reach: the triangles within reach of the answer, listed as
/// MeshIndex::closest_point_near lists them (lune_closest_point).
MeshClosestPoint<float> lune_closest_point_isa(const FlatIndex<float>& x, const Vec3<float>& p,
                                               std::uint32_t hint, const Vec3<float>& h0,
                                               const Vec3<float>& h1, const Vec3<float>& h2,
                                               std::span<const EmptyBall> balls, double scale,
                                               LuneStats* stats = nullptr,
                                               const FloatBoundTable* table = nullptr,
                                               std::uint32_t* slot = nullptr,
                                               NearTriangles<float>* near = nullptr,
                                               double reach = 0);
MeshClosestPoint<double> lune_closest_point_isa(const FlatIndex<double>& x, const Vec3<double>& p,
                                                std::uint32_t hint, const Vec3<double>& h0,
                                                const Vec3<double>& h1, const Vec3<double>& h2,
                                                std::span<const EmptyBall> balls, double scale,
                                                LuneStats* stats = nullptr,
                                                const FloatBoundTable* table = nullptr,
                                                std::uint32_t* slot = nullptr,
                                                NearTriangles<double>* near = nullptr,
                                                double reach = 0);
/// What the float bound (float_bound8 / float_above8,
/// prox/mesh/sdf_grid_lune_impl.hpp) needs of one query point: the point less
/// the table's origin, in float, the constant part of tau and the margin k
/// (float_bound_setup computes them).
struct FloatBoundSetup {
  float p[3];
  float tau0;
  float k;
};

/// float_bound8 of a chunk's 8 lanes at the point of s, on the ISA path the
/// engine runs, as the grid's search computes it (fused multiply-adds where
/// the path has FMA): each lane's bound squared and reach, and float_above8's
/// mask at r. For tests, which check every path against the exact distance.
struct FloatBoundLanes {
  alignas(32) float all[8];
  alignas(32) float reach[8];
  unsigned above;
};
FloatBoundLanes float_bound8_isa(const FloatTerms8& t, const FloatBoundSetup& s, float r);

}  // namespace prox::sdf_detail
