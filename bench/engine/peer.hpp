// bench/engine/peer.hpp — one library under test (prox, Embree, CGAL) behind a
// batch interface.
//
// The harness times build() and the batch calls only; converting inputs to a
// peer's own types (set_points / set_rays) and its answers back to the common
// CpAnswer / RayAnswer happens outside the timed region. One virtual call per
// batch, never per query or per primitive.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "workloads.hpp"

namespace prox::bench {

/// One closest-point answer: distance (not squared) and triangle id (-1: none).
struct CpAnswer {
  double distance = std::numeric_limits<double>::quiet_NaN();
  std::int32_t triangle = -1;
};

/// One first-hit answer: ray parameter t (inf: miss) and triangle id (-1: miss).
struct RayAnswer {
  double t = std::numeric_limits<double>::infinity();
  std::int32_t triangle = -1;
};

class Peer {
 public:
  virtual ~Peer() = default;
  /// Row label in the table ("prox", "embree", "cgal").
  virtual std::string name() const = 0;
  /// One line: version, precision, settings.
  virtual std::string description() const = 0;
  /// Whether this peer has a row for `workload` (all of them unless it says not).
  virtual bool runs(const std::string& workload) const {
    (void)workload;
    return true;
  }
  /// Float (true) or double (false) arithmetic: sets the agreement tolerance.
  virtual bool single_precision() const = 0;
  /// Builds the index from vertex and index arrays, replacing any previous one.
  /// Called inside a TBB arena of the thread count being measured.
  virtual void build(const BenchMesh& mesh) = 0;
  /// Bytes of the built index including its copy of the mesh; 0 if unknown.
  virtual std::size_t memory_bytes() const = 0;
  /// How memory_bytes() was measured.
  virtual std::string memory_method() const = 0;

  virtual void set_points(const std::vector<Vec3d>& points) = 0;
  /// Closest point of every point given to set_points, on `threads` threads.
  virtual void closest_points(int threads) = 0;
  virtual std::vector<CpAnswer> cp_answers() const = 0;

  virtual void set_rays(const std::vector<Ray<double>>& rays) = 0;
  /// First hit of every ray given to set_rays, on `threads` threads.
  virtual void first_hits(int threads) = 0;
  virtual std::vector<RayAnswer> ray_answers() const = 0;
};

/// prox's MeshIndex, float or double (null if the mesh engine was not built);
/// spatial_order false: BatchOptions::spatial_order off (peer "prox-given-order").
std::unique_ptr<Peer> make_prox_peer(bool double_precision, bool spatial_order = true);
/// Null when prox-bench was compiled without that library.
std::unique_ptr<Peer> make_embree_peer();
/// Embree's packet API: rtcIntersect16 on runs of 16 consecutive rays (ray
/// workloads only; ray-primary's rays are in pixel order, so a run is coherent).
std::unique_ptr<Peer> make_embree16_peer();
std::unique_ptr<Peer> make_cgal_peer();

/// The brute-force twin (prox::BruteForce<double>): answers for the agreement check.
/// Returns false if the mesh engine was not built.
bool brute_force_closest(const BenchMesh& mesh, const std::vector<Vec3d>& points, int threads,
                         std::vector<CpAnswer>& out);
bool brute_force_first_hits(const BenchMesh& mesh, const std::vector<Ray<double>>& rays,
                            int threads, std::vector<RayAnswer>& out);

/// Runs body(begin, end) over [0, n) in blocks on a TBB arena of `threads` threads
/// (inline for 1 thread). The same scheduling for every peer that has no batch API.
void parallel_blocks(std::size_t n, int threads,
                     const std::function<void(std::size_t, std::size_t)>& body);

}  // namespace prox::bench
