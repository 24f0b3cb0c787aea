// prox/planar/shapes.hpp — the 2D shapes, the boundary/solid switch and the
// result every planar closest-point query returns.
//
// Shapes (all templated on the scalar T; coordinates in the caller's units):
//   Segment    a, b                      (no inside)
//   Circle     center, radius            (radius >= 0; 0 is a point)
//   Box<T,2>   lo, hi (prox/core/box.hpp) axis-aligned; lo <= hi; lo == hi is a point
//   OrientedBox center, half sizes, unit axis of its local x (a turned box)
//   Capsule    segment a, b plus radius  (a == b is a circle)
//   ConvexPolygon  points in order, either winding; convexity is the caller's promise
//                  (validate() checks it)
//   Polygon    a simple polygon, concave allowed, points in order, either winding
//   Polyline   an open chain of points (no inside)
//
// Every shape with an inside has two closest-point queries (seed 004, "Boundary
// or Solid"): closest_on (the outline; a point inside goes to the nearest edge)
// and closest_in (the solid; a point inside is its own answer), and the uniform
// switch closest(p, shape, Part). A segment and a polyline have one version.
//
// Degenerate policy: degenerate shapes are the lower-dimensional set they
// collapse to (zero-length segment -> its point, zero radius -> the center,
// zero-size box -> a point, polygon with fewer than 3 distinct points or all
// collinear -> its closed path of edges, whose solid is that path). Invalid
// shapes (negative or NaN radius, lo > hi, a polygon with no point, a
// zero-length OrientedBox axis) throw std::invalid_argument from the query.
#pragma once

#include <cmath>
#include <stdexcept>
#include <initializer_list>
#include <string>
#include <string_view>
#include <limits>
#include <type_traits>
#include <vector>

#include "prox/core/box.hpp"
#include "prox/core/vec.hpp"
#include "prox/planar/orient.hpp"

namespace prox::planar {

/// Which part of a shape a query measures: its outline or its solid inside.
enum class Part { boundary, solid };

/// The closest point of a shape to a query point.
template <class T>
struct ClosestResult {
  Vec2<T> point;   ///< closest point of the shape (the query point itself inside a solid)
  T sq_distance;   ///< squared distance from the query point to `point`
  int edge;        ///< straight edge holding `point` (see each shape), -1 if none
  T t;             ///< fraction along that edge (0 at its first point); capsule: along its core
};

/// A segment from a to b; it has no inside.
template <class T>
struct Segment {
  Vec2<T> a;
  Vec2<T> b;
};

/// A circle; radius 0 is the point `center`.
template <class T>
struct Circle {
  Vec2<T> center;
  T radius;
};

/// A box turned in the plane: points center + x*axis + y*perp(axis) with |x| <= half[0],
/// |y| <= half[1], perp(axis) = (-axis.y, axis.x). `axis` must have unit length.
template <class T>
struct OrientedBox {
  Vec2<T> center;
  Vec2<T> half;
  Vec2<T> axis;

  /// The box turned by `radians` counter-clockwise (in y-up axes) about its center.
  static OrientedBox from_angle(const Vec2<T>& c, const Vec2<T>& half_size, T radians) {
    return OrientedBox{c, half_size, Vec2<T>{T(std::cos(radians)), T(std::sin(radians))}};
  }
};

/// Points within `radius` of the segment a-b (a "stadium"); a == b is a circle.
template <class T>
struct Capsule {
  Vec2<T> a;
  Vec2<T> b;
  T radius;
};

/// A convex polygon, points in order around it (either way round).
template <class T>
struct ConvexPolygon {
  std::vector<Vec2<T>> points;
};

/// A simple polygon, concave allowed, points in order around it (either way round).
template <class T>
struct Polygon {
  std::vector<Vec2<T>> points;
};

/// An open chain of segments through `points`; it has no inside.
template <class T>
struct Polyline {
  std::vector<Vec2<T>> points;
};

namespace detail {

template <class T>
ClosestResult<T> planar_miss() {
  const T nan = ScalarTraits<T>::quiet_nan();
  return {Vec2<T>::splat(nan), nan, -1, nan};
}

/// The query point itself, inside a solid.
template <class T>
ClosestResult<T> self_result(const Vec2<T>& p) {
  return {p, T(0), -1, T(0)};
}

template <class T>
bool finite_point(const Vec2<T>& p) {
  if constexpr (ScalarTraits<T>::is_ieee) {
    return all_finite(p);
  } else {
    (void)p;
    return true;
  }
}

/// Concatenation by appending (GCC 12 at -O3 raises a false -Wrestrict on
/// "literal" + std::string temporaries; appends avoid it).
inline std::string join(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) s.append(p);
  return s;
}

[[noreturn]] inline void invalid_shape(std::string_view what) {
  throw std::invalid_argument(join({"prox::planar: ", what}));
}

template <class T>
void check_radius(const T& r, const char* shape) {
  if (!(r >= T(0))) invalid_shape(join({shape, " radius must be >= 0 (got a negative or NaN radius)"}));
}

template <class T>
void check_points(const std::vector<Vec2<T>>& pts, const char* shape) {
  if (pts.empty()) invalid_shape(join({shape, " needs at least one point"}));
}

/// A 90-degree counter-clockwise turn (in y-up axes).
template <class T>
Vec2<T> perp(const Vec2<T>& v) {
  return Vec2<T>{-v[1], v[0]};
}

/// Lengths of magnitude m (> 0) whose squares or products would overflow or
/// fall into T's subnormals: above 2^(max_exp / 2 - 8) or below
/// 2^(min_exp / 2 + 30) (double: 2^504 and 2^-480). A query there is solved
/// on a copy scaled by rescale_factor(m) (prox/planar/orient.hpp), a power of two (exact but for
/// values 2^900 times smaller than m, which cannot decide a comparison with
/// m's), and its answer scaled back (found from outside, stop 40: a point 4e155
/// outside a circle of radius 1e155, or 4e-170 outside one of 1e-170, was
/// "inside", the squares having overflowed or underflowed).
template <class T>
bool needs_rescale(T m) {
  if constexpr (std::is_floating_point_v<T>) {
    constexpr int hi = std::numeric_limits<T>::max_exponent / 2 - 8;
    constexpr int lo = std::numeric_limits<T>::min_exponent / 2 + 30;
    return std::isfinite(m) && m > T(0) && (m > std::ldexp(T(1), hi) || m < std::ldexp(T(1), lo));
  } else {
    (void)m;
    return false;
  }
}
}  // namespace detail
}  // namespace prox::planar
