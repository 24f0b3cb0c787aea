// prox/mesh/results.hpp — named results of mesh queries.
//
// MeshClosestPoint: the closest point of the mesh, its squared distance, the
// triangle that holds it (lowest id on ties), barycentric weights of that
// triangle's corners 0, 1, 2 and the feature (vertex, edge, face) — exactly
// what prox::closest_point_triangle returns for that triangle.
// MeshRayHit: ray parameter t (units of the caller's direction), triangle,
// u, v = weights of corners 1 and 2, and the side that was hit; bary() gives
// all three weights (1-u-v, u, v) in MeshClosestPoint::bary's convention, so
// every front end reports the same numbers for "barycentric coordinates".
// A miss (nothing in range, empty mesh, non-finite query) has triangle -1,
// sq_distance NaN, t = +inf.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "prox/core/vec.hpp"
#include "prox/primitives/feature.hpp"

namespace prox {

template <class T>
struct MeshClosestPoint {
  Vec3<T> point = Vec3<T>::splat(ScalarTraits<T>::quiet_nan());  ///< closest point
  T sq_distance = ScalarTraits<T>::quiet_nan();                   ///< |query - point|^2
  Vec3<T> bary = Vec3<T>::splat(ScalarTraits<T>::quiet_nan());   ///< corner weights
  std::int32_t triangle = -1;                                     ///< triangle id, -1: miss
  Feature feature = Feature::face;                                ///< region of the triangle
  std::uint8_t reserved[3] = {};  ///< zero; spells out the padding so outputs memcmp equal
  /// True when a triangle was found within the search radius.
  bool found() const { return triangle >= 0; }
};
static_assert(sizeof(MeshClosestPoint<float>) == 36 && sizeof(MeshClosestPoint<double>) == 64,
              "MeshClosestPoint has no hidden padding");

template <class T>
struct MeshRayHit {
  T t = ScalarTraits<T>::infinity();  ///< ray parameter of the hit (+inf on a miss)
  T u = T(0);                         ///< weight of corner 1
  T v = T(0);                         ///< weight of corner 2
  std::int32_t triangle = -1;         ///< triangle id, -1: miss
  bool front_face = false;            ///< dot(direction, (c1-c0)x(c2-c0)) < 0
  std::uint8_t reserved[3] = {};      ///< zero; spells out the padding (memcmp-able outputs)
  /// True when the ray hit a triangle.
  bool found() const { return triangle >= 0; }
  /// Weights of corners 0, 1, 2 (1-u-v, u, v), as MeshClosestPoint::bary; NaN on a miss.
  Vec3<T> bary() const {
    if (!found()) return Vec3<T>::splat(ScalarTraits<T>::quiet_nan());
    return Vec3<T>{T(1) - u - v, u, v};
  }
};
static_assert(sizeof(MeshRayHit<float>) == 20 && sizeof(MeshRayHit<double>) == 32,
              "MeshRayHit has no hidden padding");

/// The squared radius within which MeshIndex::closest_point_near lists the
/// triangles beside an answer of squared distance best_sq: r * r in T, r =
/// sqrt(best_sq) + reach rounded up into T (the radius
/// MeshIndex::sphere_triangles(p, r) would be given, squared as it squares
/// it), so that both lists hold the same triangles.
template <class T>
inline T near_radius_sq(T best_sq, double reach) {
  const double w = std::sqrt(double(best_sq)) + reach;
  T r = T(w);
  if (double(r) < w) r = std::nextafter(r, ScalarTraits<T>::infinity());
  return r * r;
}

/// The triangles that come nearly as close as a closest-point answer (see
/// MeshIndex::closest_point_near): each with its kernel result at the query
/// point. A sign decided from the answer's feature alone is only sure when
/// none of these (any of which may hold the exact closest point, given the
/// kernel's rounding) disagrees.
template <class T>
struct NearTriangles {
  static constexpr std::size_t kCapacity = 32;
  struct Entry {
    std::int32_t triangle;
    Feature feature;
    T sq_distance;
    Vec3<T> point;
  };
  Entry entries[kCapacity];
  std::size_t count = 0;
  /// More than kCapacity qualified: the list is incomplete (the caller asks
  /// sphere_triangles instead).
  bool overflow = false;

  /// (For the searches that fill it.) Empties the list.
  void clear() {
    count = 0;
    overflow = false;
  }
  /// Lists a kernel result e if within sq_radius (the listing radius of the
  /// best answer so far); when full, first drops the entries the radius has
  /// left behind since they were listed, and when still full, flags overflow.
  void note(const Entry& e, T sq_radius) {
    if (!(e.sq_distance <= sq_radius)) return;
    if (count == kCapacity) {
      keep_within(sq_radius);
      if (count == kCapacity) {
        overflow = true;
        return;
      }
    }
    entries[count++] = e;
  }
  /// The search's end: keeps the entries within the final radius, less the
  /// answer (not its own neighbour), each triangle once (a search may offer
  /// a triangle twice: a hint, then its leaf).
  void finish(T sq_radius, std::int32_t answer) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const Entry& e = entries[i];
      if (!(e.sq_distance <= sq_radius) || e.triangle == answer) continue;
      bool again = false;
      for (std::size_t j = 0; j < kept; ++j) again |= entries[j].triangle == e.triangle;
      if (!again) entries[kept++] = e;
    }
    count = kept;
  }

 private:
  void keep_within(T sq_radius) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < count; ++i)
      if (entries[i].sq_distance <= sq_radius) entries[kept++] = entries[i];
    count = kept;
  }
};

/// Signed distance (negative inside: |winding number| >= 0.5) and the winding
/// number that decided the sign, so the caller sees how sure the sign is.
template <class T>
struct MeshSignedDistance {
  T signed_distance = ScalarTraits<T>::quiet_nan();  ///< NaN for a non-finite query
  T winding_number = ScalarTraits<T>::quiet_nan();   ///< generalized winding number
};

}  // namespace prox
