// src/mesh/engine.hpp — the table of hot query entry points of one ISA path.
//
// engine_isa.cpp is compiled once per path (SSE2, AVX2, AVX-512: separate
// objects, see CMakeLists.txt); each defines engine_table() in its own ISA
// namespace. engine_dispatch.cpp picks one table at the first query.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "prox/core/ray.hpp"
#include "prox/mesh/flat_index.hpp"
#include "prox/mesh/isa.hpp"
#include "prox/mesh/results.hpp"

namespace prox::detail {

struct EngineTable {
  Isa isa;
  /// The last two: an optional hint triangle's corners (or null) and its id.
  MeshClosestPoint<float> (*closest_point_f)(const FlatIndex<float>&, const Vec3<float>&, float,
                                             bool, const Vec3<float>*, std::uint32_t);
  MeshClosestPoint<double> (*closest_point_d)(const FlatIndex<double>&, const Vec3<double>&,
                                              double, bool, const Vec3<double>*, std::uint32_t);
  /// The same with the triangles near the answer (closest_point_query's kNear).
  MeshClosestPoint<float> (*closest_point_near_f)(const FlatIndex<float>&, const Vec3<float>&,
                                                  float, bool, const Vec3<float>*, std::uint32_t,
                                                  double, NearTriangles<float>*);
  MeshClosestPoint<double> (*closest_point_near_d)(const FlatIndex<double>&, const Vec3<double>&,
                                                   double, bool, const Vec3<double>*,
                                                   std::uint32_t, double, NearTriangles<double>*);
  MeshRayHit<float> (*first_hit_f)(const FlatIndex<float>&, const Ray<float>&, bool);
  MeshRayHit<double> (*first_hit_d)(const FlatIndex<double>&, const Ray<double>&, bool);
  bool (*any_hit_f)(const FlatIndex<float>&, const Ray<float>&, bool);
  bool (*any_hit_d)(const FlatIndex<double>&, const Ray<double>&, bool);
  /// out[i] = first hit of rays[i], i < n; coherent float rays in packets.
  void (*first_hits_f)(const FlatIndex<float>&, const Ray<float>*, std::size_t,
                       MeshRayHit<float>*, bool);
  void (*first_hits_d)(const FlatIndex<double>&, const Ray<double>*, std::size_t,
                       MeshRayHit<double>*, bool);
  /// For tests (prox/mesh/engine_hooks.hpp, packet_set_up_check): this path's
  /// eight-lane packet set-up against the scalar one on rays[0..8).
  int (*packet_set_up_check)(const Ray<float>*, float);
};

/// The table of the active path (prox/mesh/isa.hpp).
const EngineTable& engine();

/// Whether the SIMD leaf filters run (not forced off by set_scalar_leaves,
/// prox/mesh/engine_hooks.hpp); the facade passes it to every entry point.
bool simd_leaves();
/// Counts rays traced in a packet (prox/mesh/engine_hooks.hpp).
void note_packet(unsigned rays);

template <class T>
MeshClosestPoint<T> engine_closest_point(const FlatIndex<T>& x, const Vec3<T>& p, T r, bool simd,
                                         const Vec3<T>* hint = nullptr,
                                         std::uint32_t hint_id = 0) {
  if constexpr (std::is_same_v<T, float>)
    return engine().closest_point_f(x, p, r, simd, hint, hint_id);
  else return engine().closest_point_d(x, p, r, simd, hint, hint_id);
}
template <class T>
MeshClosestPoint<T> engine_closest_point_near(const FlatIndex<T>& x, const Vec3<T>& p, T r,
                                              bool simd, const Vec3<T>* hint,
                                              std::uint32_t hint_id, double reach,
                                              NearTriangles<T>& near) {
  if constexpr (std::is_same_v<T, float>)
    return engine().closest_point_near_f(x, p, r, simd, hint, hint_id, reach, &near);
  else return engine().closest_point_near_d(x, p, r, simd, hint, hint_id, reach, &near);
}
template <class T>
MeshRayHit<T> engine_first_hit(const FlatIndex<T>& x, const Ray<T>& ray, bool simd) {
  if constexpr (std::is_same_v<T, float>) return engine().first_hit_f(x, ray, simd);
  else return engine().first_hit_d(x, ray, simd);
}
template <class T>
void engine_first_hits(const FlatIndex<T>& x, const Ray<T>* rays, std::size_t n,
                       MeshRayHit<T>* out, bool simd) {
  if constexpr (std::is_same_v<T, float>) engine().first_hits_f(x, rays, n, out, simd);
  else engine().first_hits_d(x, rays, n, out, simd);
}
template <class T>
bool engine_any_hit(const FlatIndex<T>& x, const Ray<T>& ray, bool simd) {
  if constexpr (std::is_same_v<T, float>) return engine().any_hit_f(x, ray, simd);
  else return engine().any_hit_d(x, ray, simd);
}

}  // namespace prox::detail
