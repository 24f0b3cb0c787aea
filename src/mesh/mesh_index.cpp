// src/mesh/mesh_index.cpp — MeshIndex: build, closest point, sphere queries,
// winding number and signed distance (its certified sign: fast_winding.cpp;
// rays: mesh_index_rays.cpp; refit, save, load: mesh_index_io.cpp).
//
// Leaf triangles are copied by slot into SIMD packs (packs_, the flat layout
// of prox/mesh/flat_index.hpp), so a leaf is one contiguous run of packs and no
// index lookup is needed in the hot loop; bvh_.prims maps a slot back to the
// triangle id. Every triangle test is the shared kernel in the mesh's
// precision. closest_point runs on the ISA path's engine (engine.hpp); the
// other queries use the same traversal loop here.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "prox/bvh/build.hpp"
#include "prox/bvh/threads.hpp"
#include "prox/bvh/traverse.hpp"
#include "prox/mesh/fast_winding.hpp"
#include "prox/mesh/mesh_index.hpp"
#include "engine.hpp"
#include "query_common.hpp"

namespace prox {

template <class T>
Box3<float> MeshIndex<T>::triangle_box(std::size_t i) const {
  Box3<T> b = Box3<T>::empty();
  for (int k = 0; k < 3; ++k) b.extend(mesh_.corner(i, k));
  return bvh::outward_float_box(b);
}

namespace {
#ifdef PROX_SIMD_SSE2
// One float vertex in lanes 0..2 (lane 3 is 0): no read past its 12 bytes.
// x and y by _mm_loadl_epi64, whose pointer type has no alignment (a
// vertex is 4-byte aligned: _mm_load_sd's double load is undefined there,
// and UBSan says so).
inline __m128 load_vertex(const Vec3<float>& v) {
  const __m128 xy =
      _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(&v[0])));
  return _mm_movelh_ps(xy, _mm_load_ss(&v[2]));
}
#endif

// The boxes of triangles [begin, end) into out, as triangle_box makes them
// (float and double meshes in SSE, others by `scalar`).
// For a float mesh in SSE: Box3::extend's min and max (prox::min(a, b) is
// b < a ? b : a, which is _mm_min_ps(b, a); max likewise), so the same
// boxes, without its branches: the compiler made each min and max a branch,
// and with a triangle's corners in no order about half of them missed
// (triangle_box was ~10% of bunny-1m's build at 1 thread). A float box needs
// no outward rounding (float_down and float_up of a float are itself).
template <class T, class Scalar>
void triangle_boxes_into(const TriangleMesh<T>& mesh, std::size_t begin, std::size_t end,
                         Box3<float>* out, Scalar&& scalar) {
#ifdef PROX_SIMD_SSE2
  if constexpr (std::is_same_v<T, float>) {
    const Vec3<float>* v = mesh.vertices().data();
    const auto* tri = mesh.triangles().data();
    for (std::size_t i = begin; i < end; ++i) {
      const __m128 a = load_vertex(v[tri[i][0]]), b = load_vertex(v[tri[i][1]]),
                   c = load_vertex(v[tri[i][2]]);
      const __m128 lo = _mm_min_ps(c, _mm_min_ps(b, a)), hi = _mm_max_ps(c, _mm_max_ps(b, a));
      alignas(16) float l[4], h[4];
      _mm_store_ps(l, lo);
      _mm_store_ps(h, hi);
      out[i - begin] = Box3<float>{{l[0], l[1], l[2]}, {h[0], h[1], h[2]}};
    }
    return;
  }
  if constexpr (std::is_same_v<T, double>) {
    // The same for a double mesh: Box3<double>::extend's min and max, then
    // outward_float_box's float_down and float_up without their branches
    // (bvh::float_down2 and float_up2: the same floats).
    const Vec3<double>* v = mesh.vertices().data();
    const auto* tri = mesh.triangles().data();
    for (std::size_t i = begin; i < end; ++i) {
      const double* a = &v[tri[i][0]][0];
      const double* b = &v[tri[i][1]][0];
      const double* c = &v[tri[i][2]][0];
      const __m128d axy = _mm_loadu_pd(a), bxy = _mm_loadu_pd(b), cxy = _mm_loadu_pd(c);
      const __m128d az = _mm_load_sd(a + 2), bz = _mm_load_sd(b + 2), cz = _mm_load_sd(c + 2);
      alignas(16) float lxy[4], lz[4], hxy[4], hz[4];
      _mm_store_ps(lxy, bvh::float_down2(_mm_min_pd(cxy, _mm_min_pd(bxy, axy))));
      _mm_store_ps(lz, bvh::float_down2(_mm_min_sd(cz, _mm_min_sd(bz, az))));
      _mm_store_ps(hxy, bvh::float_up2(_mm_max_pd(cxy, _mm_max_pd(bxy, axy))));
      _mm_store_ps(hz, bvh::float_up2(_mm_max_sd(cz, _mm_max_sd(bz, az))));
      out[i - begin] = Box3<float>{{lxy[0], lxy[1], lz[0]}, {hxy[0], hxy[1], hz[0]}};
    }
    return;
  }
#endif
  for (std::size_t i = begin; i < end; ++i) out[i - begin] = scalar(i);
}
}  // namespace

template <class T>
std::vector<Box3<float>> MeshIndex<T>::triangle_boxes() const {
  std::vector<Box3<float>> boxes(mesh_.num_triangles());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, boxes.size(), 4096),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      triangle_boxes_into(mesh_, r.begin(), r.end(), boxes.data() + r.begin(),
                                          [this](std::size_t i) { return triangle_box(i); });
                    });
  return boxes;
}

template <class T>
void MeshIndex<T>::rebuild_leaf_data(RawBlock recycled) {
  // A pack's first slot always holds a triangle (leaves start on pack
  // boundaries); a padding slot repeats the slot before it. Every lane is
  // written below, so the packs are not zeroed first (a serial pass that
  // also took every page fault on one thread).
  packs_.assign_uninitialized(bvh_.prims.size() / bvh::kLeafAlign, std::move(recycled));
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, packs_.size(), 1024),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t p = r.begin(); p < r.end(); ++p) {
                        std::uint32_t id = bvh_.prims[p * bvh::kLeafAlign];
                        for (unsigned lane = 0; lane < bvh::kLeafAlign; ++lane) {
                          const std::uint32_t s = bvh_.prims[p * bvh::kLeafAlign + lane];
                          if (s != bvh::kInvalid) id = s;
                          for (int k = 0; k < 3; ++k) {
                            const Vec3<T> c = mesh_.corner(id, k);
                            for (int a = 0; a < 3; ++a) packs_[p].c[k][a][lane] = c[a];
                          }
                        }
                      }
                    });
}

template <class T>
MeshIndex<T>::MeshIndex(TriangleMesh<T> mesh, const BuildOptions& options)
    : mesh_(std::move(mesh)) {
  const auto t0 = std::chrono::steady_clock::now();
  auto run = [&] {
    // Each triangle's box is made as the builder first reads it (no array of
    // all the boxes): the same boxes as triangle_boxes().
    // The packs are made in the builder's references' memory (its pages are
    // already touched; see prox/core/pod_buffer.hpp).
    RawBlock spare;
    bvh_ = bvh::build_bvh8(
        mesh_.num_triangles(),
        [this](std::size_t begin, std::size_t end, Box3<float>* out) {
          triangle_boxes_into(mesh_, begin, end, out,
                              [this](std::size_t i) { return triangle_box(i); });
        },
        options, &spare);
    rebuild_leaf_data(std::move(spare));
  };
  detail::run_with_threads(options.threads, run);  // the cached arena (prox/bvh/threads.hpp)
  bvh_.stats.build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <class T>
MeshClosestPoint<T> MeshIndex<T>::closest_point(const Vec3<T>& p, T max_distance) const {
  return detail::engine_closest_point(layout(), p, max_distance, detail::simd_leaves());
}

template <class T>
MeshClosestPoint<T> MeshIndex<T>::closest_point_from(const Vec3<T>& p, std::int32_t hint,
                                                     T max_distance) const {
  if (hint < 0 || std::size_t(hint) >= mesh_.num_triangles())
    return closest_point(p, max_distance);
  const auto t = std::size_t(hint);
  const Vec3<T> corners[3] = {mesh_.corner(t, 0), mesh_.corner(t, 1), mesh_.corner(t, 2)};
  return detail::engine_closest_point(layout(), p, max_distance, detail::simd_leaves(), corners,
                                      std::uint32_t(hint));
}

template <class T>
MeshClosestPoint<T> MeshIndex<T>::closest_point_near(const Vec3<T>& p, double reach,
                                                     NearTriangles<T>& near, std::int32_t hint,
                                                     T max_distance) const {
  if (!(reach >= 0)) throw std::invalid_argument("closest_point_near: reach must be >= 0");
  Vec3<T> corners[3];
  const bool hinted = hint >= 0 && std::size_t(hint) < mesh_.num_triangles();
  if (hinted)
    for (int c = 0; c < 3; ++c) corners[c] = mesh_.corner(std::size_t(hint), c);
  return detail::engine_closest_point_near(layout(), p, max_distance, detail::simd_leaves(),
                                           hinted ? corners : nullptr,
                                           hinted ? std::uint32_t(hint) : 0u, reach, near);
}

namespace {
/// Calls on_hit(triangle id) for every triangle within radius of center (in BVH
/// leaf order) until on_hit returns true; the one traversal behind
/// sphere_triangles and sphere_overlaps.
template <class T, class OnHit>
void visit_sphere(const FlatIndex<T>& x, const Vec3<T>& center, T radius, OnHit&& on_hit) {
  if (!CoordinateRange<T>::contains(center)) return;
  const T r2 = detail::squared_radius(radius);
  if (r2 < T(0)) return;
  const bvh::PointQuery q(center);
  bvh::NearestTest<false> test{q, bvh::float_up(r2) * bvh::kGrow};
  bvh::traverse(x.nodes, test, [&](std::uint32_t b, std::uint32_t n) {
    for (std::uint32_t s = b; s < b + n; ++s) {
      if (closest_point_triangle(center, x.corner(s, 0), x.corner(s, 1), x.corner(s, 2))
                  .sq_distance <= r2 &&
          on_hit(x.prims[s]))
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
  visit_sphere(layout(), center, radius, [&](std::uint32_t id) {
    ids.push_back(id);
    return false;
  });
  std::sort(ids.begin(), ids.end());
  return ids;
}

template <class T>
bool MeshIndex<T>::sphere_overlaps(const Vec3<T>& center, T radius) const {
  bool found = false;
  visit_sphere(layout(), center, radius, [&](std::uint32_t) { return found = true; });
  return found;
}

template <class T>
T MeshIndex<T>::exact_winding_number(const Vec3<T>& p) const {
  if (!CoordinateRange<T>::contains(p)) return ScalarTraits<T>::quiet_nan();
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
  const FlatIndex<T> flat = layout();
  auto corner = [&](std::uint32_t s, int k) { return flat.corner(s, k).template cast<double>(); };
  std::vector<Dipole> dipoles_(bvh_.nodes.size() * bvh::kWidth, Dipole{});
  for (std::size_t i = bvh_.nodes.size(); i-- > 0;) {  // children after parents
    const bvh::Node8& node = bvh_.nodes[i];
    for (int k = 0; k < bvh::kWidth; ++k) {
      if (node.child[k] == bvh::kInvalid) continue;
      Dipole d{};
      if (node.count[k] > 0) {
        for (std::uint32_t j = node.child[k]; j < node.child[k] + node.count[k]; ++j) {
          const Vec3d a = corner(j, 0), b = corner(j, 1), c = corner(j, 2);
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
          const Vec3d a = corner(j, 0), b = corner(j, 1), c = corner(j, 2);
          const Vec3d n = cross(b - a, c - a) * 0.5;
          const Vec3d off = (a + b + c) / 3.0 - Vec3d{d.center[0], d.center[1], d.center[2]};
          for (int q = 0; q < 3; ++q)
            for (int r = 0; r < 3; ++r) d.moment[q][r] += n[q] * off[r];
        }
      } else {
        for (int q = 0; q < bvh::kWidth; ++q) {
          const Dipole& c = dipoles_[std::size_t(node.child[k]) * bvh::kWidth + q];
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
        for (int q = 0; q < bvh::kWidth; ++q) {
          if (bvh_.nodes[node.child[k]].child[q] == bvh::kInvalid) continue;
          const Dipole& c = dipoles_[std::size_t(node.child[k]) * bvh::kWidth + q];
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
      dipoles_[i * bvh::kWidth + k] = d;
    }
  }
  return dipoles_;
}

template <class T>
T MeshIndex<T>::winding_number(const Vec3<T>& p) const {
  if (!CoordinateRange<T>::contains(p)) return ScalarTraits<T>::quiet_nan();
  if (bvh_.empty()) return T(0);
  // The shared traversal loop with a node test that sums the far children's
  // expansions and enters the near ones (keys unused, nothing pruned).
  struct FarFieldTest {
    const Dipole* dipoles;
    const bvh::Node8* nodes;
    double px, py, pz;
    double far = 0;  // sum of dipole solid angles
    float limit() const { return std::numeric_limits<float>::infinity(); }
    unsigned children(const bvh::Node8& node, float* key) {
      const Dipole* ds = dipoles + std::size_t(&node - nodes) * bvh::kWidth;
      unsigned near = 0;
      for (int k = 0; k < bvh::kWidth; ++k) {
        key[k] = 0.0f;
        if (node.child[k] == bvh::kInvalid) continue;
        const Dipole& d = ds[k];
        const double dx = d.center[0] - px, dy = d.center[1] - py, dz = d.center[2] - pz;
        const double dist2 = dx * dx + dy * dy + dz * dz;
        const double reach = kFarFieldBeta * d.radius;
        // Far only while |r|^2 is in [2^-400, 2^400]: the expansion's |r|^5
        // terms stay finite and normal (a mesh at 1e-150 or 1e150 would
        // otherwise get 0 or NaN); outside it the child is summed exactly.
        if (!(dist2 > reach * reach) || !(dist2 >= 0x1p-400 && dist2 <= 0x1p400)) {
          near |= 1u << k;
          continue;
        }
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
      }
      return near;
    }
  };
  FarFieldTest test{dipoles().data(), bvh_.nodes.data(), double(p[0]), double(p[1]), double(p[2])};
  const FlatIndex<T> x = layout();
  T near = T(0);  // exact solid angles of near leaves
  bvh::traverse(x.nodes, test, [&](std::uint32_t b, std::uint32_t n) {
    for (std::uint32_t s = b; s < b + n; ++s) {
      near += triangle_solid_angle(p, x.corner(s, 0), x.corner(s, 1), x.corner(s, 2));
    }
    return false;
  });
  return T((test.far + double(near)) * inverse_four_pi<double>());
}

template <class T>
std::shared_ptr<const FastWindingNumber<T>> MeshIndex<T>::fast_winding() const {
  return fast_.get([&] { return FastWindingNumber<T>::shared(*this); });
}

template <class T>
MeshSignedDistance<T> MeshIndex<T>::signed_distance(const Vec3<T>& p) const {
  if (!CoordinateRange<T>::contains(p)) return MeshSignedDistance<T>{};
  // The certified decision: |w| >= 1/2 exactly when the exact sum says so
  // (an integer off the surface of a closed mesh).
  const T w = fast_.get([&] { return FastWindingNumber<T>::shared(*this); })->decide_sign(p)
                  .winding_number;
  return detail::make_signed(closest_point(p), w);
}

template class MeshIndex<float>;
template class MeshIndex<double>;

}  // namespace prox
