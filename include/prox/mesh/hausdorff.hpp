// prox/mesh/hausdorff.hpp — certified Hausdorff distance between two triangle meshes.
//
// One-sided h(A, B) = max over points a of A's surface of d(a, B); symmetric
// H(A, B) = max(h(A, B), h(B, A)). The answer is an interval [lower, upper]
// that contains the true value, narrower than the requested tolerance:
// - lower: the largest d(a, B) over points a actually evaluated on A (corners,
//   then edge midpoints of subdivided triangles), each through B's BVH
//   (MeshIndex::closest_point), recomputed in double on the triangle it
//   returns, then rounded down by a stated margin (below). Every point first
//   gets a cheap guess (one greedy descent to one leaf: an upper bound of its
//   distance, and a near triangle for the upper bounds below); the exact query
//   runs first on the 64 largest guesses, then only on points whose guess
//   exceeds the lower bound so far (the others cannot raise it).
// - upper: per (sub-)triangle t of A, d(., b) is convex, so for any triangle b
//   of B, max over t of d(x, B) <= max over t of d(x, b) = max over t's corners
//   of d(corner, b). The bound is that value for the first triangle b found
//   that settles the sub-triangle (below), else the smallest found: first over
//   the corners' near triangles, the parent's and the centroid's, then a short
//   walk over the triangles sharing a vertex with the best so far, and only
//   then over all of B by a BVH search (a node test whose key is the largest of
//   the three corners' box lower bounds, pruned by the best bound so far; a
//   box's farthest-corner distances bound it too, as FCPW does for points).
//   Memory: a float copy of B's leaf packs (about 38 bytes per triangle), its
//   vertex -> triangle lists and the slot of each triangle, for the duration
//   of the call (B's corners in double are read from its mesh).
// - Float prefilter (where half the joint box's extent times 2^-20 is below 1%
//   of the tolerance): that search runs in float relative to the box's centre,
//   four of B's triangles at a time; float only picks the triangle b, and the
//   bound is then computed in double from it (the corners' nearest points on b
//   named by the float weights, clamped and normalised: points of b, so their
//   distances bound d(corner, b) from above). If float settled the item but the
//   double bound does not, the double search above runs instead.
// - tight (HausdorffOptions::tight): the search goes on to lower + tol / 64 (or
//   B's minimum) instead of stopping at the first triangle within tolerance.
// - Sub-triangles whose upper bound is within tolerance of the global lower
//   bound are retired (their bound kept for the final upper), the rest are
//   split into 4 at their edge midpoints, in rounds. Each round computes every
//   item on the TBB pool into its own slot and reduces in item order, so the
//   answer (bounds, worst point, counts) is identical for any thread count.
// (The bounding idea is that of CGAL's bounded_error_Hausdorff_distance and of
// Tang et al. 2009, "Interactive Hausdorff distance computation for general
// polygonal models"; the code is prox's own.)
//
// Rounding (why the bracket is true, not just close): with s = the largest
// |coordinate| of A and B, eps the machine epsilon of double (2^-52) and
// eps_T that of the index's T:
// - an upper evaluation d(p, b) uses a point q of b rebuilt from barycentrics
//   (the double kernel's or the float prefilter's; clamped to the triangle and
//   normalised), q and |p - q| computed in double, |p - q| rounded up by
//   (1 + 8 eps) and + 16 eps s: any point of b bounds d(p, b) from above;
//   edge midpoints are rounded, so sub-triangles may leave gaps of ~eps s,
//   also inside that margin.
// - a lower evaluation subtracts 32 eps_T s kappa from the distance found,
//   kappa = max(1, max over B's non-degenerate triangles of longest edge^2 / |n|)
//   (the kernel's error is <= 8 ulps of s kappa: docs/kernel-accuracy.md), so a
//   slightly wrong nearest triangle or rounded query point cannot raise it.
// For float meshes eps_T = 2^-23: the lower margin is ~4e-6 s kappa, so a
// tolerance below that cannot converge (converged = false says so).
// Degenerate triangles of A are point sets like any other (subdivided the same
// way); of B, whatever closest_point_triangle makes of them (their segment).
// Errors: std::invalid_argument when either mesh has no triangles, or when the
// tolerance is negative, infinite or NaN, or both tolerances are 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "prox/core/vec.hpp"
#include "prox/mesh/mesh_index.hpp"

namespace prox {

/// How closely to bracket the distance, and on how many threads.
struct HausdorffOptions {
  /// Wanted width of [lower, upper], absolute (mesh units). Used when > 0.
  double tolerance = 0;
  /// Wanted width relative to the diagonal of the bounding box of A and B
  /// together; used when tolerance is 0 (default 1e-4 of the diagonal).
  double relative_tolerance = 1e-4;
  int threads = 0;  ///< 0 = all cores
  /// false: a sub-triangle's bound search stops at the first triangle of B
  /// that settles it (bound <= lower + tolerance), so the bracket is about as
  /// wide as the tolerance. true: it goes on until a triangle bounds it by
  /// lower + tolerance / 64 (or has found the smallest bound over B), so the
  /// upper bound is as low as this subdivision allows: a narrower bracket for
  /// more BVH searches (the sub-triangles whose bound lies above the lower one).
  bool tight = false;
  /// Safety cap: stop refining (converged = false) past this many evaluated
  /// sub-triangles, or at 30 levels of subdivision.
  std::size_t max_subtriangles = std::size_t(1) << 23;
};

/// One direction, h(A, B) = max over A of the distance to B.
struct HausdorffSide {
  double lower = 0;            ///< certified: lower <= h(A, B)
  double upper = 0;            ///< certified: h(A, B) <= upper
  Vec3<double> worst_point{};  ///< the point of A where d(., B) = lower (before the margin)
  Vec3<double> worst_closest{};///< its closest point on B
  std::int32_t worst_triangle = -1;  ///< the triangle of A holding worst_point
  std::int32_t worst_closest_triangle = -1;  ///< the triangle of B holding worst_closest
  bool converged = false;      ///< upper - lower <= tolerance was reached
  std::size_t subtriangles = 0;  ///< (sub-)triangles whose upper bound was computed
  std::size_t searches = 0;      ///< of those, how many needed the BVH search
  /// Exact closest-point queries on B (corners, midpoints); the other points
  /// only get a greedy one-leaf guess, enough when it cannot exceed the lower bound.
  std::size_t point_queries = 0;
  int rounds = 0;                ///< subdivision levels used
};

/// Both directions and the symmetric distance.
struct HausdorffResult {
  HausdorffSide forward;   ///< h(A, B)
  HausdorffSide backward;  ///< h(B, A)
  double lower = 0;        ///< max(forward.lower, backward.lower) <= H(A, B)
  double upper = 0;        ///< H(A, B) <= max(forward.upper, backward.upper)
  double tolerance = 0;    ///< the absolute tolerance used
  double diagonal = 0;     ///< diagonal of the bounding box of A and B together
};

/// Mesh B prepared for one-sided calls h(A, B) against it, for any number of
/// meshes A (a mesh and its simplifications, remeshings, scans): what each call
/// against a MeshIndex prepares from B alone (about 6% of a call's instructions
/// on bunny against a perturbed copy; a float copy of B's leaf packs, its
/// vertex -> triangle lists, the slot of each triangle, kappa: 4.8 MB for the
/// 75,408-triangle bunny) is done once here. The results are
/// the same bits as the calls taking the MeshIndex. Keeps a reference to the
/// index, which must outlive it; copies share the data (cheap, thread-safe to
/// use from several calls at once). Throws std::invalid_argument when B has no
/// triangles.
template <class T>
class HausdorffTarget {
 public:
  explicit HausdorffTarget(const MeshIndex<T>& b);
  const MeshIndex<T>& index() const;
  /// Bytes held (beyond the index).
  std::size_t memory_bytes() const;

  struct Data;  ///< (defined in src/mesh/hausdorff_detail.hpp)
  const Data& data() const { return *data_; }

 private:
  std::shared_ptr<const Data> data_;  // shared by copies
};

/// The absolute tolerance `options` asks for on meshes a and b.
template <class T>
double hausdorff_tolerance(const TriangleMesh<T>& a, const TriangleMesh<T>& b,
                           const HausdorffOptions& options);

/// h(A, B), A's surface against B's index, to options' tolerance (of A and B's box).
template <class T>
HausdorffSide hausdorff_one_sided(const TriangleMesh<T>& a, const MeshIndex<T>& b,
                                  const HausdorffOptions& options = {});

/// h(A, B) against a prepared B (the same result as the MeshIndex form).
template <class T>
HausdorffSide hausdorff_one_sided(const TriangleMesh<T>& a, const HausdorffTarget<T>& b,
                                  const HausdorffOptions& options = {});

/// H(A, B) of two prepared meshes (the same result as the MeshIndex form).
template <class T>
HausdorffResult hausdorff(const HausdorffTarget<T>& a, const HausdorffTarget<T>& b,
                          const HausdorffOptions& options = {});

/// H(A, B) = max(h(A, B), h(B, A)), both directions to the same absolute tolerance.
template <class T>
HausdorffResult hausdorff(const MeshIndex<T>& a, const MeshIndex<T>& b,
                          const HausdorffOptions& options = {});

extern template double hausdorff_tolerance(const TriangleMesh<float>&,
                                           const TriangleMesh<float>&, const HausdorffOptions&);
extern template double hausdorff_tolerance(const TriangleMesh<double>&,
                                           const TriangleMesh<double>&, const HausdorffOptions&);
extern template HausdorffSide hausdorff_one_sided(const TriangleMesh<float>&,
                                                  const MeshIndex<float>&,
                                                  const HausdorffOptions&);
extern template HausdorffSide hausdorff_one_sided(const TriangleMesh<double>&,
                                                  const MeshIndex<double>&,
                                                  const HausdorffOptions&);
extern template class HausdorffTarget<float>;
extern template class HausdorffTarget<double>;
extern template HausdorffSide hausdorff_one_sided(const TriangleMesh<float>&,
                                                  const HausdorffTarget<float>&,
                                                  const HausdorffOptions&);
extern template HausdorffSide hausdorff_one_sided(const TriangleMesh<double>&,
                                                  const HausdorffTarget<double>&,
                                                  const HausdorffOptions&);
extern template HausdorffResult hausdorff(const HausdorffTarget<float>&,
                                          const HausdorffTarget<float>&, const HausdorffOptions&);
extern template HausdorffResult hausdorff(const HausdorffTarget<double>&,
                                          const HausdorffTarget<double>&, const HausdorffOptions&);
extern template HausdorffResult hausdorff(const MeshIndex<float>&, const MeshIndex<float>&,
                                          const HausdorffOptions&);
extern template HausdorffResult hausdorff(const MeshIndex<double>&, const MeshIndex<double>&,
                                          const HausdorffOptions&);

}  // namespace prox
