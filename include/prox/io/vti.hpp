// prox/io/vti.hpp — VTK XML ImageData (.vti) for scalar grids (SDF volumes, slices).
//
// Reference: "VTK File Formats", XML ImageData. One point-data array, ASCII
// inline, values in x-fastest order (index = i + nx * (j + ny * k)), printed
// shortest round-trip so ParaView reads back the exact values.
#pragma once

#include <array>
#include <ostream>
#include <string>

namespace prox::io {

/// A scalar field on a regular grid of nx * ny * nz points.
struct VtiGrid {
  std::array<int, 3> dims{1, 1, 1};
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> spacing{1, 1, 1};
  std::string name = "distance";
};

/// Writes the grid and its values (size dims[0] * dims[1] * dims[2]).
void write_vti(std::ostream& out, const VtiGrid& grid, const double* values);
void write_vti(std::ostream& out, const VtiGrid& grid, const float* values);

}  // namespace prox::io
