// src/mesh/fast_winding.cpp — FastWindingNumber: the certified best-first
// traversal and decide_sign (the derivation of the bound is in
// prox/mesh/fast_winding.hpp and docs/sign-and-sdf.md; the cluster data:
// fast_winding_build.cpp; the grid of a closed mesh: fast_winding_grid.cpp;
// shared(): fast_winding_shared.cpp).
#include "prox/mesh/fast_winding.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <utility>

#include "fast_winding_data.hpp"
#include "prox/bvh/traverse.hpp"
#include "prox/core/scalar.hpp"
#include "prox/mesh/winding_number.hpp"

namespace prox {

using namespace detail::fast_winding;

namespace {

/// Solid angle of (a, b, c) seen from p (Van Oosterom & Strackee, as
/// triangle_solid_angle) and an a-posteriori bound `err` on its error against
/// the true solid angle of the triangle with these (double) corners.
/// num = qa.(qb x qc) and den = |qa||qb||qc| + (qa.qb)|qc| + (qa.qc)|qb| + (qb.qc)|qa|
/// are each within delta = 64 u |qa||qb||qc| of their values for the exact
/// offsets (the offsets' rounding, the norms' square roots and the dot and
/// cross products; 64 u is about twice a term-by-term count). Turning the
/// vector (den, num) by an error of length <= sqrt(2) delta changes its angle
/// by at most (pi/2) sqrt(2) delta / (|(den, num)| - sqrt(2) delta), and
/// Omega = 2 atan2(num, den) doubles that; atan2's own error adds a few ulp.
/// Where |(den, num)| is not clearly above the noise (p within rounding of an
/// edge or corner, where both vanish) nothing is known: err = 4 pi.
/// Corners out of the range where the cubes stay normal: err = 4 pi too.
inline double solid_angle_bounded(const double p[3], const Vec3d& a, const Vec3d& b,
                                  const Vec3d& c, double& err, bool& off_plane) {
  off_plane = false;
  const double ax = a[0] - p[0], ay = a[1] - p[1], az = a[2] - p[2];
  const double bx = b[0] - p[0], by = b[1] - p[1], bz = b[2] - p[2];
  const double cx = c[0] - p[0], cy = c[1] - p[1], cz = c[2] - p[2];
  const double la2 = ax * ax + ay * ay + az * az, lb2 = bx * bx + by * by + bz * bz,
               lc2 = cx * cx + cy * cy + cz * cz;
  const double lm = std::max(la2, std::max(lb2, lc2));
  const double ln = std::min(la2, std::min(lb2, lc2));
  // Out of range, or p at a corner. This comes before the degeneracy test,
  // whose |ab x ac|^2 underflows to 0 for a mesh below ~1e-77: every triangle
  // of such a mesh would otherwise count as degenerate, with no error.
  if (!(lm <= 0x1p300 && ln >= 0x1p-300)) {
    err = kFourPi;
    return 0;
  }
  // Degenerate triangles contribute 0 (the exact sum's definition).
  const Vec3d ab = b - a, ac = c - a;
  if (squared_norm(cross(ab, ac)) == 0.0) {
    err = 0;
    return 0;
  }
  const double la = std::sqrt(la2), lb = std::sqrt(lb2), lc = std::sqrt(lc2);
  const double num = ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
  const double den = la * lb * lc + (ax * bx + ay * by + az * bz) * lc +
                     (ax * cx + ay * cy + az * cz) * lb + (bx * cx + by * cy + bz * cz) * la;
  const double omega = 2.0 * std::atan2(num, den);
  const double noise = 1.4142135623730951 * 64.0 * kU * (la * lb * lc);
  // num is 6 times the signed volume of (p, a, b, c), within noise of its
  // exact value: above it, p is certainly not on the triangle's plane.
  off_plane = std::abs(num) > noise;
  const double len = std::sqrt(num * num + den * den) * (1 - 4 * kU);
  if (!(len > 2 * noise)) {
    err = kFourPi;
    return omega;
  }
  err = 3.1415926535897932 * noise / (len - noise) * (1 + 8 * kU) + 8 * kU * std::abs(omega) +
        0x1p-1000;
  return omega;
}

struct Entry {
  double bound;
  double value;
  std::uint32_t child, count;
  bool operator<(const Entry& o) const { return bound < o.bound; }
};

constexpr std::uint32_t kTriangle = 0xffffffffu;  // Entry::count of a single triangle
// A far cluster whose bound exceeds this is opened at once instead of queued:
// every decision needs a total bound below 1/2, and huge bounds kept out of
// the running sums keep their rounding allowance small.
constexpr double kOpenAbove = 0.25;

struct Scratch {
  std::vector<Entry> heap;
};

}  // namespace

template <class T>
std::size_t FastWindingNumber<T>::memory_bytes() const {
  return data_->clusters.capacity() * sizeof(ClusterPack) +
         (data_->grid.label.capacity() + data_->grid.fine.capacity()) * sizeof(std::int32_t) +
         data_->grid.value.capacity() * sizeof(std::atomic<std::int32_t>);
}

template <class T>
bool FastWindingNumber<T>::closed() const {
  return data_->closed;
}

template <class T>
std::size_t FastWindingNumber<T>::grid_cells() const {
  return data_->grid.label.size() + data_->grid.fine.size();
}

template <class T>
CertifiedWinding<T> FastWindingNumber<T>::decide_sign(const Vec3<T>& p) const {
  static constexpr double kThresholds[6] = {-0.7, -0.5, -0.3, 0.3, 0.5, 0.7};
  if (!data_->closed || !CoordinateRange<T>::contains(p))
    return traverse(p, std::span<const double>(kThresholds), 0, false);
  const FastWindingGrid& g = data_->grid;
  std::int32_t comp = FastWindingGrid::kOccupied;
  if (!g.label.empty()) {
    const double q[3] = {double(p[0]), double(p[1]), double(p[2])};
    bool outside = false;
    comp = g.component(q, outside);
    if (outside) {
      CertifiedWinding<T> out;
      out.integral = true;
      return out;
    }
    if (comp >= 0) {
      const std::int32_t v = g.value[std::size_t(comp)].load(std::memory_order_relaxed);
      if (v != FastWindingGrid::kUnknown) {
        CertifiedWinding<T> out;
        out.winding_number = T(v);
        out.integral = true;
        return out;
      }
    }
  }
  // The integer, or (p possibly on the surface) the thresholds as elsewhere.
  CertifiedWinding<T> out = traverse(p, std::span<const double>(kThresholds), 0, true);
  if (comp >= 0 && out.integral)  // the component's integer, learnt once
    g.value[std::size_t(comp)].store(std::int32_t(std::nearbyint(double(out.winding_number))),
                                     std::memory_order_relaxed);
  return out;
}

template <class T>
CertifiedWinding<T> FastWindingNumber<T>::evaluate(const Vec3<T>& pt,
                                                   std::span<const double> thresholds,
                                                   double tolerance) const {
  return traverse(pt, thresholds, tolerance, false);
}

template <class T>
CertifiedWinding<T> FastWindingNumber<T>::traverse(const Vec3<T>& pt,
                                                   std::span<const double> thresholds,
                                                   double tolerance, bool integer) const {
  CertifiedWinding<T> out;
  auto exact = [&] {
    out.winding_number = index_->exact_winding_number(pt);
    out.error_bound = 0;
    out.exact = true;
    return out;
  };
  if (!CoordinateRange<T>::contains(pt)) return exact();
  const bvh::Bvh8& bvh = index_->bvh();
  if (bvh.empty()) return exact();
  const FlatIndex<T> flat = index_->layout();
  const double p[3] = {double(pt[0]), double(pt[1]), double(pt[2])};

  thread_local Scratch scratch;
  std::vector<Entry>& heap = scratch.heap;
  heap.clear();

  double w = 0;          // sum of far values and exact terms (w units)
  double e_heap = 0;     // sum of the heap's bounds
  double e_exact = 0;    // sum of the exact terms' bounds
  double s_abs = 0;      // sum of |every value added or removed|
  double b_abs = 0;      // sum of every bound added or removed
  std::size_t ops = 0, tris = 0, clusters = 0;
  bool lost = false;     // an exact term with an unknown error
  bool maybe_on = false; // p may lie on an exact triangle: the integer rule does not apply

  // One triangle summed exactly.
  auto exact_triangle = [&](std::uint32_t s) {
    double e;
    bool off_plane;
    const double om = solid_angle_bounded(p, flat.corner(s, 0).template cast<double>(),
                                          flat.corner(s, 1).template cast<double>(),
                                          flat.corner(s, 2).template cast<double>(), e, off_plane);
    if (e >= kFourPi) lost = true;
    // Off the surface is certain for far clusters (p outside their ball) and
    // dipole triangles; for an exact one only when p is off its plane (or it
    // is degenerate: zero area, solid angle 0 everywhere).
    if (!off_plane && e > 0) maybe_on = true;
    ++tris;
    ++ops;
    w += om * kInv4Pi;
    s_abs += std::abs(om) * kInv4Pi;
    e_exact += e * kInv4Pi * (1 + 1e-12);
  };
  // A leaf's triangles: each far one (centroid farther than 2.5x its radius)
  // as its own dipole, N.r/|r|^3 about its centroid (where its first moment
  // vanishes), with the first-order remainder 3 mu2/gap^4 (mu2 exact by the
  // edge-midpoint rule) on the heap; the near ones exactly.
  auto leaf = [&](std::uint32_t first, std::uint32_t count) {
    for (std::uint32_t s = first; s < first + count; ++s) {
      const Vec3d a = flat.corner(s, 0).template cast<double>(),
                  b = flat.corner(s, 1).template cast<double>(),
                  c = flat.corner(s, 2).template cast<double>();
      const Vec3d g = (a + b + c) / 3.0;
      const double ra = squared_norm(a - g), rb = squared_norm(b - g), rc = squared_norm(c - g);
      const double rad = std::sqrt(std::max(ra, std::max(rb, rc))) * (1 + 1e-12);
      const double rx = g[0] - p[0], ry = g[1] - p[1], rz = g[2] - p[2];
      const double d2 = rx * rx + ry * ry + rz * rz;
      const double d = std::sqrt(d2);
      const double gap = d - rad;
      if (!(gap > 1.5 * rad) || !(d2 >= 0x1p-400 && d2 <= 0x1p400)) {
        exact_triangle(s);
        continue;
      }
      const Vec3d n = cross(b - a, c - a) * 0.5;
      const double area = std::sqrt(squared_norm(n)) * (1 + 1e-12);
      if (area == 0) continue;  // degenerate: 0, as in the exact sum
      const double mu2 = area / 3.0 *
                         (squared_norm((a + b) * 0.5 - g) + squared_norm((b + c) * 0.5 - g) +
                          squared_norm((c + a) * 0.5 - g)) * (1 + 1e-10);
      const double value = (n[0] * rx + n[1] * ry + n[2] * rz) / (d2 * d) * kInv4Pi;
      const double g2 = gap * gap;
      const double bound = (3.0 * mu2 / g2 + 1e-13 * area) / g2 * kInv4Pi * (1 + 1e-12);
      if (!(bound <= kOpenAbove)) {
        exact_triangle(s);
        continue;
      }
      ++clusters;
      w += value;
      e_heap += bound;
      s_abs += std::abs(value);
      b_abs += bound;
      ++ops;
      heap.push_back(Entry{bound, value, s, kTriangle});
      std::push_heap(heap.begin(), heap.end());
    }
  };

  // The node test of the shared traversal loop (bvh::traverse): at each node
  // it opens, far children go to the heap with their bound, near leaves are
  // summed exactly, and near inner nodes are entered. Keys are unused (0:
  // nothing is pruned; equal keys are walked depth first from the last lane).
  auto open = [&](const bvh::Node8& node, float* key) {
    const std::size_t i = std::size_t(&node - bvh.nodes.data());
    const ClusterPack& c = data_->clusters[i];
    unsigned near = 0;
    // A near leaf is summed here, in lane order with the far clusters' heap
    // pushes (the order of the sums, so the bits of w, do not depend on the
    // walk); a near inner node is entered.
    auto enter = [&](int k) {
      if (node.count[k] > 0)
        leaf(node.child[k], node.count[k]);
      else
        near |= 1u << k;
    };
    for (int k = 0; k < bvh::kWidth; ++k) {
      key[k] = 0.0f;
      if (c.radius[k] < 0) break;  // used slots come first
      const double rx = c.cx[k] - p[0], ry = c.cy[k] - p[1], rz = c.cz[k] - p[2];
      const double d2 = rx * rx + ry * ry + rz * rz;
      const double d = std::sqrt(d2);
      const double gap = d - c.radius[k];
      if (!(gap > 1e-12 * d) || !(d2 >= 0x1p-400 && d2 <= 0x1p400)) {
        enter(k);
        continue;
      }
      const double inv2 = 1.0 / d2;
      const double inv3 = inv2 / d;
      const double rmr = c.mxx[k] * rx * rx + c.myy[k] * ry * ry + c.mzz[k] * rz * rz +
                         c.mxy[k] * rx * ry + c.mxz[k] * rx * rz + c.myz[k] * ry * rz;
      const double value1 =
          (c.nx[k] * rx + c.ny[k] * ry + c.nz[k] * rz + c.trace[k]) * inv3 - 3.0 * rmr * inv3 * inv2;
      const double cubic =
          c.cxxx[k] * rx * rx * rx + c.cyyy[k] * ry * ry * ry + c.czzz[k] * rz * rz * rz +
          (c.cxxy[k] * ry + c.cxxz[k] * rz) * rx * rx + (c.cyyx[k] * rx + c.cyyz[k] * rz) * ry * ry +
          (c.czzx[k] * rx + c.czzy[k] * ry) * rz * rz + c.cxyz[k] * rx * ry * rz;
      const double inv5 = inv3 * inv2;
      const double second = cubic * inv5 * inv2 - (c.vx[k] * rx + c.vy[k] * ry + c.vz[k] * rz) * inv5;
      const double value = value1 + second;
      const double g2 = gap * gap;
      // Second-order remainder 4 mu3 / gap^5, or the first-order one plus the
      // second-order term itself, whichever is smaller.
      const double bound = std::min(c.mu3[k] / (g2 * g2 * gap),
                                    c.mu2[k] / (g2 * g2) + std::abs(second)) +
                           c.round[k] / g2;
      ++clusters;
      if (bound == 0 && value == 0) continue;  // no area
      if (!(bound <= kOpenAbove)) {  // would be refined anyway: open it now
        enter(k);
        continue;
      }
      w += value;
      e_heap += bound;
      s_abs += std::abs(value);
      b_abs += bound;
      ++ops;
      heap.push_back(Entry{bound, value, node.child[k], node.count[k]});
      std::push_heap(heap.begin(), heap.end());
    }
    return near;
  };
  struct OpenTest {
    decltype(open)& fn;
    float limit() const { return std::numeric_limits<float>::infinity(); }
    unsigned children(const bvh::Node8& node, float* key) { return fn(node, key); }
  } test{open};
  // Opens the subtree under inner node i (the root first, then far clusters
  // taken back from the heap).
  auto open_subtree = [&](std::uint32_t i) {
    // No leaf is entered (open sums them), so the walk's leaf function is never called.
    bvh::traverse_from(bvh.nodes, i, test, [](std::uint32_t, std::uint32_t) { return false; });
  };
  auto total_bound = [&] {
    const double k = double(ops + 8) * kU;
    return (e_heap + e_exact) * (1 + 1e-12) + k * (s_abs + b_abs) * (1 + 1e-6);
  };
  auto settled = [&](double e) {
    if (lost) return false;
    if (integer && !maybe_on) {  // one integer and no half-integer in [w - e, w + e]
      const double k = std::nearbyint(w);
      return w - e > k - 0.5 && w + e < k + 0.5 && std::abs(k) < 0x1p30;
    }
    if (tolerance > 0 && e > tolerance) return false;
    if (thresholds.empty() && tolerance <= 0) return false;
    for (const double t : thresholds)
      if (w - e <= t && t <= w + e) return false;
    return true;
  };

  open_subtree(0);
  while (true) {
    // The bound of the value returned (w rounded to T) decides: a float w
    // within its rounding of a threshold must not round across it.
    const double e = total_bound() + std::abs(w - double(T(w)));
    if (settled(e)) {
      out.winding_number = T(w);
      out.error_bound = e;
      if (integer && !maybe_on) {  // p is off the surface: w is that integer
        out.winding_number = T(std::nearbyint(w));
        out.error_bound = 0;
        out.integral = true;
      }
      out.clusters = std::uint32_t(clusters);
      out.triangles = std::uint32_t(tris);
      return out;
    }
    if (heap.empty() || lost || tris > max_triangles_) break;
    std::pop_heap(heap.begin(), heap.end());
    const Entry top = heap.back();
    heap.pop_back();
    w -= top.value;
    e_heap -= top.bound;
    s_abs += std::abs(top.value);
    b_abs += top.bound;
    ++ops;
    if (top.count == kTriangle) {
      exact_triangle(top.child);
    } else if (top.count > 0) {
      leaf(top.child, top.count);
    } else {
      open_subtree(top.child);
    }
  }
  exact();
  out.clusters = std::uint32_t(clusters);
  out.triangles = std::uint32_t(tris);
  return out;
}

template class FastWindingNumber<float>;
template class FastWindingNumber<double>;

}  // namespace prox
