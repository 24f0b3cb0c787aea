// prox/io/shapes.hpp — procedural closed meshes for demos, tests and benchmarks.
//
// Each generator returns a closed, consistently oriented (outward normals),
// 2-manifold triangle mesh with shared vertices: a UV sphere (one vertex per
// pole), a torus (grid wrapped both ways) and a trefoil-knot tube (the curve
// (sin t + 2 sin 2t, cos t - 2 cos 2t, -sin 3t) swept by a circle in the frame
// (T x z, T x (T x z)), which is periodic, so the tube closes exactly).
#pragma once

#include "prox/io/mesh_data.hpp"

namespace prox::io {

/// UV sphere of the given radius about the origin: rings >= 2, segments >= 3.
MeshData make_sphere(double radius = 1.0, int rings = 32, int segments = 64);
/// Torus about the z axis: major radius R (centre of the tube), minor radius r.
MeshData make_torus(double major = 1.0, double minor = 0.35, int rings = 96, int segments = 32);
/// Trefoil-knot tube of radius `tube`: `samples` rings along the curve, `segments` around.
MeshData make_knot(double tube = 0.45, int samples = 384, int segments = 24);

}  // namespace prox::io
