// src/mesh/mesh_index.cpp — MeshIndex: build, closest point, sphere queries,
// winding number and signed distance (rays: mesh_index_rays.cpp; refit, save,
// load: mesh_index_io.cpp).
//
// Leaf triangles are copied in leaf order (leaf_tris_), so a leaf is one
// contiguous run of corners in T and no index lookup is needed in the hot loop;
// bvh_.prims maps a leaf slot back to the triangle id. Every triangle test is
// the shared kernel (prox::closest_point_triangle) in the mesh's precision.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "prox/bvh/build.hpp"
#include "prox/bvh/traverse.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "query_common.hpp"

namespace prox {

template <class T>
std::vector<Box3<float>> MeshIndex<T>::triangle_boxes() const {
  std::vector<Box3<float>> boxes(mesh_.num_triangles());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, boxes.size(), 4096),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t i = r.begin(); i < r.end(); ++i) {
                        Box3<T> b = Box3<T>::empty();
                        for (int k = 0; k < 3; ++k) b.extend(mesh_.corner(i, k));
                        boxes[i] = bvh::outward_float_box(b);
                      }
                    });
  return boxes;
}

template <class T>
void MeshIndex<T>::rebuild_leaf_data() {
  leaf_tris_.resize(bvh_.prims.size());
  leaf_boxes_.resize(bvh_.prims.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, leaf_tris_.size(), 4096),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t j = r.begin(); j < r.end(); ++j) {
                        Box3<T> b = Box3<T>::empty();
                        for (int k = 0; k < 3; ++k) {
                          leaf_tris_[j].c[k] = mesh_.corner(bvh_.prims[j], k);
                          b.extend(leaf_tris_[j].c[k]);
                        }
                        leaf_boxes_[j] = bvh::outward_float_box(b);
                      }
                    });
}

template <class T>
MeshIndex<T>::MeshIndex(TriangleMesh<T> mesh, const BuildOptions& options)
    : mesh_(std::move(mesh)) {
  const auto t0 = std::chrono::steady_clock::now();
  auto run = [&] {
    const std::vector<Box3<float>> boxes = triangle_boxes();
    bvh_ = bvh::build_bvh4(boxes, options);
    rebuild_leaf_data();
  };
  if (options.threads > 0) {
    tbb::task_arena arena(options.threads);
    arena.execute(run);
  } else {
    run();
  }
  bvh_.stats.build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <class T>
MeshClosestPoint<T> MeshIndex<T>::closest_point(const Vec3<T>& p, T max_distance) const {
  MeshClosestPoint<T> best;
  if (!all_finite(p)) return best;
  const T r2 = detail::squared_radius(max_distance);
  if (r2 < T(0)) return best;
  best.sq_distance = ScalarTraits<T>::infinity();
  const bvh::PointQuery q(p);
  const std::uint32_t* prims = bvh_.prims.data();
  const LeafTriangle* tris = leaf_tris_.data();
  const Box3<float>* boxes = leaf_boxes_.data();
  bvh::traverse_nearest(bvh_, q, bvh::float_up(r2) * bvh::kGrow, true,
                        [&](std::uint32_t b, std::uint32_t n, float& bound) {
                          for (std::uint32_t j = b; j < b + n; ++j) {
                            // The triangle's own box: a cheap, conservative skip.
                            if (n > 1 && bvh::box_lower_bound(boxes[j], q) > bound) continue;
                            const LeafTriangle& t = tris[j];
                            const ClosestPointTriangleResult<T> r =
                                closest_point_triangle(p, t.c[0], t.c[1], t.c[2]);
                            if (r.sq_distance <= r2 && detail::offer_closest(best, r, prims[j]))
                              bound = std::min(bound, bvh::float_up(r.sq_distance) * bvh::kGrow);
                          }
                          return false;
                        });
  if (!best.found()) return MeshClosestPoint<T>{};
  return best;
}

template <class T>
std::vector<std::uint32_t> MeshIndex<T>::sphere_triangles(const Vec3<T>& center,
                                                          T radius) const {
  std::vector<std::uint32_t> ids;
  if (!all_finite(center)) return ids;
  const T r2 = detail::squared_radius(radius);
  if (r2 < T(0)) return ids;
  const bvh::PointQuery q(center);
  bvh::traverse_nearest(bvh_, q, bvh::float_up(r2) * bvh::kGrow, false,
                        [&](std::uint32_t b, std::uint32_t n, float&) {
                          for (std::uint32_t j = b; j < b + n; ++j) {
                            const LeafTriangle& t = leaf_tris_[j];
                            if (closest_point_triangle(center, t.c[0], t.c[1], t.c[2])
                                    .sq_distance <= r2)
                              ids.push_back(bvh_.prims[j]);
                          }
                          return false;
                        });
  std::sort(ids.begin(), ids.end());
  return ids;
}

template <class T>
bool MeshIndex<T>::sphere_overlaps(const Vec3<T>& center, T radius) const {
  if (!all_finite(center)) return false;
  const T r2 = detail::squared_radius(radius);
  if (r2 < T(0)) return false;
  bool found = false;
  const bvh::PointQuery q(center);
  bvh::traverse_nearest(bvh_, q, bvh::float_up(r2) * bvh::kGrow, false,
                        [&](std::uint32_t b, std::uint32_t n, float&) {
                          for (std::uint32_t j = b; j < b + n; ++j) {
                            const LeafTriangle& t = leaf_tris_[j];
                            if (closest_point_triangle(center, t.c[0], t.c[1], t.c[2])
                                    .sq_distance <= r2)
                              return found = true;
                          }
                          return false;
                        });
  return found;
}

template <class T>
T MeshIndex<T>::winding_number(const Vec3<T>& p) const {
  if (!all_finite(p)) return ScalarTraits<T>::quiet_nan();
  // Exact sum over every triangle in id order (same order as BruteForce, so the
  // two agree bit for bit). TODO: Barill et al. 2018 far-field dipoles.
  T sum = T(0);
  for (std::size_t i = 0; i < mesh_.num_triangles(); ++i)
    sum += triangle_solid_angle(p, mesh_.corner(i, 0), mesh_.corner(i, 1), mesh_.corner(i, 2));
  return sum * inverse_four_pi<T>();
}

template <class T>
MeshSignedDistance<T> MeshIndex<T>::signed_distance(const Vec3<T>& p) const {
  if (!all_finite(p)) return MeshSignedDistance<T>{};
  return detail::make_signed(closest_point(p), winding_number(p));
}

template class MeshIndex<float>;
template class MeshIndex<double>;

}  // namespace prox
