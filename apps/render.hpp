// apps/render.hpp — ray-cast pictures of a mesh, shared by `prox render` and `prox demo`.
//
// Camera (WORKLOADS.md's ray-primary camera, generalised to any view): the eye
// sits at center + |bbox diagonal| * view (view = unit direction from the
// mesh's centre to the eye; default +z), looks at the centre, 60 degree
// vertical field of view, +y up (unless looking along y: then -z or +z is up),
// rays through pixel centres, row 0 at the top. Ray directions are
// forward + sx * right + sy * up with |forward| = 1, so a hit's t is its depth
// along the view axis.
// Modes: depth (grey linear in depth: nearest hit white, farthest dark), normal
// (face normal as colour, lit from the eye), id (a colour hashed from the
// triangle id), distance (the exact closest-point distance, or with
// signed_distance SignedMesh's signed one, on the plane through the target
// facing the camera, coloured like `prox field2d`: glow, a band every 1/16 of
// the diagonal, white where the plane cuts the surface).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "prox/core/ray.hpp"
#include "prox/image/annotate.hpp"
#include "prox/image/image.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "prox/planar/field.hpp"

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

/// The camera at `eye` looking at `target`, `up` (projected) upwards, vertical
/// field of view vfov_degrees; focus = |target - eye| (the distance slice is
/// the plane through the target facing the eye). UsageError for a degenerate
/// set-up (eye on the target, up along the view, non-finite numbers).
Camera look_at_camera(const Vec3d& eye, const Vec3d& target, const Vec3d& up, int width,
                      int height, double vfov_degrees = 60);
/// "X,Y,Z" -> the vector; UsageError naming `option` otherwise.
Vec3d parse_point(const std::string& text, const std::string& option);

struct RenderStats {
  double ms = 0;
  std::size_t hits = 0;  ///< pixels that hit the mesh (all pixels in distance mode)
  double min_distance = 0, max_distance = 0;  ///< distance mode: over the plane's pixels
  double min_depth = 0, max_depth = 0;        ///< hit t over the pixels that hit
  /// Distance mode: each pixel's value, row-major: the distance from the pixel's
  /// point camera.ray(x, y).at(focus - offset) to the mesh (with --signed,
  /// SignedMesh's signed distance), exactly the unbounded query's; NaN for none.
  std::vector<double> distances;
  std::string sign_method;  ///< distance mode with signed_distance: the method used
};

/// What each pixel's camera ray hits, row-major (row 0 at the top): t (the
/// depth along the view axis, since |forward| = 1; +inf for background),
/// triangle id (-1), unit geometric normal (NaN).
struct RenderBuffers {
  int width = 0, height = 0;
  std::vector<double> depth;
  std::vector<std::int64_t> ids;
  std::vector<double> normals;  ///< 3 per pixel
};
RenderBuffers cast_camera(const MeshIndex<double>& index, const Camera& camera, int threads);
/// Every pixel's ray, row-major: origin then direction, 6 per pixel.
std::vector<double> camera_rays(const Camera& camera);

/// Renders the mesh; threads as in BatchOptions (0 = all cores).
Image render_mesh(const MeshIndex<double>& index, const Camera& camera, RenderMode mode,
                  int threads, RenderStats* stats = nullptr);

/// Everything render_mesh can be asked for.
struct RenderOptions {
  RenderMode mode = RenderMode::normal;
  int threads = 0;
  bool signed_distance = false;  ///< distance mode: negative inside (SignedMesh, method auto), diverging colours
  double offset = 0;             ///< distance mode: the plane this far from the target, toward the eye
  bool silhouette = true;        ///< distance mode: the mesh's outline drawn faintly
};

/// What a picture shows, for its caption and colour bar (filled by render_mesh).
struct RenderLegend {
  std::string what;        ///< e.g. "unsigned distance on the plane 1.6 from the eye"
  bool has_bar = false;    ///< depth and distance modes
  ColourBar bar;
};

/// Renders the mesh as `options` say; legend (optional) says how to read it.
Image render_mesh(const MeshIndex<double>& index, const Camera& camera, const RenderOptions& options,
                  RenderStats* stats = nullptr, RenderLegend* legend = nullptr);

/// A 2D scene's distance-field picture with its caption and colour bar
/// (values in scene units over the field's range).
Image annotate_field(const Image& picture, const std::string& scene_name, std::size_t shapes,
                     const std::vector<double>& field, const planar::FieldOptions& options);

/// The picture with its caption ("NAME · WHAT · view ...") and colour bar.
Image annotate_render(const Image& picture, const std::string& mesh_name, const Camera& camera,
                      const RenderLegend& legend);

}  // namespace prox::cli
