// src/mesh/fast_winding.cpp — FastWindingNumber: cluster data and the
// certified best-first traversal (the derivation of the bound is in
// prox/mesh/fast_winding.hpp and docs/sign-and-sdf.md).
#include "prox/mesh/fast_winding.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "prox/core/scalar.hpp"
#include "prox/mesh/winding_number.hpp"

namespace prox {

namespace {

constexpr double kU = 0x1p-53;  // unit roundoff of double
constexpr double kInv4Pi = 0.0795774715459476678844418816862571810172;
constexpr double kFourPi = 12.566370614359172953850573533118011536789;

/// The raw data of one cluster while building (full M, unscaled).
struct Raw {
  double c[3] = {0, 0, 0};
  double n[3] = {0, 0, 0};
  double m[3][3] = {};
  double t[3][3][3] = {};  // sum int n_i s_j s_k dA
  double area = 0, radius = 0, mu2 = 0, mu3 = 0;
  bool used = false;
};

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

/// Far-field data of the 8 children of one node, structure of arrays (the
/// expansion's coefficients pre-scaled by 1/(4 pi): values in w units).
struct ClusterPack {
  double cx[8], cy[8], cz[8];   // centre
  double nx[8], ny[8], nz[8];   // N
  double mxx[8], myy[8], mzz[8], mxy[8], mxz[8], myz[8];  // symmetric part of M (off-diagonal doubled)
  double trace[8];              // tr M
  double radius[8];             // R (-1: unused slot)
  double mu2[8];                // 3 mu2 / (4 pi) (first-order bound numerator)
  double round[8];              // 1e-13 A / (4 pi) (rounding numerator)
  double mu3[8];                // 4 mu3 / (4 pi) (second-order bound numerator)
  double cxxx[8], cyyy[8], czzz[8], cxxy[8], cxxz[8], cyyx[8], cyyz[8], czzx[8], czzy[8],
      cxyz[8];                  // second order: cubic form of T (times 15/2)
  double vx[8], vy[8], vz[8];   // second order: (3/2)(2u + t)
};

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

// The inside/outside grid's cell density: about this many cells a triangle
// (at least 4096 cells, at most kGridMaxCells).
constexpr double kGridCellsPerTriangle = 32.0;
constexpr double kGridMaxCells = double(1 << 22);
// The margin (in cells) by which a triangle's box and plane are grown when
// cells are marked, beyond the counted rounding 64 u max|coordinate| / h.
// Counted: a query's cell coordinate (x - lo) * inv_h carries three roundings
// (the subtraction, 1/h, the product), within 3u (|x| + |lo|) / h cells of its
// value; the build's (mn - lo) * inv_h the same; the plane test has its own
// slack. 64u is five times their sum. The floor, 1e-6 of a cell, is for what
// that count might have missed: where the coordinates are small against the
// cell (near the origin) the counted term is ~1e-14 of a cell, and the floor
// keeps the margin ~10^8 times the largest rounding (a few u) of any cell
// coordinate. It costs nothing measurable: a triangle marks an extra cell only
// where it passes within 1e-6 of a cell of it.
constexpr double kGridMarginFloor = 1e-6;
// A grid whose counted margin would exceed this (coordinates too large for the
// cell size) is not built: decide_sign runs the traversal everywhere.
constexpr double kGridMarginMax = 1e-2;

struct Scratch {
  std::vector<Entry> heap;
  std::vector<std::uint32_t> stack;
};

}  // namespace

// The inside/outside grid of a closed mesh. Cells (cubes of side h, the
// mesh's box plus two cells on every side; about kGridCellsPerTriangle cells a
// triangle) that no triangle touches are free: a triangle marks the cells of
// its box whose cube, grown by `margin` cells (more than the rounding of a
// cell index), its plane meets; free cells sharing a face are joined into components (6-connected
// flood fill). On a closed mesh w is an integer constant on every connected
// set off the surface, so one certified integer per component answers every
// point in it: the component of cell (0,0,0), outside the mesh's box, is 0;
// the others are learnt from the first query that certifies its integer.
struct FastWindingGrid {
  static constexpr std::int32_t kOccupied = -1;
  static constexpr std::int32_t kUnknown = std::numeric_limits<std::int32_t>::min();
  double lo[3] = {0, 0, 0};
  double inv_h = 0;
  std::int64_t n[3] = {0, 0, 0};
  std::vector<std::int32_t> label;  // kOccupied or the component
  mutable std::vector<std::atomic<std::int32_t>> value;  // per component: w or kUnknown
};

template <class T>
struct FastWindingNumber<T>::Data {
  std::vector<ClusterPack> clusters;  // one per node
  bool closed = false;
  FastWindingGrid grid;  // empty unless closed
};

namespace {

/// Whether the oriented triangles of m have zero boundary, corners identified
/// by their coordinates (so a soup of the same triangles counts too). A
/// collapsed triangle (two equal corners) cancels its own edges.
template <class T>
bool zero_boundary(const TriangleMesh<T>& m) {
  const auto& V = m.vertices();
  const auto& F = m.triangles();
  if (F.empty()) return false;
  std::vector<std::uint32_t> used;
  used.reserve(3 * F.size());
  for (const auto& t : F)
    for (const std::uint32_t v : t) used.push_back(v);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  for (const std::uint32_t v : used)
    for (int a = 0; a < 3; ++a)
      if (!std::isfinite(double(V[v][a]))) return false;
  auto less = [&](std::uint32_t x, std::uint32_t y) {
    for (int a = 0; a < 3; ++a) {
      if (double(V[x][a]) < double(V[y][a])) return true;
      if (double(V[y][a]) < double(V[x][a])) return false;
    }
    return false;
  };
  std::sort(used.begin(), used.end(), less);
  std::vector<std::uint32_t> canon(V.size(), 0);
  std::uint32_t id = 0;
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (i > 0 && less(used[i - 1], used[i])) ++id;
    canon[used[i]] = id;
  }
  std::vector<std::pair<std::uint64_t, int>> edges;
  edges.reserve(3 * F.size());
  for (const auto& t : F)
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t u = canon[t[std::size_t(k)]], v = canon[t[std::size_t((k + 1) % 3)]];
      if (u == v) continue;
      const std::uint64_t key = u < v ? (std::uint64_t(u) << 32 | v) : (std::uint64_t(v) << 32 | u);
      edges.emplace_back(key, u < v ? 1 : -1);
    }
  std::sort(edges.begin(), edges.end());
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    long sum = 0;
    for (; j < edges.size() && edges[j].first == edges[i].first; ++j) sum += edges[j].second;
    if (sum != 0) return false;
    i = j;
  }
  return true;
}

/// Builds the grid of a closed mesh (leaves it empty where the coordinates
/// are too large for the cell size to be resolved safely).
template <class T>
void build_grid(const TriangleMesh<T>& m, FastWindingGrid& g) {
  const auto& F = m.triangles();
  double blo[3], bhi[3];
  for (int a = 0; a < 3; ++a) {
    blo[a] = std::numeric_limits<double>::infinity();
    bhi[a] = -blo[a];
  }
  for (std::size_t t = 0; t < F.size(); ++t)
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) {
        const double x = double(m.corner(t, k)[a]);
        blo[a] = std::min(blo[a], x);
        bhi[a] = std::max(bhi[a], x);
      }
  double ext = 0, vol = 1;
  for (int a = 0; a < 3; ++a) ext = std::max(ext, bhi[a] - blo[a]);
  if (!(ext > 0) || !std::isfinite(ext)) return;
  for (int a = 0; a < 3; ++a) vol *= std::max(bhi[a] - blo[a], ext * 1e-3);
  const double target = std::clamp(kGridCellsPerTriangle * double(F.size()), 4096.0, kGridMaxCells);
  const double h = std::max(std::cbrt(vol / target), ext / 1024.0);
  double big = 0;
  std::int64_t total = 1;
  for (int a = 0; a < 3; ++a) {
    g.n[a] = std::int64_t(std::ceil((bhi[a] - blo[a]) / h)) + 5;
    g.lo[a] = blo[a] - 2 * h;
    total *= g.n[a];
    big = std::max({big, std::abs(g.lo[a]), std::abs(g.lo[a] + double(g.n[a]) * h)});
  }
  // A cell coordinate (x - lo) * inv_h is within 4u (|x| + |lo|) / h + n 2u
  // cells of its value; the margin is far above that (kGridMarginFloor).
  const double margin = kGridMarginFloor + 64.0 * kU * big / h;
  if (!(margin < kGridMarginMax) || total > (std::int64_t(1) << 23)) {
    g.n[0] = g.n[1] = g.n[2] = 0;
    return;
  }
  g.inv_h = 1.0 / h;
  constexpr std::int32_t kFree = -2;
  g.label.assign(std::size_t(total), kFree);
  const std::int64_t sx = 1, sy = g.n[0], sz = g.n[0] * g.n[1];
  for (std::size_t t = 0; t < F.size(); ++t) {
    std::int64_t i0[3], i1[3];
    for (int a = 0; a < 3; ++a) {
      double mn = std::numeric_limits<double>::infinity(), mx = -mn;
      for (int k = 0; k < 3; ++k) {
        const double x = double(m.corner(t, k)[a]);
        mn = std::min(mn, x);
        mx = std::max(mx, x);
      }
      i0[a] = std::max<std::int64_t>(0, std::int64_t(std::floor((mn - g.lo[a]) * g.inv_h - margin)));
      i1[a] = std::min<std::int64_t>(g.n[a] - 1,
                                     std::int64_t(std::floor((mx - g.lo[a]) * g.inv_h + margin)));
    }
    // A cell of the triangle's box is touched only where the triangle's plane
    // meets the cell grown by `margin`: |n.(m - a)| <= hh |n|_1 (m its
    // centre). The slack covers the rounding of n, m and the dot product many
    // times over (1e-9 against errors of a few units of 1e-16). Everything is
    // in cell units (offsets times 1/h, one more rounding each, inside the
    // slack), so the products neither underflow nor overflow at any scale: in
    // mesh units a mesh at 1e-130 has n.(m - a) ~ 1e-390, below the smallest
    // double, and a plane test on such numbers frees cells the surface crosses.
    const Vec3d a = m.corner(t, 0).template cast<double>(), b = m.corner(t, 1).template cast<double>(),
                c = m.corner(t, 2).template cast<double>();
    const Vec3d ab = (b - a) * g.inv_h, ac = (c - a) * g.inv_h;
    const Vec3d nrm = cross(ab, ac);
    const double n1 = std::abs(nrm[0]) + std::abs(nrm[1]) + std::abs(nrm[2]);
    const double e1 = (std::abs(ab[0]) + std::abs(ab[1]) + std::abs(ab[2])) *
                      (std::abs(ac[0]) + std::abs(ac[1]) + std::abs(ac[2]));
    const double a1 = (std::abs(a[0]) + std::abs(a[1]) + std::abs(a[2])) * g.inv_h;
    const double hh = 0.5 + margin;
    const bool few = i1[0] - i0[0] + i1[1] - i0[1] + i1[2] - i0[2] <= 2;  // few cells: mark all
    for (std::int64_t z = i0[2]; z <= i1[2]; ++z)
      for (std::int64_t y = i0[1]; y <= i1[1]; ++y)
        for (std::int64_t x = i0[0]; x <= i1[0]; ++x) {
          if (!few) {
            const double mx = g.lo[0] + (double(x) + 0.5) * h, my = g.lo[1] + (double(y) + 0.5) * h,
                         mz = g.lo[2] + (double(z) + 0.5) * h;
            const double dx = (mx - a[0]) * g.inv_h, dy = (my - a[1]) * g.inv_h,
                         dz = (mz - a[2]) * g.inv_h;
            const double dot = nrm[0] * dx + nrm[1] * dy + nrm[2] * dz;
            const double reach = hh * n1 + 1e-9 * e1 *
                                 (std::abs(dx) + std::abs(dy) + std::abs(dz) + 1 + a1 +
                                  (std::abs(mx) + std::abs(my) + std::abs(mz)) * g.inv_h);
            if (!(std::abs(dot) <= reach) && std::isfinite(dot)) continue;  // the plane misses the cell
          }
          g.label[std::size_t(x * sx + y * sy + z * sz)] = FastWindingGrid::kOccupied;
        }
  }
  std::int32_t comps = 0;
  std::vector<std::int64_t> queue;
  for (std::int64_t start = 0; start < total; ++start) {
    if (g.label[std::size_t(start)] != kFree) continue;
    const std::int32_t c = comps++;
    g.label[std::size_t(start)] = c;
    queue.assign(1, start);
    while (!queue.empty()) {
      const std::int64_t i = queue.back();
      queue.pop_back();
      const std::int64_t x = i % g.n[0], y = (i / g.n[0]) % g.n[1], z = i / sz;
      const std::int64_t nb[6] = {x > 0 ? i - sx : -1, x + 1 < g.n[0] ? i + sx : -1,
                                  y > 0 ? i - sy : -1, y + 1 < g.n[1] ? i + sy : -1,
                                  z > 0 ? i - sz : -1, z + 1 < g.n[2] ? i + sz : -1};
      for (const std::int64_t j : nb)
        if (j >= 0 && g.label[std::size_t(j)] == kFree) {
          g.label[std::size_t(j)] = c;
          queue.push_back(j);
        }
    }
  }
  g.value = std::vector<std::atomic<std::int32_t>>(std::size_t(comps));
  for (auto& v : g.value) v.store(FastWindingGrid::kUnknown, std::memory_order_relaxed);
  // Cell (0,0,0) lies outside the mesh's box (two cells of padding), where a
  // closed mesh's winding number is 0.
  g.value[std::size_t(g.label[0])].store(0, std::memory_order_relaxed);
}

}  // namespace

template <class T>
std::size_t FastWindingNumber<T>::memory_bytes() const {
  return data_->clusters.capacity() * sizeof(ClusterPack) +
         data_->grid.label.capacity() * sizeof(std::int32_t) +
         data_->grid.value.capacity() * sizeof(std::atomic<std::int32_t>);
}

template <class T>
FastWindingNumber<T>::FastWindingNumber(const MeshIndex<T>& index) : index_(&index) {
  auto data = std::make_shared<Data>();
  std::vector<ClusterPack>& clusters_ = data->clusters;
  const bvh::Bvh8& bvh = index.bvh();
  const FlatIndex<T> flat = index.layout();
  max_triangles_ = std::max<std::size_t>(256, index.mesh().num_triangles() / 2);
  clusters_.assign(bvh.nodes.size(), ClusterPack{});
  std::vector<Raw> raw(bvh.nodes.size() * bvh::kWidth);
  auto corner = [&](std::uint32_t s, int k) { return flat.corner(s, k).template cast<double>(); };
  for (std::size_t i = bvh.nodes.size(); i-- > 0;) {  // children after parents
    const bvh::Node8& node = bvh.nodes[i];
    for (int k = 0; k < bvh::kWidth; ++k) {
      if (node.child[k] == bvh::kInvalid) continue;
      Raw d;
      d.used = true;
      const std::uint32_t first = node.child[k], count = node.count[k];
      if (count > 0) {
        for (std::uint32_t j = first; j < first + count; ++j) {
          const Vec3d a = corner(j, 0), b = corner(j, 1), c = corner(j, 2);
          const Vec3d n = cross(b - a, c - a) * 0.5;
          const double area = std::sqrt(squared_norm(n));
          const Vec3d g = (a + b + c) / 3.0;
          for (int q = 0; q < 3; ++q) {
            d.n[q] += n[q];
            d.c[q] += area * g[q];
          }
          d.area += area;
        }
        if (d.area > 0)
          for (double& x : d.c) x /= d.area;
        else
          for (int a = 0; a < 3; ++a) d.c[a] = 0.5 * (double(node.lo[a][k]) + double(node.hi[a][k]));
        const Vec3d cc{d.c[0], d.c[1], d.c[2]};
        for (std::uint32_t j = first; j < first + count; ++j) {
          const Vec3d a = corner(j, 0), b = corner(j, 1), c = corner(j, 2);
          const Vec3d n = cross(b - a, c - a) * 0.5;
          const double area = std::sqrt(squared_norm(n));
          const Vec3d off = (a + b + c) / 3.0 - cc;
          for (int q = 0; q < 3; ++q)
            for (int r = 0; r < 3; ++r) d.m[q][r] += n[q] * off[r];
          double far3 = 0;
          for (const Vec3d& v : {a, b, c}) {
            const double l = std::sqrt(squared_norm(v - cc));
            d.radius = std::max(d.radius, l);
            far3 = std::max(far3, l * l * l);
          }
          // int |y - c|^2 dA and int s_j s_k dA, exact for quadratics: area/3 *
          // sum over the edge midpoints; int |s|^3 <= area * max corner |s|^3.
          const Vec3d mids[3] = {(a + b) * 0.5 - cc, (b + c) * 0.5 - cc, (c + a) * 0.5 - cc};
          for (const Vec3d& m : mids) {
            d.mu2 += area / 3.0 * squared_norm(m);
            for (int q = 0; q < 3; ++q)
              for (int r = 0; r < 3; ++r)
                for (int z = 0; z < 3; ++z) d.t[q][r][z] += n[q] / 3.0 * m[r] * m[z];
          }
          d.mu3 += area * far3;
        }
      } else {
        const Raw* ch = &raw[std::size_t(first) * bvh::kWidth];
        for (int q = 0; q < bvh::kWidth; ++q) {
          if (!ch[q].used) continue;
          for (int a = 0; a < 3; ++a) {
            d.n[a] += ch[q].n[a];
            d.c[a] += ch[q].area * ch[q].c[a];
          }
          d.area += ch[q].area;
        }
        if (d.area > 0)
          for (double& x : d.c) x /= d.area;
        else
          for (int a = 0; a < 3; ++a) d.c[a] = 0.5 * (double(node.lo[a][k]) + double(node.hi[a][k]));
        for (int q = 0; q < bvh::kWidth; ++q) {
          if (!ch[q].used) continue;
          double shift2 = 0;
          for (int a = 0; a < 3; ++a) {
            const double s = ch[q].c[a] - d.c[a];
            shift2 += s * s;
            for (int r = 0; r < 3; ++r) d.m[a][r] += ch[q].m[a][r] + ch[q].n[a] * (ch[q].c[r] - d.c[r]);
          }
          const double dl[3] = {ch[q].c[0] - d.c[0], ch[q].c[1] - d.c[1], ch[q].c[2] - d.c[2]};
          // T' = T + M_ij dl_k + M_ik dl_j + N_i dl_j dl_k (s' = s + dl).
          for (int a = 0; a < 3; ++a)
            for (int r = 0; r < 3; ++r)
              for (int z = 0; z < 3; ++z)
                d.t[a][r][z] += ch[q].t[a][r][z] + ch[q].m[a][r] * dl[z] + ch[q].m[a][z] * dl[r] +
                                ch[q].n[a] * dl[r] * dl[z];
          const double shift = std::sqrt(shift2);
          d.radius = std::max(d.radius, ch[q].radius + shift);
          const double root = std::sqrt(ch[q].mu2) + std::sqrt(ch[q].area) * shift;
          d.mu2 += root * root;
          const double root3 = std::cbrt(ch[q].mu3) + std::cbrt(ch[q].area) * shift;
          d.mu3 += root3 * root3 * root3;
        }
      }
      // The slot's box also bounds the radius (its farthest corner).
      double box2 = 0;
      for (int a = 0; a < 3; ++a) {
        const double e = std::max(d.c[a] - double(node.lo[a][k]), double(node.hi[a][k]) - d.c[a]);
        box2 += e * e;
      }
      d.radius = std::min(d.radius, std::sqrt(box2)) * (1 + 1e-12);
      d.area *= 1 + 1e-12;
      d.mu2 = std::min(d.mu2, d.area * d.radius * d.radius) * (1 + 1e-10);
      d.mu3 = std::min(d.mu3, d.area * d.radius * d.radius * d.radius) * (1 + 1e-10);
      raw[i * bvh::kWidth + k] = d;
    }
    ClusterPack& pk = clusters_[i];
    for (int k = 0; k < bvh::kWidth; ++k) {
      const Raw& d = raw[i * bvh::kWidth + k];
      pk.cx[k] = d.c[0];
      pk.cy[k] = d.c[1];
      pk.cz[k] = d.c[2];
      pk.nx[k] = d.n[0] * kInv4Pi;
      pk.ny[k] = d.n[1] * kInv4Pi;
      pk.nz[k] = d.n[2] * kInv4Pi;
      pk.mxx[k] = d.m[0][0] * kInv4Pi;
      pk.myy[k] = d.m[1][1] * kInv4Pi;
      pk.mzz[k] = d.m[2][2] * kInv4Pi;
      pk.mxy[k] = (d.m[0][1] + d.m[1][0]) * kInv4Pi;
      pk.mxz[k] = (d.m[0][2] + d.m[2][0]) * kInv4Pi;
      pk.myz[k] = (d.m[1][2] + d.m[2][1]) * kInv4Pi;
      pk.trace[k] = (d.m[0][0] + d.m[1][1] + d.m[2][2]) * kInv4Pi;
      pk.radius[k] = d.used ? d.radius : -1.0;
      pk.mu2[k] = 3.0 * d.mu2 * kInv4Pi * (1 + 1e-12);
      pk.round[k] = 1e-13 * d.area * kInv4Pi;
      pk.mu3[k] = 4.0 * d.mu3 * kInv4Pi * (1 + 1e-12);
      // Second order: (1/2) T : (-D^3 psi), psi = 1/|r|, is
      //   (15/2) sum T_ijk r_i r_j r_k / |r|^7 - (3/2) (2 u + t).r / |r|^5
      // with u_k = sum_j T_jjk, t_i = sum_j T_ijj; the cubic form only sees T's
      // full symmetrization: 10 coefficients.
      const auto& t = d.t;
      auto sym = [&](int a, int b, int c) {  // sum over the distinct orderings
        double s3 = 0;
        const int o[6][3] = {{a, b, c}, {a, c, b}, {b, a, c}, {b, c, a}, {c, a, b}, {c, b, a}};
        for (const auto& x : o) s3 += t[x[0]][x[1]][x[2]];
        return s3;
      };
      const double h = 7.5 * kInv4Pi;
      pk.cxxx[k] = h * t[0][0][0];
      pk.cyyy[k] = h * t[1][1][1];
      pk.czzz[k] = h * t[2][2][2];
      pk.cxxy[k] = h * sym(0, 0, 1) / 2;
      pk.cxxz[k] = h * sym(0, 0, 2) / 2;
      pk.cyyx[k] = h * sym(1, 1, 0) / 2;
      pk.cyyz[k] = h * sym(1, 1, 2) / 2;
      pk.czzx[k] = h * sym(2, 2, 0) / 2;
      pk.czzy[k] = h * sym(2, 2, 1) / 2;
      pk.cxyz[k] = h * sym(0, 1, 2);
      for (int a = 0; a < 3; ++a) {
        double v = 0;
        for (int j = 0; j < 3; ++j) v += 2 * t[j][j][a] + t[a][j][j];
        (a == 0 ? pk.vx : a == 1 ? pk.vy : pk.vz)[k] = 1.5 * v * kInv4Pi;
      }
    }
  }
  data->closed = zero_boundary(index.mesh());
  if (data->closed) build_grid(index.mesh(), data->grid);
  data_ = std::move(data);
}

template <class T>
bool FastWindingNumber<T>::closed() const {
  return data_->closed;
}

template <class T>
std::size_t FastWindingNumber<T>::grid_cells() const {
  return data_->grid.label.size();
}

template <class T>
CertifiedWinding<T> FastWindingNumber<T>::decide_sign(const Vec3<T>& p) const {
  static constexpr double kThresholds[6] = {-0.7, -0.5, -0.3, 0.3, 0.5, 0.7};
  if (!data_->closed || !CoordinateRange<T>::contains(p))
    return traverse(p, std::span<const double>(kThresholds), 0, false);
  const FastWindingGrid& g = data_->grid;
  std::int32_t comp = FastWindingGrid::kOccupied;
  if (!g.label.empty()) {
    std::int64_t idx = 0, stride = 1;
    bool outside = false;
    for (int a = 0; a < 3; ++a) {
      const double f = (double(p[a]) - g.lo[a]) * g.inv_h;
      // Beyond the grid is beyond the mesh's box (two cells of padding).
      if (!(f >= 0) || !(f < double(g.n[a]))) {
        outside = true;
        break;
      }
      idx += std::min(std::int64_t(f), g.n[a] - 1) * stride;
      stride *= g.n[a];
    }
    if (outside) {
      CertifiedWinding<T> out;
      out.integral = true;
      return out;
    }
    comp = g.label[std::size_t(idx)];
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
  std::vector<std::uint32_t>& stack = scratch.stack;
  heap.clear();
  stack.clear();

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

  // Opens node i: near children are summed exactly (leaves) or opened (inner
  // nodes, through the stack); far ones go to the heap with their bound.
  auto open = [&](std::uint32_t i) {
    const bvh::Node8& node = bvh.nodes[i];
    const ClusterPack& c = data_->clusters[i];
    for (int k = 0; k < bvh::kWidth; ++k) {
      if (c.radius[k] < 0) break;  // used slots come first
      const double rx = c.cx[k] - p[0], ry = c.cy[k] - p[1], rz = c.cz[k] - p[2];
      const double d2 = rx * rx + ry * ry + rz * rz;
      const double d = std::sqrt(d2);
      const double gap = d - c.radius[k];
      if (!(gap > 1e-12 * d) || !(d2 >= 0x1p-400 && d2 <= 0x1p400)) {
        if (node.count[k] > 0)
          leaf(node.child[k], node.count[k]);
        else
          stack.push_back(node.child[k]);
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
        if (node.count[k] > 0)
          leaf(node.child[k], node.count[k]);
        else
          stack.push_back(node.child[k]);
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
  };
  auto drain = [&] {
    while (!stack.empty()) {
      const std::uint32_t i = stack.back();
      stack.pop_back();
      open(i);
    }
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

  open(0);
  drain();
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
      open(top.child);
      drain();
    }
  }
  exact();
  out.clusters = std::uint32_t(clusters);
  out.triangles = std::uint32_t(tris);
  return out;
}

namespace {

/// Two 64-bit hashes of the index's vertices, triangles and hierarchy.
struct Fingerprint {
  std::uint64_t a = 0, b = 0;
  std::size_t nv = 0, nt = 0, nn = 0;
  bool operator==(const Fingerprint&) const = default;
};

inline void mix_bytes(Fingerprint& f, const void* data, std::size_t bytes) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  std::uint64_t a = f.a, b = f.b;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t x;
    std::memcpy(&x, p + i, 8);
    a = (a ^ x) * 0x100000001b3ull;
    a ^= a >> 29;
    b = (b + x) * 0x9e3779b97f4a7c15ull;
    b ^= b >> 31;
  }
  for (; i < bytes; ++i) {
    a = (a ^ p[i]) * 0x100000001b3ull;
    b = (b + p[i]) * 0x9e3779b97f4a7c15ull;
  }
  f.a = a;
  f.b = b;
}

template <class T>
Fingerprint fingerprint(const MeshIndex<T>& index) {
  Fingerprint f{0xcbf29ce484222325ull, 0x243f6a8885a308d3ull};
  const auto& V = index.mesh().vertices();
  const auto& F = index.mesh().triangles();
  f.nv = V.size();
  f.nt = F.size();
  f.nn = index.bvh().nodes.size();
  for (const auto& v : V) {
    const T xyz[3] = {v[0], v[1], v[2]};
    mix_bytes(f, xyz, sizeof xyz);
  }
  mix_bytes(f, F.data(), F.size() * sizeof(F[0]));
  for (const bvh::Node8& n : index.bvh().nodes) {
    mix_bytes(f, n.child, sizeof n.child);
    mix_bytes(f, n.count, sizeof n.count);
    mix_bytes(f, n.lo, sizeof n.lo);
    mix_bytes(f, n.hi, sizeof n.hi);
  }
  return f;
}

}  // namespace

template <class T>
std::shared_ptr<const FastWindingNumber<T>> FastWindingNumber<T>::shared(
    const MeshIndex<T>& index) {
  struct Slot {
    Fingerprint print;
    std::weak_ptr<const FastWindingNumber<T>> fast;
  };
  static std::mutex mutex;
  static std::unordered_map<const MeshIndex<T>*, Slot> slots;
  const Fingerprint print = fingerprint(index);
  const std::lock_guard<std::mutex> lock(mutex);
  for (auto it = slots.begin(); it != slots.end();)
    it = it->second.fast.expired() ? slots.erase(it) : std::next(it);
  auto it = slots.find(&index);
  if (it != slots.end() && it->second.print == print)
    if (auto live = it->second.fast.lock()) return live;
  auto made = std::make_shared<const FastWindingNumber<T>>(index);
  slots[&index] = Slot{print, made};
  return made;
}

template class FastWindingNumber<float>;
template class FastWindingNumber<double>;

}  // namespace prox
