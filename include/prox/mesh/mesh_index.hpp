// prox/mesh/mesh_index.hpp — a triangle mesh with a BVH: closest point, rays,
// sphere overlap, winding number and signed distance.
//
// The index owns the mesh and a Bvh8 (prox/bvh/bvh8.hpp) whose float boxes are
// rounded outward, and the leaf triangles in SIMD packs (the flat layout of
// prox/mesh/flat_index.hpp, layout()); every final test runs in the mesh's own precision T with
// the shared kernels (prox::closest_point_triangle, prox::ray_triangle_watertight),
// so a double mesh gets double answers. Semantics (DESIGN.md), identical to
// BruteForce, the linear-scan twin used as the oracle:
// - closest_point: ties (equal sq_distance) go to the lowest triangle id; only
//   triangles with sq_distance <= max_distance^2 count; non-finite query: miss.
// - first_hit: the smallest t in [t_min, t_max] that the watertight test
//   reports, lowest triangle id on equal t. any_hit: whether one exists.
// - all_hits / count_hits: crossings of the surface. A ray through an edge or
//   vertex shared by several triangles is resolved by a consistent symbolic
//   perturbation of the ray (mesh/ray_crossing.hpp): a ray crossing a closed
//   mesh there counts exactly once, and a ray grazing it counts 0 or 2 times, so
//   parity counting is reliable. all_hits is sorted by t, then triangle id.
// - Degenerate triangles are their segment/point for closest point and sphere
//   queries, and are never hit by rays.
// - A ray with a zero or non-finite direction, a non-finite origin, NaN
//   t_min / t_max, or t_min > t_max misses.
// - first_hit and all_hits may differ on a ray exactly through an edge:
//   first_hit reports any triangle the kernel hits (lowest id at equal t),
//   all_hits only the one that owns the crossing.
// - winding_number is approximate (far-field expansion, see below);
//   exact_winding_number and BruteForce::winding_number are the exact sum.
// - signed_distance's sign is certified: it comes from the certified fast
//   winding number (prox/mesh/fast_winding.hpp, fast_winding()), whose
//   decision |w| >= 1/2 is the exact sum's.
// All const member functions are safe to call from many threads at once.
// Hot queries (closest_point, first_hit, any_hit) run on the best ISA path of
// the CPU (prox/mesh/isa.hpp), with the same answers on every path.
// Memory (memory_bytes()): the mesh, 256-byte nodes, the slot map and the leaf
// packs (corners in T); the winding number's far field and the certified fast
// winding number (signed_distance) once they are built.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <mutex>
#include <ostream>
#include <type_traits>
#include <span>
#include <vector>

#include "prox/bvh/build_options.hpp"
#include "prox/bvh/bvh8.hpp"
#include "prox/core/pod_buffer.hpp"
#include "prox/core/ray.hpp"
#include "prox/mesh/flat_index.hpp"
#include "prox/mesh/results.hpp"
#include "prox/mesh/triangle_mesh.hpp"

namespace prox {

template <class T>
class FastWindingNumber;  // prox/mesh/fast_winding.hpp

template <class T>
class MeshIndex {
 public:
  using Scalar = T;

  /// Builds the BVH over `mesh` (binned SAH, parallel).
  explicit MeshIndex(TriangleMesh<T> mesh, const BuildOptions& options = {});

  /// The indexed mesh (vertices as last refit).
  const TriangleMesh<T>& mesh() const { return mesh_; }

  /// Closest point of the mesh to p within max_distance (miss if none).
  MeshClosestPoint<T> closest_point(const Vec3<T>& p,
                                    T max_distance = ScalarTraits<T>::infinity()) const;
  /// closest_point(p, max_distance), seeded with triangle `hint`'s distance
  /// (a triangle likely near p, such as a nearby point's answer; negative or
  /// out of range: no hint). The same answer bit for bit, hint or not (the
  /// hint is a triangle the search would offer anyway); faster when the hint
  /// is near. The batch form prox::closest_points passes each point the
  /// answer of the point before it in its spatial order.
  MeshClosestPoint<T> closest_point_from(const Vec3<T>& p, std::int32_t hint,
                                         T max_distance = ScalarTraits<T>::infinity()) const;
  /// closest_point_from(p, hint, max_distance) (hint < 0: none), and in
  /// `near` every other triangle whose kernel squared distance to p is at most
  /// near_radius_sq(answer's, reach) (prox/mesh/results.hpp), in no set order,
  /// each once: the triangles sphere_triangles(p, r) gives for r = the
  /// answer's distance + reach rounded up, less the answer's, found in the
  /// same traversal (near.overflow: more than NearTriangles::kCapacity, the
  /// list is incomplete). SignedMesh certifies a pseudonormal sign with it.
  MeshClosestPoint<T> closest_point_near(const Vec3<T>& p, double reach, NearTriangles<T>& near,
                                         std::int32_t hint = -1,
                                         T max_distance = ScalarTraits<T>::infinity()) const;
  /// Nearest hit in [t_min, t_max].
  MeshRayHit<T> first_hit(const Ray<T>& ray) const;
  /// out[i] = first_hit(rays[i]) on the calling thread (sizes must match).
  /// Runs of eight coherent rays (a camera's rays in pixel order) are traced
  /// together as packets: the same answers bit for bit, faster. The batch form
  /// prox::first_hits (prox/mesh/batch.hpp) calls this per chunk.
  void first_hits(std::span<const Ray<T>> rays, std::span<MeshRayHit<T>> out) const;
  /// Whether any triangle is hit in [t_min, t_max] (occlusion).
  bool any_hit(const Ray<T>& ray) const;
  /// Every crossing in [t_min, t_max], sorted by t then triangle id.
  std::vector<MeshRayHit<T>> all_hits(const Ray<T>& ray) const;
  /// Number of crossings in [t_min, t_max] (= all_hits(ray).size()).
  std::size_t count_hits(const Ray<T>& ray) const;
  /// Ids (sorted) of every triangle within distance radius of center.
  std::vector<std::uint32_t> sphere_triangles(const Vec3<T>& center, T radius) const;
  /// Whether any triangle lies within distance radius of center.
  bool sphere_overlaps(const Vec3<T>& center, T radius) const;

  /// Generalized winding number at p, BVH-accelerated (Barill et al. 2018):
  /// clusters farther than 3x their radius count as a second-order expansion,
  /// near ones exactly. Absolute error: mean ~2e-3, max ~1.2e-2 on bunny and
  /// armadillo, ~80x faster than exact_winding_number (the exact sum).
  T winding_number(const Vec3<T>& p) const;
  /// Generalized winding number at p: exact sum over every triangle (O(n); equal
  /// to BruteForce::winding_number bit for bit).
  T exact_winding_number(const Vec3<T>& p) const;
  /// Distance to the mesh, negative inside (|winding number| >= 0.5). The
  /// sign is certified: FastWindingNumber::decide_sign (fast_winding()) decides
  /// |w| >= 1/2 as the exact sum does, and its winding number is the one
  /// returned (an integer off the surface of a closed mesh, else an estimate
  /// within its certified bound, or the exact sum).
  MeshSignedDistance<T> signed_distance(const Vec3<T>& p) const;
  /// The certified fast winding number of this index (FastWindingNumber::shared),
  /// built on the first call (O(n); thread-safe) and held by the index until
  /// refit; a copy or a moved-to index builds its own (it reads this index by
  /// address). Not saved.
  std::shared_ptr<const FastWindingNumber<T>> fast_winding() const;

  /// Builds the winding number's far-field data now (otherwise the first
  /// winding_number / signed_distance call builds it; closest-point and ray
  /// users never pay for it). Thread-safe; a no-op when already built.
  void build_far_field() const;

  /// Moves the vertices (same count, same triangles) and refits the boxes.
  void refit(std::vector<Vec3<T>> moved_vertices);
  /// Writes the index (mesh + BVH) in prox's versioned binary format.
  void save(std::ostream& out) const;
  /// Reads an index written by save(); throws MeshError on bad or foreign data.
  static MeshIndex load(std::istream& in);

  /// Bytes held by the index, mesh included (the far field only once built).
  std::size_t memory_bytes() const;
  /// Node count, depth, build time.
  BuildStats build_stats() const { return bvh_.stats; }
  /// The hierarchy itself (for tests and tools).
  const bvh::Bvh8& bvh() const { return bvh_; }
  /// Views of the flat layout (nodes, slot map, leaf packs): what the engine
  /// traverses and a GPU backend uploads (prox/mesh/flat_index.hpp).
  FlatIndex<T> layout() const { return FlatIndex<T>{bvh_.nodes, bvh_.prims, packs_}; }

 private:
  MeshIndex() = default;
  // recycled: memory to grow into for the packs (see build_bvh8's spare).
  void rebuild_leaf_data(RawBlock recycled = {});
  Box3<float> triangle_box(std::size_t i) const;  // triangle i's box, rounded out to float
  std::vector<Box3<float>> triangle_boxes() const;

  TriangleMesh<T> mesh_;
  bvh::Bvh8 bvh_;
  // slot s's triangle: lane s % 4 of packs_[s / 4]; not zeroed
  // (rebuild_leaf_data writes every lane in parallel), and made in the
  // builder's reference array when the index is built (prox/core/pod_buffer.hpp).
  PodBuffer<LeafPack<T>> packs_;
  struct Dipole {  // far field of one child slot's triangles (Barill et al. 2018)
    double center[3];  // area-weighted centroid
    double normal[3];  // sum of area-weighted normals, (b-a)x(c-a)/2
    double area, radius;  // total area; max distance from center to a corner
    double moment[3][3];  // second order: sum of normal_i * (centroid - center)_j
  };
  // Built on first use (std::call_once); shared by copies of the index, and
  // replaced by a fresh, unbuilt one on refit and load.
  struct FarField {
    std::once_flag once;
    std::vector<Dipole> dipoles;  // 8 per node, child order
    std::atomic<bool> built{false};
  };
  mutable std::shared_ptr<FarField> far_ = std::make_shared<FarField>();
  std::vector<Dipole> compute_dipoles() const;
  // The certified winding number of fast_winding(): published once through
  // `ready` (acquire/release), under `mutex`. It points at this index, so a
  // copy or move starts empty instead of sharing it; refit empties it.
  class FastSlot {
   public:
    FastSlot() = default;
    FastSlot(const FastSlot&) noexcept {}
    FastSlot& operator=(const FastSlot&) noexcept {
      reset();
      return *this;
    }
    void reset() {
      ready_.store(false, std::memory_order_relaxed);
      fast_.reset();
    }
    template <class Make>
    const std::shared_ptr<const FastWindingNumber<T>>& get(Make&& make) {
      if (!ready_.load(std::memory_order_acquire)) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!ready_.load(std::memory_order_relaxed)) {
          fast_ = make();
          ready_.store(true, std::memory_order_release);
        }
      }
      return fast_;
    }
    const FastWindingNumber<T>* built() const {
      return ready_.load(std::memory_order_acquire) ? fast_.get() : nullptr;
    }

   private:
    std::mutex mutex_;
    std::atomic<bool> ready_{false};
    std::shared_ptr<const FastWindingNumber<T>> fast_;
  };
  mutable FastSlot fast_;
  const std::vector<Dipole>& dipoles() const;
};

extern template class MeshIndex<float>;
extern template class MeshIndex<double>;

}  // namespace prox
