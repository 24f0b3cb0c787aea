// src/mesh/fast_winding_data.hpp — FastWindingNumber's internal data, shared by
// its translation units: the cluster packs (fast_winding_build.cpp), the
// inside/outside grid of a closed mesh (fast_winding_grid.cpp) and the
// certified traversal (fast_winding.cpp). Not installed.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <vector>

#include "prox/mesh/fast_winding.hpp"

namespace prox {
namespace detail::fast_winding {

constexpr double kU = 0x1p-53;  // unit roundoff of double
constexpr double kInv4Pi = 0.0795774715459476678844418816862571810172;
constexpr double kFourPi = 12.566370614359172953850573533118011536789;

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

// The inside/outside grid of a closed mesh. Cells (cubes of side h, the
// mesh's box plus two cells on every side; about kGridCellsPerTriangle cells a
// triangle) that no triangle touches are free: a triangle marks the cells of
// its box whose cube, grown by `margin` cells (more than the rounding of a
// cell index), its plane meets; free cells sharing a face are joined into components (6-connected
// flood fill). On a closed mesh w is an integer constant on every connected
// set off the surface, so one certified integer per component answers every
// point in it: the component of cell (0,0,0), outside the mesh's box, is 0;
// the others are learnt from the first query that certifies its integer.
//
// Second level: a touched cell is split into sub^3 sub-cells (sub = 4), marked
// by the same plane test at the sub-cell size, and the free sub-cells join the
// flood fill (with each other across cell faces and with free cells), so that
// only points in touched sub-cells need the traversal. Its label is then
// kFirstSlot - slot, and fine[slot * sub^3 + local] the sub-cell's label
// (local = lx + sub (ly + sub lz)). Touched cells beyond the sub-cell budget
// (kOccupied) have no second level.
struct FastWindingGrid {
  static constexpr std::int32_t kOccupied = -1;
  // The label of a touched cell with sub-cells: kFirstSlot - slot.
  static constexpr std::int32_t kFirstSlot = -3;
  static constexpr std::int32_t kUnknown = std::numeric_limits<std::int32_t>::min();
  double lo[3] = {0, 0, 0};
  double inv_h = 0;
  std::int64_t n[3] = {0, 0, 0};
  std::int64_t sub = 0;  // sub-cells a side in touched cells (0: no second level)
  std::vector<std::int32_t> label;  // kOccupied, kFirstSlot - slot, or the component
  std::vector<std::int32_t> fine;   // per slot, sub^3 labels: kOccupied or the component
  mutable std::vector<std::atomic<std::int32_t>> value;  // per component: w or kUnknown

  /// The component of p's cell or sub-cell (< 0: touched, or p beyond the
  /// grid when `outside` is set), from p's coordinates in double.
  std::int32_t component(const double p[3], bool& outside) const {
    outside = false;
    std::int64_t idx = 0, stride = 1, cell[3];
    double f[3];
    for (int a = 0; a < 3; ++a) {
      f[a] = (p[a] - lo[a]) * inv_h;
      // Beyond the grid is beyond the mesh's box (two cells of padding).
      if (!(f[a] >= 0) || !(f[a] < double(n[a]))) {
        outside = true;
        return kOccupied;
      }
      cell[a] = std::min(std::int64_t(f[a]), n[a] - 1);
      idx += cell[a] * stride;
      stride *= n[a];
    }
    const std::int32_t c = label[std::size_t(idx)];
    if (c > kFirstSlot) return c;
    // The sub-cell: f * sub is exact (sub a power of two), so its floor lies
    // in [sub cell, sub cell + sub - 1] but where the cell was clamped.
    std::int64_t local = 0;
    for (int a = 2; a >= 0; --a) {
      const std::int64_t l = std::clamp<std::int64_t>(
          std::int64_t(f[a] * double(sub)) - sub * cell[a], 0, sub - 1);
      local = local * sub + l;
    }
    return fine[std::size_t(std::int64_t(kFirstSlot - c) * sub * sub * sub + local)];
  }
};

/// Whether the oriented triangles of m have zero boundary, corners identified
/// by their coordinates (so a soup of the same triangles counts too). A
/// collapsed triangle (two equal corners) cancels its own edges.
template <class T>
bool zero_boundary(const TriangleMesh<T>& m);

/// Builds the grid of a closed mesh (leaves it empty where the coordinates
/// are too large for the cell size to be resolved safely).
template <class T>
void build_grid(const TriangleMesh<T>& m, FastWindingGrid& g);

}  // namespace detail::fast_winding

template <class T>
struct FastWindingNumber<T>::Data {
  std::vector<detail::fast_winding::ClusterPack> clusters;  // one per node
  bool closed = false;
  detail::fast_winding::FastWindingGrid grid;  // empty unless closed
};

}  // namespace prox
