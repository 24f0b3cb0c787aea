// prox/mesh/fast_winding.hpp — a fast generalized winding number whose answer
// is certified: every estimate comes with a rigorous bound on its error, and
// the traversal stops as soon as that bound settles the question asked.
//
// FastWindingNumber<T> reads a MeshIndex<T>'s hierarchy (read only; it must
// outlive this object) and stores, per child slot of every node (a cluster of
// triangles), the far-field data of Barill et al. 2018 and what the bound needs:
//   c  area-weighted centroid,   N = sum_t A_t n_t (area-weighted normal),
//   M_ij = sum_t A_t n_ti (g_t - c)_j (g_t: the triangle's centroid),
//   A = sum_t A_t,  R >= max |corner - c|,  mu2 >= sum_t int_t |y - c|^2 dA.
//
// The expansion and its remainder (solid angle; w = Omega / (4 pi)). With
// phi(r) = -1/|r|, a triangle's solid angle seen from p is
//   Omega_t = int_t Dphi(y - p)[n] dA,
// and with r = c - p, s = y - c, g(t) = Dphi(r + t s)[n], Taylor to first order
// with Lagrange remainder: g(1) = g(0) + g'(0) + g''(theta)/2, where
//   g(0) = n.r/|r|^3,  g'(0) = n^T H s, H = I/|r|^3 - 3 r r^T/|r|^5.
// Integrated, the first two give the expansion N.r/|r|^3 + tr(M)/|r|^3 -
// 3 r^T M r/|r|^5 (exact moments: n is constant on a triangle). For the
// remainder: the k-th derivative of 1/|r| along a unit direction u is
// (-1)^k k! P_k(cos)/|r|^(k+1) with |P_k| <= 1, and a symmetric k-linear form on
// a real Hilbert space has the same norm on the diagonal as off it (Banach), so
// |D^k phi(xi)[u1..uk]| <= k!/|xi|^(k+1) for unit u's. Hence
//   |g''(theta)/2| <= (3!/2) |s|^2 / |r + theta s|^4 <= 3 |s|^2/(|r| - |s|)^4
// and, summed over the cluster (|s| <= R < |r| = d):
//   |Omega_C - expansion| <= 3 mu2 / (d - R)^4.
// mu2 of a triangle is exact by the edge-midpoint rule (exact for quadratics);
// a parent's comes from its children by Minkowski's inequality,
// sqrt(mu2') <= sqrt(mu2) + sqrt(A) |c_child - c'|, capped by A R'^2.
// A cluster is "far" only when d > R. Rounding is bounded too: each far term
// adds 1e-13 A/(d-R)^2 (its evaluation in double; |N| <= A, |M| <= A R), each
// exact triangle term an a-posteriori bound of its atan2 (see the .cpp), and the
// running sums gamma_k * (sum of |terms| added and removed).
//
// The expansion goes on to second order (T_ijk = sum_t n_ti int_t s_j s_k dA,
// remainder 4 mu3/(d - R)^5 by the same argument; the first-order bound plus
// the second-order term's size is used when smaller), and a leaf's triangles
// are single dipoles about their centroids (first moment 0, bound
// 3 mu2_t/(d - R_t)^4) when farther than 2.5 radii; see fast_winding.cpp.
//
// The traversal: clusters that contain p (d <= R), or whose bound exceeds
// 0.25, are opened at once, down to exact triangles; far clusters go to a
// max-heap by their bound. While the interval [w - E, w + E] (E: the summed
// bound) contains a threshold the caller asked about (or E > tolerance), the
// cluster with the largest bound is replaced by its children (a leaf by its
// triangles' dipoles, a dipole by its exact triangle). It stops as soon as no
// threshold lies in the interval. If that needs more than `max_triangles`
// exact terms, or the tree is exhausted without a decision (w within rounding
// of a threshold, or p within rounding of an edge), the answer is the exact
// sum MeshIndex::exact_winding_number (exact = true). So a decision taken from
// a certified answer is the one the exact sum takes, unless the true w lies
// within the exact sum's own rounding of a threshold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "prox/core/vec.hpp"
#include "prox/mesh/mesh_index.hpp"

namespace prox {

/// A winding number with a certificate.
template <class T>
struct CertifiedWinding {
  T winding_number = T(0);   ///< the estimate (the exact sum when exact)
  double error_bound = 0;    ///< |true w - winding_number| <= error_bound (0 when exact)
  bool exact = false;        ///< fell back to MeshIndex::exact_winding_number
  std::uint32_t clusters = 0;   ///< far-field clusters evaluated
  std::uint32_t triangles = 0;  ///< triangles summed exactly
  /// The mesh is closed (its triangles' boundary chain is zero) and
  /// [w - E, w + E] holds one integer k = round(winding_number) and no
  /// half-integer: off the surface (where w is an integer) w = k exactly.
  /// Answers from the cell grid are integral with error_bound 0.
  bool integral = false;
};

template <class T>
class FastWindingNumber {
 public:
  /// Builds the cluster data over index's hierarchy (O(n)); index must outlive this.
  explicit FastWindingNumber(const MeshIndex<T>& index);

  const MeshIndex<T>& index() const { return *index_; }

  /// The winding number at p, refined until no threshold lies within the
  /// bound of the estimate (or until the bound is <= tolerance, when
  /// tolerance > 0). Non-finite p: NaN, exact.
  CertifiedWinding<T> evaluate(const Vec3<T>& p, std::span<const double> thresholds,
                               double tolerance = 0) const;
  /// The winding number within tolerance (> 0) of the true value.
  CertifiedWinding<T> evaluate(const Vec3<T>& p, double tolerance) const {
    return evaluate(p, {}, tolerance);
  }
  /// Decides |w| >= 1/2 (inside) and whether |w| lies in (0.3, 0.7) (SignedMesh's
  /// "unsure" band): thresholds +-0.3, +-0.5, +-0.7. On a closed mesh
  /// (closed()) it decides the integer instead: a grid lookup where p lies in
  /// a cell that no triangle touches (O(1)), else the traversal until
  /// [w - E, w + E] holds no half-integer (integral = true), else the exact sum.
  CertifiedWinding<T> decide_sign(const Vec3<T>& p) const;

  /// Whether the mesh's oriented triangles have zero boundary: every edge
  /// (corners compared by coordinates, so soups count) is used as often in
  /// one direction as in the other. Then w is an integer off the surface,
  /// constant between surface crossings, and 0 outside the mesh's box.
  bool closed() const;
  /// Cells of the inside/outside grid (0 when the mesh is not closed).
  std::size_t grid_cells() const;

  /// The FastWindingNumber of index, built once and shared: every call for
  /// the same index (same address and the same vertices, triangles and
  /// hierarchy, checked by a 128-bit fingerprint) while an earlier answer is
  /// still alive returns that one; otherwise it builds a fresh one. Thread-safe.
  static std::shared_ptr<const FastWindingNumber> shared(const MeshIndex<T>& index);

  /// Most exact triangle terms before falling back to the exact sum (default:
  /// half the triangle count, at least 256).
  std::size_t max_triangles() const { return max_triangles_; }
  void set_max_triangles(std::size_t n) { max_triangles_ = n; }

  /// Bytes of cluster data (about 1.6 KB a node).
  std::size_t memory_bytes() const;

 private:
  struct Data;  // per node, the far-field data of its 8 children (fast_winding.cpp)
  const MeshIndex<T>* index_;
  std::shared_ptr<const Data> data_;
  std::size_t max_triangles_ = 256;
  CertifiedWinding<T> traverse(const Vec3<T>& p, std::span<const double> thresholds,
                               double tolerance, bool integer) const;
};

extern template class FastWindingNumber<float>;
extern template class FastWindingNumber<double>;

}  // namespace prox
