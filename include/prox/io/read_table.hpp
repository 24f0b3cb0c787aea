// prox/io/read_table.hpp — points and rays for the batch queries, from text or .npy.
//
// Text: one record per line, numbers separated by spaces, tabs or commas;
// '#' starts a comment; blank lines are skipped; a first line that holds no
// number at all (a CSV header such as "x,y,z") is skipped too. .npy: a 2D
// array of shape (N, K) (float32/64, int32/64). Each record must have a
// number of values in allowed_columns; anything else is a ReadError
// naming the file and line. NaN/inf are passed through: the queries answer
// them with a miss, as DESIGN.md says.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "prox/core/ray.hpp"
#include "prox/core/vec.hpp"

namespace prox::io {

/// Rows of numbers; every row has `columns` values (the largest allowed count;
/// shorter rows are padded with fill[k] for the missing column k).
struct Table {
  std::size_t columns = 0;
  std::size_t rows = 0;
  std::vector<double> values;  // row-major, rows * columns
};

/// Parses a table (text or .npy, told apart by the .npy magic).
Table parse_table(std::string_view bytes, const std::string& name,
                  const std::vector<std::size_t>& allowed_columns,
                  const std::vector<double>& fill = {});
/// Reads a table from a file, or from standard input when path is "-".
Table read_table(const std::string& path, const std::vector<std::size_t>& allowed_columns,
                 const std::vector<double>& fill = {});

/// Points: 3 numbers per record.
std::vector<Vec3d> read_points(const std::string& path);
/// Rays: origin, direction (6 numbers), optionally t_min, t_max (8 numbers).
std::vector<Ray<double>> read_rays(const std::string& path);

}  // namespace prox::io
