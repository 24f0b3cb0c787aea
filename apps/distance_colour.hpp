// apps/distance_colour.hpp — colouring a mesh by distance, for `prox hausdorff`.
//
// Colour scale: prox::viridis (prox/image/annotate.hpp), linear
// in distance from 0 (dark purple) to `max` (yellow); distances above max are
// yellow. PLY: binary little endian, per vertex float x, y, z, uchar red,
// green, blue and float quality (= the vertex's distance; MeshLab reads it as
// vertex quality), faces as uchar-counted int lists. Picture: the mesh
// ray-cast (apps/render.hpp's camera), each pixel coloured by the distance of
// the hit point itself (a closest-point query per pixel, not interpolated),
// lit by |cos| to the eye, with prox::annotate's caption and colour bar.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "prox/image/annotate.hpp"
#include "prox/image/image.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "render.hpp"

namespace prox::cli {

/// Writes mesh with per-vertex quality = distance[v] and colour = viridis(distance / max).
void write_quality_ply(const std::string& path, const TriangleMesh<double>& mesh,
                       const std::vector<double>& distance, double max);

/// Renders `mesh` coloured by distance(point) / max, with the caption lines and a
/// colour bar (0 to max) titled `bar_title`.
Image render_distance_picture(const MeshIndex<double>& mesh, const Camera& camera,
                              const std::function<double(const Vec3d&)>& distance, double max,
                              int threads, const std::vector<std::string>& caption,
                              const std::string& bar_title);

}  // namespace prox::cli
