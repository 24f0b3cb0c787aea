// prox/mesh/sample_surface.hpp — area-weighted surface samples, and distances,
// statistics and Chamfer distance on them.
//
// sample_surface(mesh, n, seed, method): n points on the mesh's surface, each
// with its triangle id and barycentric weights of corners 0, 1, 2 (point =
// w0 c0 + w1 c1 + w2 c2). A triangle is picked with probability area / total
// area; inside it the weights are (1 - sqrt(r1), sqrt(r1)(1 - r2), sqrt(r1) r2),
// uniform by area (Osada et al. 2002). Random numbers: sample i uses its own
// generator, splitmix64 seeded with (seed, i), so the samples are the same for
// any thread count and sample i does not depend on n (for uniform).
// Methods:
// - uniform: the triangle from a uniform u in [0, 1) on the cumulative area.
// - stratified: u = (i + offset) / n with one random offset per call, one
//   sample per 1/n of the cumulative area (systematic sampling): every
//   triangle gets n * area / total samples rounded up or down, so sample
//   statistics vary much less; the barycentrics stay independent.
// - poisson: Poisson-disk (blue noise) by dart throwing: uniform candidates
//   (their own seeded stream) are kept in order when no kept sample lies
//   within r (Euclidean distance in 3D), until n are kept; r starts at
//   sqrt(0.45 area / n) and shrinks by 10% (the throw restarts) when 20 n +
//   1000 candidates do not give n. Every two samples are at least
//   min_distance = r apart; the density follows the area (up to the disks'
//   edge effects, and surfaces closer than r across a gap, which share
//   their disks). Serial (any `threads` gives the same samples); 100,000
//   samples of bunny00.off took 0.8 s CPU (first radius, no restart).
// Degenerate (zero-area) triangles get no samples. Throws std::invalid_argument
// on a mesh with no area.
//
// sample_distances(samples, index): d(sample, mesh) for each sample (the
// index's closest_point, on the pool; one slot per sample).
// sample_distances(samples, float index, double mesh): the same distances in
// double, faster: a float index of the mesh (MeshIndex<float>, built from a
// float copy, same triangles) picks each sample's nearest triangle, and the
// distance to that triangle of the double mesh is computed in double. It is
// the distance to a point of the mesh, so never below d(sample, mesh) by more
// than double's rounding, and above it only when float's rounding picked
// another triangle: by at most float_pick_error(mesh) (stated below). On
// 200,000 samples of bunny against a perturbed copy the largest difference
// from the double index's distances was 2.2e-8 (1.14x less CPU); the bound is
// 5.4e-4 there, as bunny's slivers make kappa large: the bound is loose.
// float_mesh(mesh): the float copy (vertices rounded to nearest) to index.
// distance_stats: max, mean, RMS, and a histogram of `bins` equal bins over
// [0, max] (a sample at exactly max goes in the last bin).
// chamfer(A samples, B samples): point-to-surface, two-sided, mean:
//   chamfer_l2 = mean_a d(a, B)^2 + mean_b d(b, A)^2   (squared distances)
//   chamfer_l1 = mean_a d(a, B)   + mean_b d(b, A)
// i.e. PyTorch3D's chamfer_distance convention (sum of the two mean squared
// distances) but against the other surface rather than its point samples, so
// it does not depend on the other side's sample density. Sums are in sample
// order (identical for any thread count).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "prox/core/vec.hpp"
#include "prox/mesh/mesh_index.hpp"

namespace prox {

enum class SampleMethod { uniform, stratified, poisson };

/// Samples on a surface (#N each).
template <class T>
struct SurfaceSamples {
  std::vector<Vec3<T>> points;
  std::vector<std::uint32_t> triangles;  ///< triangle holding each sample
  std::vector<Vec3<T>> bary;             ///< weights of that triangle's corners 0, 1, 2
  /// poisson: every two samples are at least this far apart (Euclidean); 0 otherwise.
  double min_distance = 0;
  std::size_t size() const { return points.size(); }
};

/// n area-weighted samples of the mesh's surface (see the file comment).
template <class T>
SurfaceSamples<T> sample_surface(const TriangleMesh<T>& mesh, std::size_t n, std::uint64_t seed = 1,
                                 SampleMethod method = SampleMethod::uniform, int threads = 0);

/// d(point, mesh) for each point (#P), on `threads` threads (0 = all cores).
template <class T>
std::vector<double> sample_distances(std::span<const Vec3<T>> points, const MeshIndex<T>& index,
                                     int threads = 0);

/// d(point, mesh) in double for each point (#P): the nearest triangle picked by
/// `pick`, a float index of `mesh` (the same triangles, vertices rounded to
/// float: MeshIndex<float>(float_mesh(mesh))), the distance to it computed on
/// `mesh` in double. Throws std::invalid_argument when the two meshes' triangle
/// counts differ. See float_pick_error for how far above d(point, mesh) it can be.
std::vector<double> sample_distances(std::span<const Vec3<double>> points,
                                     const MeshIndex<float>& pick, const TriangleMesh<double>& mesh,
                                     int threads = 0);

/// A float copy of a mesh (each coordinate rounded to nearest), same triangles.
TriangleMesh<float> float_mesh(const TriangleMesh<double>& mesh);

/// How far sample_distances(points, pick, mesh) may exceed d(point, mesh), for
/// points within the mesh's box grown by `reach`: float's pick is the nearest
/// triangle of the float mesh to the point rounded to float, to within the
/// float kernel's error (8 ulps of s kappa, docs/kernel-accuracy.md, with s the
/// largest |coordinate| of the mesh's box grown by reach, kappa = max(1, max
/// 2 longest edge^2 / |ab x ac| over non-degenerate triangles)); rounding the
/// mesh and the point moves each distance by at most sqrt(3) 2^-24 s. The bound
/// is 2 (2 sqrt(3) 2^-24 s + 8 2^-23 s kappa) + 4 2^-23 s: the pick's true
/// distance exceeds the best one by at most the perturbation of both, the
/// kernel's error on both and the rounding of their comparison. Mean, RMS and Chamfer L1 built on them move by at most this
/// much (Chamfer L2 by at most 2 max d + this, times this).
double float_pick_error(const TriangleMesh<double>& mesh, double reach);

/// Statistics of a set of distances.
struct DistanceStats {
  std::size_t count = 0;
  double max = 0, mean = 0, rms = 0;
  std::size_t argmax = 0;                ///< index of the (first) largest distance
  std::vector<std::size_t> histogram;    ///< `bins` counts over [0, max]
  double bin_width = 0;                  ///< max / bins
};

/// Max, mean, RMS and histogram of distances (#D, all finite and >= 0).
DistanceStats distance_stats(std::span<const double> distances, int bins = 20);

/// Chamfer distances (see the file comment for the convention).
struct ChamferDistance {
  double chamfer_l2 = 0;       ///< mean d(a,B)^2 + mean d(b,A)^2
  double chamfer_l1 = 0;       ///< mean d(a,B) + mean d(b,A)
  double forward_mean_sq = 0;  ///< mean d(a,B)^2
  double backward_mean_sq = 0; ///< mean d(b,A)^2
};

/// Chamfer from the two sides' sample distances (#A: d(a, B); #B: d(b, A)).
ChamferDistance chamfer(std::span<const double> a_to_b, std::span<const double> b_to_a);

extern template SurfaceSamples<float> sample_surface(const TriangleMesh<float>&, std::size_t,
                                                     std::uint64_t, SampleMethod, int);
extern template SurfaceSamples<double> sample_surface(const TriangleMesh<double>&, std::size_t,
                                                      std::uint64_t, SampleMethod, int);
extern template std::vector<double> sample_distances(std::span<const Vec3<float>>,
                                                     const MeshIndex<float>&, int);
extern template std::vector<double> sample_distances(std::span<const Vec3<double>>,
                                                     const MeshIndex<double>&, int);

}  // namespace prox
