// prox/io/csv.hpp — comma-separated tables with a header row.
//
// CsvWriter buffers rows and writes them to a std::ostream in large blocks;
// numbers are printed by append_number (shortest round-trip), so a CSV read
// back with strtod/numpy gives the same binary values. Fields are never
// quoted: prox writes only numbers and bare identifiers.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "prox/io/number_format.hpp"

namespace prox::io {

class CsvWriter {
 public:
  /// Writes the header row naming each column.
  CsvWriter(std::ostream& out, const std::vector<std::string>& columns) : out_(out) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i) buf_ += ',';
      buf_ += columns[i];
    }
    buf_ += '\n';
  }
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;
  ~CsvWriter() { flush(); }

  /// Appends one field to the current row.
  template <class T>
  CsvWriter& field(T x) {
    sep();
    append_number(buf_, x);
    return *this;
  }
  CsvWriter& text(std::string_view s) {
    sep();
    buf_ += s;
    return *this;
  }
  /// Ends the current row.
  void end_row() {
    buf_ += '\n';
    first_ = true;
    if (buf_.size() > (1u << 20)) flush();
  }
  void flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  void sep() {
    if (!first_) buf_ += ',';
    first_ = false;
  }
  std::ostream& out_;
  std::string buf_;
  bool first_ = true;
};

}  // namespace prox::io
