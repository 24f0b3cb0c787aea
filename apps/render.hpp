// apps/render.hpp — ray-cast pictures of a mesh, shared by `prox render` and `prox demo`.
//
// Camera (WORKLOADS.md's ray-primary camera, generalised to any view): the eye
// sits at center + |bbox diagonal| * view (view = unit direction from the
// mesh's centre to the eye; default +z), looks at the centre, 60 degree
// vertical field of view, +y up (unless looking along y: then -z or +z is up),
// rays through pixel centres, row 0 at the top. Ray directions are
// forward + sx * right + sy * up with |forward| = 1, so a hit's t is its depth
// along the view axis.
// Modes: depth (grey by rank among hit depths: nearest white, farthest dark), normal (face normal as colour, lit from
// the eye), id (a colour hashed from the triangle id), distance (unsigned
// closest-point distance on the plane through the centre facing the camera,
// coloured like `prox field2d`: glow, a band every 1/16 of the diagonal, white
// where the plane cuts the surface).
#pragma once

#include <string>

#include "prox/core/ray.hpp"
#include "prox/image/image.hpp"
#include "prox/mesh/mesh_index.hpp"

namespace prox::cli {

enum class RenderMode { depth, normal, distance, id };

/// "depth" | "normal" | "distance" | "id"; UsageError otherwise.
RenderMode parse_render_mode(const std::string& text);
const char* to_string(RenderMode mode);
/// "+x", "-y", "z" (= +z) or "dx,dy,dz"; UsageError otherwise (or a zero vector).
Vec3d parse_view(const std::string& text);

struct Camera {
  Vec3d eye, forward, right, up;  // right, up scaled by tan(vfov / 2) (and aspect for right)
  int width = 0, height = 0;
  double focus = 1;  // distance from the eye to the mesh centre along forward
  /// The ray through the centre of pixel (x, y); row 0 at the top.
  Ray<double> ray(int x, int y) const;
};

/// The camera looking at `bounds` from direction `view`, width x height pixels.
Camera make_camera(const Box3<double>& bounds, const Vec3d& view, int width, int height,
                   double vfov_degrees = 60);
/// The camera at target + distance * unit(view), looking at target (focus = distance),
/// up as in make_camera; make_camera is look_at(centre, view, |diagonal|, ...).
Camera look_at(const Vec3d& target, const Vec3d& view, double distance, int width, int height,
               double vfov_degrees = 60);

struct RenderStats {
  double ms = 0;
  std::size_t hits = 0;  ///< pixels that hit the mesh (all pixels in distance mode)
};

/// Renders the mesh; threads as in BatchOptions (0 = all cores).
Image render_mesh(const MeshIndex<double>& index, const Camera& camera, RenderMode mode,
                  int threads, RenderStats* stats = nullptr);

}  // namespace prox::cli
