// src/mesh/fast_winding_grid.cpp — the inside/outside grid of a closed mesh
// (FastWindingNumber::decide_sign's O(1) answers): the zero-boundary test and
// the grid of free cells, flood-filled into components.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "fast_winding_data.hpp"

namespace prox::detail::fast_winding {

namespace {

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

}  // namespace

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

template bool zero_boundary(const TriangleMesh<float>&);
template bool zero_boundary(const TriangleMesh<double>&);
template void build_grid(const TriangleMesh<float>&, FastWindingGrid&);
template void build_grid(const TriangleMesh<double>&, FastWindingGrid&);

}  // namespace prox::detail::fast_winding
