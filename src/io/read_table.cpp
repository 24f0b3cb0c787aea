// src/io/read_table.cpp — points/rays tables from text or .npy, file or stdin.
#include "prox/io/read_table.hpp"

#include <cstdio>
#include <iostream>
#include <iterator>

#include "parse_util.hpp"
#include "prox/io/mesh_data.hpp"
#include "prox/io/npy.hpp"
#include "prox/io/read_mesh.hpp"

namespace prox::io {
namespace {

std::string columns_text(const std::vector<std::size_t>& allowed) {
  std::string s;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (i) s += i + 1 == allowed.size() ? " or " : ", ";
    s += std::to_string(allowed[i]);
  }
  return s;
}

bool allowed_count(const std::vector<std::size_t>& allowed, std::size_t n) {
  for (const std::size_t a : allowed)
    if (a == n) return true;
  return false;
}

std::size_t max_of(const std::vector<std::size_t>& allowed) {
  std::size_t m = 0;
  for (const std::size_t a : allowed) m = a > m ? a : m;
  return m;
}

bool is_separator(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == ',' || c == ';' || c == '\f' || c == '\v';
}

Table parse_text(std::string_view bytes, const std::string& name,
                 const std::vector<std::size_t>& allowed, const std::vector<double>& fill) {
  const std::size_t max_columns = max_of(allowed);
  Table t;
  t.columns = max_columns;
  t.values.reserve(std::min<std::size_t>(bytes.size() / 2, 1u << 24));
  std::size_t pos = 0, line = 0;
  std::vector<double> row;
  while (pos < bytes.size()) {
    ++line;
    std::size_t end = bytes.find('\n', pos);
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view text = bytes.substr(pos, end - pos);
    const std::size_t line_start = pos;
    pos = end + 1;
    const std::size_t hash = text.find('#');
    if (hash != std::string_view::npos) text = text.substr(0, hash);
    row.clear();
    std::size_t i = 0;
    bool bad = false;
    std::string_view bad_token;
    while (i < text.size()) {
      while (i < text.size() && is_separator(text[i])) ++i;
      if (i >= text.size()) break;
      std::size_t j = i;
      while (j < text.size() && !is_separator(text[j])) ++j;
      const std::string_view tok = text.substr(i, j - i);
      double v = 0;
      if (!detail::parse_double(tok, v)) {
        if (!bad) bad_token = tok;
        bad = true;
      }
      row.push_back(v);
      i = j;
    }
    if (row.empty()) continue;
    if (bad) {
      // A header row ("x,y,z") before any data is allowed; anything else is an error.
      if (t.rows == 0 && line == 1) {
        bool no_number = true;
        for (std::size_t k = 0, a = 0; k < text.size(); k = a) {
          while (k < text.size() && is_separator(text[k])) ++k;
          a = k;
          while (a < text.size() && !is_separator(text[a])) ++a;
          double v = 0;
          if (a > k && detail::parse_double(text.substr(k, a - k), v)) no_number = false;
        }
        if (no_number) continue;
      }
      detail::fail_at_line(name, bytes, line_start, "bad number " + detail::quote(bad_token));
    }
    if (!allowed_count(allowed, row.size())) {
      detail::fail_at_line(name, bytes, line_start,
                           "expected " + columns_text(allowed) +
                               " numbers, found " + std::to_string(row.size()));
    }
    for (std::size_t k = row.size(); k < max_columns; ++k) row.push_back(fill.at(k));
    t.values.insert(t.values.end(), row.begin(), row.end());
    ++t.rows;
  }
  return t;
}

}  // namespace

Table parse_table(std::string_view bytes, const std::string& name,
                  const std::vector<std::size_t>& allowed, const std::vector<double>& fill) {
  if (!is_npy(bytes)) return parse_text(bytes, name, allowed, fill);
  const std::size_t max_columns = max_of(allowed);
  NpyArray a = parse_npy(bytes, name);
  const std::size_t cols = a.shape.size() == 2 ? a.shape[1] : 0;
  if (a.shape.size() != 2 || !allowed_count(allowed, cols)) {
    std::string shape;
    for (const std::size_t d : a.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    detail::fail(name, ".npy array has shape (" + shape + "); expected (N, " +
                           columns_text(allowed) + ")");
  }
  Table t;
  t.rows = a.shape[0];
  t.columns = max_columns;
  if (cols == max_columns) {
    t.values = std::move(a.data);
    return t;
  }
  t.values.reserve(t.rows * max_columns);
  for (std::size_t r = 0; r < t.rows; ++r) {
    for (std::size_t k = 0; k < cols; ++k) t.values.push_back(a.data[r * cols + k]);
    for (std::size_t k = cols; k < max_columns; ++k) t.values.push_back(fill.at(k));
  }
  return t;
}

Table read_table(const std::string& path, const std::vector<std::size_t>& allowed,
                 const std::vector<double>& fill) {
  if (path == "-") {
    std::string bytes((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    return parse_table(bytes, "<stdin>", allowed, fill);
  }
  const std::string bytes = read_file_bytes(path);
  return parse_table(bytes, path, allowed, fill);
}

std::vector<Vec3d> read_points(const std::string& path) {
  const Table t = read_table(path, {3});
  std::vector<Vec3d> points(t.rows);
  for (std::size_t i = 0; i < t.rows; ++i) {
    points[i] = Vec3d{t.values[3 * i], t.values[3 * i + 1], t.values[3 * i + 2]};
  }
  return points;
}

std::vector<Ray<double>> read_rays(const std::string& path) {
  const double inf = ScalarTraits<double>::infinity();
  const Table t = read_table(path, {6, 8}, {0, 0, 0, 0, 0, 0, 0.0, inf});
  std::vector<Ray<double>> rays(t.rows);
  for (std::size_t i = 0; i < t.rows; ++i) {
    const double* r = &t.values[8 * i];
    rays[i] = Ray<double>{Vec3d{r[0], r[1], r[2]}, Vec3d{r[3], r[4], r[5]}, r[6], r[7]};
  }
  return rays;
}

}  // namespace prox::io
