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
#include <type_traits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "prox/bvh/build.hpp"
#include "prox/bvh/traverse.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "closest_leaf_sse.hpp"
#include "query_common.hpp"
#include "ray_leaf_sse.hpp"

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
  // One spare (zero) record past the end: the SSE leaf code reads 16 bytes
  // at each corner, 4 past a float record.
  leaf_tris_.assign(bvh_.prims.size() + 1, LeafTriangle{});
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, bvh_.prims.size(), 4096),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t j = r.begin(); j < r.end(); ++j) {
                        Box3<T> b = Box3<T>::empty();
                        for (int k = 0; k < 3; ++k) {
                          leaf_tris_[j].c[k] = mesh_.corner(bvh_.prims[j], k);
                          b.extend(leaf_tris_[j].c[k]);
                        }
                        if constexpr (!std::is_same_v<T, float>)
                          leaf_tris_[j].box_ = bvh::outward_float_box(b);
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
#ifdef PROX_SIMD_SSE2
  const bool simd = detail::simd_leaves();
#endif
  bvh::traverse_nearest(bvh_, q, bvh::float_up(r2) * bvh::kGrow, true,
                        [&](std::uint32_t b, std::uint32_t n, float& bound) {
                          auto test = [&](std::uint32_t j) {
                            const LeafTriangle& t = tris[j];
                            const ClosestPointTriangleResult<T> r =
                                closest_point_triangle(p, t.c[0], t.c[1], t.c[2]);
                            if (r.sq_distance <= r2 && detail::offer_closest(best, r, prims[j]))
                              bound = std::min(bound, bvh::float_up(r.sq_distance) * bvh::kGrow);
                          };
#ifdef PROX_SIMD_SSE2
                          if constexpr (std::is_same_v<T, float>) {
                            if (simd && n <= detail::kMaxLeafTriangles) {
                              // Bounds 4 triangles at a time; near the surface the
                              // plane + edge bounds too, and nearest first.
                              alignas(16) float lb[detail::kMaxLeafTriangles + 3];
                              const bool near = detail::near_regime(tris[b].box(), bound);
                              detail::leaf_triangle_bounds(
                                  q, &p[0], reinterpret_cast<const char*>(&tris[b]),
                                  sizeof(LeafTriangle), n, bound, near, lb);
                              if (near) {
                                detail::visit_by_bound(lb, n, bound,
                                                       [&](unsigned i) { test(b + i); });
                              } else {
                                for (std::uint32_t i = 0; i < n; ++i)
                                  if (lb[i] <= bound) test(b + i);
                              }
                              return false;
                            }
                          }
#endif
                          for (std::uint32_t j = b; j < b + n; ++j) {
                            // The triangle's own box: a cheap, conservative skip.
                            if (n > 1 && bvh::box_lower_bound(tris[j].box(), q) > bound) continue;
                            test(j);
                          }
                          return false;
                        },
                        bvh::PrefetchRecords<LeafTriangle>{tris});
  if (!best.found()) return MeshClosestPoint<T>{};
  return best;
}

namespace {
/// Calls on_hit(triangle id) for every triangle within radius of center (in BVH
/// leaf order) until on_hit returns true; the one traversal behind
/// sphere_triangles and sphere_overlaps.
template <class T, class LeafTriangle, class OnHit>
void visit_sphere(const bvh::Bvh4& bvh, const std::vector<LeafTriangle>& leaf_tris,
                  const Vec3<T>& center, T radius, OnHit&& on_hit) {
  if (!all_finite(center)) return;
  const T r2 = detail::squared_radius(radius);
  if (r2 < T(0)) return;
  const bvh::PointQuery q(center);
  bvh::traverse_nearest(bvh, q, bvh::float_up(r2) * bvh::kGrow, false,
                        [&](std::uint32_t b, std::uint32_t n, float&) {
                          for (std::uint32_t j = b; j < b + n; ++j) {
                            const LeafTriangle& t = leaf_tris[j];
                            if (closest_point_triangle(center, t.c[0], t.c[1], t.c[2])
                                        .sq_distance <= r2 &&
                                on_hit(bvh.prims[j]))
                              return true;
                          }
                          return false;
                        });
}
}  // namespace

template <class T>
std::vector<std::uint32_t> MeshIndex<T>::sphere_triangles(const Vec3<T>& center,
                                                          T radius) const {
  std::vector<std::uint32_t> ids;
  visit_sphere(bvh_, leaf_tris_, center, radius, [&](std::uint32_t id) {
    ids.push_back(id);
    return false;
  });
  std::sort(ids.begin(), ids.end());
  return ids;
}

template <class T>
bool MeshIndex<T>::sphere_overlaps(const Vec3<T>& center, T radius) const {
  bool found = false;
  visit_sphere(bvh_, leaf_tris_, center, radius, [&](std::uint32_t) { return found = true; });
  return found;
}

template <class T>
T MeshIndex<T>::exact_winding_number(const Vec3<T>& p) const {
  if (!all_finite(p)) return ScalarTraits<T>::quiet_nan();
  // Every triangle in id order, as BruteForce does, so the two agree bit for bit.
  T sum = T(0);
  for (std::size_t i = 0; i < mesh_.num_triangles(); ++i)
    sum += triangle_solid_angle(p, mesh_.corner(i, 0), mesh_.corner(i, 1), mesh_.corner(i, 2));
  return sum * inverse_four_pi<T>();
}

namespace {
// A cluster is far when |p - center| > beta * radius. Measured on bunny and armadillo
// (near-surface and box points): beta 2: mean error 5e-3, max 4e-2, 10 us; beta 3:
// mean 2e-3, max 1.2e-2, 17 us; beta 4: mean 9e-4, max 5e-3, 32 us (exact: 1.4 ms).
constexpr double kFarFieldBeta = 3.0;
}  // namespace

template <class T>
void MeshIndex<T>::build_far_field() const {
  (void)dipoles();
}

template <class T>
const std::vector<typename MeshIndex<T>::Dipole>& MeshIndex<T>::dipoles() const {
  FarField& f = *far_;
  std::call_once(f.once, [&] {
    f.dipoles = compute_dipoles();
    f.built.store(true, std::memory_order_release);
  });
  return f.dipoles;
}

template <class T>
std::vector<typename MeshIndex<T>::Dipole> MeshIndex<T>::compute_dipoles() const {
  std::vector<Dipole> dipoles_(bvh_.nodes.size() * 4, Dipole{});
  for (std::size_t i = bvh_.nodes.size(); i-- > 0;) {  // children after parents
    const bvh::Node4& node = bvh_.nodes[i];
    for (int k = 0; k < 4; ++k) {
      if (node.child[k] == bvh::kInvalid) continue;
      Dipole d{};
      if (node.count[k] > 0) {
        for (std::uint32_t j = node.child[k]; j < node.child[k] + node.count[k]; ++j) {
          const Vec3d a = leaf_tris_[j].c[0].template cast<double>();
          const Vec3d b = leaf_tris_[j].c[1].template cast<double>();
          const Vec3d c = leaf_tris_[j].c[2].template cast<double>();
          const Vec3d n = cross(b - a, c - a) * 0.5;
          const double area = std::sqrt(squared_norm(n));
          const Vec3d centroid = (a + b + c) / 3.0;
          for (int q = 0; q < 3; ++q) {
            d.normal[q] += n[q];
            d.center[q] += area * centroid[q];
          }
          d.area += area;
        }
        if (d.area > 0)
          for (double& x : d.center) x /= d.area;
        for (std::uint32_t j = node.child[k]; j < node.child[k] + node.count[k]; ++j) {
          const Vec3d a = leaf_tris_[j].c[0].template cast<double>();
          const Vec3d b = leaf_tris_[j].c[1].template cast<double>();
          const Vec3d c = leaf_tris_[j].c[2].template cast<double>();
          const Vec3d n = cross(b - a, c - a) * 0.5;
          const Vec3d off = (a + b + c) / 3.0 - Vec3d{d.center[0], d.center[1], d.center[2]};
          for (int q = 0; q < 3; ++q)
            for (int r = 0; r < 3; ++r) d.moment[q][r] += n[q] * off[r];
        }
      } else {
        for (int q = 0; q < 4; ++q) {
          const Dipole& c = dipoles_[std::size_t(node.child[k]) * 4 + q];
          if (bvh_.nodes[node.child[k]].child[q] == bvh::kInvalid) continue;
          for (int a = 0; a < 3; ++a) {
            d.normal[a] += c.normal[a];
            d.center[a] += c.area * c.center[a];
          }
          d.area += c.area;
        }
        if (d.area > 0)
          for (double& x : d.center) x /= d.area;
        // Moments about the new center: M + N (x) (child center - center).
        for (int q = 0; q < 4; ++q) {
          if (bvh_.nodes[node.child[k]].child[q] == bvh::kInvalid) continue;
          const Dipole& c = dipoles_[std::size_t(node.child[k]) * 4 + q];
          for (int a = 0; a < 3; ++a)
            for (int r = 0; r < 3; ++r)
              d.moment[a][r] += c.moment[a][r] + c.normal[a] * (c.center[r] - d.center[r]);
        }
      }
      if (!(d.area > 0))  // no area: no far field; center anywhere inside
        for (int a = 0; a < 3; ++a) d.center[a] = 0.5 * (node.lo[a][k] + node.hi[a][k]);
      // Radius: the farthest corner of the slot's box bounds every triangle.
      double r2 = 0;
      for (int a = 0; a < 3; ++a) {
        const double e = std::max(d.center[a] - node.lo[a][k], node.hi[a][k] - d.center[a]);
        r2 += e * e;
      }
      d.radius = std::sqrt(r2);
      dipoles_[i * 4 + k] = d;
    }
  }
  return dipoles_;
}

template <class T>
T MeshIndex<T>::winding_number(const Vec3<T>& p) const {
  if (!all_finite(p)) return ScalarTraits<T>::quiet_nan();
  if (bvh_.empty()) return T(0);
  const std::vector<Dipole>& dipoles_ = dipoles();
  const double px = double(p[0]), py = double(p[1]), pz = double(p[2]);
  double far = 0;  // sum of dipole solid angles
  T near = T(0);   // exact solid angles of near leaves
  std::uint32_t stack[bvh::kStackSize];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const std::uint32_t i = stack[--top];
    const bvh::Node4& node = bvh_.nodes[i];
    for (int k = 0; k < 4; ++k) {
      if (node.child[k] == bvh::kInvalid) continue;
      const Dipole& d = dipoles_[std::size_t(i) * 4 + k];
      const double dx = d.center[0] - px, dy = d.center[1] - py, dz = d.center[2] - pz;
      const double dist2 = dx * dx + dy * dy + dz * dz;
      const double reach = kFarFieldBeta * d.radius;
      if (dist2 > reach * reach) {
        // Omega ~ N.F(r) + sum_ij J_ij M_ij with F(r) = r/|r|^3 and its
        // Jacobian J = I/|r|^3 - 3 r r^T/|r|^5 (r = center - p).
        const double inv3 = 1.0 / (dist2 * std::sqrt(dist2));
        const double r[3] = {dx, dy, dz};
        double trace = 0, rmr = 0;
        for (int a = 0; a < 3; ++a) {
          trace += d.moment[a][a];
          for (int q = 0; q < 3; ++q) rmr += r[a] * d.moment[a][q] * r[q];
        }
        far += (d.normal[0] * dx + d.normal[1] * dy + d.normal[2] * dz) * inv3 + trace * inv3 -
               3.0 * rmr * inv3 / dist2;
      } else if (node.count[k] > 0) {
        for (std::uint32_t j = node.child[k]; j < node.child[k] + node.count[k]; ++j)
          near += triangle_solid_angle(p, leaf_tris_[j].c[0], leaf_tris_[j].c[1],
                                       leaf_tris_[j].c[2]);
      } else {
        stack[top++] = node.child[k];
      }
    }
  }
  return T((far + double(near)) * inverse_four_pi<double>());
}

template <class T>
MeshSignedDistance<T> MeshIndex<T>::signed_distance(const Vec3<T>& p) const {
  if (!all_finite(p)) return MeshSignedDistance<T>{};
  T w = winding_number(p);
  const T aw = std::abs(w);
  if (aw > T(0.3) && aw < T(0.7)) w = exact_winding_number(p);  // too close to call
  return detail::make_signed(closest_point(p), w);
}

template class MeshIndex<float>;
template class MeshIndex<double>;

}  // namespace prox
