// apps/table.hpp — the result tables of `prox` commands, written as CSV, .npy or .npz.
//
// A command fills named, typed columns (one value per row) and writes them
// once, in the format its -o names:
//   .csv (or standard output)  a header row of names, then one row per record;
//                              numbers shortest round-trip (float32 columns in
//                              float's shortest form), labelled columns as
//                              names ("face", "none" for a code of -1);
//   .npz                       one array per column, named as the column, in
//                              the column's dtype (float64, float32, int64,
//                              int8, uint8), shape (rows,) — numpy.load(path)
//                              gives a dict-like of them;
//   .npy                       one column: that array (its dtype, shape
//                              (rows,)); several: float64 (rows, columns) in
//                              column order (ids and codes exact as doubles).
// --columns a,b,c chooses and orders the columns; --float32 stores every
// float64 column as float32.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "common.hpp"
#include "prox/io/npy.hpp"
#include "prox/mesh/sample_surface.hpp"

namespace prox::cli {

/// text: CSV only (.npz and .npy leave such a column out).
enum class ColumnType { f64, f32, i64, i8, u8, text };

struct Column {
  std::string name;
  ColumnType type = ColumnType::f64;
  std::string help;                     ///< one line, for --help and docs
  std::vector<double> real;             ///< f64 / f32 values
  std::vector<std::int64_t> integer;    ///< i64 / i8 / u8 values
  std::vector<std::string> labels;      ///< CSV text of code k (integer columns); -1: "none"
  std::vector<std::string> text;        ///< text values
  bool is_real() const { return type == ColumnType::f64 || type == ColumnType::f32; }
  std::size_t size() const {
    return is_real() ? real.size() : type == ColumnType::text ? text.size() : integer.size();
  }
};

class Table {
 public:
  /// Adds a column (values appended by the caller); returns it (the reference
  /// stays valid while columns are added).
  Column& add(std::string name, ColumnType type, std::string help);
  Column& operator[](std::string_view name);
  const std::deque<Column>& columns() const { return columns_; }
  /// Keeps only the comma-separated names of `spec`, in its order ("" keeps all);
  /// UsageError naming the unknown column and listing the known ones.
  void select(const std::string& spec);
  /// Every float64 column becomes float32.
  void to_float32();
  /// Writes to `out` as its path's extension says (see the file comment);
  /// npz_extra, if set, adds arrays to an .npz after the columns.
  void write(Output& out, const std::string& path,
             const std::function<void(io::NpzWriter&)>& npz_extra = {}) const;
  std::size_t rows() const;

 private:
  std::deque<Column> columns_;  // deque: add() keeps earlier references valid
};

/// The output formats a table accepts: "" / "-" (CSV on standard output), .csv,
/// .npy, .npz; UsageError otherwise.
void check_table_output(const std::string& path);

/// Adds -o, --columns (listing `names` in its help) and --float32 to a command.
struct TableOptions {
  std::string out, columns;
  bool float32 = false;
};
void add_table_options(CLI::App& app, TableOptions& o, const std::string& names);

/// Selects, converts and writes the table as the options say, then commits.
void write_table(Table& table, const TableOptions& o,
                 const std::function<void(io::NpzWriter&)>& npz_extra = {});

/// Surface samples as a table: x, y, z, triangle (int64), w0, w1, w2 (the
/// weights of the triangle's corners 0, 1, 2), and `distance` when given
/// (one per sample); `prox sample` and `prox hausdorff` write it.
Table samples_table(const SurfaceSamples<double>& samples,
                    const std::vector<double>* distances = nullptr);
/// The column names of samples_table, for --columns' help.
inline constexpr const char* kSampleColumns = "x,y,z,triangle,w0,w1,w2";

/// "uniform" | "stratified" (UsageError naming `option` otherwise).
SampleMethod parse_sample_method(const std::string& text, const std::string& option);

}  // namespace prox::cli
