// prox/mesh/engine_hooks.hpp — switches of the mesh engine's internals, for
// tests and measurements (not for ordinary use).
//
// The SIMD leaf filters (src/mesh/leaf_ray_simd.hpp, leaf_closest_simd.hpp) only skip triangles
// the scalar kernel would reject, so results never depend on these switches;
// the tests run both ways to check exactly that. The environment variable
// PROX_SCALAR_LEAVES=1 sets the switch at start-up.
#pragma once

#include <cstddef>

#include "prox/core/ray.hpp"

namespace prox {

/// Forces (true) or releases (false) the scalar per-triangle path in leaves.
void set_scalar_leaves(bool scalar);
/// Whether the scalar per-triangle path is forced.
bool scalar_leaves();

/// Rays this thread has traced in packets (MeshIndex::first_hits on coherent
/// runs), since the thread started: lets a test check that the packet path ran.
std::size_t packet_rays_this_thread();

/// For tests: on the active ISA path (prox/mesh/isa.hpp), whether the
/// eight-lane packet set-up of rays[0..8) gives the scalar set-up's packet
/// (2), both decline the rays (1), they differ (0), or the path has no
/// eight-lane set-up (-1). `scale`: the index's extent, which bounds the
/// origins' spread.
int packet_set_up_check(const Ray<float>* rays, float scale);

}  // namespace prox
