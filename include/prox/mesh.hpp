// prox/mesh.hpp — the mesh engine: TriangleMesh, MeshIndex (BVH), BruteForce,
// batch queries. Link prox::mesh.
#pragma once

#include "prox/bvh/build_options.hpp"
#include "prox/mesh/batch.hpp"
#include "prox/mesh/brute_force.hpp"
#include "prox/mesh/diagnostics.hpp"
#include "prox/mesh/flat_index.hpp"
#include "prox/mesh/hausdorff.hpp"
#include "prox/mesh/isa.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/mesh/ray_crossing.hpp"
#include "prox/mesh/results.hpp"
#include "prox/mesh/sdf_grid.hpp"
#include "prox/mesh/sign.hpp"
#include "prox/mesh/sample_surface.hpp"
#include "prox/mesh/triangle_mesh.hpp"
#include "prox/mesh/winding_number.hpp"
