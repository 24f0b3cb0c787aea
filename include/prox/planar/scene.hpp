// prox/planar/scene.hpp — a scene of 2D shapes, its text format and the
// seed's built-in scene (module prox::planar).
//
// Text format (docs/planar.md): one shape per line, '#' starts a comment,
// blank lines are skipped, numbers are decimal (finite):
//   canvas W H                      picture size the scene is drawn for (default 1000 700)
//   segment ax ay bx by
//   circle cx cy r                  r >= 0
//   box x0 y0 x1 y1                 x0 <= x1, y0 <= y1
//   obox cx cy hw hh degrees        turned box: center, half sizes, turn from +x toward +y
//   capsule ax ay bx by r
//   convex x y x y ...              convex polygon (checked)
//   polygon x y x y ...             simple polygon, concave allowed (checked)
//   polyline x y x y ...
// parse_scene throws std::runtime_error "NAME:LINE: what is wrong".
#pragma once

#include <filesystem>
#include <istream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "prox/planar.hpp"

namespace prox::planar {

/// Any planar shape, in double precision.
using Shape = std::variant<Segment<double>, Circle<double>, Box<double, 2>, OrientedBox<double>,
                           Capsule<double>, ConvexPolygon<double>, Polygon<double>,
                           Polyline<double>>;

/// Shapes plus the canvas size they were laid out for (in scene units = pixels at scale 1).
struct Scene {
  std::vector<Shape> shapes;
  int width = 1000;
  int height = 700;
};

/// The seed's scene (Magnet): segment (150,160)-(400,120), circle (720,200) r 95,
/// box (150,420)-(340,580), triangle (560,430),(780,410),(690,610); canvas 1000 x 700.
Scene default_scene();

/// Parses the text format; `name` (a file name) prefixes every error message.
Scene parse_scene(std::istream& in, std::string_view name);

/// Reads and parses a scene file; errors name the file and line.
Scene load_scene(const std::filesystem::path& path);

/// The scene in the text format (parse_scene reads it back; numbers printed to round-trip).
std::string format_scene(const Scene& scene);

/// The keyword of a shape in the text format ("circle", "polygon", ...).
std::string_view shape_keyword(const Shape& shape);

/// The nearest shape of a scene and its closest point.
struct SceneClosest {
  int shape = -1;                  ///< index into Scene::shapes (-1: empty scene or non-finite p)
  ClosestResult<double> closest;   ///< that shape's closest point (see ClosestResult)
};

/// Closest point of one shape (outline or solid).
ClosestResult<double> closest(const Vec2d& p, const Shape& shape, Part part);

/// Closest point of the whole scene (outline or solid); ties go to the lowest shape index.
SceneClosest scene_closest(const Vec2d& p, const Scene& scene, Part part);

/// Distance from p to the nearest shape's outline (Part::boundary), or the scene's
/// signed distance (Part::solid: min over shapes, negative inside a solid; segments
/// and polylines, which have no inside, count with their unsigned distance).
double scene_distance(const Vec2d& p, const Scene& scene, Part part);

}  // namespace prox::planar
