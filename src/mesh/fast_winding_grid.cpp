// src/mesh/fast_winding_grid.cpp — the inside/outside grid of a closed mesh
// (FastWindingNumber::decide_sign's O(1) answers): the zero-boundary test and
// the grid of free cells, flood-filled into components.
#include <algorithm>
#include <bit>
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
// Sub-cells a side in a touched cell (a power of two), and their budget: at
// most kGridSubBudget sub-cells per cell of the grid or kGridSubFloor in all,
// whichever is more (else no second level).
constexpr std::int64_t kGridSub = 4;
static_assert(std::has_single_bit(std::uint64_t(kGridSub)));
constexpr double kGridSubBudget = 4.0;
constexpr double kGridSubFloor = double(1 << 22);  // 16 MB: any mesh may have this many
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
  // Marks, for every triangle, the cells of a grid (origin g.lo, side hc, nc
  // cells an axis; margin mc in its cells) that its box and plane touch:
  // on_cell(x, y, z) for each.
  auto mark = [&](double hc, const std::int64_t nc[3], double mc, auto&& on_cell) {
    const double inv = 1.0 / hc;
    for (std::size_t t = 0; t < F.size(); ++t) {
      std::int64_t i0[3], i1[3];
      for (int a = 0; a < 3; ++a) {
        double mn = std::numeric_limits<double>::infinity(), mx = -mn;
        for (int k = 0; k < 3; ++k) {
          const double x = double(m.corner(t, k)[a]);
          mn = std::min(mn, x);
          mx = std::max(mx, x);
        }
        i0[a] = std::max<std::int64_t>(0, std::int64_t(std::floor((mn - g.lo[a]) * inv - mc)));
        i1[a] = std::min<std::int64_t>(nc[a] - 1,
                                       std::int64_t(std::floor((mx - g.lo[a]) * inv + mc)));
      }
      // A cell of the triangle's box is touched only where the triangle's
      // plane meets the cell grown by the margin: |n.(m - a)| <= hh |n|_1 (m
      // its centre). The slack covers the rounding of n, m and the dot product
      // many times over (1e-9 against errors of a few units of 1e-16).
      // Everything is in cell units (offsets times 1/hc, one more rounding
      // each, inside the slack), so the products neither underflow nor
      // overflow at any scale: in mesh units a mesh at 1e-103 has n.(m - a)
      // below the smallest normal double, and a plane test on such numbers
      // could free cells the surface crosses.
      const Vec3d a = m.corner(t, 0).template cast<double>();
      const Vec3d b = m.corner(t, 1).template cast<double>();
      const Vec3d c = m.corner(t, 2).template cast<double>();
      const Vec3d ab = (b - a) * inv, ac = (c - a) * inv;
      const Vec3d nrm = cross(ab, ac);
      const double n1 = std::abs(nrm[0]) + std::abs(nrm[1]) + std::abs(nrm[2]);
      const double e1 = (std::abs(ab[0]) + std::abs(ab[1]) + std::abs(ab[2])) *
                        (std::abs(ac[0]) + std::abs(ac[1]) + std::abs(ac[2]));
      const double a1 = (std::abs(a[0]) + std::abs(a[1]) + std::abs(a[2])) * inv;
      const double hh = 0.5 + mc;
      const bool few = i1[0] - i0[0] + i1[1] - i0[1] + i1[2] - i0[2] <= 2;  // few cells: mark all
      // The terms that do not change along a row or a plane are computed there
      // (the same operations in the same order: the same bits).
      const double lo0 = g.lo[0], lo1 = g.lo[1], lo2 = g.lo[2];
      const double hn1 = hh * n1, ke1 = 1e-9 * e1;
      for (std::int64_t z = i0[2]; z <= i1[2]; ++z) {
        const double mz = lo2 + (double(z) + 0.5) * hc;
        const double dz = (mz - a[2]) * inv;
        const double nz = nrm[2] * dz, adz = std::abs(dz), amz = std::abs(mz);
        for (std::int64_t y = i0[1]; y <= i1[1]; ++y) {
          const double my = lo1 + (double(y) + 0.5) * hc;
          const double dy = (my - a[1]) * inv;
          const double ny = nrm[1] * dy, ady = std::abs(dy), amy = std::abs(my);
          for (std::int64_t x = i0[0]; x <= i1[0]; ++x) {
            if (!few) {
              const double mx = lo0 + (double(x) + 0.5) * hc;
              const double dx = (mx - a[0]) * inv;
              const double dot = nrm[0] * dx + ny + nz;
              const double reach = hn1 + ke1 * (std::abs(dx) + ady + adz + 1 + a1 +
                                                (std::abs(mx) + amy + amz) * inv);
              if (!(std::abs(dot) <= reach) && std::isfinite(dot)) continue;  // the plane misses it
            }
            on_cell(x, y, z);
          }
        }
      }
    }
  };
  mark(h, g.n, margin, [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    g.label[std::size_t(x * sx + y * sy + z * sz)] = FastWindingGrid::kOccupied;
  });

  // The second level, where its sub-cells fit the budget.
  std::vector<std::int64_t> slot_cell;  // slot -> its cell
  for (std::int64_t i = 0; i < total; ++i)
    if (g.label[std::size_t(i)] == FastWindingGrid::kOccupied) slot_cell.push_back(i);
  constexpr std::int64_t s = kGridSub, s3 = s * s * s;
  if (double(slot_cell.size()) * double(s3) <=
          std::max(kGridSubBudget * double(total), kGridSubFloor) &&
      double(slot_cell.size()) * double(s3) < double(std::int64_t(1) << 31) &&
      kGridMarginFloor + 64.0 * kU * big / (h / double(s)) < kGridMarginMax) {
    g.sub = s;
    g.fine.assign(slot_cell.size() * std::size_t(s3), kFree);
    for (std::size_t k = 0; k < slot_cell.size(); ++k)
      g.label[std::size_t(slot_cell[k])] = FastWindingGrid::kFirstSlot - std::int32_t(k);
    const double hs = h / double(s);  // exact: s is a power of two
    const std::int64_t ns[3] = {g.n[0] * s, g.n[1] * s, g.n[2] * s};
    mark(hs, ns, kGridMarginFloor + 64.0 * kU * big / hs,
         [&](std::int64_t x, std::int64_t y, std::int64_t z) {
           // x, y, z >= 0 and s a power of two: / and % as shifts and masks.
           constexpr int lg = std::countr_zero(std::uint64_t(s));
           const std::int32_t c = g.label[std::size_t((x >> lg) * sx + (y >> lg) * sy +
                                                      (z >> lg) * sz)];
           if (c > FastWindingGrid::kFirstSlot) return;  // a free cell: its own test freed it
           const std::int64_t local = (x & (s - 1)) + s * ((y & (s - 1)) + s * (z & (s - 1)));
           g.fine[std::size_t(std::int64_t(FastWindingGrid::kFirstSlot - c) * s3 + local)] =
               FastWindingGrid::kOccupied;
         });
  }

  // Components (6-connected) of free cells and free sub-cells, in one scan
  // in memory order with a union-find over provisional labels: each free node
  // joins its free neighbours at -x, -y and -z, which the scan has labelled
  // already (sub-cells join across their cell's faces, with each other and
  // with free cells). Every adjacency has one later node, so this is the graph
  // a flood fill walks. The components are then numbered by their first node,
  // cells first and then sub-cells, as a flood fill in that order numbers them.
  std::vector<std::int32_t> parent;  // provisional label -> a smaller one, or itself
  auto find = [&](std::int32_t x) {
    while (parent[std::size_t(x)] != x) {
      const std::int32_t up = parent[std::size_t(parent[std::size_t(x)])];
      parent[std::size_t(x)] = up;
      x = up;
    }
    return x;
  };
  // Joins provisional label o into the node's label cur (a new one if none).
  auto join = [&](std::int32_t& cur, std::int32_t o) {
    if (o < 0 || o == cur) return;  // occupied, or already joined
    if (cur < 0) {
      cur = o;
      return;
    }
    std::int32_t r = find(cur), q = find(o);
    if (r == q) return;
    if (r < q) std::swap(r, q);
    parent[std::size_t(r)] = q;
  };
  auto fresh = [&](std::int32_t& cur) {
    if (cur >= 0) return;
    cur = std::int32_t(parent.size());
    parent.push_back(cur);
  };
  const std::int64_t stride[3] = {sx, sy, sz};
  constexpr std::int64_t face_step[3] = {1, s, s * s};  // a sub-cell's step along each axis
  auto slot_of = [&](std::int32_t l) { return std::int64_t(FastWindingGrid::kFirstSlot - l); };
  for (std::int64_t z = 0, i = 0; z < g.n[2]; ++z)
    for (std::int64_t y = 0; y < g.n[1]; ++y)
      for (std::int64_t x = 0; x < g.n[0]; ++x, ++i) {
        const std::int32_t li = g.label[std::size_t(i)];
        const std::int64_t xyz[3] = {x, y, z};
        if (li == kFree) {  // a free cell: its neighbour cells, or their sub-cells on the face
          std::int32_t cur = -1;
          for (int a = 0; a < 3; ++a) {
            if (xyz[a] == 0) continue;
            const std::int32_t o = g.label[std::size_t(i - stride[a])];
            if (o > FastWindingGrid::kFirstSlot) {
              join(cur, o);
              continue;
            }
            const int b = (a + 1) % 3, d = (a + 2) % 3;
            const std::int64_t base = slot_of(o) * s3 + (s - 1) * face_step[a];
            for (std::int64_t u = 0; u < s; ++u)
              for (std::int64_t v = 0; v < s; ++v)
                join(cur, g.fine[std::size_t(base + u * face_step[b] + v * face_step[d])]);
          }
          fresh(cur);
          g.label[std::size_t(i)] = cur;
          continue;
        }
        if (li > FastWindingGrid::kFirstSlot) continue;  // occupied without sub-cells
        const std::int64_t base = slot_of(li) * s3;
        std::int64_t nb_base[3];  // the neighbour cell's slot base, -1 free, -2 none/occupied
        std::int32_t nb_label[3];
        for (int a = 0; a < 3; ++a) {
          nb_base[a] = -2;
          nb_label[a] = -1;
          if (xyz[a] == 0) continue;
          const std::int32_t o = g.label[std::size_t(i - stride[a])];
          if (o > FastWindingGrid::kFirstSlot) {
            nb_base[a] = -1;
            nb_label[a] = o;
          } else {
            nb_base[a] = slot_of(o) * s3;
          }
        }
        for (std::int64_t lz = 0, f = base; lz < s; ++lz)
          for (std::int64_t ly = 0; ly < s; ++ly)
            for (std::int64_t lx = 0; lx < s; ++lx, ++f) {
              if (g.fine[std::size_t(f)] != kFree) continue;
              const std::int64_t l[3] = {lx, ly, lz};
              std::int32_t cur = -1;
              for (int a = 0; a < 3; ++a) {
                if (l[a] > 0) {
                  join(cur, g.fine[std::size_t(f - face_step[a])]);
                } else if (nb_base[a] == -1) {
                  join(cur, nb_label[a]);
                } else if (nb_base[a] >= 0) {  // the sub-cell across the face
                  join(cur, g.fine[std::size_t(nb_base[a] + (f - base) + (s - 1) * face_step[a])]);
                }
              }
              fresh(cur);
              g.fine[std::size_t(f)] = cur;
            }
      }
  // Numbered by first node; parent[p] <= p, so one pass in order leaves roots.
  for (std::size_t p = 0; p < parent.size(); ++p) parent[p] = parent[std::size_t(parent[p])];
  std::vector<std::int32_t> number(parent.size(), -1);
  std::int32_t comps = 0;
  auto renumber = [&](std::int32_t& l) {
    if (l < 0) return;
    std::int32_t& k = number[std::size_t(parent[std::size_t(l)])];
    if (k < 0) k = comps++;
    l = k;
  };
  for (auto& l : g.label) renumber(l);
  for (auto& l : g.fine) renumber(l);
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
